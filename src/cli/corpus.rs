//! `classlab corpus build|query|merge|export|funnel|dates`: class corpora in one SQLite store.

use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{Context, Outcome, Output};
use crate::corpus::export::{ExportFormat, export};
use crate::corpus::{BuildOptions, BuildProgress, Filter, Shard, Sort, Store, build};
use crate::text::Escaped;

#[derive(Debug, clap::Args)]
pub struct CorpusArgs {
    #[command(subcommand)]
    pub command: CorpusCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum CorpusCommand {
    /// Every class of every .py file below the paths into one store (resumable, incremental).
    Build {
        /// A directory of repositories, one repository, or a file (repeatable).
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// The store (created, or brought up to date).
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Build only the K-th of N disjoint shards (by a hash of each file's path).
        #[arg(long, value_name = "K/N")]
        shard: Option<Shard>,
        /// Worker threads (default: all cores).
        #[arg(long)]
        jobs: Option<usize>,
        /// Larger files are counted as oversize and not read.
        #[arg(long, value_name = "BYTES", default_value_t = 2 * 1024 * 1024)]
        max_file_size: u64,
        /// Estimated Jaccard similarity from which classes are near duplicates.
        #[arg(long, value_name = "0..1", default_value_t = 0.8)]
        near_threshold: f64,
        /// Skip directories with this name (repeatable), e.g. `--exclude site-packages`.
        #[arg(long, value_name = "DIRNAME")]
        exclude: Vec<String>,
        /// Follow symbolic links that lead out of the paths too (by default they are counted
        /// as `symlink-outside` and not followed).
        #[arg(long)]
        follow_symlinks: bool,
        /// Rebuild a store from other paths than it was built from (its classes not under
        /// them are deleted).
        #[arg(long)]
        force: bool,
    },
    /// Classes matching a filter, one per line (JSON Lines with --json).
    #[command(after_help = crate::corpus::filter::fields_help())]
    Query {
        /// The store.
        file: PathBuf,
        /// E.g. `CountDeclMethod>=5 and SumCyclomatic<40 and doc>=0.8 and unique and text:"cache"`
        /// (the fields are listed below); all classes when omitted.
        filter: Option<String>,
        /// Print at most this many classes (default: all).
        #[arg(long, value_name = "N")]
        limit: Option<u64>,
        /// Sort by a metric or numeric field (default: path and line).
        #[arg(long, value_name = "COLUMN")]
        sort: Option<String>,
        /// Sort descending.
        #[arg(long)]
        desc: bool,
        /// Print only how many classes match.
        #[arg(long)]
        count: bool,
    },
    /// Merge shard stores into one; duplicate clusters are recomputed over the whole.
    Merge {
        /// The store to write the merge into (created, or added to when it exists).
        out: PathBuf,
        /// The shard stores to merge (`corpus build --shard K/N` of the same paths).
        #[arg(required = true, value_name = "IN")]
        inputs: Vec<PathBuf>,
    },
    /// Write a selection as a RealClassEval-style folder or a classlab dataset; each class as
    /// the module it needs to run (its imports and module-level names, transitively).
    #[command(after_help = crate::corpus::filter::fields_help())]
    Export {
        /// The store.
        file: PathBuf,
        /// Which classes (the filter language of `corpus query`); all when omitted.
        filter: Option<String>,
        /// The directory to write (absent or empty, unless --force).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// realclasseval: DIR/classes_full_docstr.csv; classlab: DIR/dataset.json.
        #[arg(long, value_enum, default_value = "realclasseval")]
        format: ExportFormat,
        /// Export at most this many classes (default: all).
        #[arg(long, value_name = "N")]
        limit: Option<u64>,
        /// Write into a directory that is not empty (replacing the export's own files).
        #[arg(long)]
        force: bool,
    },
    /// The store's funnel: files and classes at each stage, drops by reason.
    Funnel { file: PathBuf },
    /// Record each class's first-seen date (the first commit holding its `class` line) where
    /// its file is in a git repository: one walk of each repository's history (resumable).
    Dates {
        /// The store (built by `corpus build`, finished).
        file: PathBuf,
    },
}

pub(crate) fn run(ctx: &Context, args: &CorpusArgs) -> anyhow::Result<Outcome> {
    match &args.command {
        CorpusCommand::Build {
            paths,
            out,
            shard,
            jobs,
            max_file_size,
            near_threshold,
            exclude,
            follow_symlinks,
            force,
        } => {
            if !(0.0..=1.0).contains(near_threshold) {
                anyhow::bail!("--near-threshold {near_threshold}: expected a number in 0..1");
            }
            let opts = BuildOptions {
                shard: *shard,
                jobs: *jobs,
                max_file_size: *max_file_size,
                near_threshold: *near_threshold,
                exclude: exclude.clone(),
                follow_symlinks: *follow_symlinks,
                force: *force,
                ..BuildOptions::new(paths.clone(), out.clone())
            };
            let bar = Bar::new();
            let summary = build(&opts, &bar)?;
            bar.finish();
            match ctx.output {
                Output::Json => println!("{}", serde_json::to_string(&summary)?),
                Output::Human => {
                    print_funnel(&summary.funnel)?;
                    println!(
                        "{}: {} files, {} classes in {:.1} s",
                        Escaped(&out.display().to_string()),
                        summary.files,
                        summary.classes,
                        summary.seconds
                    );
                }
            }
            Ok(Outcome::clean())
        }
        CorpusCommand::Query {
            file,
            filter,
            limit,
            sort,
            desc,
            count,
        } => {
            let store = Store::open(file)?;
            warn_unfinished(&store)?;
            if let Some(col) = sort
                && crate::corpus::filter::numeric_column(col).is_none()
            {
                let valid: Vec<&str> = crate::corpus::filter::numeric_columns().collect();
                return Err(super::UsageError(format!(
                    "--sort {}: not a metric or numeric field; one of: {}",
                    Escaped(col),
                    valid.join(", ")
                ))
                .into());
            }
            let filter = Filter::parse(filter.as_deref().unwrap_or(""))?;
            if *count {
                println!("{}", store.count(&filter)?);
                return Ok(Outcome::clean());
            }
            let sort = Sort {
                column: sort.clone(),
                descending: *desc,
            };
            if ctx.output == Output::Json {
                // Large writes: 90 MB of JSON Lines go out in few system calls, from the thread
                // that formats them (hence `Stdout`, which a thread may own, not its lock).
                let mut out = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout());
                store.write_json_lines(&filter, &sort, 0, *limit, &mut out)?;
                out.flush()?;
                return Ok(Outcome::clean());
            }
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::with_capacity(1 << 20, stdout.lock());
            store.for_each_line(&filter, &sort, 0, *limit, |line| {
                let metric = |m: &str| line.metrics.get(m).map_or("-".into(), |v| v.to_string());
                writeln!(
                    out,
                    "{}:{}  {}  {} methods  CountLine={} SumCyclomatic={}{}",
                    Escaped(&line.path),
                    line.line,
                    Escaped(&line.qualname),
                    line.methods.len(),
                    metric("CountLine"),
                    metric("SumCyclomatic"),
                    if line.self_contained {
                        "  self-contained"
                    } else {
                        ""
                    }
                )?;
                Ok(())
            })?;
            out.flush()?;
            Ok(Outcome::clean())
        }
        CorpusCommand::Merge { out, inputs } => {
            let f = crate::corpus::merge::merge(out, inputs)?;
            match ctx.output {
                Output::Json => println!("{}", serde_json::to_string(&f)?),
                Output::Human => print_funnel(&f)?,
            }
            Ok(Outcome::clean())
        }
        CorpusCommand::Export {
            file,
            filter,
            out,
            format,
            limit,
            force,
        } => {
            let store = Store::open(file)?;
            let filter = Filter::parse(filter.as_deref().unwrap_or(""))?;
            let s = export(&store, &filter, *limit, out, *format, *force)?;
            match ctx.output {
                Output::Json => {
                    let mut v = serde_json::to_value(&s)?;
                    v["out"] = serde_json::json!(out);
                    println!("{v}");
                }
                Output::Human => {
                    println!(
                        "wrote {} classes to {}",
                        s.classes,
                        Escaped(&out.display().to_string())
                    );
                    for (reason, n) in &s.left_out {
                        println!(
                            "left out {n} classes that cannot stand alone ({})",
                            Escaped(reason)
                        );
                    }
                    let others = s.classes - s.self_contained;
                    if others > 0 {
                        println!(
                            "{others} of them need more than the standard library (why: provenance.\
                             not_self_contained_because; the filter `self_contained` leaves them out):"
                        );
                        let mut by: Vec<(&String, &u64)> = s.not_self_contained.iter().collect();
                        by.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
                        for (reason, n) in by.iter().take(10) {
                            println!("{n:>8}  {}", Escaped(reason));
                        }
                        if by.len() > 10 {
                            println!(
                                "{:>8}  other reasons ({} kinds)",
                                by[10..].iter().map(|x| *x.1).sum::<u64>(),
                                by.len() - 10
                            );
                        }
                    }
                }
            }
            Ok(Outcome::clean())
        }
        CorpusCommand::Dates { file } => {
            let bar = DatesBar::default();
            let s = crate::corpus::dates::date_store(file, &bar)?;
            drop(bar);
            match ctx.output {
                Output::Json => println!("{}", serde_json::to_string(&s)?),
                Output::Human => {
                    println!(
                        "{}: {} of {} classes dated; {} git repositories ({} walked, {} unchanged) \
                         in {:.1} s",
                        Escaped(&file.display().to_string()),
                        s.dated,
                        s.classes,
                        s.repositories,
                        s.walked,
                        s.unchanged,
                        s.seconds
                    );
                    for (reason, n) in &s.undated {
                        println!("{:>10}  undated: {reason}", n);
                    }
                }
            }
            Ok(Outcome::clean())
        }
        CorpusCommand::Funnel { file } => {
            let store = Store::open(file)?;
            warn_unfinished(&store)?;
            let f = store.funnel()?;
            match ctx.output {
                Output::Json => println!("{}", serde_json::to_string(&f)?),
                Output::Human => print_funnel(&f)?,
            }
            Ok(Outcome::clean())
        }
    }
}

/// An unfinished store is read, but never silently (`export` refuses it).
fn warn_unfinished(store: &Store) -> anyhow::Result<()> {
    if let Some(why) = store.unfinished()? {
        eprintln!("classlab: warning: {why}");
    }
    Ok(())
}

fn print_funnel(f: &crate::corpus::funnel::Funnel) -> anyhow::Result<()> {
    let stages = [
        ("files seen", f.files_seen),
        ("decoded", f.decoded),
        ("parsed without error", f.parsed),
        ("parsed with syntax errors", f.partially_parsed),
        ("classes", f.classes),
        ("with ≥ 1 method", f.with_methods),
        ("documented", f.documented),
        ("unique", f.unique),
        ("self-contained", f.self_contained),
    ];
    for (name, n) in stages {
        println!("{name:>30}  {n}");
    }
    for (reason, n) in &f.dropped {
        println!("{:>30}  {n}", format!("dropped: {reason}"));
    }
    let mut why: Vec<(&String, &u64)> = f.outside_stdlib_because.iter().collect();
    why.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    if !why.is_empty() {
        println!("{:>30}", "not self-contained because:");
    }
    for (reason, n) in why.iter().take(10) {
        println!("{:>30}  {n}", Escaped(reason));
    }
    if why.len() > 10 {
        let rest: u64 = why[10..].iter().map(|x| *x.1).sum();
        println!(
            "{:>30}  {rest}",
            format!("{} other reasons", why.len() - 10)
        );
    }
    Ok(())
}

/// `corpus dates`' bar (classes/s, ETA), drawn only on a terminal; warnings above it.
#[derive(Default)]
struct DatesBar {
    bar: std::cell::RefCell<Option<super::progress::Progress>>,
    done: std::cell::Cell<u64>,
    total: std::cell::Cell<u64>,
}

impl crate::corpus::dates::DatesProgress for DatesBar {
    fn start(&self, classes: u64) {
        self.total.set(classes);
        *self.bar.borrow_mut() = Some(super::progress::Progress::new(classes as usize, "classes"));
    }
    fn done(&self, classes: u64) {
        self.done.set(self.done.get() + classes);
        if let Some(bar) = &*self.bar.borrow() {
            bar.set(self.done.get() as usize, self.total.get() as usize);
        }
    }
    fn warn(&self, message: &str) {
        let line = format!("classlab: warning: {message}");
        match &*self.bar.borrow() {
            Some(bar) => bar.line(&line),
            None => eprintln!("{}", Escaped(&line)),
        }
    }
}

/// The build's bar on stderr (files/s, classes, ETA), drawn only on a terminal.
struct Bar {
    bar: Option<ProgressBar>,
    classes: AtomicU64,
}

impl Bar {
    fn new() -> Bar {
        Bar {
            bar: std::io::stderr().is_terminal().then(|| {
                let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                if let Ok(style) = ProgressStyle::with_template(
                    "{spinner} [{bar:30}] {pos}/{len} files · {per_sec} · ETA {eta} · {msg}",
                ) {
                    bar.set_style(style.progress_chars("=> "));
                }
                bar.enable_steady_tick(Duration::from_millis(200));
                bar
            }),
            classes: AtomicU64::new(0),
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl BuildProgress for Bar {
    fn start(&self, files: u64) {
        if let Some(bar) = &self.bar {
            bar.set_length(files);
        }
    }
    fn file(&self, classes: u64) {
        let total = self.classes.fetch_add(classes, Ordering::Relaxed) + classes;
        if let Some(bar) = &self.bar {
            bar.inc(1);
            bar.set_message(format!("{total} classes"));
        }
    }
    fn phase(&self, name: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(name.to_string());
        }
    }
}
