//! `classlab eval` (run model outputs through the sandbox as a session), `classlab fingerprint`
//! (metrics and fingerprints of finished sessions, side by side) and `classlab sessions`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context as _, bail};

use crate::exec::{DEFAULT_HARNESS, Executor, Harness};
use serde_json::{Value, json};

use super::progress::Progress;
use super::table::Table;
use super::{Context, Outcome, Output, print_json, warn_all};

mod killing;
mod output;
use crate::dataset::{self, outputs};
use crate::pipeline::eval::{self, EvalRequest, compare};
use crate::session::store::{self, sessions_root};
use crate::session::{EvalState, EventBody, SessionLog};
use crate::text::Escaped;
use output::{UNJUDGED, labels, print_caveats, print_table, session_json};
pub(crate) use output::{pct_env, print_human};

#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// Model outputs: ClassEval model_output JSON, a RealClassEval generated CSV, or JSONL.
    /// Optional with --resume (the session remembers its file).
    #[arg(long, value_name = "FILE")]
    pub predictions: Option<PathBuf>,
    /// How to read --predictions: `auto` tells by content.
    #[arg(
        long,
        value_name = "FORMAT",
        default_value = "auto",
        value_parser = ["auto", "classeval", "realclasseval", "jsonl"]
    )]
    pub format: String,
    /// Only these tasks of the outputs (comma-separated ids; default: every task they hold;
    /// with --resume, the session's).
    #[arg(long, value_name = "ID,…", value_delimiter = ',')]
    pub tasks: Vec<String>,
    /// Suites run at once (default: one per core).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Finish an interrupted evaluation: a session id or directory.
    #[arg(long, value_name = "SESSION")]
    pub resume: Option<String>,
    /// Time budget of each test class (ClassEval's evaluator: 5 s; with --resume, the
    /// session's); for pytest modules, of each test. A class that overruns it counts as not
    /// run, and the next class runs.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Start a fresh interpreter per suite instead of forking a warm one (slower; the
    /// isolation is the same, see `classlab doctor`).
    #[arg(long)]
    pub cold: bool,
    /// PYTHONHASHSEED for the suites (default 0: deterministic; with --resume, the session's).
    #[arg(long, value_name = "N")]
    pub hash_seed: Option<u32>,
    #[command(flatten)]
    pub harness: HarnessArg,
    /// Report the metrics re-scored against only the tests that kill at least one mutant of
    /// the task's reference (from `classlab rigor`'s store); with --resume SESSION of a
    /// finished session, re-scores it without running anything. The session is unchanged.
    #[arg(long)]
    pub only_killing_tests: bool,
    /// The rigor store --only-killing-tests reads (default: rigor.db in classlab's data
    /// directory, as `classlab rigor` writes it).
    #[arg(long, value_name = "PATH", requires = "only_killing_tests")]
    pub store: Option<PathBuf>,
    /// Evaluate only shard K of N (disjoint by task-id hash); `classlab sessions merge` joins
    /// the shards' sessions. Give the same --shard again with --resume.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<crate::corpus::walk::Shard>,
}

/// `--harness`, on every command that runs tests.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct HarnessArg {
    /// Which harness judges the code: `split` runs the tests and writes the verdicts in a
    /// process of their own, out of the code's reach; `inproc` runs tests and code in one
    /// process (as ClassEval's evaluator does), whose verdicts code written against the
    /// harness can forge. Default: split (validate: inproc, whose probe of the trusted reference
    /// needs tests and code in one process); with --resume, the session's (another is refused).
    #[arg(long, value_name = "split|inproc")]
    pub harness: Option<Harness>,
}

impl HarnessArg {
    /// The harness to use: the flag, else (on resume) the one the session recorded in its
    /// configuration (`recorded`; sessions from before the split harness ran in-process),
    /// else the default.
    pub(crate) fn choose(&self, recorded: Option<&Value>) -> anyhow::Result<Harness> {
        if let Some(h) = self.harness {
            return Ok(h);
        }
        match recorded {
            Some(config) => Harness::recorded(config).map_err(anyhow::Error::msg),
            None => Ok(DEFAULT_HARNESS),
        }
    }
}

/// The interpreter: `--python`, else the config's `python`, else `python3` on PATH.
pub(crate) fn python_choice(flag: Option<&Path>) -> Option<PathBuf> {
    flag.map(Path::to_path_buf)
        .or_else(|| crate::config::current().python.clone())
}

