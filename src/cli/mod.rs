//! Headless subcommands. Every command takes `--dataset PATH` (default: the bundled sample) and
//! `--json`. Exit codes: 0 success; 1 error (one line on stderr); 2 usage error, or a config
//! file that cannot be read or parsed; 3 the output is complete for what loaded, but the input
//! had problems (listed on stderr, one per line).

mod analyze;
mod compare;
mod corpus;
mod curate;
mod depcheck;
mod deps;
mod doctor;
mod eval;
mod forge;
mod lint;
mod progress;
mod report;
mod rigor;
mod run;
mod sessions;
mod show;
mod table;
mod tasks;
mod validate;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::analysis::{TaskAnalysis, analyze_task};
use crate::dataset::{self, Dataset, Problem};

#[derive(Debug, Parser)]
#[command(
    name = "classlab",
    version,
    about = "A terminal workbench for studying how LLMs generate whole Python classes",
    long_about = "Browse class-level benchmark tasks, their skeletons, tests and method dependency \
graphs; compare predicted dependencies with the ground truth. Without a command, opens the TUI."
)]
pub struct Cli {
    /// The dataset: a ClassEval JSON list, a classlab dataset (JSON), a RealClassEval-style
    /// folder (`classes_full_docstr.csv` + `tests/`, as `corpus export` writes it), or a corpus
    /// store (`corpus build`'s .db: the TUI's corpus browser). Default: the bundled sample.
    /// Commands that read no dataset refuse it.
    #[arg(long, global = true, value_name = "PATH")]
    pub dataset: Option<PathBuf>,
    /// Machine-readable JSON on stdout (commands without JSON output refuse it).
    #[arg(long, global = true)]
    pub json: bool,
    /// Where sessions live (default: ./sessions if it exists, else the XDG data directory).
    /// Commands that touch no session refuse it.
    #[arg(long, global = true, value_name = "DIR")]
    pub sessions: Option<PathBuf>,
    /// The Python interpreter that runs tests. Default: the config's `python`, else the
    /// project's environment for the dataset when provisioned (`.python/realclasseval` for a
    /// RealClassEval folder, `.python/classeval` otherwise; see `classlab doctor`), else
    /// `python3` on PATH. Commands that run no Python refuse it.
    #[arg(long, global = true, value_name = "PATH")]
    pub python: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub tui: TuiArgs,
}

