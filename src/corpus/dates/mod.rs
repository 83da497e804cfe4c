//! `corpus dates`: a separate pass over a finished store that records, for each class whose
//! file is in a git repository, the commit that first holds its `class Name` line (its date and
//! id): provenance for contamination control (`corpus export` carries it, `report --by
//! first_seen --cutoff DATE` splits results on it). One walk of each repository's history
//! (`history.rs`); each repository's dates are written in one transaction, with the HEAD they
//! were taken at, so a killed pass resumes where it stopped and a rerun skips every repository
//! whose HEAD has not moved. Layout: `docs/corpus.md`.

pub mod calendar;
mod history;
mod locate;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context as _;
use git2::Repository;
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

pub use history::{Class, Dated, class_names, first_seen};
pub use locate::Undated;
use locate::{Finder, Roots};

/// The pass's tables, made by the first `corpus dates` on a store (an addition, not a change:
/// a store without them reads as before, its classes undated).
const CREATE_SQL: &str = "
CREATE TABLE IF NOT EXISTS class_dates (
    -- classes.id (stable across rebuilds of the same file)
    id INTEGER PRIMARY KEY,
    -- the first commit holding the class's line: committer time (Unix seconds) and id
    first_seen INTEGER,
    commit_id TEXT,
    -- NULL when dated, else why not: not_git, missing, not_found, git_error
    reason TEXT
);
CREATE TABLE IF NOT EXISTS repo_dates (
    -- a repository's work tree (canonical) and the HEAD its classes were dated at
    dir TEXT PRIMARY KEY,
    head TEXT NOT NULL
);";

/// What `corpus dates --json` prints. The class counts are the store's (so a resumed or
/// repeated pass reports the same); `walked` and `unchanged` are this run's.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct DatesSummary {
    /// Git repositories holding classes of the store.
    pub repositories: u64,
    /// … whose history this run walked.
    pub walked: u64,
    /// … skipped: dated before at the same HEAD.
    pub unchanged: u64,
    pub classes: u64,
    pub dated: u64,
    /// Classes without a date, by reason (`not_git`, `missing`, `not_found`, `git_error`).
    pub undated: BTreeMap<String, u64>,
    pub seconds: f64,
}

/// What a pass reports while it runs (a progress bar, warnings).
pub trait DatesProgress {
    fn start(&self, classes: u64);
    /// A repository (or the classes of no repository) is done.
    fn done(&self, classes: u64);
    fn warn(&self, message: &str);
}

/// Date the classes of the store at `path`.
pub fn date_store(path: &Path, progress: &dyn DatesProgress) -> anyhow::Result<DatesSummary> {
    let started = Instant::now();
    {
        let store = super::Store::open(path)?;
        if let Some(why) = store.unfinished()? {
            anyhow::bail!("{why}; not dating an unfinished store");
        }
    }
    let _lock = super::lock::StoreLock::acquire(path, "dates")?;
    let conn = super::schema::open_rw(path)?;
    let shown = crate::text::escape_control(&path.display().to_string()).into_owned();
    conn.execute_batch(CREATE_SQL)
        .with_context(|| format!("{shown}: adding the dates tables"))?;
    // Classes gone since the last pass (a rebuild) lose their dates.
    conn.execute(
        "DELETE FROM class_dates WHERE id NOT IN (SELECT id FROM classes)",
        [],
    )?;
    let roots: Vec<PathBuf> = super::schema::get_meta(&conn, "roots")?
        .and_then(|r| serde_json::from_str(&r).ok())
        .with_context(|| format!("{shown}: records no roots (meta.roots)"))?;
    let plan = plan(&conn, &Roots::new(&roots))?;
    let total = conn.query_row("SELECT count(*) FROM classes", [], |r| count_at(r, 0))?;
    progress.start(total);
    let mut summary = DatesSummary {
        repositories: plan.repos.len() as u64,
        ..DatesSummary::default()
    };
    write_undated(&conn, &plan.undated)?;
    progress.done(plan.undated.iter().map(|u| u.2).sum());
    for (dir, files) in &plan.repos {
        let classes = files.iter().map(|f| f.2).sum();
        if date_repository(&conn, dir, files, progress)? {
            summary.walked += 1;
        } else {
            summary.unchanged += 1;
        }
        progress.done(classes);
    }
    count(&conn, &mut summary)?;
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// Every stored file with classes, placed: in a repository (its path there), or undated.
struct Plan {
    /// Work tree → (store path, path in the repository, classes).
    repos: BTreeMap<PathBuf, Vec<(String, String, u64)>>,
    /// (store path, why, classes).
    undated: Vec<(String, Undated, u64)>,
}

fn plan(conn: &Connection, roots: &Roots) -> anyhow::Result<Plan> {
    let mut plan = Plan {
        repos: BTreeMap::new(),
        undated: Vec::new(),
    };
    let mut finder = Finder::default();
    let mut stmt = conn.prepare("SELECT path, count(*) FROM classes GROUP BY path")?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let (path, n): (String, u64) = (row.get(0)?, count_at(row, 1)?);
        let Some(on_disk) = roots.locate(&path) else {
            plan.undated.push((path, Undated::Missing, n));
            continue;
        };
        match finder.find(&on_disk.repo_dir) {
            Ok((workdir, inside)) => {
                let within = format!("{inside}{}", on_disk.within);
                plan.repos
                    .entry(workdir)
                    .or_default()
                    .push((path, within, n));
            }
            Err(why) => plan.undated.push((path, why, n)),
        }
    }
    Ok(plan)
}

