//! Helpers shared by the corpus tests.
#![allow(dead_code)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rusqlite::types::ValueRef;

pub fn write(path: &Path, bytes: &[u8]) {
    if let Some(p) = path.parent() {
        std::fs::create_dir_all(p).unwrap();
    }
    std::fs::write(path, bytes).unwrap();
}

/// The machine's Python standard library, if there is one.
pub fn stdlib() -> Option<PathBuf> {
    let fixed = PathBuf::from("/root/.pyenv/versions/3.11.7/lib/python3.11");
    if fixed.join("os.py").is_file() {
        return Some(fixed);
    }
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .ok()?;
    let p = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    p.join("os.py").is_file().then_some(p)
}

/// Every row of every table (timestamps of files left out: copies differ in them), sorted,
/// plus what full-text search finds: equal dumps mean equal stores.
pub fn dump(db: &Path) -> String {
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let mut out = String::new();
    for (table, cols, order) in [
        (
            "files",
            "path, repo, size, hash, reason, detail, syntax_errors, classes, classes_dropped",
            "path",
        ),
        ("classes", "*", "id"),
        ("class_text", "*", "id"),
        ("methods", "*", "class_id, idx"),
        ("edges", "*", "class_id, src, dst"),
        ("meta", "*", "key"),
    ] {
        let mut stmt = conn
            .prepare(&format!("SELECT {cols} FROM {table} ORDER BY {order}"))
            .unwrap();
        let n = stmt.column_count();
        let mut rows = stmt.query([]).unwrap();
        writeln!(out, "[{table}]").unwrap();
        while let Some(r) = rows.next().unwrap() {
            for i in 0..n {
                let v = match r.get_ref(i).unwrap() {
                    ValueRef::Null => "NULL".to_string(),
                    ValueRef::Integer(x) => x.to_string(),
                    ValueRef::Real(x) => x.to_string(),
                    ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                    ValueRef::Blob(b) => format!("{b:?}"),
                };
                write!(out, "{v}\t").unwrap();
            }
            out.push('\n');
        }
    }
    for word in ["self", "return", "def", "Good"] {
        let mut stmt = conn
            .prepare("SELECT rowid FROM class_fts WHERE class_fts MATCH ?1 ORDER BY rowid")
            .unwrap();
        let ids: Vec<i64> = stmt
            .query_map([word], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        writeln!(out, "[fts {word}] {ids:?}").unwrap();
    }
    out
}