#[derive(Debug, clap::Args, Default)]
pub struct TuiArgs {
    /// Dependency predictions to compare with the ground truth in the TUI.
    #[arg(long, value_name = "FILE")]
    pub predictions: Option<PathBuf>,
    /// Colour theme: dark, light, high-contrast, or a theme in the config directory.
    #[arg(long, value_name = "NAME")]
    pub theme: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// One row per task: id, class, methods, dependency edges (extracted), tests.
    Tasks,
    /// One task: methods with signatures, extracted and annotated dependencies, tests.
    Show {
        /// Task id, e.g. ClassEval_0.
        task_id: String,
    },
    /// Per task and method: extracted vs annotated dependencies, with a summary.
    Deps,
    /// Score predicted dependencies against the ground truth (domain.md §4).
    Depcheck {
        /// Predictions: {"<task_id>": {"dependencies": {...}, "order": [...]}}.
        #[arg(long, value_name = "FILE")]
        predictions: PathBuf,
        /// Ground truth: `extracted` (from the reference code), `annotated` (the dataset's
        /// method_dependencies), or a file in the predictions shape.
        #[arg(
            long,
            value_name = "extracted|annotated|FILE",
            default_value = "extracted"
        )]
        gt: String,
    },
    /// Every class in every .py file below a path: methods and dependency edges.
    Analyze {
        /// A directory or a Python file.
        path: PathBuf,
        /// Worker threads (default: all cores).
        #[arg(long)]
        jobs: Option<usize>,
        /// Skip directories with this name (repeatable), e.g. `--exclude site-packages`.
        #[arg(long, value_name = "DIRNAME")]
        exclude: Vec<String>,
    },
    /// Run model outputs against their tests in the sandbox, as a session; print the metrics.
    Eval(eval::EvalArgs),
    /// Metrics and failure fingerprints of finished sessions, side by side.
    Fingerprint {
        /// Session ids or directories.
        #[arg(required = true, value_name = "SESSION")]
        ids: Vec<String>,
    },
    /// Generate classes with a model (or the reference, or a recorded session), as a session.
    Run(Box<run::RunArgs>),
    /// Functional metrics with 95% intervals, dependency, repair-cost and usage tables of
    /// runs side by side; --by slices by a task property, --format writes md/html/csv/latex.
    Report(report::ReportArgs),
    /// Two or more sessions paired on their common tasks: McNemar for the class-level
    /// metrics, a task-clustered paired difference for the test-class ones, effect sizes;
    /// with more than two, every pair with Holm-adjusted p.
    Compare {
        /// Session ids or directories (A first).
        #[arg(required = true, num_args = 2.., value_name = "SESSION")]
        ids: Vec<String>,
    },
    /// Open a generation run in the TUI: its run screen, then every method's rounds.
    Replay {
        /// Session id or directory.
        session: String,
    },
    /// List sessions; `sessions rm ID…` deletes sessions.
    Sessions(sessions::SessionsArgs),
    /// The Python interpreter, the task packages, and the sandbox isolation in force.
    Doctor,
    /// Run each reference twice (fresh dirs, two hash seeds): nondeterminism, leftovers,
    /// traced calls, failures (T11, T5, T8, T9, I2) and line coverage.
    Validate(validate::ValidateArgs),
    /// Branch coverage and mutation analysis of each task's reference under its own tests:
    /// line/branch coverage, mutants killed, surviving, equivalent; `rigor merge` joins shards.
    Rigor(rigor::RigorArgs),
    /// Review tasks for a cleaned benchmark: status, approve, reject, note, edit, export.
    Curate(curate::CurateArgs),
    /// Static checks of the tasks (domain.md §6): findings with code, severity, place and fix.
    Lint(lint::LintArgs),
    /// Class corpora: build, query, merge and export a store of every class below some paths.
    Corpus(corpus::CorpusArgs),
    /// Differential tests generated from each class's reference: a dataset of forged tasks
    /// with their evidence (coverage, gates), resumable and shardable.
    Forge(Box<forge::ForgeArgs>),
    /// Open the terminal UI (the default when no command is given).
    Tui(TuiArgs),
}

/// Output format of a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Output {
    Human,
    Json,
}

/// What a command hands back: whether its input had problems (exit 3).
pub(crate) struct Outcome {
    pub problems: usize,
}

impl Outcome {
    pub fn clean() -> Self {
        Outcome { problems: 0 }
    }
}

pub(crate) struct Context {
    pub dataset_path: Option<PathBuf>,
    pub output: Output,
    pub sessions: Option<PathBuf>,
    pub python: Option<PathBuf>,
}

impl Context {
    /// Load the dataset, printing its problems as warnings.
    pub fn dataset(&self) -> anyhow::Result<(Dataset, usize)> {
        let dataset = dataset::load(self.dataset_path.as_deref())?;
        let problems = warn_all(&dataset.problems);
        Ok((dataset, problems))
    }

    pub fn analyses(dataset: &Dataset) -> Vec<TaskAnalysis> {
        dataset.tasks.iter().map(analyze_task).collect()
    }
}

/// Print each problem on stderr as a warning; returns how many.
pub(crate) fn warn_all(problems: &[Problem]) -> usize {
    let stderr = std::io::stderr();
    let mut err = stderr.lock();
    for p in problems {
        let _ = writeln!(
            err,
            "classlab: warning: {}",
            crate::text::escape_control(&p.to_string())
        );
    }
    problems.len()
}

/// Write a value as pretty JSON on stdout.
pub(crate) fn print_json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    Ok(())
}

/// The global flags a command reads; any other one given is refused (exit 2), never ignored.
#[derive(Debug, Clone, Copy)]
struct Reads {
    dataset: bool,
    python: bool,
    sessions: bool,
    json: bool,
}

impl Reads {
    const fn new(dataset: bool, python: bool, sessions: bool, json: bool) -> Self {
        Reads {
            dataset,
            python,
            sessions,
            json,
        }
    }
}

