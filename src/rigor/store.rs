//! Results kept in one SQLite file, one row per analysed task, keyed by the digest of what
//! decides the result (reference, tests, operators, driver, interpreter, options: see
//! `plan::key`). A row is committed only when its task is complete, in WAL mode, so a
//! `kill -9` at any moment loses at most the tasks in flight, and a rerun with nothing changed
//! reads every row back instead of running. Shards write their own files;
//! [`merge`] joins them.
//!
//! SQLite rather than a JSON file per task: a 300k-class corpus would mean 300k files, and the
//! TUI, `report` and `eval` look results up by task and subject digest through an index.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};

use super::result::TaskRigor;

/// `rigor.db` in classlab's data directory (`$XDG_DATA_HOME/classlab`): one store for every
/// dataset, since rows are keyed by content.
pub fn default_path() -> PathBuf {
    directories::ProjectDirs::from("", "", "classlab")
        .map_or_else(|| PathBuf::from("."), |d| d.data_dir().to_path_buf())
        .join("rigor.db")
}

/// The store's schema version (`PRAGMA user_version`).
pub const SCHEMA: i64 = 1;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: {message}")]
    Sqlite { path: String, message: String },
    #[error("{path}: a rigor store of schema {found}, this classlab reads {SCHEMA}")]
    Schema { path: String, found: i64 },
    #[error("{path}: row {key}: unreadable result ({message})")]
    Row {
        path: String,
        key: String,
        message: String,
    },
}

pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

/// One stored row: what identifies it and the result.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub key: String,
    pub task_id: String,
    /// Digest of the reference and the tests alone (what `report` and the TUI look up by).
    pub subject: String,
    pub result: TaskRigor,
}

impl Store {
    /// Open (creating it and its directory if need be).
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let err = |e: rusqlite::Error| StoreError::Sqlite {
            path: path.display().to_string(),
            message: e.to_string(),
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::Sqlite {
                path: dir.display().to_string(),
                message: e.to_string(),
            })?;
        }
        let conn = Connection::open(path).map_err(err)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(err)?;
        let found: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(err)?;
        let tables: i64 = conn
            .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
            .map_err(err)?;
        if tables > 0 && found != SCHEMA {
            return Err(StoreError::Schema {
                path: path.display().to_string(),
                found,
            });
        }
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(err)?;
        conn.execute_batch(&format!(
            "CREATE TABLE IF NOT EXISTS results (
                key TEXT PRIMARY KEY,
                task_id TEXT NOT NULL,
                subject TEXT NOT NULL,
                seq INTEGER NOT NULL,
                result TEXT NOT NULL
            );
            CREATE INDEX IF NOT EXISTS results_subject ON results(task_id, subject, seq);
            PRAGMA user_version = {SCHEMA};"
        ))
        .map_err(err)?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn sql_err(&self, e: rusqlite::Error) -> StoreError {
        StoreError::Sqlite {
            path: self.path.display().to_string(),
            message: e.to_string(),
        }
    }

    fn decode(&self, key: &str, text: &str) -> Result<TaskRigor, StoreError> {
        serde_json::from_str(text).map_err(|e| StoreError::Row {
            path: self.path.display().to_string(),
            key: key.to_string(),
            message: e.to_string(),
        })
    }

    /// The result stored under `key`.
    pub fn get(&self, key: &str) -> Result<Option<TaskRigor>, StoreError> {
        let text: Option<String> = self
            .conn
            .query_row("SELECT result FROM results WHERE key = ?1", [key], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| self.sql_err(e))?;
        text.map(|t| self.decode(key, &t)).transpose()
    }

    /// The newest result for this task's reference and tests, whatever the interpreter or
    /// options it was computed with.
    pub fn latest(&self, task_id: &str, subject: &str) -> Result<Option<TaskRigor>, StoreError> {
        let row: Option<(String, String)> = self
            .conn
            .query_row(
                "SELECT key, result FROM results WHERE task_id = ?1 AND subject = ?2
                 ORDER BY seq DESC LIMIT 1",
                [task_id, subject],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(|e| self.sql_err(e))?;
        row.map(|(k, t)| self.decode(&k, &t)).transpose()
    }

    /// Store (or replace) one task's result, committed at once.
    pub fn put(&self, key: &str, subject: &str, r: &TaskRigor) -> Result<(), StoreError> {
        let text = serde_json::to_string(r).map_err(|e| StoreError::Row {
            path: self.path.display().to_string(),
            key: key.to_string(),
            message: e.to_string(),
        })?;
        self.conn
            .execute(
                "INSERT OR REPLACE INTO results (key, task_id, subject, seq, result)
                 VALUES (?1, ?2, ?3, (SELECT coalesce(max(seq), 0) + 1 FROM results), ?4)",
                params![key, r.task_id, subject, text],
            )
            .map_err(|e| self.sql_err(e))?;
        Ok(())
    }

    /// Every row, in the order they were stored.
    pub fn rows(&self) -> Result<Vec<Row>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT key, task_id, subject, result FROM results ORDER BY seq")
            .map_err(|e| self.sql_err(e))?;
        let raw: Vec<(String, String, String, String)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .and_then(Iterator::collect)
            .map_err(|e| self.sql_err(e))?;
        raw.into_iter()
            .map(|(key, task_id, subject, text)| {
                let result = self.decode(&key, &text)?;
                Ok(Row {
                    key,
                    task_id,
                    subject,
                    result,
                })
            })
            .collect()
    }
}

