//! The funnel as OpenClassGen reports it: files seen → decoded → parsed; classes → with a
//! method → documented → unique → self-contained; every drop counted with its reason.
//! Computed from the store, so a resumed, incremental or merged build reports the same.

use std::collections::BTreeMap;

use rusqlite::Connection;
use serde::Serialize;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Funnel {
    pub files_seen: u64,
    pub decoded: u64,
    /// Decoded files without any syntax error.
    pub parsed: u64,
    /// Decoded files with syntax errors; their error-free classes are kept.
    pub partially_parsed: u64,
    pub classes: u64,
    pub with_methods: u64,
    /// Every program unit (the class and each method) has a docstring.
    pub documented: u64,
    /// Not an exact or near duplicate of an earlier class.
    pub unique: u64,
    /// Depends on nothing but the standard library.
    pub self_contained: u64,
    /// Reason → how many files or classes were dropped for it.
    pub dropped: BTreeMap<String, u64>,
    /// Of the unique classes that are not self-contained (`dropped.outside_stdlib`), what they
    /// need: `third-party: numpy`, `project: relative import`, `unresolved name`, … → how
    /// many classes (one class counts under each of its reasons).
    pub outside_stdlib_because: BTreeMap<String, u64>,
}

fn count(conn: &Connection, sql: &str) -> rusqlite::Result<u64> {
    conn.query_row(sql, [], |r| r.get::<_, i64>(0))
        .map(|n| n.max(0) as u64)
}

pub fn funnel(conn: &Connection) -> rusqlite::Result<Funnel> {
    let mut f = Funnel {
        files_seen: count(conn, "SELECT count(*) FROM files")?,
        decoded: count(conn, "SELECT count(*) FROM files WHERE reason IS NULL")?,
        parsed: count(
            conn,
            "SELECT count(*) FROM files WHERE reason IS NULL AND syntax_errors = 0",
        )?,
        partially_parsed: count(
            conn,
            "SELECT count(*) FROM files WHERE reason IS NULL AND syntax_errors = 1",
        )?,
        classes: count(conn, "SELECT count(*) FROM classes")?,
        with_methods: count(conn, "SELECT count(*) FROM classes WHERE n_methods > 0")?,
        documented: count(
            conn,
            "SELECT count(*) FROM classes WHERE n_methods > 0 AND doc >= 1.0",
        )?,
        unique: count(
            conn,
            "SELECT count(*) FROM classes WHERE n_methods > 0 AND doc >= 1.0 AND is_unique = 1",
        )?,
        self_contained: count(
            conn,
            "SELECT count(*) FROM classes WHERE n_methods > 0 AND doc >= 1.0 AND is_unique = 1
             AND self_contained = 1",
        )?,
        dropped: BTreeMap::new(),
        outside_stdlib_because: BTreeMap::new(),
    };
    let mut stmt = conn
        .prepare("SELECT reason, count(*) FROM files WHERE reason IS NOT NULL GROUP BY reason")?;
    for row in stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))? {
        let (reason, n) = row?;
        f.dropped.insert(reason, n.max(0) as u64);
    }
    let mut stmt = conn.prepare(
        "SELECT b.value, count(*) FROM classes c, json_each(c.blockers) b
         WHERE c.n_methods > 0 AND c.doc >= 1.0 AND c.is_unique = 1 AND c.self_contained = 0
         GROUP BY b.value",
    )?;
    for row in stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))? {
        let (reason, n) = row?;
        f.outside_stdlib_because.insert(reason, n.max(0) as u64);
    }
    let in_errors = count(conn, "SELECT coalesce(sum(classes_dropped), 0) FROM files")?;
    let stages = [
        ("syntax_error_files", f.partially_parsed),
        ("class_syntax_error", in_errors),
        ("no_methods", f.classes - f.with_methods),
        ("undocumented", f.with_methods - f.documented),
        ("duplicate", f.documented - f.unique),
        ("outside_stdlib", f.unique - f.self_contained),
    ];
    for (reason, n) in stages {
        if n > 0 {
            f.dropped.insert(reason.into(), n);
        }
    }
    Ok(f)
}
