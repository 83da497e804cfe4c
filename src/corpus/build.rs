//! `corpus build`: walk, analyse in parallel (rayon), stream results through a bounded channel
//! to one writer thread that commits in batches, then recompute the duplicate clusters.
//! Resumable: a file whose size and timestamp (or, failing that, content hash) match the store
//! is not analysed again.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::Instant;

use anyhow::Context as _;
use rayon::prelude::*;
use rusqlite::Connection;
use serde::Serialize;

use super::checkpoint::{Checkpointer, Nudger};
use super::extract::{Bounded, FileResult, analyse_file, read_bounded, sha256_hex};
use super::finish::finish;
use super::funnel::{Funnel, funnel};
use super::lock::StoreLock;
use super::schema::{get_meta, open_rw, set_meta};
use super::walk::{Discovery, Shard, SourceFile, Walk, discover};
use super::writer;

#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub roots: Vec<PathBuf>,
    pub out: PathBuf,
    pub shard: Option<Shard>,
    /// Larger files are counted as `oversize`, not read.
    pub max_file_size: u64,
    /// Estimated Jaccard similarity from which two classes are near duplicates.
    pub near_threshold: f64,
    /// Worker threads (default: all cores).
    pub jobs: Option<usize>,
    /// Directory names not entered (`site-packages`, `.tox`, …).
    pub exclude: Vec<String>,
    /// Follow symbolic links out of the roots too.
    pub follow_symlinks: bool,
    /// Build even from other roots than the store was built from (its classes not under the
    /// new roots are deleted).
    pub force: bool,
}

impl BuildOptions {
    pub fn new(roots: Vec<PathBuf>, out: PathBuf) -> Self {
        BuildOptions {
            roots,
            out,
            shard: None,
            max_file_size: 2 * 1024 * 1024,
            near_threshold: 0.8,
            jobs: None,
            exclude: Vec::new(),
            follow_symlinks: false,
            force: false,
        }
    }
}

/// What `--json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct BuildSummary {
    pub files: u64,
    pub classes: u64,
    pub funnel: Funnel,
    pub seconds: f64,
}

/// Told as the build goes (the CLI draws a bar from it).
pub trait BuildProgress: Sync {
    fn start(&self, _files: u64) {}
    /// One more file done, with how many classes it gave.
    fn file(&self, _classes: u64) {}
    /// A phase after the files (`clusters`, `indexes`).
    fn phase(&self, _name: &str) {}
}

/// No progress reporting.
pub struct Quiet;
impl BuildProgress for Quiet {}

enum Msg {
    /// With whether the store has rows of this path to replace.
    Analysed(Box<FileResult>, bool),
    /// Same bytes, new timestamp.
    Unchanged(String, i64),
}

/// What the store knows of a file: size, timestamp, content hash.
type Known = HashMap<String, (u64, i64, String)>;

pub fn build(opts: &BuildOptions, progress: &dyn BuildProgress) -> anyhow::Result<BuildSummary> {
    let started = Instant::now();
    // Walk first: a mistyped PATH must not leave an empty store behind.
    let walk = Walk {
        shard: opts.shard,
        exclude: opts.exclude.clone(),
        follow_symlinks: opts.follow_symlinks,
    };
    let discovery = discover(&opts.roots, &walk)?;
    // Held until the build returns: a second writer is refused at once.
    let _lock = StoreLock::acquire(&opts.out, "build")?;
    let mut conn = open_rw(&opts.out)?;
    check_roots(&conn, opts)?;
    let known = known_files(&conn)?;
    let seen: BTreeSet<&str> = discovery
        .files
        .iter()
        .map(|f| f.path.as_str())
        .chain(discovery.issues.iter().map(|i| i.path.as_str()))
        .collect();
    let gone: Vec<String> = known
        .keys()
        .filter(|p| !seen.contains(p.as_str()))
        .cloned()
        .collect();
    let todo: Vec<&SourceFile> = discovery
        .files
        .iter()
        .filter(|f| {
            known
                .get(&f.path)
                .is_none_or(|(size, mtime, _)| *size != f.size || *mtime != f.mtime_ns)
        })
        .collect();
    let changed = !todo.is_empty() || !gone.is_empty() || !discovery.issues.is_empty();
    let stale = get_meta(&conn, "finalized")?.as_deref() != Some("1");
    if changed {
        set_meta(&conn, "finalized", "0")?;
        set_meta(&conn, "near_threshold", &opts.near_threshold.to_string())?;
        writer::delete_files(&mut conn, &gone)?;
        writer::write_batch(&conn, &walk_issue_rows(&discovery))?;
    }
    progress.start(todo.len() as u64);
    let mut checkpointer = Checkpointer::start(&opts.out);
    let conn = if todo.is_empty() {
        conn
    } else {
        analyse_all(
            conn,
            &todo,
            &discovery,
            &known,
            opts,
            progress,
            &checkpointer,
        )?
    };
    let mut conn = conn;
    // The files' pages go back into the store while the final passes run.
    checkpointer.nudge();
    if changed || stale {
        let threshold = get_meta(&conn, "near_threshold")?
            .and_then(|t| t.parse().ok())
            .unwrap_or(opts.near_threshold);
        progress.phase("duplicate clusters and indexes");
        finish(&mut conn, &opts.out, threshold)?;
        set_meta(&conn, "finalized", "1")?;
    }
    let funnel = funnel(&conn)?;
    checkpointer.finish();
    // A checkpoint folds the WAL back into the file: the store is one file again.
    let _ = conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);");
    Ok(BuildSummary {
        files: funnel.files_seen,
        classes: funnel.classes,
        funnel,
        seconds: (started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0,
    })
}

