//! `classlab corpus build|query|merge|export|funnel`: class corpora in one SQLite store.

use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{Context, Outcome, Output};
use crate::corpus::export::{ExportFormat, export};
use crate::corpus::{BuildOptions, BuildProgress, Filter, Shard, Sort, Store, build};

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
    },
    /// Classes matching a filter, one per line (JSON Lines with --json).
    Query {
        /// The store.
        file: PathBuf,
        /// E.g. `CountDeclMethod>=5 and SumCyclomatic<40 and doc>=0.8 and unique and text:"cache"`.
        filter: Option<String>,
        #[arg(long)]
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
        out: PathBuf,
        #[arg(required = true, value_name = "IN")]
        inputs: Vec<PathBuf>,
    },
    /// Write a selection as a RealClassEval-style folder or a classlab dataset.
    Export {
        file: PathBuf,
        filter: Option<String>,
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        #[arg(long, value_enum, default_value = "realclasseval")]
        format: ExportFormat,
        #[arg(long)]
        limit: Option<u64>,
    },
    /// The store's funnel: files and classes at each stage, drops by reason.
    Funnel { file: PathBuf },
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
                        out.display(),
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
            let filter = Filter::parse(filter.as_deref().unwrap_or(""))?;
            if *count {
                println!("{}", store.count(&filter)?);
                return Ok(Outcome::clean());
            }
            let sort = Sort {
                column: sort.clone(),
                descending: *desc,
            };
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            store.for_each_line(&filter, &sort, 0, *limit, |line| {
                match ctx.output {
                    Output::Json => {
                        serde_json::to_writer(&mut out, &line)?;
                        writeln!(out)?;
                    }
                    Output::Human => {
                        let metric =
                            |m: &str| line.metrics.get(m).map_or("-".into(), |v| v.to_string());
                        writeln!(
                            out,
                            "{}:{}  {}  {} methods  CountLine={} SumCyclomatic={}{}",
                            line.path,
                            line.line,
                            line.qualname,
                            line.methods.len(),
                            metric("CountLine"),
                            metric("SumCyclomatic"),
                            if line.self_contained {
                                "  self-contained"
                            } else {
                                ""
                            }
                        )?;
                    }
                }
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
        } => {
            let store = Store::open(file)?;
            let filter = Filter::parse(filter.as_deref().unwrap_or(""))?;
            let n = export(&store, &filter, *limit, out, *format)?;
            match ctx.output {
                Output::Json => println!("{}", serde_json::json!({"classes": n, "out": out})),
                Output::Human => println!("wrote {n} classes to {}", out.display()),
            }
            Ok(Outcome::clean())
        }
        CorpusCommand::Funnel { file } => {
            let f = Store::open(file)?.funnel()?;
            match ctx.output {
                Output::Json => println!("{}", serde_json::to_string(&f)?),
                Output::Human => print_funnel(&f)?,
            }
            Ok(Outcome::clean())
        }
    }
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
    Ok(())
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
