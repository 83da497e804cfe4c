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

/// The shared RealClassEval classes (both sets, 24), each written as `tree/SET/SNIPPET.py`: its
/// human-written code. Returns how many.
pub fn write_shared_realclasseval(tree: &Path) -> usize {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/realclasseval");
    let mut n = 0;
    for set in ["csn", "post_cut-off"] {
        let mut rows =
            csv::Reader::from_path(data.join(set).join("classes_full_docstr.csv")).unwrap();
        for row in rows.deserialize::<std::collections::HashMap<String, String>>() {
            let row = row.unwrap();
            write(
                &tree.join(set).join(format!("{}.py", row["snippet_id"])),
                row["human_written_code"].as_bytes(),
            );
            n += 1;
        }
    }
    n
}

/// A table's columns but `seq`, as `x."name", …`.
fn columns_but_seq(conn: &rusqlite::Connection, table: &str) -> String {
    let names: Vec<String> = conn
        .prepare(&format!(
            "SELECT name FROM pragma_table_info('{table}') ORDER BY cid"
        ))
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    names
        .iter()
        .filter(|n| *n != "seq")
        .map(|n| format!("x.\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every row of every table (timestamps of files left out: copies differ in them), sorted,
/// plus what full-text search finds: equal dumps mean equal stores.
pub fn dump(db: &Path) -> String {
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let mut out = String::new();
    // Rows are compared by the stable class id: `seq` is only the order rows were written in.
    for (table, sql) in [
        (
            "files",
            "SELECT path, repo, size, hash, reason, detail, syntax_errors, classes, classes_dropped
             FROM files ORDER BY path"
                .to_string(),
        ),
        (
            "classes",
            format!(
                "SELECT {} FROM classes x ORDER BY x.id",
                columns_but_seq(&conn, "classes")
            ),
        ),
        (
            "class_text",
            format!(
                "SELECT c.id, {} FROM class_text x JOIN classes c ON c.seq = x.seq ORDER BY c.id",
                columns_but_seq(&conn, "class_text")
            ),
        ),
        (
            "class_lists",
            format!(
                "SELECT c.id, {} FROM class_lists x JOIN classes c ON c.seq = x.seq ORDER BY c.id",
                columns_but_seq(&conn, "class_lists")
            ),
        ),
        (
            "methods",
            format!(
                "SELECT c.id, {} FROM methods x JOIN classes c ON c.seq = x.seq
                 ORDER BY c.id, x.idx",
                columns_but_seq(&conn, "methods")
            ),
        ),
        (
            "edges",
            "SELECT c.id, x.src, x.dst FROM edges x JOIN classes c ON c.seq = x.seq
             ORDER BY c.id, x.src, x.dst"
                .to_string(),
        ),
        (
            "units",
            "SELECT path, idx, pos, kind, code, class_id FROM units ORDER BY path, idx".to_string(),
        ),
        ("meta", "SELECT * FROM meta ORDER BY key".to_string()),
    ] {
        let mut stmt = conn.prepare(&sql).unwrap();
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
            .prepare(
                "SELECT c.id FROM class_fts f JOIN classes c ON c.seq = f.rowid
                 WHERE class_fts MATCH ?1 ORDER BY c.id",
            )
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
