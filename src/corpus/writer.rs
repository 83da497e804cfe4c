//! Writing files' rows: a file's classes and its `files` row (with its content hash) are
//! written in one transaction, so a killed build leaves every file either whole or absent, and a
//! rerun resumes from the hashes.

use rusqlite::{Connection, params, params_from_iter};

use super::closure::StoredClosure;
use super::extract::{ClassRow, FileResult};
use super::tokens::to_blob;
use crate::analysis::metrics::METRIC_NAMES;

fn insert_class_sql() -> String {
    let cols: Vec<String> = METRIC_NAMES.iter().map(|m| format!("\"{m}\"")).collect();
    let n = 17 + METRIC_NAMES.len();
    let marks: Vec<String> = (1..=n).map(|i| format!("?{i}")).collect();
    format!(
        "INSERT INTO classes (id, path, repo, qualname, name, line, end_line, n_methods,
         total_program_units, total_doc_str, doc, self_contained, tokens, exact_hash, minhash,
         bases, blockers, {})
         VALUES ({})",
        cols.join(", "),
        marks.join(", ")
    )
}

/// Write a batch of analysed files in one transaction.
pub fn write_batch(conn: &Connection, batch: &[FileResult]) -> rusqlite::Result<()> {
    let mut out = Streaming::new();
    for f in batch {
        out.file(conn, f, true)?;
    }
    out.commit(conn)
}

/// Streams files into open transactions as they arrive, committing every so often: SQLite's
/// work then overlaps the analysis instead of waiting for a full batch.
pub struct Streaming {
    insert_sql: String,
    open: bool,
    pub classes: usize,
    pub files: usize,
}

impl Streaming {
    pub fn new() -> Self {
        Streaming {
            insert_sql: insert_class_sql(),
            open: false,
            classes: 0,
            files: 0,
        }
    }

    fn begin(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        if !self.open {
            conn.execute_batch("BEGIN IMMEDIATE")?;
            self.open = true;
        }
        Ok(())
    }

    /// One analysed file, whole; `known`: the store may have rows of its path to replace (a
    /// path it has no `files` row for has no rows at all: both are committed together).
    pub fn file(&mut self, conn: &Connection, f: &FileResult, known: bool) -> rusqlite::Result<()> {
        self.begin(conn)?;
        if known {
            delete_file(conn, &f.file.path)?;
        }
        write_file(conn, &self.insert_sql, f)?;
        self.classes += f.classes.len();
        self.files += 1;
        Ok(())
    }

    /// A file whose bytes did not change (only its timestamp did): remember the new timestamp.
    pub fn touch(&mut self, conn: &Connection, path: &str, mtime: i64) -> rusqlite::Result<()> {
        self.begin(conn)?;
        conn.prepare_cached("UPDATE files SET mtime_ns = ?2 WHERE path = ?1")?
            .execute(params![path, mtime])?;
        self.files += 1;
        Ok(())
    }

    /// Make what was written so far durable.
    pub fn commit(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        if self.open {
            conn.execute_batch("COMMIT")?;
            self.open = false;
        }
        self.classes = 0;
        self.files = 0;
        Ok(())
    }
}

impl Default for Streaming {
    fn default() -> Self {
        Self::new()
    }
}

/// A file's rows, and its `files` row.
pub(super) fn delete_file(conn: &Connection, path: &str) -> rusqlite::Result<()> {
    delete_classes_of(conn, path)?;
    conn.prepare_cached("DELETE FROM units WHERE path = ?1")?
        .execute(params![path])?;
    conn.prepare_cached("DELETE FROM files WHERE path = ?1")?
        .execute(params![path])?;
    Ok(())
}

/// Plain `INSERT`s (after [`delete_file`] when the path had rows), never `INSERT OR REPLACE`: a
/// statement that may delete rows opens a statement savepoint, and every savepoint makes FTS5
/// flush its pending index to disk as a new segment; per class, that was most of the writer's
/// time. (FTS5 also flushes when a rowid is not above the previous one: `seq` only grows.)
fn write_file(conn: &Connection, insert_sql: &str, f: &FileResult) -> rusqlite::Result<()> {
    for c in &f.classes {
        insert_class(conn, insert_sql, f, c)?;
    }
    for u in &f.units {
        conn.prepare_cached(
            "INSERT INTO units (path, idx, pos, kind, code, class_id) VALUES (?1,?2,?3,?4,?5,?6)",
        )?
        .execute(params![
            f.file.path,
            u.idx,
            u.pos,
            u.kind.as_str(),
            u.code,
            u.class_id
        ])?;
    }
    conn.prepare_cached(
        "INSERT INTO files (path, repo, size, mtime_ns, hash, reason, detail,
         syntax_errors, classes, classes_dropped) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)",
    )?
    .execute(params![
        f.file.path,
        f.file.repo,
        f.file.size as i64,
        f.file.mtime_ns,
        f.hash,
        f.reason,
        f.detail,
        f.syntax_errors,
        f.classes.len() as i64,
        f.classes_dropped,
    ])?;
    Ok(())
}