/// The subcommand's name (as `classlab NAME`) and the global flags it reads.
fn reads(command: &Option<Command>) -> (&'static str, Reads) {
    // (dataset, python, sessions, json)
    match command {
        Some(Command::Tasks) => ("tasks", Reads::new(true, false, false, true)),
        Some(Command::Show { .. }) => ("show", Reads::new(true, false, false, true)),
        Some(Command::Deps) => ("deps", Reads::new(true, false, false, true)),
        Some(Command::Depcheck { .. }) => ("depcheck", Reads::new(true, false, true, true)),
        Some(Command::Analyze { .. }) => ("analyze", Reads::new(false, false, false, true)),
        Some(Command::Eval(_)) => ("eval", Reads::new(true, true, true, true)),
        Some(Command::Fingerprint { .. }) => ("fingerprint", Reads::new(false, false, true, true)),
        Some(Command::Run(_)) => ("run", Reads::new(true, true, true, true)),
        Some(Command::Report(_)) => ("report", Reads::new(true, false, true, true)),
        Some(Command::Compare { .. }) => ("compare", Reads::new(false, false, true, true)),
        Some(Command::Replay { .. }) => ("replay", Reads::new(true, true, true, false)),
        Some(Command::Sessions(_)) => ("sessions", Reads::new(false, false, true, true)),
        Some(Command::Doctor) => ("doctor", Reads::new(true, true, false, true)),
        Some(Command::Validate(_)) => ("validate", Reads::new(true, true, true, true)),
        Some(Command::Rigor(_)) => ("rigor", Reads::new(true, true, false, true)),
        Some(Command::Forge(_)) => ("forge", Reads::new(false, true, true, true)),
        Some(Command::Curate(_)) => ("curate", Reads::new(true, false, true, true)),
        Some(Command::Lint(_)) => ("lint", Reads::new(true, false, false, true)),
        Some(Command::Corpus(_)) => ("corpus", Reads::new(false, false, false, true)),
        Some(Command::Tui(_)) => ("tui", Reads::new(true, true, true, false)),
        None => ("tui", Reads::new(true, true, true, false)),
    }
}

/// A global flag the command would ignore: a usage error naming it, never silence.
fn refuse_ignored_flags(cli: &Cli) {
    let (name, r) = reads(&cli.command);
    let given = [
        (
            "--dataset",
            cli.dataset.is_some(),
            r.dataset,
            "reads no dataset",
        ),
        ("--python", cli.python.is_some(), r.python, "runs no Python"),
        (
            "--sessions",
            cli.sessions.is_some(),
            r.sessions,
            "reads or writes no session",
        ),
        ("--json", cli.json, r.json, "has no JSON output"),
    ];
    let tui_only = cli.command.is_some() && !matches!(cli.command, Some(Command::Tui(_)));
    let tui = [
        ("--predictions", tui_only && cli.tui.predictions.is_some()),
        ("--theme", tui_only && cli.tui.theme.is_some()),
    ];
    for (flag, set, read, why) in given {
        if set && !read {
            usage_error_kind(
                name,
                clap::error::ErrorKind::ArgumentConflict,
                &format!("`classlab {name}` {why}: {flag} would be ignored; leave it out"),
            );
        }
    }
    for (flag, set) in tui {
        if set {
            usage_error_kind(
                name,
                clap::error::ErrorKind::ArgumentConflict,
                &format!("{flag} before the command is the TUI's; `classlab {name}` ignores it"),
            );
        }
    }
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    // The config is read once, here, for every command: a malformed file is an error before
    // anything runs (never a silent fall back to the defaults), a missing one is the defaults.
    if let Err(err) = crate::config::init() {
        eprintln!(
            "classlab: error: {err} (fix the config file, or move it away to use the defaults)"
        );
        return ExitCode::from(2);
    }
    refuse_ignored_flags(&cli);
    if let Some(Command::Run(args)) = &cli.command
        && args.strategy.is_none()
        && args.resume.is_none()
    {
        usage_error(
            "run",
            "--strategy <holistic|incremental|compositional|tdd> is required (unless --resume SESSION)",
        );
    }
    let ctx = Context {
        dataset_path: cli.dataset.clone(),
        output: if cli.json {
            Output::Json
        } else {
            Output::Human
        },
        sessions: cli.sessions.clone(),
        python: cli.python.clone(),
    };
    let result = match cli.command {
        Some(Command::Tasks) => tasks::run(&ctx),
        Some(Command::Show { task_id }) => show::run(&ctx, &task_id),
        Some(Command::Deps) => deps::run(&ctx),
        Some(Command::Depcheck { predictions, gt }) => depcheck::run(&ctx, &predictions, &gt),
        Some(Command::Analyze {
            path,
            jobs,
            exclude,
        }) => analyze::run(&ctx, &path, jobs, &exclude),
        Some(Command::Eval(args)) => eval::run(&ctx, &args),
        Some(Command::Fingerprint { ids }) => eval::fingerprint(&ctx, &ids),
        Some(Command::Run(args)) => run::run(&ctx, &args),
        Some(Command::Report(args)) => report::report_cmd(&ctx, &args),
        Some(Command::Compare { ids }) => compare::run(&ctx, &ids),
        Some(Command::Replay { session }) => replay(&ctx, &session),
        Some(Command::Sessions(args)) => sessions::run(&ctx, &args),
        Some(Command::Doctor) => doctor::run(&ctx),
        Some(Command::Validate(args)) => validate::run(&ctx, &args),
        Some(Command::Rigor(args)) => rigor::run(&ctx, &args),
        Some(Command::Curate(args)) => curate::run(&ctx, &args),
        Some(Command::Lint(args)) => lint::run(&ctx, &args),
        Some(Command::Corpus(args)) => corpus::run(&ctx, &args),
        Some(Command::Forge(args)) => forge::run(&ctx, &args),
        // `classlab --theme dark tui` as `classlab tui --theme dark`.
        Some(Command::Tui(args)) => open_tui(
            &ctx,
            TuiArgs {
                predictions: args.predictions.or(cli.tui.predictions),
                theme: args.theme.or(cli.tui.theme),
            },
            None,
        ),
        None => open_tui(&ctx, cli.tui, None),
    };
    match result {
        Ok(outcome) if outcome.problems > 0 => ExitCode::from(3),
        Ok(_) => ExitCode::SUCCESS,
        Err(err) if err.downcast_ref::<UsageError>().is_some() => {
            eprintln!("classlab: error: {}", error_text(&err));
            ExitCode::from(2)
        }
        Err(err) if err.downcast_ref::<Interrupted>().is_some() => {
            eprintln!("classlab: {}", crate::text::Escaped(&err.to_string()));
            ExitCode::from(130)
        }
        Err(err) => {
            eprintln!("classlab: error: {}", error_text(&err));
            ExitCode::from(1)
        }
    }
}

