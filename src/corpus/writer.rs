//! Writing files' rows: one transaction per batch; a file's classes and its `files` row (with
//! its content hash) are committed together, so a killed build leaves every file either whole
//! or absent, and a rerun resumes from the hashes.

use rusqlite::{Connection, Transaction, params, params_from_iter};

use super::extract::{ClassRow, FileResult};
use super::tokens::to_blob;
use crate::analysis::metrics::METRIC_NAMES;

fn insert_class_sql() -> String {
    let cols: Vec<String> = METRIC_NAMES.iter().map(|m| format!("\"{m}\"")).collect();
    let n = 16 + METRIC_NAMES.len();
    let marks: Vec<String> = (1..=n).map(|i| format!("?{i}")).collect();
    format!(
        "INSERT OR REPLACE INTO classes (id, path, repo, qualname, name, line, end_line, n_methods,
         total_program_units, total_doc_str, doc, self_contained, tokens, exact_hash, minhash,
         bases, {})
         VALUES ({})",
        cols.join(", "),
        marks.join(", ")
    )
}

/// Write a batch of analysed files in one transaction.
pub fn write_batch(conn: &mut Connection, batch: &[FileResult]) -> rusqlite::Result<()> {
    let tx = conn.transaction()?;
    let insert_sql = insert_class_sql();
    for f in batch {
        delete_classes_of(&tx, &f.file.path)?;
        for c in &f.classes {
            insert_class(&tx, &insert_sql, f, c)?;
        }
        tx.prepare_cached(
            "INSERT OR REPLACE INTO files (path, repo, size, mtime_ns, hash, reason, detail,
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
    }
    tx.commit()
}

/// A file whose bytes did not change (only its timestamp did): remember the new timestamp.
pub fn touch_files(conn: &mut Connection, files: &[(String, i64)]) -> rusqlite::Result<()> {
    let tx = conn.transaction()?;
    for (path, mtime) in files {
        tx.prepare_cached("UPDATE files SET mtime_ns = ?2 WHERE path = ?1")?
            .execute(params![path, mtime])?;
    }
    tx.commit()
}

/// Files gone from the tree: their rows go too.
pub fn delete_files(conn: &mut Connection, paths: &[String]) -> rusqlite::Result<()> {
    let tx = conn.transaction()?;
    for p in paths {
        delete_classes_of(&tx, p)?;
        tx.prepare_cached("DELETE FROM files WHERE path = ?1")?
            .execute(params![p])?;
    }
    tx.commit()
}

fn delete_classes_of(tx: &Transaction<'_>, path: &str) -> rusqlite::Result<()> {
    let ids: Vec<i64> = tx
        .prepare_cached("SELECT id FROM classes WHERE path = ?1")?
        .query_map(params![path], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for id in ids {
        for sql in [
            "DELETE FROM class_text WHERE id = ?1",
            "DELETE FROM methods WHERE class_id = ?1",
            "DELETE FROM edges WHERE class_id = ?1",
            "DELETE FROM class_fts WHERE rowid = ?1",
            "DELETE FROM classes WHERE id = ?1",
        ] {
            tx.prepare_cached(sql)?.execute(params![id])?;
        }
    }
    Ok(())
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

fn insert_class(
    tx: &Transaction<'_>,
    sql: &str,
    f: &FileResult,
    c: &ClassRow,
) -> rusqlite::Result<()> {
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
        i64::from(c.deps.self_contained()).into(),
        (c.fingerprint.tokens as i64).into(),
        c.fingerprint.exact.into(),
        to_blob(&c.fingerprint.signature).into(),
        json(&c.bases).into(),
    ];
    values.extend(m.values.iter().map(|v| rusqlite::types::Value::Real(*v)));
    tx.prepare_cached(sql)?.execute(params_from_iter(values))?;
    let methods: Vec<serde_json::Value> = c
        .methods
        .iter()
        .map(|mm| serde_json::json!({"name": mm.name, "signature": mm.signature, "line": mm.line}))
        .collect();
    tx.prepare_cached(
        "INSERT OR REPLACE INTO class_text (id, code, skeleton, docstring, methods, edges,
         imports, module_names, deps) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)",
    )?
    .execute(params![
        c.id,
        c.code,
        c.skeleton,
        c.docstring,
        json(&methods),
        json(&c.edges),
        json(&c.imports),
        json(&c.module_names),
        json(&c.deps),
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
            "INSERT OR REPLACE INTO methods (class_id, idx, name, signature, docstring, line,
             end_line, decorators) VALUES (?1,?2,?3,?4,?5,?6,?7,?8)",
        )?
        .execute(params![
            c.id,
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
        tx.prepare_cached("INSERT INTO edges (class_id, src, dst) VALUES (?1, ?2, ?3)")?
            .execute(params![c.id, a, b])?;
    }
    tx.prepare_cached(
        "INSERT INTO class_fts (rowid, names, docstrings, code) VALUES (?1,?2,?3,?4)",
    )?
    .execute(params![c.id, names, docs, c.code])?;
    Ok(())
}