/// Classes of a stored path that have no row, or one with another reason than `reason`.
fn stale(conn: &Connection, path: &str, reason: Option<&str>) -> rusqlite::Result<u64> {
    conn.prepare_cached(
        "SELECT count(*) FROM classes c LEFT JOIN class_dates d ON d.id = c.id
         WHERE c.path = ?1 AND (d.id IS NULL OR (?2 IS NOT NULL AND d.reason IS NOT ?2))",
    )?
    .query_row(params![path, reason], |r| count_at(r, 0))
}

/// Replace the rows of a stored path's classes by `reason` (undated) for all of them.
fn mark(conn: &Connection, path: &str, reason: Undated) -> rusqlite::Result<()> {
    clear(conn, path)?;
    conn.prepare_cached(
        "INSERT INTO class_dates(id, reason) SELECT id, ?2 FROM classes WHERE path = ?1",
    )?
    .execute(params![path, reason.key()])?;
    Ok(())
}

fn clear(conn: &Connection, path: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "DELETE FROM class_dates WHERE id IN (SELECT id FROM classes WHERE path = ?1)",
    )?
    .execute([path])?;
    Ok(())
}

fn write_undated(conn: &Connection, undated: &[(String, Undated, u64)]) -> anyhow::Result<()> {
    let tx = conn.unchecked_transaction()?;
    for (path, why, _) in undated {
        if stale(conn, path, Some(why.key()))? > 0 {
            mark(conn, path, *why)?;
        }
    }
    tx.commit()?;
    Ok(())
}