/// The roots a store records: each PATH made absolute, sorted.
fn roots_of(paths: &[PathBuf]) -> Vec<String> {
    let mut roots: Vec<String> = paths
        .iter()
        .map(|p| {
            std::fs::canonicalize(p)
                .unwrap_or_else(|_| p.clone())
                .display()
                .to_string()
        })
        .collect();
    roots.sort();
    roots.dedup();
    roots
}

/// A store is rebuilt from the roots it was built from: other roots would delete every class
/// not under them, which happens only with `--force`. Records the roots.
fn check_roots(conn: &Connection, opts: &BuildOptions) -> anyhow::Result<()> {
    let roots = roots_of(&opts.roots);
    let recorded: Option<Vec<String>> =
        get_meta(conn, "roots")?.and_then(|r| serde_json::from_str(&r).ok());
    if let Some(before) = recorded
        && before != roots
        && !opts.force
    {
        let list = |r: &[String]| {
            r.iter()
                .map(|x| crate::text::escape_control(x).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        };
        anyhow::bail!(
            "{}: built from {}, not from {}; a build from other paths deletes every class not \
             under them. Build into another --out, or pass --force to rebuild it from {}",
            crate::text::escape_control(&opts.out.display().to_string()),
            list(&before),
            list(&roots),
            list(&roots)
        );
    }
    set_meta(conn, "roots", &serde_json::to_string(&roots)?)?;
    Ok(())
}

fn known_files(conn: &Connection) -> rusqlite::Result<Known> {
    let mut stmt = conn.prepare("SELECT path, size, mtime_ns, hash FROM files")?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            (
                r.get::<_, i64>(1)?.max(0) as u64,
                r.get::<_, i64>(2)?,
                r.get::<_, String>(3)?,
            ),
        ))
    })?;
    rows.collect()
}

fn walk_issue_rows(d: &Discovery) -> Vec<FileResult> {
    d.issues
        .iter()
        .map(|i| FileResult {
            file: SourceFile {
                abs: PathBuf::new(),
                path: i.path.clone(),
                repo: i.repo.clone(),
                size: 0,
                mtime_ns: 0,
            },
            hash: String::new(),
            reason: Some(i.reason),
            detail: i.detail.clone(),
            syntax_errors: false,
            classes: Vec::new(),
            classes_dropped: 0,
            units: Vec::new(),
        })
        .collect()
}

/// Analyse `todo` on a rayon pool; one writer thread owns the connection meanwhile.
fn analyse_all(
    conn: Connection,
    todo: &[&SourceFile],
    discovery: &Discovery,
    known: &Known,
    opts: &BuildOptions,
    progress: &dyn BuildProgress,
    checkpointer: &Checkpointer,
) -> anyhow::Result<Connection> {
    // Bounded: workers wait when the writer is behind, so memory stays flat.
    let (tx, rx) = sync_channel::<Msg>(256);
    let nudger = checkpointer.nudger();
    let writer = std::thread::Builder::new()
        .name("corpus-writer".into())
        .spawn(move || write_loop(conn, rx, nudger))
        .context("starting the writer thread")?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs.unwrap_or(0))
        // Deeply nested input recurses in tree-sitter's consumers; give them room.
        .stack_size(16 * 1024 * 1024)
        .build()?;
    let empty = Arc::new(BTreeSet::new());
    let max = opts.max_file_size;
    pool.install(|| {
        todo.par_iter()
            .for_each_with(tx, |tx: &mut SyncSender<Msg>, f| {
                let project = discovery.top_names.get(&f.repo).unwrap_or(&empty);
                let prior = known.get(&f.path).map(|k| k.2.as_str());
                let msg = analyse_or_skip(f, prior, max, project);
                if let Msg::Analysed(r, _) = &msg {
                    progress.file(r.classes.len() as u64);
                } else {
                    progress.file(0);
                }
                // The writer only goes away on an error, which the join below reports.
                let _ = tx.send(msg);
            });
    });
    match writer.join() {
        Ok(result) => result,
        Err(_) => anyhow::bail!("the corpus writer thread panicked"),
    }
}

/// A file whose bytes hash as before is not analysed again (only its timestamp changed).
fn analyse_or_skip(
    f: &SourceFile,
    prior: Option<&str>,
    max: u64,
    project: &BTreeSet<String>,
) -> Msg {
    if let Some(prior) = prior.filter(|p| !p.is_empty())
        && f.size <= max
        && let Ok(Bounded::Whole(bytes)) = read_bounded(&f.abs, max)
        && sha256_hex(&bytes) == prior
    {
        return Msg::Unchanged(f.path.clone(), f.mtime_ns);
    }
    Msg::Analysed(
        Box::new(analyse_file(f.clone(), max, project)),
        prior.is_some(),
    )
}

fn write_loop(conn: Connection, rx: Receiver<Msg>, nudger: Nudger) -> anyhow::Result<Connection> {
    // Rows go in as they arrive; commits are rare: each flushes FTS5's in-memory index as a new
    // segment (to be merged later) and lets the WAL grow towards a checkpoint.
    const COMMIT_FILES: usize = 1000;
    const COMMIT_CLASSES: usize = 10_000;
    let mut out = writer::Streaming::new();
    let write = |out: &mut writer::Streaming, msg: Msg| -> rusqlite::Result<()> {
        match msg {
            Msg::Analysed(r, known) => out.file(&conn, &r, known)?,
            Msg::Unchanged(path, mtime) => out.touch(&conn, &path, mtime)?,
        }
        if out.files >= COMMIT_FILES || out.classes >= COMMIT_CLASSES {
            out.commit(&conn)?;
            nudger.nudge();
        }
        Ok(())
    };
    for msg in rx {
        write(&mut out, msg).context("writing to the corpus store")?;
    }
    out.commit(&conn).context("writing to the corpus store")?;
    Ok(conn)
}