/// Files gone from the tree: their rows go too.
pub fn delete_files(conn: &mut Connection, paths: &[String]) -> rusqlite::Result<()> {
    let tx = conn.transaction()?;
    for p in paths {
        delete_file(&tx, p)?;
    }
    tx.commit()
}

fn delete_classes_of(tx: &Connection, path: &str) -> rusqlite::Result<()> {
    let seqs: Vec<i64> = tx
        .prepare_cached("SELECT seq FROM classes WHERE path = ?1")?
        .query_map(params![path], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for seq in seqs {
        for sql in [
            "DELETE FROM class_text WHERE seq = ?1",
            "DELETE FROM class_lists WHERE seq = ?1",
            "DELETE FROM methods WHERE seq = ?1",
            "DELETE FROM edges WHERE seq = ?1",
            "DELETE FROM class_fts WHERE rowid = ?1",
            "DELETE FROM classes WHERE seq = ?1",
        ] {
            tx.prepare_cached(sql)?.execute(params![seq])?;
        }
    }
    Ok(())
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

/// A class's rows; its `seq` is the next rowid of `classes`, so every table grows at its end.
fn insert_class(tx: &Connection, sql: &str, f: &FileResult, c: &ClassRow) -> rusqlite::Result<()> {
    let m = &c.metrics;
    let doc = f64::from(m.total_doc_str) / f64::from(m.total_program_units.max(1));
    let mut values: Vec<rusqlite::types::Value> = vec![
        c.id.into(),
        f.file.path.clone().into(),
        f.file.repo.clone().into(),
        c.qualname.clone().into(),
        c.name.clone().into(),
        (c.line as i64).into(),
        (c.end_line as i64).into(),
        (m.methods.len() as i64).into(),
        i64::from(m.total_program_units).into(),
        i64::from(m.total_doc_str).into(),
        doc.into(),
        i64::from(c.closure.blockers.is_empty()).into(),
        (c.fingerprint.tokens as i64).into(),
        c.fingerprint.exact.into(),
        to_blob(&c.fingerprint.signature).into(),
        json(&c.bases).into(),
        json(&c.closure.blockers).into(),
    ];
    values.extend(m.values.iter().map(|v| rusqlite::types::Value::Real(*v)));
    tx.prepare_cached(sql)?.execute(params_from_iter(values))?;
    let seq = tx.last_insert_rowid();
    tx.prepare_cached("INSERT INTO class_lists (seq, methods, edges, deps) VALUES (?1,?2,?3,?4)")?
        .execute(params![
            seq,
            json(&m.methods),
            json(&c.edges),
            json(&c.closure.deps),
        ])?;
    tx.prepare_cached(
        "INSERT INTO class_text (seq, code, skeleton, docstring, imports, module_names, closure)
         VALUES (?1,?2,?3,?4,?5,?6,?7)",
    )?
    .execute(params![
        seq,
        c.code,
        c.skeleton,
        c.docstring,
        json(&c.imports),
        json(&c.module_names),
        json(&StoredClosure::from(&c.closure)),
    ])?;
    let mut names = c.qualname.clone();
    let mut docs = c.docstring.clone().unwrap_or_default();
    for (i, mm) in c.methods.iter().enumerate() {
        names.push(' ');
        names.push_str(&mm.name);
        if let Some(d) = &mm.docstring {
            docs.push('\n');
            docs.push_str(d);
        }
        tx.prepare_cached(
            "INSERT INTO methods (seq, idx, name, signature, docstring, line,
             end_line, decorators) VALUES (?1,?2,?3,?4,?5,?6,?7,?8)",
        )?
        .execute(params![
            seq,
            i as i64,
            mm.name,
            mm.signature,
            mm.docstring,
            mm.line as i64,
            mm.end_line as i64,
            json(&mm.decorators),
        ])?;
    }
    for [a, b] in &c.edges {
        tx.prepare_cached("INSERT INTO edges (seq, src, dst) VALUES (?1, ?2, ?3)")?
            .execute(params![seq, a, b])?;
    }
    tx.prepare_cached(
        "INSERT INTO class_fts (rowid, names, docstrings, code) VALUES (?1,?2,?3,?4)",
    )?
    .execute(params![seq, names, docs, c.code])?;
    Ok(())
}
