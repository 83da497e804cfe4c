//! `CountClassDerived` across a repository: Understand counts a class's subclasses in the whole
//! project, which one file cannot see. After a build or a merge, every class's immediate
//! subclasses are counted among the classes of its repository that name it as a base (by its
//! last dotted component; two classes of one name in a repository share their count).

use rusqlite::{Connection, params};
use rustc_hash::FxHashMap;

/// The rows (`seq`) whose count changes, with their new count; reads only (any connection).
pub fn plan(conn: &Connection) -> rusqlite::Result<Vec<(i64, f64)>> {
    let mut derived: FxHashMap<(String, String), u32> = FxHashMap::default();
    let mut rows: Vec<(i64, String, String, f64)> = Vec::new();
    {
        let mut stmt =
            conn.prepare("SELECT seq, repo, name, \"CountClassDerived\", bases FROM classes")?;
        let mut q = stmt.query([])?;
        while let Some(r) = q.next()? {
            let repo: String = r.get(1)?;
            let bases: Vec<String> =
                serde_json::from_str(&r.get::<_, String>(4)?).unwrap_or_default();
            for b in bases {
                // `pkg.Base` → `Base`; `Generic[T]` → `Generic`.
                let short = b.split('[').next().unwrap_or(&b);
                let short = short.rsplit('.').next().unwrap_or(short).trim();
                *derived
                    .entry((repo.clone(), short.to_string()))
                    .or_default() += 1;
            }
            rows.push((r.get(0)?, repo, r.get(2)?, r.get(3)?));
        }
    }
    Ok(rows
        .into_iter()
        .filter_map(|(seq, repo, name, old)| {
            let n = f64::from(derived.get(&(repo, name)).copied().unwrap_or(0));
            (n != old).then_some((seq, n))
        })
        .collect())
}

/// Write what [`plan`] found (in the caller's transaction).
pub fn apply(conn: &Connection, changes: &[(i64, f64)]) -> rusqlite::Result<()> {
    let mut update =
        conn.prepare("UPDATE classes SET \"CountClassDerived\" = ?2 WHERE seq = ?1")?;
    for (seq, n) in changes {
        update.execute(params![seq, n])?;
    }
    Ok(())
}
