//! The store's schema (documented in `docs/corpus.md`), versioned in `meta`.

use std::path::Path;

use anyhow::{Context as _, bail};
use rusqlite::{Connection, OptionalExtension, params};

use super::guard::check_schema;
use crate::analysis::metrics::METRIC_NAMES;

/// Bumped on any incompatible change; readers refuse other versions.
/// Version 2: rows are keyed by `seq` (insertion order) rather than by the hashed class id.
/// Version 3: classes carry their executable closure (`units`, `class_text.closure`,
/// `classes.blockers`) and their distinct method names (`class_text.methods`).
/// Version 4: the lists a result line carries (`methods`, `edges`, `deps`) move from
/// `class_text` to `class_lists`, so a whole result set never reads a page of code.
pub const SCHEMA_VERSION: i64 = 4;

/// Metric columns as SQL (`"AvgCountLine" REAL, …`).
fn metric_columns() -> String {
    METRIC_NAMES
        .iter()
        .map(|m| format!("\"{m}\" REAL NOT NULL"))
        .collect::<Vec<_>>()
        .join(",\n    ")
}

fn create_sql() -> String {
    format!(
        "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY,
    repo TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    hash TEXT NOT NULL,
    reason TEXT,
    detail TEXT NOT NULL DEFAULT '',
    syntax_errors INTEGER NOT NULL DEFAULT 0,
    classes INTEGER NOT NULL DEFAULT 0,
    classes_dropped INTEGER NOT NULL DEFAULT 0
);
-- Narrow rows (metrics first, text elsewhere) keep scans and metric filters fast. Every table
-- is keyed by `seq`, the order rows were written in, so a build appends to its B-trees; keyed
-- by the hashed `id`, each commit rewrote leaf pages all over them.
CREATE TABLE IF NOT EXISTS classes (
    seq INTEGER PRIMARY KEY,
    id INTEGER NOT NULL UNIQUE,
    path TEXT NOT NULL,
    repo TEXT NOT NULL,
    qualname TEXT NOT NULL,
    name TEXT NOT NULL,
    line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    n_methods INTEGER NOT NULL,
    total_program_units INTEGER NOT NULL,
    total_doc_str INTEGER NOT NULL,
    doc REAL NOT NULL,
    self_contained INTEGER NOT NULL,
    tokens INTEGER NOT NULL,
    exact_hash INTEGER NOT NULL,
    -- What the duplicate and inheritance passes read for every class, kept off the wide rows.
    minhash BLOB NOT NULL,
    bases TEXT NOT NULL,
    -- Why it is not self-contained, as short keys (JSON list; empty when it is).
    blockers TEXT NOT NULL,
    dup_cluster INTEGER,
    near_dup_cluster INTEGER,
    is_unique INTEGER NOT NULL DEFAULT 1,
    {metrics}
);
CREATE INDEX IF NOT EXISTS classes_path ON classes(path, line);
CREATE INDEX IF NOT EXISTS classes_exact ON classes(exact_hash);
-- What every result line carries besides metrics, in pages of their own: in `class_text` each
-- row's lookup read a 32 KiB page mostly full of code (565 MB of code against 55 MB of lists on
-- a 300k-class store).
CREATE TABLE IF NOT EXISTS class_lists (
    seq INTEGER PRIMARY KEY,
    -- Distinct method names in definition order (JSON): the one method count.
    methods TEXT NOT NULL,
    edges TEXT NOT NULL,
    deps TEXT NOT NULL
);
-- Small columns first, code last: reading them never touches the code's overflow pages.
CREATE TABLE IF NOT EXISTS class_text (
    seq INTEGER PRIMARY KEY,
    imports TEXT NOT NULL,
    module_names TEXT NOT NULL,
    closure TEXT NOT NULL,
    docstring TEXT,
    skeleton TEXT NOT NULL,
    code TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS methods (
    seq INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    name TEXT NOT NULL,
    signature TEXT NOT NULL,
    docstring TEXT,
    line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    decorators TEXT NOT NULL,
    PRIMARY KEY (seq, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS edges (
    seq INTEGER NOT NULL,
    src TEXT NOT NULL,
    dst TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS edges_seq ON edges(seq);
-- The module-level pieces classes' closures need (closure/mod.rs), per file.
CREATE TABLE IF NOT EXISTS units (
    path TEXT NOT NULL,
    idx INTEGER NOT NULL,
    pos INTEGER NOT NULL,
    kind TEXT NOT NULL,
    code TEXT NOT NULL,
    class_id INTEGER,
    PRIMARY KEY (path, idx)
) WITHOUT ROWID;
-- rowid = classes.seq
CREATE VIRTUAL TABLE IF NOT EXISTS class_fts USING fts5(
    names, docstrings, code, content='', contentless_delete=1
);",
        metrics = metric_columns()
    )
}

/// Page size of a new store.
const PAGE_SIZE: i64 = 32 * 1024;

/// Open (creating if needed) a store for writing: WAL, schema checked. Refuses any other file
/// (a text file, another program's SQLite database): a build never writes into what it did not
/// make.
pub fn open_rw(path: &Path) -> anyhow::Result<Connection> {
    refuse_foreign(path)?;
    let conn =
        Connection::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
    // What the file is, decided before anything is written to it (even a pragma's header).
    let version = read_version(&conn, path)?;
    match version {
        None => {
            let tables: Vec<String> = conn
                .prepare("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' LIMIT 4")?
                .query_map([], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            if !tables.is_empty() {
                anyhow::bail!(
                    "{}: an SQLite database that is not a corpus store (it holds {}); refusing to \
                     write into it: choose another --out",
                    shown(path),
                    tables
                        .iter()
                        .map(|t| format!("`{}`", crate::text::escape_control(t)))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
        }
        Some(v) if v == SCHEMA_VERSION => check_schema(&conn, "main", &shown(path))?,
        Some(v) => return Err(other_version(path, v)),
    }
    // Large pages for a new store (no effect on an existing one): rows carry kilobytes of code,
    // and a build writes every page twice (WAL, then the file); 32 KiB pages made the stdlib
    // build's writes about a third cheaper than 4 KiB ones.
    conn.pragma_update(None, "page_size", PAGE_SIZE)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "cache_size", -65536)?;
    // A build checkpoints from a thread of its own (`checkpoint::Checkpointer`); the writer's own
    // checkpoint is a safety net for when that falls behind (~256 MB of WAL).
    conn.pragma_update(None, "wal_autocheckpoint", (256 << 20) / PAGE_SIZE)?;
    conn.busy_timeout(std::time::Duration::from_secs(30))?;
    if version.is_none() {
        conn.execute_batch(&create_sql())
            .with_context(|| format!("{}: creating the schema", path.display()))?;
        conn.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES ('schema_version', ?1)",
            params![SCHEMA_VERSION.to_string()],
        )?;
    }
    Ok(conn)
}

/// The path as an error shows it (control characters escaped).
fn shown(path: &Path) -> String {
    crate::text::escape_control(&path.display().to_string()).into_owned()
}

/// An existing file that is not an SQLite database is not ours to overwrite.
fn refuse_foreign(path: &Path) -> anyhow::Result<()> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(());
    };
    if !meta.is_file() {
        anyhow::bail!(
            "{}: exists and is not a file; choose another --out",
            shown(path)
        );
    }
    if meta.len() == 0 {
        return Ok(());
    }
    let mut head = [0u8; 16];
    let read =
        std::fs::File::open(path).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head));
    if read.is_err() || &head != b"SQLite format 3\0" {
        anyhow::bail!(
            "{}: exists and is not a corpus store (not an SQLite database); refusing to \
             overwrite it: choose another --out",
            shown(path)
        );
    }
    Ok(())
}

