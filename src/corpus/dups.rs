//! Duplicate clusters, recomputed over the whole store after a build or a merge: exact
//! (same normalised-token hash) and near (MinHash + LSH, estimated Jaccard ≥ threshold).
//! A cluster's id is the id of its first member in (path, line) order, so every build of the
//! same tree gives the same ids.

use rusqlite::{Connection, params};
use rustc_hash::FxHashMap;

use super::tokens::{BANDS, BINS, band_hash, from_blob, similarity};

struct Row {
    seq: i64,
    id: i64,
    exact: i64,
    dup: Option<i64>,
    near: Option<i64>,
    unique: bool,
}

/// The rows whose `dup_cluster`, `near_dup_cluster` or `is_unique` change: (seq, dup, near,
/// unique).
pub type Changes = Vec<(i64, Option<i64>, Option<i64>, bool)>;

/// Which rows' `dup_cluster`, `near_dup_cluster` and `is_unique` change, over every class of
/// the store; reads only (any connection), in one pass in (path, line) order.
pub fn plan(conn: &Connection, threshold: f64) -> rusqlite::Result<Changes> {
    let mut rows: Vec<Row> = Vec::new();
    // Exact groups: index of the first member, and group sizes.
    let mut first_of: FxHashMap<i64, usize> = FxHashMap::default();
    let mut size: FxHashMap<i64, u32> = FxHashMap::default();
    // Representatives (first of their exact group) and their MinHash signatures.
    let mut reps: Vec<usize> = Vec::new();
    let mut sigs: Vec<Option<[u32; BINS]>> = Vec::new();
    let mut stmt = conn.prepare(
        "SELECT id, exact_hash, dup_cluster, near_dup_cluster, is_unique, minhash, seq
         FROM classes ORDER BY path, line, id",
    )?;
    let mut q = stmt.query([])?;
    while let Some(r) = q.next()? {
        let i = rows.len();
        let exact: i64 = r.get(1)?;
        *size.entry(exact).or_default() += 1;
        if let std::collections::hash_map::Entry::Vacant(e) = first_of.entry(exact) {
            e.insert(i);
            reps.push(i);
            sigs.push(r.get_ref(5)?.as_blob().ok().and_then(from_blob));
        }
        rows.push(Row {
            seq: r.get(6)?,
            id: r.get(0)?,
            exact,
            dup: r.get(2)?,
            near: r.get(3)?,
            unique: r.get::<_, i64>(4)? != 0,
        });
    }
    // Near: union-find over representatives, bucketed by LSH bands.
    let mut parent: Vec<usize> = (0..reps.len()).collect();
    let mut buckets: Vec<FxHashMap<u64, usize>> = vec![FxHashMap::default(); BANDS];
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
    let mut near_first: FxHashMap<usize, usize> = FxHashMap::default();
    let mut near_count: FxHashMap<usize, u32> = FxHashMap::default();
    for k in 0..reps.len() {
        let root = find(&mut parent, k);
        near_first.entry(root).or_insert(k);
        *near_count.entry(root).or_default() += 1;
    }
    let mut near_of_rep: FxHashMap<usize, (Option<i64>, bool)> = FxHashMap::default();
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
            changes.push((r.seq, dup, near, unique));
        }
    }
    Ok(changes)
}

/// Write what [`plan`] found (in the caller's transaction).
pub fn apply(conn: &Connection, changes: &Changes) -> rusqlite::Result<()> {
    let mut update = conn.prepare(
        "UPDATE classes SET dup_cluster = ?2, near_dup_cluster = ?3, is_unique = ?4
         WHERE seq = ?1",
    )?;
    for (seq, dup, near, unique) in changes {
        update.execute(params![seq, dup, near, unique])?;
    }
    Ok(())
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
