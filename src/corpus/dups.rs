//! Duplicate clusters, recomputed over the whole store after a build or a merge: exact
//! (same normalised-token hash) and near (MinHash + LSH, estimated Jaccard ≥ threshold).
//! A cluster's id is the id of its first member in (path, line) order, so every build of the
//! same tree gives the same ids.

use std::collections::HashMap;

use rusqlite::{Connection, params};

use super::tokens::{BANDS, BINS, band_hash, from_blob, similarity};

struct Row {
    id: i64,
    exact: i64,
    dup: Option<i64>,
    near: Option<i64>,
    unique: bool,
}

/// The rows whose `dup_cluster`, `near_dup_cluster` or `is_unique` change: (id, dup, near,
/// unique).
pub type Changes = Vec<(i64, Option<i64>, Option<i64>, bool)>;

/// Assign `dup_cluster`, `near_dup_cluster` and `is_unique` to every class; only rows whose
/// values change are written.
pub fn compute_clusters(conn: &mut Connection, threshold: f64) -> rusqlite::Result<usize> {
    let changes = plan(conn, threshold)?;
    apply(conn, &changes)?;
    Ok(changes.len())
}

/// What [`compute_clusters`] would write; reads only (any connection).
pub fn plan(conn: &Connection, threshold: f64) -> rusqlite::Result<Changes> {
    let rows: Vec<Row> = conn
        .prepare(
            "SELECT id, exact_hash, dup_cluster, near_dup_cluster, is_unique FROM classes
             ORDER BY path, line, id",
        )?
        .query_map([], |r| {
            Ok(Row {
                id: r.get(0)?,
                exact: r.get(1)?,
                dup: r.get(2)?,
                near: r.get(3)?,
                unique: r.get::<_, i64>(4)? != 0,
            })
        })?
        .collect::<Result<_, _>>()?;
    // Exact groups: index of the first member, and group sizes.
    let mut first_of: HashMap<i64, usize> = HashMap::with_capacity(rows.len());
    let mut size: HashMap<i64, u32> = HashMap::new();
    for (i, r) in rows.iter().enumerate() {
        first_of.entry(r.exact).or_insert(i);
        *size.entry(r.exact).or_default() += 1;
    }
    let reps: Vec<usize> = (0..rows.len())
        .filter(|i| first_of[&rows[*i].exact] == *i)
        .collect();
    let sigs = load_signatures(conn, reps.iter().map(|i| rows[*i].id))?;
    // Near: union-find over representatives, bucketed by LSH bands.
    let mut parent: Vec<usize> = (0..reps.len()).collect();
    let mut buckets: Vec<HashMap<u64, usize>> = vec![HashMap::new(); BANDS];
    for (k, sig) in sigs.iter().enumerate() {
        let Some(sig) = sig else { continue };
        for (band, bucket) in buckets.iter_mut().enumerate() {
            match bucket.entry(band_hash(sig, band)) {
                std::collections::hash_map::Entry::Occupied(e) => {
                    let j = *e.get();
                    if let Some(other) = &sigs[j]
                        && similarity(sig, other) >= threshold
                    {
                        union(&mut parent, k, j);
                    }
                }
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(k);
                }
            }
        }
    }
    // Root → (first representative in order, members).
    let mut near_first: HashMap<usize, usize> = HashMap::new();
    let mut near_count: HashMap<usize, u32> = HashMap::new();
    for k in 0..reps.len() {
        let root = find(&mut parent, k);
        near_first.entry(root).or_insert(k);
        *near_count.entry(root).or_default() += 1;
    }
    let mut near_of_rep: HashMap<usize, (Option<i64>, bool)> = HashMap::new();
    for (k, &i) in reps.iter().enumerate() {
        let root = find(&mut parent, k);
        let first = near_first[&root];
        let cluster = (near_count[&root] > 1).then(|| rows[reps[first]].id);
        near_of_rep.insert(i, (cluster, first == k));
    }
    let mut changes = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let first = first_of[&r.exact];
        let dup = (size[&r.exact] > 1).then(|| rows[first].id);
        let (near, near_rep) = near_of_rep.get(&first).copied().unwrap_or((None, true));
        let unique = first == i && near_rep;
        if (dup, near, unique) != (r.dup, r.near, r.unique) {
            changes.push((r.id, dup, near, unique));
        }
    }
    Ok(changes)
}

/// Write what [`plan`] found.
pub fn apply(conn: &mut Connection, changes: &Changes) -> rusqlite::Result<()> {
    let tx = conn.transaction()?;
    {
        let mut update = tx.prepare(
            "UPDATE classes SET dup_cluster = ?2, near_dup_cluster = ?3, is_unique = ?4
             WHERE id = ?1",
        )?;
        for (id, dup, near, unique) in changes {
            update.execute(params![id, dup, near, unique])?;
        }
    }
    tx.commit()
}

fn load_signatures(
    conn: &Connection,
    ids: impl Iterator<Item = i64>,
) -> rusqlite::Result<Vec<Option<[u32; BINS]>>> {
    let mut stmt = conn.prepare_cached("SELECT minhash FROM classes WHERE id = ?1")?;
    ids.map(|id| {
        let blob: Option<Vec<u8>> = stmt
            .query_row(params![id], |r| r.get(0))
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })?;
        Ok(blob.and_then(|b| from_blob(&b)))
    })
    .collect()
}

fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

fn union(parent: &mut [usize], a: usize, b: usize) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra != rb {
        // The smaller index (earlier in order) stays root: deterministic.
        let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
        parent[hi] = lo;
    }
}