/// Open an existing store read-only, checking its version.
pub fn open_ro(path: &Path) -> anyhow::Result<Connection> {
    if !path.is_file() {
        bail!("{}: no such corpus store", path.display());
    }
    let conn = Connection::open_with_flags(
        path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .with_context(|| format!("{}: cannot open", path.display()))?;
    match read_version(&conn, path)? {
        Some(v) if v == SCHEMA_VERSION => {
            check_schema(&conn, "main", &shown(path))?;
            // Reads straight from the OS page cache: a filter that walks an index and looks
            // each row up touches pages all over `classes` (175 MB at 300k classes), far more
            // than SQLite's 2 MB default cache holds; copied through that cache, the issue's
            // example filter took 1.3 s over 300k classes, mapped 0.4 s.
            conn.pragma_update(None, "mmap_size", 1i64 << 31)?;
            Ok(conn)
        }
        Some(v) => Err(other_version(path, v)),
        None => bail!("{}: not a classlab corpus store", path.display()),
    }
}

fn other_version(path: &Path, v: i64) -> anyhow::Error {
    anyhow::anyhow!(
        "{}: corpus schema version {v}, this classlab reads version {SCHEMA_VERSION}; \
         build the store again (`classlab corpus build PATH... --out FILE`)",
        path.display()
    )
}

/// Is this file a corpus store (for `--dataset` detection)?
pub fn is_store(path: &Path) -> bool {
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok()
        && &head == b"SQLite format 3\0"
        && open_ro(path).is_ok()
}

fn read_version(conn: &Connection, path: &Path) -> anyhow::Result<Option<i64>> {
    let has_meta: bool =
        conn.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='meta'",
            [],
            |r| r.get::<_, i64>(0),
        )
        .map_err(|_| {
            anyhow::anyhow!(
                "{}: not a corpus store (not an SQLite database)",
                path.display()
            )
        })? > 0;
    if !has_meta {
        return Ok(None);
    }
    let v: Option<String> = conn
        .query_row(
            "SELECT value FROM meta WHERE key='schema_version'",
            [],
            |r| r.get(0),
        )
        .optional()?;
    Ok(v.and_then(|v| v.parse().ok()))
}

