//! `classlab eval` (run model outputs through the sandbox as a session), `classlab fingerprint`
//! (metrics and fingerprints of finished sessions, side by side) and `classlab sessions`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context as _, bail};
use serde::Serialize;
use serde_json::{Value, json};

use super::progress::Progress;
use super::table::Table;
use super::{Context, Outcome, Output, print_json, warn_all};
use crate::dataset::{self, outputs};
use crate::metrics::fingerprint::{Bucket, ExcKind};
use crate::metrics::functional::{FunctionalMetrics, answer};
use crate::pipeline::eval::{self, EvalRequest, compare};
use crate::session::reduce::FingerprintView;
use crate::session::store::{self, sessions_root};
use crate::session::{EvalState, EventBody, SessionLog};

#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// Model outputs: ClassEval model_output JSON, a RealClassEval generated CSV, or JSONL.
    /// Optional with --resume (the session remembers its file).
    #[arg(long, value_name = "FILE")]
    pub predictions: Option<PathBuf>,
    #[arg(
        long,
        value_name = "auto|classeval|realclasseval|jsonl",
        default_value = "auto"
    )]
    pub format: String,
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

/// The sandbox a command runs suites in (its isolation warnings printed) and the flag Ctrl-C
/// sets to stop the command cleanly.
pub(crate) fn sandbox_and_cancel(
    ctx: &Context,
    cold: bool,
) -> anyhow::Result<(Arc<crate::exec::Sandbox>, Arc<AtomicBool>)> {
    sandbox_for(ctx, ctx.dataset_path.as_deref(), cold)
}