/// An error for stderr: each line of it escaped (input text never drives the terminal), the
/// lines after the first indented, so a message that spans lines (a filter with a caret under
/// the wrong character) reads as one and no line of it can pass for classlab's own.
fn error_text(err: &anyhow::Error) -> String {
    error_line(err)
        .lines()
        .map(|l| crate::text::escape_control(l).into_owned())
        .collect::<Vec<_>>()
        .join("\n  ")
}

/// A usage error of a subcommand found after parsing (a flag required unless another is
/// given): clap's message and usage, exit 2.
fn usage_error(subcommand: &str, message: &str) -> ! {
    usage_error_kind(
        subcommand,
        clap::error::ErrorKind::MissingRequiredArgument,
        message,
    )
}

/// [`usage_error`] of a given kind.
fn usage_error_kind(subcommand: &str, kind: clap::error::ErrorKind, message: &str) -> ! {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    let mut sub = cmd
        .find_subcommand_mut(subcommand)
        .map(|c| c.clone().bin_name(format!("classlab {subcommand}")))
        .unwrap_or_else(Cli::command);
    sub.error(kind, message).exit()
}

/// A usage error found while a command runs (a flag's value that parses but means nothing):
/// exit 2, as clap's own.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct UsageError(pub String);

/// A command stopped by Ctrl-C (what it recorded is kept): exit 130, as a shell reports a
/// process ended by SIGINT.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct Interrupted(pub String);