pub fn set_meta(conn: &Connection, key: &str, value: &str) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES (?1, ?2)",
        params![key, value],
    )
    .map(|_| ())
}

pub fn get_meta(conn: &Connection, key: &str) -> rusqlite::Result<Option<String>> {
    conn.query_row("SELECT value FROM meta WHERE key=?1", params![key], |r| {
        r.get(0)
    })
    .optional()
}

/// A store gets its metric indexes from this many classes on. Below it a full scan answers a
/// sorted page in a few milliseconds (6 ms at 13k classes, measured), so the indexes' build
/// time (0.15 s at 13k, a tenth of a stdlib build) and space would buy nothing. Once made,
/// SQLite keeps them up to date, whatever the store's size later.
pub const INDEXED_FROM: i64 = 50_000;

/// Indexes on every metric column, made once the bulk load is done (cheaper than keeping
/// them up to date row by row) and only on a store of [`INDEXED_FROM`] classes or more.
pub fn index_metrics(conn: &Connection) -> rusqlite::Result<()> {
    index_metrics_except(conn, &[])
}

/// The indexes over what the final passes update (`CountClassDerived`, the two clusters).
pub const RECOUNTED_INDEXES: &[&str] = &["m_CountClassDerived", "classes_dup", "classes_near"];

/// [`index_metrics`] without the indexes named in `skip`.
pub fn index_metrics_except(conn: &Connection, skip: &[&str]) -> rusqlite::Result<()> {
    let classes: i64 = conn.query_row("SELECT count(*) FROM classes", [], |r| r.get(0))?;
    if classes < INDEXED_FROM {
        return Ok(());
    }
    let mut indexes: Vec<(String, String)> = METRIC_NAMES
        .iter()
        .chain(&["total_program_units", "total_doc_str", "doc", "n_methods"])
        .map(|m| (format!("m_{m}"), format!("\"{m}\"")))
        .collect();
    indexes.push(("classes_dup".into(), "dup_cluster".into()));
    indexes.push(("classes_near".into(), "near_dup_cluster".into()));
    let sql: String = indexes
        .iter()
        .filter(|(name, _)| !skip.contains(&name.as_str()))
        .map(|(name, column)| {
            format!("CREATE INDEX IF NOT EXISTS \"{name}\" ON classes({column});\n")
        })
        .collect();
    conn.execute_batch(&sql)
}
