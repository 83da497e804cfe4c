//! The passes after the files are in (a build or a merge): duplicate clusters, subclass
//! counts, indexes. The two recounts read on a connection of their own while the store's
//! connection builds the indexes their updates do not touch, so on two cores their time is
//! mostly hidden; then their updates are written and the last indexes built.

use std::path::Path;

use anyhow::Context as _;
use rusqlite::Connection;

use super::schema::{RECOUNTED_INDEXES, index_metrics, index_metrics_except, open_ro};
use super::{derived, dups};

/// Cluster, recount and index the store at `path`, open for writing as `conn`.
pub fn finish(conn: &mut Connection, path: &Path, threshold: f64) -> anyhow::Result<()> {
    let (planned, indexed) = std::thread::scope(|s| {
        let planner = s.spawn(|| -> anyhow::Result<(dups::Changes, Vec<(i64, f64)>)> {
            let ro = open_ro(path)?;
            Ok((dups::plan(&ro, threshold)?, derived::plan(&ro)?))
        });
        let indexed = index_metrics_except(conn, RECOUNTED_INDEXES);
        let planned = match planner.join() {
            Ok(r) => r,
            Err(_) => Err(anyhow::anyhow!("the duplicate-cluster pass panicked")),
        };
        (planned, indexed)
    });
    indexed.context("indexing the corpus store")?;
    let (clusters, counts) = planned.context("computing duplicate clusters")?;
    dups::apply(conn, &clusters).context("writing duplicate clusters")?;
    derived::apply(conn, &counts).context("writing subclass counts")?;
    index_metrics(conn).context("indexing the corpus store")?;
    Ok(())
}
