//! `CountClassDerived` across a repository: Understand counts a class's subclasses in the whole
//! project, which one file cannot see. After a build or a merge, every class's immediate
//! subclasses are counted among the classes of its repository that name it as a base (by its
//! last dotted component; two classes of one name in a repository share their count).

use std::collections::HashMap;

use rusqlite::{Connection, params};

/// Recount `CountClassDerived`; returns how many rows changed.
pub fn count_derived(conn: &mut Connection) -> rusqlite::Result<usize> {
    let mut derived: HashMap<(String, String), u32> = HashMap::new();
    let mut rows: Vec<(i64, String, String, f64)> = Vec::new();
    {
        let mut stmt =
            conn.prepare("SELECT id, repo, name, \"CountClassDerived\", bases FROM classes")?;
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
    let tx = conn.transaction()?;
    let mut changed = 0;
    {
        let mut update =
            tx.prepare("UPDATE classes SET \"CountClassDerived\" = ?2 WHERE id = ?1")?;
        for (id, repo, name, old) in rows {
            let n = derived.get(&(repo, name)).copied().unwrap_or(0);
            if f64::from(n) != old {
                update.execute(params![id, f64::from(n)])?;
                changed += 1;
            }
        }
    }
    tx.commit()?;
    Ok(changed)
}
