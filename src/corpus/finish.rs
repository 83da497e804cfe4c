//! The passes after the files are in (a build or a merge): duplicate clusters, subclass
//! counts, indexes. The two recounts read on connections of their own, in parallel, while the
//! store's connection builds the indexes their updates do not touch; then their updates and the
//! last indexes are written in one transaction.

use std::path::Path;

use anyhow::Context as _;
use rusqlite::Connection;

use super::schema::{RECOUNTED_INDEXES, index_metrics, index_metrics_except, open_ro};
use super::{derived, dups};

/// Cluster, recount and index the store at `path`, open for writing as `conn`.
pub fn finish(conn: &mut Connection, path: &Path, threshold: f64) -> anyhow::Result<()> {
    let (clusters, counts, indexed) = std::thread::scope(|s| {
        let clusters = s.spawn(|| -> anyhow::Result<dups::Changes> {
            Ok(dups::plan(&reader(path)?, threshold)?)
        });
        let counts =
            s.spawn(|| -> anyhow::Result<Vec<(i64, f64)>> { Ok(derived::plan(&reader(path)?)?) });
        let indexed = index_metrics_except(conn, RECOUNTED_INDEXES);
        (joined(clusters.join()), joined(counts.join()), indexed)
    });
    indexed.context("indexing the corpus store")?;
    let clusters = clusters.context("computing duplicate clusters")?;
    let counts = counts.context("counting subclasses")?;
    let tx = conn.transaction()?;
    dups::apply(&tx, &clusters).context("writing duplicate clusters")?;
    derived::apply(&tx, &counts).context("writing subclass counts")?;
    index_metrics(&tx).context("indexing the corpus store")?;
    tx.commit().context("writing the final passes")?;
    Ok(())
}

/// A read connection for a pass that scans the whole store once: through SQLite's small page
/// cache rather than mapped (`open_ro` maps the store for the browser's random lookups), so the
/// scan does not count the store's pages as the build's memory.
fn reader(path: &Path) -> anyhow::Result<Connection> {
    let conn = open_ro(path)?;
    conn.pragma_update(None, "mmap_size", 0)?;
    Ok(conn)
}

fn joined<T>(r: std::thread::Result<anyhow::Result<T>>) -> anyhow::Result<T> {
    r.unwrap_or_else(|_| Err(anyhow::anyhow!("a final pass over the store panicked")))
}