/// The interpreter for a dataset: [`python_choice`], else the project's environment for the
/// dataset's kind when provisioned (`.python/classeval`, `.python/realclasseval`), else
/// `python3` on PATH.
pub(crate) fn python_for(flag: Option<&Path>, dataset: Option<&Path>) -> Option<PathBuf> {
    python_choice(flag).or_else(|| crate::pipeline::envcheck::project_python(dataset))
}

/// The execution service a command runs suites through (its sandbox set up now, the
/// isolation warnings printed before any work) and the flag Ctrl-C sets to stop the command
/// cleanly.
pub(crate) fn executor_and_cancel(
    ctx: &Context,
    cold: bool,
) -> anyhow::Result<(Executor, Arc<AtomicBool>)> {
    executor_for(ctx, ctx.dataset_path.as_deref(), cold)
}

/// [`executor_and_cancel`] for a dataset other than `--dataset`'s (on `--resume`, the
/// session's): the interpreter by default is the project's environment for that dataset.
pub(crate) fn executor_for(
    ctx: &Context,
    dataset: Option<&Path>,
    cold: bool,
) -> anyhow::Result<(Executor, Arc<AtomicBool>)> {
    let exec = Executor::new(python_for(ctx.python.as_deref(), dataset), !cold);
    let sandbox = eval::sandbox_of(&exec)?;
    for w in &sandbox.isolation().warnings {
        eprintln!("classlab: warning: sandbox: {w}");
    }
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&cancel);
    // A second Ctrl-C while stopping is ignored: the stop is already under way.
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    Ok((exec, cancel))
}

/// The configuration a session recorded when it started (`run_started`), for `--resume`.
pub(crate) fn recorded_config(log: &SessionLog) -> Value {
    log.events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::RunStarted { config, .. } => Some(config.clone()),
            _ => None,
        })
        .unwrap_or(Value::Null)
}

/// A session given by id (under the sessions root) or by path.
pub(crate) fn resolve_session(root: &Path, given: &str) -> anyhow::Result<PathBuf> {
    let as_path = PathBuf::from(given);
    if as_path.join(store::META_FILE).is_file() {
        return Ok(as_path);
    }
    let under = root.join(given);
    if under.join(store::META_FILE).is_file() {
        return Ok(under);
    }
    bail!(
        "no session `{given}` (looked for {} and {})",
        as_path.display(),
        under.display()
    )
}

