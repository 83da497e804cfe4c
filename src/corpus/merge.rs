//! `corpus merge OUT IN...`: shard stores (`--shard K/N`, disjoint by file) into one, then the
//! duplicate clusters recomputed over the whole (a duplicate can span shards).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context as _;
use rusqlite::{Connection, params};

use super::funnel::{Funnel, funnel};
use super::guard::{Budget, check_schema};
use super::lock::StoreLock;
use super::query::Store;
use super::schema::{get_meta, open_ro, open_rw, set_meta};
use super::writer;

/// The longest copying one input may take: far above a real shard's (a 300k-class store
/// merges in seconds), a bound for a crafted one.
const INPUT_LIMIT: Duration = Duration::from_secs(30 * 60);

pub fn merge(out: &Path, inputs: &[PathBuf]) -> anyhow::Result<Funnel> {
    let _lock = StoreLock::acquire(out, "merge")?;
    let mut conn = open_rw(out)?;
    let budget = Budget::install(&mut conn);
    // Unfinished until the final passes are written (an interrupted merge says so).
    set_meta(&conn, "finalized", "0")?;
    let sql = copy_sql(&conn)?;
    let mut threshold: Option<f64> = None;
    let mut roots: BTreeSet<String> = get_meta(&conn, "roots")?
        .and_then(|r| serde_json::from_str::<Vec<String>>(&r).ok())
        .unwrap_or_default()
        .into_iter()
        .collect();
    for input in inputs {
        let shown = crate::text::escape_control(&input.display().to_string()).into_owned();
        // Checks the version and the schema before attaching.
        let ro = open_ro(input)?;
        if let Some(why) = Store::unfinished_in(&ro, input)? {
            anyhow::bail!("{why}; not merging an unfinished store");
        }
        if threshold.is_none() {
            threshold = get_meta(&ro, "near_threshold")?.and_then(|t| t.parse().ok());
        }
        if let Some(r) =
            get_meta(&ro, "roots")?.and_then(|r| serde_json::from_str::<Vec<String>>(&r).ok())
        {
            roots.extend(r);
        }
        drop(ro);
        conn.execute(
            "ATTACH DATABASE ?1 AS src",
            params![input.to_string_lossy()],
        )
        .with_context(|| format!("{shown}: cannot attach"))?;
        // Again, on what is attached (the file may have changed since).
        if let Err(e) = check_schema(&conn, "src", &shown) {
            let _ = conn.execute("DETACH DATABASE src", []);
            return Err(e);
        }
        let _bound = budget.arm(INPUT_LIMIT);
        let tx = conn.transaction()?;
        // The files it holds replace main's rows of the same paths.
        let replaced: Vec<String> = tx
            .prepare("SELECT path FROM src.files WHERE path IN (SELECT path FROM main.files)")?
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        for path in &replaced {
            writer::delete_file(&tx, path)?;
        }
        tx.execute_batch(&sql)
            .with_context(|| format!("{}: copying its rows", input.display()))?;
        tx.commit()?;
        conn.execute("DETACH DATABASE src", [])?;
    }
    let threshold = threshold.unwrap_or(0.8);
    set_meta(&conn, "near_threshold", &threshold.to_string())?;
    let roots: Vec<String> = roots.into_iter().collect();
    set_meta(&conn, "roots", &serde_json::to_string(&roots)?)?;
    super::finish::finish(&mut conn, out, threshold)?;
    set_meta(&conn, "finalized", "1")?;
    let f = funnel(&conn)?;
    let _ = conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);");
    Ok(f)
}

/// The columns of `table` but `seq`, comma-separated, each prefixed with `prefix`.
fn columns(conn: &Connection, table: &str, prefix: &str) -> rusqlite::Result<String> {
    let names: Vec<String> = conn
        .prepare(&format!(
            "SELECT name FROM pragma_table_info('{table}') ORDER BY cid"
        ))?
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<Result<_, _>>()?;
    Ok(names
        .iter()
        .filter(|n| *n != "seq")
        .map(|n| format!("{prefix}\"{n}\""))
        .collect::<Vec<_>>()
        .join(", "))
}

/// Copies the attached store `src` into `main` (whose rows of its files are gone): its classes
/// are appended (new `seq`s, in its order) and their rows follow them by the stable class id.
fn copy_sql(conn: &Connection) -> rusqlite::Result<String> {
    let classes = columns(conn, "classes", "")?;
    let src_classes = columns(conn, "classes", "s.")?;
    let text = columns(conn, "class_text", "")?;
    let src_text = columns(conn, "class_text", "x.")?;
    let lists = columns(conn, "class_lists", "")?;
    let src_lists = columns(conn, "class_lists", "x.")?;
    let methods = columns(conn, "methods", "")?;
    let src_methods = columns(conn, "methods", "x.")?;
    // A `src` row `x` with its class `s` and the `seq` (`m.seq`) that class got in `main`.
    let mapped = "JOIN src.classes s ON s.seq = x.seq JOIN main.classes m ON m.id = s.id";
    Ok(format!(
        "INSERT INTO main.files SELECT * FROM src.files;
         INSERT INTO main.units SELECT * FROM src.units;
         INSERT INTO main.classes ({classes}) SELECT {src_classes} FROM src.classes s ORDER BY s.seq;
         INSERT INTO main.class_text (seq, {text})
             SELECT m.seq, {src_text} FROM src.class_text x {mapped} ORDER BY m.seq;
         INSERT INTO main.class_lists (seq, {lists})
             SELECT m.seq, {src_lists} FROM src.class_lists x {mapped} ORDER BY m.seq;
         INSERT INTO main.methods (seq, {methods})
             SELECT m.seq, {src_methods} FROM src.methods x {mapped} ORDER BY m.seq, x.idx;
         INSERT INTO main.edges (seq, src, dst)
             SELECT m.seq, x.src, x.dst FROM src.edges x {mapped} ORDER BY m.seq;
         INSERT INTO class_fts (rowid, names, docstrings, code)
             SELECT m.seq,
                    s.qualname || coalesce((SELECT ' ' || group_concat(y.name, ' ')
                                            FROM src.methods y WHERE y.seq = s.seq), ''),
                    coalesce(x.docstring, '') ||
                    coalesce((SELECT char(10) || group_concat(y.docstring, char(10))
                              FROM src.methods y
                              WHERE y.seq = s.seq AND y.docstring IS NOT NULL), ''),
                    x.code
             FROM src.class_text x {mapped} ORDER BY m.seq;"
    ))
}