/// Date one repository's classes in one transaction; `false` when it was already dated at
/// this HEAD (nothing done).
fn date_repository(
    conn: &Connection,
    dir: &Path,
    files: &[(String, String, u64)],
    progress: &dyn DatesProgress,
) -> anyhow::Result<bool> {
    let shown = crate::text::escape_control(&dir.display().to_string()).into_owned();
    let key = dir.display().to_string();
    let walked = Repository::open(dir).and_then(|repo| {
        let head = history::head_commit(&repo)?;
        Ok((repo, head))
    });
    let (repo, head) = match walked {
        Ok(x) => x,
        Err(e) => {
            progress.warn(&format!(
                "{shown}: cannot read the repository: {}",
                e.message()
            ));
            return write_repository(conn, &key, "", files, &[], Undated::GitError).map(|_| true);
        }
    };
    let head_id = head.map(|h| h.to_string()).unwrap_or_default();
    let before: Option<String> = conn
        .query_row("SELECT head FROM repo_dates WHERE dir = ?1", [&key], |r| {
            r.get(0)
        })
        .optional()?;
    if before.as_deref() == Some(head_id.as_str())
        && files
            .iter()
            .map(|(path, _, _)| stale(conn, path, None))
            .sum::<rusqlite::Result<u64>>()?
            == 0
    {
        return Ok(false);
    }
    let Some(head) = head else {
        return write_repository(conn, &key, "", files, &[], Undated::NotFound).map(|_| true);
    };
    let mut classes: HashMap<String, Vec<Class>> = HashMap::new();
    {
        let mut stmt = conn.prepare_cached("SELECT id, name FROM classes WHERE path = ?1")?;
        for (path, within, _) in files {
            let list = stmt
                .query_map([path], |r| {
                    Ok(Class {
                        id: r.get(0)?,
                        name: r.get(1)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            classes.entry(within.clone()).or_default().extend(list);
        }
    }
    match history::first_seen(&repo, head, classes) {
        Ok(dated) => write_repository(conn, &key, &head_id, files, &dated, Undated::NotFound),
        Err(e) => {
            progress.warn(&format!(
                "{shown}: cannot walk its history: {}",
                e.message()
            ));
            write_repository(conn, &key, "", files, &[], Undated::GitError)
        }
    }
    .map(|_| true)
}

/// One repository's rows in one transaction: `dated`, the rest of its classes `otherwise`.
fn write_repository(
    conn: &Connection,
    key: &str,
    head: &str,
    files: &[(String, String, u64)],
    dated: &[Dated],
    otherwise: Undated,
) -> anyhow::Result<()> {
    let tx = conn.unchecked_transaction()?;
    for (path, _, _) in files {
        clear(conn, path)?;
    }
    {
        let mut insert = conn.prepare_cached(
            "INSERT OR REPLACE INTO class_dates(id, first_seen, commit_id, reason)
             VALUES (?1, ?2, ?3, NULL)",
        )?;
        for d in dated {
            insert.execute(params![d.id, d.time, d.commit])?;
        }
        let mut rest = conn.prepare_cached(
            "INSERT OR IGNORE INTO class_dates(id, reason) SELECT id, ?2 FROM classes
             WHERE path = ?1",
        )?;
        for (path, _, _) in files {
            rest.execute(params![path, otherwise.key()])?;
        }
    }
    // A repository that could not be read is tried again by the next pass.
    if otherwise == Undated::GitError {
        conn.execute("DELETE FROM repo_dates WHERE dir = ?1", [key])?;
    } else {
        conn.execute(
            "INSERT OR REPLACE INTO repo_dates(dir, head) VALUES (?1, ?2)",
            params![key, head],
        )?;
    }
    tx.commit()?;
    Ok(())
}

/// A `count(*)` column.
fn count_at(row: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<u64> {
    row.get::<_, i64>(i).map(|n| n.max(0) as u64)
}

/// The store's dated and undated classes, into `summary`.
fn count(conn: &Connection, summary: &mut DatesSummary) -> rusqlite::Result<()> {
    summary.classes = conn.query_row("SELECT count(*) FROM classes", [], |r| count_at(r, 0))?;
    let mut stmt = conn.prepare(
        "SELECT d.reason, count(*) FROM classes c JOIN class_dates d ON d.id = c.id
         GROUP BY d.reason",
    )?;
    let mut rows = stmt.query([])?;
    let mut seen = 0;
    while let Some(row) = rows.next()? {
        let (reason, n): (Option<String>, u64) = (row.get(0)?, count_at(row, 1)?);
        seen += n;
        match reason {
            None => summary.dated = n,
            Some(r) => *summary.undated.entry(r).or_default() += n,
        }
    }
    if summary.classes > seen {
        summary
            .undated
            .insert("not_dated_yet".into(), summary.classes - seen);
    }
    Ok(())
}

/// A class's first-seen date (`YYYY-MM-DD`, UTC) and commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstSeen {
    pub date: String,
    pub commit: String,
}

/// Does the store hold dates (has `corpus dates` run on it)?
pub fn has_dates(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'class_dates'",
        [],
        |r| r.get::<_, i64>(0),
    )
    .map(|n| n > 0)
}

/// The first-seen date of class `id`, when dated ([`has_dates`] first).
pub fn lookup(conn: &Connection, id: i64) -> rusqlite::Result<Option<FirstSeen>> {
    conn.prepare_cached(
        "SELECT first_seen, commit_id FROM class_dates WHERE id = ?1 AND first_seen IS NOT NULL",
    )?
    .query_row([id], |r| {
        Ok(FirstSeen {
            date: calendar::iso_date(r.get(0)?),
            commit: r.get(1)?,
        })
    })
    .optional()
}
