//! A store is a file from anywhere (a shard from another machine, a download): before it is
//! read, its schema is checked to be what classlab writes — tables, not views (a view over an
//! infinite recursive query hangs whoever reads it), no triggers (code that runs on a write) —
//! and every read is bounded in time, so a crafted store ends in an error, never a hang.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::Connection;

/// The tables every read needs (the full-text index `class_fts` only answers `text:`
/// filters: a store without it still opens, and such a filter fails with a clear error).
const TABLES: &[&str] = &[
    "meta",
    "files",
    "classes",
    "class_text",
    "class_lists",
    "methods",
    "edges",
    "units",
];

/// Check that the database `schema` (`main`, or an attached one) of `conn` holds only what a
/// store holds. `shown` names the file in the error.
pub fn check_schema(conn: &Connection, schema: &str, shown: &str) -> anyhow::Result<()> {
    let sql = format!("SELECT type, name, coalesce(sql, '') FROM \"{schema}\".sqlite_master");
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query([])?;
    let mut tables = Vec::new();
    while let Some(r) = rows.next()? {
        let (kind, name, sql): (String, String, String) = (r.get(0)?, r.get(1)?, r.get(2)?);
        let shown_name = crate::text::escape_control(&name);
        match kind.as_str() {
            "table" => {
                let virtual_table = sql
                    .trim_start()
                    .to_ascii_uppercase()
                    .starts_with("CREATE VIRTUAL");
                let fts_shadow = name.starts_with("class_fts_");
                if virtual_table
                    && (name != "class_fts" || !sql.to_ascii_lowercase().contains("fts5"))
                {
                    anyhow::bail!(
                        "{shown}: `{shown_name}` is a virtual table a corpus store does not have; \
                         refusing to read it"
                    );
                }
                if !fts_shadow {
                    tables.push(name);
                }
            }
            "index" => {}
            other => anyhow::bail!(
                "{shown}: has a {other} `{shown_name}`, which a corpus store never has (a crafted \
                 file?); refusing to read it"
            ),
        }
    }
    for t in TABLES {
        if !tables.iter().any(|x| x == t) {
            anyhow::bail!("{shown}: has no table `{t}`; not a corpus store of this version");
        }
    }
    Ok(())
}

/// A time bound on a connection's statements: armed around each operation, checked by SQLite
/// every few thousand steps of its virtual machine; past the deadline the statement fails
/// with "interrupted".
#[derive(Debug, Clone, Default)]
pub struct Budget {
    /// Deadline in milliseconds since the epoch; 0 when unarmed.
    deadline: Arc<AtomicU64>,
}

/// Disarms its budget when dropped.
pub struct Armed<'a>(&'a Budget);

impl Drop for Armed<'_> {
    fn drop(&mut self) {
        self.0.deadline.store(0, Ordering::Relaxed);
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl Budget {
    /// Install the check on `conn`.
    pub fn install(conn: &mut Connection) -> Budget {
        let budget = Budget::default();
        let deadline = budget.deadline.clone();
        conn.progress_handler(
            10_000,
            Some(move || {
                let d = deadline.load(Ordering::Relaxed);
                d != 0 && now_ms() > d
            }),
        )
        .ok();
        budget
    }

    /// Statements run until the guard is dropped must finish within `limit`.
    pub fn arm(&self, limit: Duration) -> Armed<'_> {
        self.deadline.store(
            now_ms().saturating_add(limit.as_millis() as u64),
            Ordering::Relaxed,
        );
        Armed(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_and_triggers_are_refused() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE meta(k); CREATE TABLE classes(x); CREATE TABLE class_text(x);
             CREATE TABLE class_lists(x);
             CREATE TABLE methods(x); CREATE TABLE edges(x); CREATE TABLE units(x);
             CREATE VIRTUAL TABLE class_fts USING fts5(a);
             CREATE VIEW files AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n) SELECT i FROM n;",
        )
        .unwrap();
        let e = check_schema(&conn, "main", "s.db").unwrap_err().to_string();
        assert!(e.contains("has a view `files`"), "{e}");
        conn.execute_batch("DROP VIEW files; CREATE TABLE files(x);")
            .unwrap();
        check_schema(&conn, "main", "s.db").unwrap();
        conn.execute_batch("CREATE TRIGGER t AFTER INSERT ON files BEGIN SELECT 1; END;")
            .unwrap();
        assert!(check_schema(&conn, "main", "s.db").is_err());
    }

    #[test]
    fn an_endless_statement_is_interrupted() {
        let mut conn = Connection::open_in_memory().unwrap();
        let budget = Budget::install(&mut conn);
        let _armed = budget.arm(Duration::from_millis(200));
        let started = std::time::Instant::now();
        let r: rusqlite::Result<i64> = conn.query_row(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n) SELECT count(*) FROM n",
            [],
            |r| r.get(0),
        );
        assert!(r.is_err());
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}