/// [`sandbox_and_cancel`] for a dataset other than `--dataset`'s (on `--resume`, the
/// session's): the interpreter by default is the project's environment for that dataset.
pub(crate) fn sandbox_for(
    ctx: &Context,
    dataset: Option<&Path>,
    cold: bool,
) -> anyhow::Result<(Arc<crate::exec::Sandbox>, Arc<AtomicBool>)> {
    let python = python_for(ctx.python.as_deref(), dataset);
    let sandbox = Arc::new(eval::sandbox(python, cold)?);
    for w in &sandbox.isolation().warnings {
        eprintln!("classlab: warning: sandbox: {w}");
    }
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&cancel);
    // A second Ctrl-C while stopping is ignored: the stop is already under way.
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    Ok((sandbox, cancel))
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
    let outs = outputs::load(&predictions, format)?;
    problems += warn_all(&outs.problems);

    let (sandbox, cancel) = sandbox_for(ctx, dataset_path.as_deref(), args.cold)?;
    let python = &sandbox.isolation().python.executable;
    if let Some(w) = crate::pipeline::envcheck::missing_warning(python, &ds) {
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
    let req = EvalRequest {
        resume,
        jobs: args.jobs.unwrap_or(0),
        budget: Duration::from_secs_f64(timeout.clamp(0.1, 3600.0)),
        hash_seed,
        ..EvalRequest::new(&ds, &outs, root)
    };
    let human = ctx.output == Output::Human;
    // The bar (a terminal only) also with --json: it is on stderr.
    let bar = Progress::new(outs.samples.len(), "tasks");
    let result = eval::run(&req, sandbox, &cancel, &mut |event, state| {
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
            } => bar.line(&format!("classlab: warning: {message}")),
            _ => {}
        }
    })?;
    drop(bar);
    problems += warn_all(&result.problems);
    let log = SessionLog::open(&result.dir)?;
    match ctx.output {
        Output::Json => print_json(&session_json(&log, &result.state, true))?,
        Output::Human => {
            print_human(&[(&log, &result.state)]);
            println!("session: {}", result.dir.display());
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

/// `eval --json`'s outcome of a task whose suite ran but judged no test.
const UNJUDGED: &str = "Unjudged";
/// `eval --json`'s outcome of a task the run did not finish (stopped before it).
const NOT_RUN: &str = "NotRun";

/// The official per-test-class counts with their answer.
#[derive(Serialize)]
struct ClassOut {
    run: usize,
    failures: usize,
    errors: usize,
    answer: &'static str,
}

#[derive(Serialize)]
struct TestOut<'a> {
    id: &'a str,
    outcome: crate::model::Outcome,
    exc_type: Option<&'a str>,
    message: Option<&'a str>,
}

fn fingerprint_json(fp: &FingerprintView) -> Value {
    json!({
        "spectrum": fp.spectrum,
        "method_spectrum": fp.method_spectrum,
        "exceptions": fp.exceptions,
        "env_exceptions": fp.env_exceptions,
    })
}

/// The `--json` shape of `eval` (with `tasks`) and of `fingerprint` (without).
fn session_json(log: &SessionLog, state: &EvalState, with_tasks: bool) -> Value {
    let mut v = json!({
        "session": log.meta.id,
        "dir": log.dir,
        "model": log.meta.model,
        "strategy": log.meta.strategy,
        "dataset": log.meta.dataset.origin,
        "finished": state.finished && !state.cancelled,
        "progress": {"done": state.progress().0, "total": state.progress().1},
        "metrics": state.metrics(),
        "fingerprint": fingerprint_json(&state.fingerprint()),
        "tampered": crate::session::report::tampered_tasks(state),
    });
    if with_tasks {
        let mut tasks = BTreeMap::new();
        for ((task_id, sample), run) in state.runs() {
            let key = if state.samples > 1 {
                format!("{task_id}/{sample}")
            } else {
                task_id.clone()
            };
            // `outcome` is always a string (README, *Evaluating model outputs*): a bucket,
            // `Unjudged` (the suite ran, no test could be judged) or `NotRun` (the run
            // stopped before this task finished; `--resume` runs it).
            let Some(summary) = &run.summary else {
                tasks.insert(key, json!({"outcome": NOT_RUN, "status": run.status}));
                continue;
            };
            let classes: BTreeMap<&str, ClassOut> = summary
                .test_classes
                .iter()
                .map(|(name, c)| {
                    (
                        name.as_str(),
                        ClassOut {
                            run: c.tests_run,
                            failures: c.failures,
                            errors: c.errors,
                            answer: answer(*c).as_str(),
                        },
                    )
                })
                .collect();
            let tests: Vec<TestOut> = run
                .private
                .iter()
                .flat_map(|r| &r.tests)
                .map(|t| TestOut {
                    id: &t.id,
                    outcome: t.outcome,
                    exc_type: t.exc_type.as_deref(),
                    message: t.message.as_deref(),
                })
                .collect();
            let failure = run.private.as_ref().and_then(|r| r.failure.as_ref());
            tasks.insert(
                key,
                json!({
                    "outcome": summary.outcome.map_or(UNJUDGED, |b| b.as_str()),
                    "methods": summary
                        .methods
                        .iter()
                        .map(|(m, b)| (m.as_str(), b.map_or(UNJUDGED, |b| b.as_str())))
                        .collect::<BTreeMap<&str, &str>>(),
                    "test_classes": classes,
                    "tests": tests,
                    "failure": failure,
                }),
            );
        }
        v["tasks"] = json!(tasks);
    }
    v
}

pub(crate) fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// Metrics and fingerprints of one or more sessions, one column each.
pub(crate) fn print_human(sessions: &[(&SessionLog, &EvalState)]) {
    let progress: Vec<(usize, usize)> = sessions.iter().map(|(_, s)| s.progress()).collect();
    print_table(sessions, &progress, None);
}

/// Column labels: the models, or the session ids when two sessions share a model.
fn labels(logs: &[&SessionLog]) -> Vec<String> {
    let models: Vec<Option<&String>> = logs.iter().map(|l| l.meta.model.as_ref()).collect();
    let unique = models.iter().all(Option::is_some)
        && models
            .iter()
            .collect::<std::collections::BTreeSet<_>>()
            .len()
            == models.len();
    logs.iter()
        .map(|l| match &l.meta.model {
            Some(m) if unique => m.clone(),
            _ => l.meta.id.clone(),
        })
        .collect()
}

/// The table of [`print_human`]; `progress` is each session's own (done, total), `compared`
/// the number of tasks the figures cover when they are restricted to a comparison.
fn print_table(
    sessions: &[(&SessionLog, &EvalState)],
    progress: &[(usize, usize)],
    compared: Option<usize>,
) {
    let mut header: Vec<String> = vec![String::new()];
    header.extend(labels(
        &sessions.iter().map(|(l, _)| *l).collect::<Vec<_>>(),
    ));
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let right: Vec<usize> = (1..header.len()).collect();
    let mut t = Table::new(&header_refs).right(&right);
    let metrics: Vec<FunctionalMetrics> = sessions.iter().map(|(_, s)| s.metrics()).collect();
    let fps: Vec<FingerprintView> = sessions.iter().map(|(_, s)| s.fingerprint()).collect();
    let row = |label: &str, f: &dyn Fn(usize) -> String| {
        let mut r = vec![label.to_string()];
        r.extend((0..sessions.len()).map(f));
        r
    };
    t.row(row("strategy", &|i| {
        sessions[i].0.meta.strategy.clone().unwrap_or_default()
    }));
    t.row(row("tasks done", &|i| {
        let (d, n) = progress[i];
        format!("{d}/{n}")
    }));
    if let Some(n) = compared {
        t.row(row("tasks compared", &|_| n.to_string()));
    }
    t.row(row("class_success", &|i| pct(metrics[i].class_success)));
    t.row(row("class_partial_success", &|i| {
        pct(metrics[i].class_partial_success)
    }));
    t.row(row("fun_success", &|i| pct(metrics[i].fun_success)));
    t.row(row("fun_partial_success", &|i| {
        pct(metrics[i].fun_partial_success)
    }));
    for b in Bucket::ALL {
        t.row(row(&format!("  {}", b.as_str()), &|i| {
            fps[i].spectrum.get(b).to_string()
        }));
    }
    for k in ExcKind::ALL {
        if fps.iter().any(|f| f.exceptions.get(k) > 0) {
            t.row(row(&format!("  {k:?}"), &|i| {
                fps[i].exceptions.get(k).to_string()
            }));
        }
    }
    print!("{}", t.render());
    println!(
        "(spectrum: evaluated classes per outcome bucket; then failing tests per exception type, environment failures excluded)"
    );
    print_tampered(sessions);
}

/// The tasks whose runs the harness found tampered with, by session (nothing when none was).
fn print_tampered(sessions: &[(&SessionLog, &EvalState)]) {
    for (log, state) in sessions {
        let tampered = crate::session::report::tampered_tasks(state);
        if tampered.is_empty() {
            continue;
        }
        let multi = state.samples > 1;
        println!(
            "\nTAMPERED with in {} ({} task{}, counted as failures):",
            log.meta.model.as_deref().unwrap_or(&log.meta.id),
            tampered.len(),
            if tampered.len() == 1 { "" } else { "s" }
        );
        for t in tampered {
            let id = if multi {
                format!("{}/{}", t.task_id, t.sample)
            } else {
                t.task_id
            };
            println!("  {id}: {}", t.detail);
        }
    }
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
            eprintln!("classlab: warning: {p}");
            problems += 1;
        }
        let state = EvalState::from_events(&log.events);
        if !state.finished {
            eprintln!(
                "classlab: warning: {}: not finished ({} of {} tasks done): only finished tasks are counted",
                log.meta.id,
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
            println!("Compared {}.", cmp.scope(&names));
            let refs: Vec<(&SessionLog, &EvalState)> = logs
                .iter()
                .zip(&cmp.states)
                .map(|((l, _), s)| (l, s))
                .collect();
            print_table(&refs, &progress, Some(cmp.rows.len()));
            print_tampered(&refs);
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
