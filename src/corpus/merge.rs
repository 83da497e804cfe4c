//! `corpus merge OUT IN...`: shard stores (`--shard K/N`, disjoint by file) into one, then the
//! duplicate clusters recomputed over the whole (a duplicate can span shards).

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use rusqlite::params;

use super::funnel::{Funnel, funnel};
use super::schema::{get_meta, open_ro, open_rw, set_meta};

const TABLES: &[&str] = &["files", "classes", "class_text", "methods"];

pub fn merge(out: &Path, inputs: &[PathBuf]) -> anyhow::Result<Funnel> {
    let mut conn = open_rw(out)?;
    let mut threshold: Option<f64> = None;
    for input in inputs {
        // Checks the version before attaching.
        let ro = open_ro(input)?;
        if threshold.is_none() {
            threshold = get_meta(&ro, "near_threshold")?.and_then(|t| t.parse().ok());
        }
        drop(ro);
        conn.execute(
            "ATTACH DATABASE ?1 AS src",
            params![input.to_string_lossy()],
        )
        .with_context(|| format!("{}: cannot attach", input.display()))?;
        let tx = conn.transaction()?;
        tx.execute_batch(
            "DELETE FROM class_fts WHERE rowid IN (SELECT id FROM src.classes);
             DELETE FROM edges WHERE class_id IN (SELECT id FROM src.classes);",
        )?;
        for t in TABLES {
            tx.execute_batch(&format!(
                "INSERT OR REPLACE INTO main.{t} SELECT * FROM src.{t};"
            ))
            .with_context(|| format!("{}: copying {t}", input.display()))?;
        }
        tx.execute_batch(
            "INSERT INTO main.edges SELECT * FROM src.edges;
             INSERT INTO class_fts (rowid, names, docstrings, code)
             SELECT c.id,
                    c.qualname || coalesce((SELECT ' ' || group_concat(m.name, ' ')
                                            FROM src.methods m WHERE m.class_id = c.id), ''),
                    coalesce(t.docstring, '') ||
                    coalesce((SELECT char(10) || group_concat(m.docstring, char(10))
                              FROM src.methods m
                              WHERE m.class_id = c.id AND m.docstring IS NOT NULL), ''),
                    t.code
             FROM src.classes c JOIN src.class_text t ON t.id = c.id;",
        )?;
        tx.commit()?;
        conn.execute("DETACH DATABASE src", [])?;
    }
    let threshold = threshold.unwrap_or(0.8);
    set_meta(&conn, "near_threshold", &threshold.to_string())?;
    super::finish::finish(&mut conn, out, threshold)?;
    set_meta(&conn, "finalized", "1")?;
    let f = funnel(&conn)?;
    let _ = conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);");
    Ok(f)
}