pub(crate) fn run(ctx: &Context, args: &EvalArgs) -> anyhow::Result<Outcome> {
    let root = sessions_root(ctx.sessions.as_deref());
    let resume = args
        .resume
        .as_deref()
        .map(|s| resolve_session(&root, s))
        .transpose()?;
    let log = resume.as_deref().map(SessionLog::open).transpose()?;
    let meta = log.as_ref().map(|l| l.meta.clone());
    if let Some(m) = meta.as_ref().filter(|m| m.kind != "eval") {
        bail!(
            "session {id} is a generation run (`{kind}`), not an evaluation: `classlab {kind} \
             --resume {id}` finishes it, `classlab report {id}` shows it",
            id = m.id,
            kind = m.kind
        );
    }
    // On resume, settings not given again are the session's (a different one is refused).
    let recorded = log.as_ref().map_or(Value::Null, recorded_config);
    // On resume the session names its dataset and outputs; flags override.
    let dataset_path = ctx.dataset_path.clone().or_else(|| {
        meta.as_ref()
            .map(|m| m.dataset.origin.clone())
            .filter(|o| o != dataset::SAMPLE_NAME)
            .map(PathBuf::from)
    });
    let ds = dataset::load(dataset_path.as_deref())?;
    let mut problems = warn_all(&ds.problems);
    let predictions = args
        .predictions
        .clone()
        .or_else(|| {
            meta.as_ref()
                .and_then(|m| m.source.clone())
                .map(PathBuf::from)
        })
        .context("--predictions FILE is required (or --resume SESSION)")?;
    let format = match args.format.as_str() {
        "auto" => None,
        f => Some(
            outputs::OutputsFormat::parse(f).with_context(|| format!("unknown --format `{f}`"))?,
        ),
    };
    let mut outs = outputs::load(&predictions, format)?;
    problems += warn_all(&outs.problems);
    // On resume the session's own selection (a different one is refused by its inputs).
    let tasks: Option<Vec<String>> = if args.tasks.is_empty() {
        recorded
            .get("tasks")
            .and_then(|t| serde_json::from_value(t.clone()).ok())
    } else {
        Some(args.tasks.clone())
    };
    if let Some(shard) = &args.shard {
        outs.samples.retain(|s| shard.holds(&s.task_id));
    }

    let (exec, cancel) = executor_for(ctx, dataset_path.as_deref(), args.cold)?;
    let sandbox = exec.sandbox()?;
    let python = &sandbox.isolation().python.executable;
    // Only about the tasks this evaluation runs.
    let evaluated = eval::evaluated_tasks(&ds, &outs, tasks.as_deref());
    if let Some(w) = crate::pipeline::envcheck::missing_warning_for(python, &ds, &evaluated) {
        eprintln!("classlab: warning: {w}");
    }
    let timeout = args
        .timeout
        .or_else(|| recorded.get("budget_s").and_then(Value::as_f64))
        .unwrap_or(5.0);
    let hash_seed = args.hash_seed.or_else(|| {
        recorded
            .get("hash_seed")
            .and_then(Value::as_u64)
            .map(|n| n as u32)
    });
    let harness = args.harness.choose(log.as_ref().map(|_| &recorded))?;
    let req = EvalRequest {
        resume,
        tasks,
        jobs: args.jobs.unwrap_or(0),
        budget: Duration::from_secs_f64(timeout.clamp(0.1, 3600.0)),
        hash_seed,
        harness,
        ..EvalRequest::new(&ds, &outs, root)
    };
    let human = ctx.output == Output::Human;
    // The bar (a terminal only) also with --json: it is on stderr.
    let bar = Progress::new(outs.samples.len(), "tasks");
    // Run-level notices said as they happen, so not said again at the end.
    let mut said: Vec<String> = Vec::new();
    let result = eval::run(&req, &exec, &cancel, &mut |event, state| {
        let (done, total) = state.progress();
        bar.set(done, total);
        match &event.body {
            EventBody::TaskFinished {
                task_id, summary, ..
            } if human => {
                let bucket = summary.outcome.map_or(UNJUDGED, |b| b.as_str());
                bar.line(&format!(
                    "[{done:>4}/{total}] {task_id:<16} {bucket:<10} {}/{} tests",
                    summary.passed, summary.judged
                ));
            }
            // A run-level notice (a resume that could not check its inputs); the problems of
            // the predictions name their task and are listed at the end.
            EventBody::Error {
                task_id: None,
                message,
            } => {
                bar.line(&format!("classlab: warning: {message}"));
                said.push(message.clone());
            }
            _ => {}
        }
    })?;
    if cancel.load(Ordering::SeqCst) {
        bar.interrupted();
    }
    drop(bar);
    let unsaid: Vec<crate::dataset::Problem> = result
        .problems
        .iter()
        .filter(|p| !said.contains(&p.to_string()))
        .cloned()
        .collect();
    warn_all(&unsaid);
    problems += result.problems.len();
    let log = SessionLog::open(&result.dir)?;
    if args.only_killing_tests {
        let thresholds =
            serde_json::from_value(recorded_config(&log)["thresholds"].clone()).unwrap_or_default();
        let (state, kept) = killing::rescore(&log, &ds, &thresholds, args.store.as_deref())?;
        match ctx.output {
            Output::Json => {
                let mut v = session_json(&log, &state, true);
                v["only_killing_tests"] = serde_json::to_value(&kept)?;
                print_json(&v)?;
            }
            Output::Human => {
                print_human(&[(&log, &state)]);
                println!(
                    "re-scored against only the tests that kill a mutant: {} of {} private tests \
                     kept in {} tasks; left out (no stored rigor, or no killing test): {}",
                    kept.tests_kept,
                    kept.tests_total,
                    kept.tasks,
                    if kept.left_out.is_empty() {
                        "none".into()
                    } else {
                        kept.left_out.join(", ")
                    }
                );
                println!("session: {}", result.dir.display());
            }
        }
        return Ok(Outcome { problems });
    }
    match ctx.output {
        Output::Json => print_json(&session_json(&log, &result.state, true))?,
        Output::Human => {
            print_human(&[(&log, &result.state)]);
            println!("session: {}", Escaped(&result.dir.display().to_string()));
        }
    }
    if result.state.cancelled {
        let (done, total) = result.state.progress();
        return Err(super::Interrupted(format!(
            "stopped at {done}/{total} tasks; the session is marked stopped: \
             `classlab eval --resume {}` finishes it",
            log.meta.id
        ))
        .into());
    }
    Ok(Outcome { problems })
}