/// Rows copied into `out` from each input, in order (a key already in `out`, or in an
/// earlier input, is replaced by the later one: they are the same computation).
pub fn merge(out: &Path, inputs: &[PathBuf]) -> Result<usize, StoreError> {
    let dst = Store::open(out)?;
    let mut n = 0;
    for input in inputs {
        if !input.exists() {
            return Err(StoreError::Sqlite {
                path: input.display().to_string(),
                message: "no such file".into(),
            });
        }
        let src = Store::open(input)?;
        for row in src.rows()? {
            dst.put(&row.key, &row.subject, &row.result)?;
            n += 1;
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rigor::run::Analysis;

    fn result(id: &str, wall: f64) -> TaskRigor {
        TaskRigor::new(
            id,
            "",
            Vec::new(),
            Analysis {
                wall_s: wall,
                ..Analysis::default()
            },
        )
    }

    #[test]
    fn put_get_latest_and_merge() {
        let dir = tempfile::tempdir().unwrap();
        let a = Store::open(&dir.path().join("a.db")).unwrap();
        a.put("k1", "s1", &result("T1", 1.0)).unwrap();
        a.put("k2", "s1", &result("T1", 2.0)).unwrap();
        assert_eq!(a.get("k1").unwrap().unwrap().wall_s, 1.0);
        assert_eq!(a.get("nope").unwrap(), None);
        assert_eq!(a.latest("T1", "s1").unwrap().unwrap().wall_s, 2.0);
        assert_eq!(a.latest("T1", "other").unwrap(), None);
        let b = Store::open(&dir.path().join("b.db")).unwrap();
        b.put("k3", "s2", &result("T2", 3.0)).unwrap();
        drop((a, b));
        let out = dir.path().join("sub/out.db");
        let n = merge(&out, &[dir.path().join("a.db"), dir.path().join("b.db")]).unwrap();
        assert_eq!(n, 3);
        let m = Store::open(&out).unwrap();
        assert_eq!(m.rows().unwrap().len(), 3);
        assert!(merge(&out, &[dir.path().join("missing.db")]).is_err());
    }

    #[test]
    fn another_schema_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.db");
        let c = Connection::open(&p).unwrap();
        c.execute_batch("CREATE TABLE t(x); PRAGMA user_version = 9;")
            .unwrap();
        drop(c);
        let e = Store::open(&p).unwrap_err().to_string();
        assert!(e.contains("schema 9") && e.contains("x.db"), "{e}");
    }
}