/// One line: the error and its causes, joined, each said once (an error that already quotes
/// its cause, such as the OS error of an unreadable file, does not repeat it).
fn error_line(err: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

/// `classlab replay`: the TUI on a run, with the dataset it was run on unless told otherwise.
fn replay(ctx: &Context, session: &str) -> anyhow::Result<Outcome> {
    let dir = run::replay_session(ctx, session)?;
    let origin = crate::session::store::read_meta(&dir)?.dataset.origin;
    let ctx = Context {
        dataset_path: ctx
            .dataset_path
            .clone()
            .or_else(|| (origin != dataset::SAMPLE_NAME).then(|| PathBuf::from(origin))),
        output: ctx.output,
        sessions: ctx.sessions.clone(),
        python: ctx.python.clone(),
    };
    open_tui(&ctx, TuiArgs::default(), Some(dir))
}

fn open_tui(
    ctx: &Context,
    args: TuiArgs,
    open_session: Option<PathBuf>,
) -> anyhow::Result<Outcome> {
    // A ClassEval list streams in (the TUI shows its first tasks at once); anything else is
    // loaded here, so a file that is no dataset fails before the terminal changes.
    // A corpus store opens the corpus browser (over no tasks); opened here so that a bad
    // store fails before the terminal changes.
    let corpus = match ctx.dataset_path.as_deref() {
        Some(path) if crate::corpus::schema::is_store(path) => Some(
            crate::tui::screens::corpus::State::open(path)
                .map_err(|e| e.context(format!("opening the corpus store {}", path.display())))?,
        ),
        _ => None,
    };
    let (source, curation_store) = match ctx.dataset_path.as_deref() {
        Some(path) if corpus.is_some() => (
            crate::tui::DatasetSource::Loaded(dataset::Dataset {
                name: dataset::name_from_path(&path.display().to_string()),
                origin: path.display().to_string(),
                format: dataset::Format::Classlab,
                tasks: Vec::new(),
                problems: Vec::new(),
            }),
            None,
        ),
        Some(path) if dataset::stream::is_list_file(path) => {
            // The store `classlab curate` uses, found from the dataset's digest once loaded.
            (crate::tui::DatasetSource::Stream(path.to_path_buf()), None)
        }
        path => {
            let dataset = dataset::load(path)?;
            let digest = dataset::digest(&dataset);
            // The store `classlab curate` and `validate` use (the sample's honours --sessions).
            let store =
                crate::curate::store::default_path(None, path, &digest, ctx.sessions.as_deref());
            (crate::tui::DatasetSource::Loaded(dataset), Some(store))
        }
    };
    let predictions = args
        .predictions
        .as_deref()
        .map(|p| dataset::predictions::load_any(p, ctx.sessions.as_deref()))
        .transpose()?;
    crate::tui::run_with(
        crate::tui::TuiOptions {
            dataset: source,
            predictions,
            truth: crate::depcheck::GroundTruth::Extracted,
            theme: args.theme,
            open_session,
            curation_store,
            corpus,
        },
        crate::tui::EvalSetup::new(
            crate::session::sessions_root(ctx.sessions.as_deref()),
            eval::python_for(ctx.python.as_deref(), ctx.dataset_path.as_deref()),
        )
        // The one execution service, built here; its sandbox is set up on first use.
        .with_executor(std::sync::Arc::new(crate::exec::Executor::new(
            eval::python_for(ctx.python.as_deref(), ctx.dataset_path.as_deref()),
            true,
        )))
        // Model outputs kept beside the dataset (ClassEval's layout) are offered too.
        .with_prediction_dirs(
            ctx.dataset_path
                .as_deref()
                .and_then(std::path::Path::parent)
                .map(|d| d.join("model_output"))
                .filter(|d| d.is_dir()),
        ),
    )?;
    Ok(Outcome::clean())
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// clap's own consistency checks (e.g. two arguments with one id) for every subcommand.
    #[test]
    fn cli_definition_is_consistent() {
        super::Cli::command().debug_assert();
    }

    #[test]
    fn an_error_line_says_each_cause_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "gone (os error 2)");
        let err = anyhow::Error::new(crate::dataset::LoadError::Io {
            path: "x.json".into(),
            source: io,
        })
        .context("loading predictions");
        assert_eq!(
            super::error_line(&err),
            "loading predictions: x.json: cannot read: gone (os error 2)"
        );
    }

    #[test]
    fn an_error_keeps_its_lines_indented_and_escapes_what_is_in_them() {
        let err = anyhow::anyhow!("filter: unexpected `=`\n  a=1\n   ^\nid \u{1b}[2J");
        assert_eq!(
            super::error_text(&err),
            "filter: unexpected `=`\n    a=1\n     ^\n  id \\u{1b}[2J"
        );
    }
}