/// Sessions given by id or path, folded; their log problems and unfinished runs are warned
/// about (the count of problems is returned for the exit code).
pub(crate) fn load_folded(
    ctx: &Context,
    sessions: &[String],
) -> anyhow::Result<(Vec<(SessionLog, EvalState)>, usize)> {
    let root = sessions_root(ctx.sessions.as_deref());
    let mut logs = Vec::new();
    let mut problems = 0;
    for s in sessions {
        let dir = resolve_session(&root, s)?;
        let log = SessionLog::open(&dir)?;
        for p in &log.problems {
            eprintln!("classlab: warning: {}", Escaped(&p.to_string()));
            problems += 1;
        }
        let state = EvalState::from_events(&log.events);
        if !state.finished {
            eprintln!(
                "classlab: warning: {}: not finished ({} of {} tasks done): only finished tasks are counted",
                Escaped(&log.meta.id),
                state.progress().0,
                state.progress().1
            );
        }
        logs.push((log, state));
    }
    Ok((logs, problems))
}

pub(crate) fn fingerprint(ctx: &Context, sessions: &[String]) -> anyhow::Result<Outcome> {
    let (logs, problems) = load_folded(ctx, sessions)?;
    if logs.len() < 2 {
        match ctx.output {
            Output::Json => {
                let list: Vec<Value> = logs
                    .iter()
                    .map(|(l, s)| session_json(l, s, false))
                    .collect();
                print_json(&json!({ "sessions": list }))?;
            }
            Output::Human => {
                let refs: Vec<(&SessionLog, &EvalState)> =
                    logs.iter().map(|(l, s)| (l, s)).collect();
                print_human(&refs);
            }
        }
        return Ok(Outcome { problems });
    }
    let states: Vec<&EvalState> = logs.iter().map(|(_, s)| s).collect();
    let cmp = compare::compare(&states);
    let names = labels(&logs.iter().map(|(l, _)| l).collect::<Vec<_>>());
    let progress: Vec<(usize, usize)> = states.iter().map(|s| s.progress()).collect();
    match ctx.output {
        Output::Json => print_json(&comparison_json(&logs, &cmp, &names))?,
        Output::Human => {
            println!("Compared {}.", Escaped(&cmp.scope(&names)));
            let refs: Vec<(&SessionLog, &EvalState)> = logs
                .iter()
                .zip(&cmp.states)
                .map(|((l, _), s)| (l, s))
                .collect();
            print_table(&refs, &progress, Some(cmp.rows.len()));
            print_caveats(&refs);
            print_differing_tasks(&cmp, &names);
        }
    }
    Ok(Outcome { problems })
}

/// `fingerprint --json` of two or more sessions: each session's figures over the common
/// tasks (its own `progress` kept), and `compared`: the tasks compared, those left out, and
/// every compared task's outcome in each session.
fn comparison_json(
    logs: &[(SessionLog, EvalState)],
    cmp: &compare::Comparison,
    names: &[String],
) -> Value {
    let list: Vec<Value> = logs
        .iter()
        .zip(&cmp.states)
        .zip(&cmp.left_out)
        .map(|(((log, full), restricted), left_out)| {
            let mut v = session_json(log, restricted, false);
            let (done, total) = full.progress();
            v["progress"] = json!({"done": done, "total": total});
            v["left_out"] = json!(left_out);
            v
        })
        .collect();
    let outcomes: BTreeMap<&str, Vec<Option<&str>>> = cmp
        .rows
        .iter()
        .map(|r| {
            (
                r.task_id.as_str(),
                r.outcomes.iter().map(|o| o.map(|b| b.as_str())).collect(),
            )
        })
        .collect();
    let differing: Vec<&str> = cmp.differing().map(|r| r.task_id.as_str()).collect();
    json!({
        "sessions": list,
        "compared": {
            "scope": cmp.scope(names),
            "tasks": cmp.rows.len(),
            "left_out_tasks": cmp.left_out_tasks,
            "differing": differing,
            "outcomes": outcomes,
        },
    })
}

/// Tasks whose outcome differs between sessions (the comparison researchers look for), with
/// each session's outcome; only tasks every session finished.
fn print_differing_tasks(cmp: &compare::Comparison, names: &[String]) {
    let rows: Vec<&compare::TaskRow> = cmp.differing().collect();
    println!(
        "\n{} of the {} tasks compared differ in outcome",
        rows.len(),
        cmp.rows.len()
    );
    if rows.is_empty() {
        return;
    }
    let mut header = vec!["task"];
    header.extend(names.iter().map(String::as_str));
    let mut t = Table::new(&header);
    for r in rows {
        let mut cells = vec![r.task_id.clone()];
        cells.extend(
            r.outcomes
                .iter()
                .map(|o| o.map_or("-", |b| b.as_str()).to_string()),
        );
        t.row(cells);
    }
    print!("{}", t.render());
}
