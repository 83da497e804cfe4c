//! `classlab run`: generate classes with a model, as a session.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context as _, bail};
use serde_json::{Value, json};

use super::eval::{executor_for, recorded_config, resolve_session};
use super::progress::Progress;
use super::report::print_reports;
use super::{Context, Outcome, Output, print_json};
use crate::dataset;
use crate::model::Strategy;
use crate::pipeline::docstrings::{DocstringLevel, apply_to_task};
use crate::pipeline::prompts::Prompts;
use crate::pipeline::providers::{self, ProviderChoice};
use crate::pipeline::public_tests::PublicTestsMode;
use crate::pipeline::run::{self as generate, RunRequest, Update};
use crate::pipeline::schedule::ScheduleMode;
use crate::session::report::report;
use crate::session::store::{self, sessions_root};
use crate::session::{EvalState, EventBody, SessionLog};
use crate::text::Escaped;

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// holistic | incremental | compositional | tdd (required unless --resume).
    #[arg(long, value_name = "STRATEGY", value_parser = strategy_arg)]
    pub strategy: Option<String>,
    /// Who answers: a model behind an OpenAI-compatible API, a recorded session, or the
    /// dataset's reference code (a self-check, never mistaken for a model).
    #[arg(
        long,
        value_name = "PROVIDER",
        default_value = "openai",
        value_parser = crate::pipeline::providers::KINDS
    )]
    pub provider: String,
    /// The session whose answers `--provider replay` serves.
    #[arg(long, value_name = "SESSION")]
    pub from: Option<String>,
    /// An endpoint profile of the config file (`[endpoints.NAME]`).
    #[arg(long, value_name = "NAME")]
    pub endpoint: Option<String>,
    /// e.g. http://localhost:11434/v1 (overrides the profile's).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The model's name at the endpoint (overrides the profile's), e.g. qwen2.5-coder:7b.
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,
    /// The environment variable holding the API key (local servers need none).
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// Only these tasks (comma-separated ids).
    #[arg(long, value_name = "ID,…", value_delimiter = ',')]
    pub tasks: Vec<String>,
    /// Tasks at once (default: one per core).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Reflective repair rounds per method (tdd) [default: 3; with --resume, the session's].
    #[arg(long, value_name = "N")]
    pub max_repairs: Option<u32>,
    /// The order methods are written in (tdd): predicted (the model's), repaired (a
    /// topological sort of the predicted graph), ground-truth, or skeleton
    /// [default: predicted; with --resume, the session's].
    #[arg(long, value_name = "MODE", value_parser = schedule_arg)]
    pub schedule: Option<String>,
    /// Public tests when the dataset has none (tdd): doctest (the docstrings' `>>>`
    /// examples) or split:K (the first K tests of each method's own test class)
    /// [default: doctest; with --resume, the session's].
    #[arg(long, value_name = "doctest|split:K", value_parser = public_tests_arg)]
    pub public_tests: Option<String>,
    /// Sampling temperature (default 0).
    #[arg(long)]
    pub temperature: Option<f32>,
    /// Most tokens a model answer may have (default: the endpoint's own limit).
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u32>,
    /// Sampling seed sent with each request, for endpoints that honour one (default: none).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Ask for whole answers instead of a token stream.
    #[arg(long)]
    pub no_stream: bool,
    /// Prompt templates overriding the embedded ones (default: <config dir>/prompts).
    #[arg(long, value_name = "DIR")]
    pub prompts: Option<PathBuf>,
    /// Finish an interrupted run: a session id or directory.
    #[arg(long, value_name = "SESSION")]
    pub resume: Option<String>,
    /// Time budget of each private test class, as in `eval` (default 5).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// A fresh interpreter per suite instead of a warm fork server.
    #[arg(long)]
    pub cold: bool,
    /// The docstrings the model sees: full, partial (first sentence only) or none
    /// (docs/conditions.md); recorded on the session so reports compare conditions.
    #[arg(long, value_name = "full|partial|none", value_parser = docstrings_arg)]
    pub docstrings: Option<String>,
    #[command(flatten)]
    pub harness: super::eval::HarnessArg,
}

/// Parsers that check a flag's value when the command line is read (a bad value is a usage
/// error, exit 2), keeping the text as given.
fn strategy_arg(s: &str) -> Result<String, String> {
    Strategy::parse(s).map(|_| s.to_string()).ok_or_else(|| {
        format!("unknown strategy `{s}` (holistic, incremental, compositional, tdd)")
    })
}

fn schedule_arg(s: &str) -> Result<String, String> {
    s.parse::<ScheduleMode>().map(|_| s.to_string())
}

fn public_tests_arg(s: &str) -> Result<String, String> {
    s.parse::<PublicTestsMode>().map(|_| s.to_string())
}

fn docstrings_arg(s: &str) -> Result<String, String> {
    s.parse::<DocstringLevel>().map(|_| s.to_string())
}

/// The tasks a session's run covers (`run_started`), for `--resume`.
fn recorded_tasks(log: &SessionLog) -> Option<Vec<String>> {
    log.events.iter().find_map(|e| match &e.body {
        EventBody::RunStarted { tasks, .. } => Some(tasks.clone()),
        _ => None,
    })
}

fn text_of(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

pub(crate) fn run(ctx: &Context, args: &RunArgs) -> anyhow::Result<Outcome> {
    let root = sessions_root(ctx.sessions.as_deref());
    let resume = args
        .resume
        .as_deref()
        .map(|s| resolve_session(&root, s))
        .transpose()?;
    let log = resume.as_deref().map(SessionLog::open).transpose()?;
    let recorded = log.as_ref().map_or(Value::Null, recorded_config);
    let choice_rec = recorded
        .get("provider_choice")
        .cloned()
        .unwrap_or(Value::Null);
    let dataset_path = ctx.dataset_path.clone().or_else(|| {
        text_of(&recorded, "dataset")
            .filter(|o| o != dataset::SAMPLE_NAME)
            .map(PathBuf::from)
    });
    let mut ds = dataset::load(dataset_path.as_deref())?;
    let problems = super::warn_all(&ds.problems);
    let docstrings: DocstringLevel = args
        .docstrings
        .clone()
        .or_else(|| text_of(&recorded, "docstrings"))
        .map(|s| s.parse())
        .transpose()
        .map_err(anyhow::Error::msg)?
        .unwrap_or_default();
    if docstrings != DocstringLevel::Full {
        ds.tasks = ds
            .tasks
            .iter()
            .map(|t| apply_to_task(t, docstrings))
            .collect();
    }

    let strategy_name = args
        .strategy
        .clone()
        .or_else(|| text_of(&recorded, "strategy"))
        .context("--strategy holistic|incremental|compositional|tdd is required")?;
    let strategy = Strategy::parse(&strategy_name).with_context(|| {
        format!("unknown --strategy `{strategy_name}` (holistic, incremental, compositional, tdd)")
    })?;
    let pick =
        |flag: &Option<String>, key: &str| flag.clone().or_else(|| text_of(&choice_rec, key));
    let kind = if resume.is_some() && args.provider == "openai" {
        text_of(&choice_rec, "kind").unwrap_or_else(|| "openai".into())
    } else {
        args.provider.clone()
    };
    let choice = ProviderChoice {
        kind,
        endpoint: pick(&args.endpoint, "endpoint"),
        base_url: pick(&args.base_url, "base_url"),
        model: pick(&args.model, "model"),
        api_key_env: pick(&args.api_key_env, "api_key_env"),
        replay_from: match &args.from {
            Some(s) => Some(resolve_session(&root, s)?),
            None => text_of(&choice_rec, "replay_from").map(PathBuf::from),
        },
    };
    // Configuration is read at the edge and handed down.
    let config = (crate::config::current(), crate::config::shown_path());
    let provider =
        providers::build(&choice, &ds, config.0, &config.1).map_err(anyhow::Error::msg)?;

    let schedule: ScheduleMode = args
        .schedule
        .clone()
        .or_else(|| text_of(&recorded, "schedule"))
        .map(|s| s.parse().map_err(anyhow::Error::msg))
        .transpose()?
        .unwrap_or_default();
    let public_tests: PublicTestsMode = args
        .public_tests
        .clone()
        .or_else(|| text_of(&recorded, "public_tests"))
        .map(|s| {
            s.parse()
                .map_err(|e| anyhow::anyhow!("--public-tests: {e}"))
        })
        .transpose()?
        .unwrap_or(PublicTestsMode::Doctest);
    let mut params = recorded
        .get("params")
        .and_then(|p| serde_json::from_value(p.clone()).ok())
        .unwrap_or_default();
    apply_params(&mut params, args);
    let prompts_dir = args
        .prompts
        .clone()
        .or_else(|| text_of(&recorded, "prompts_dir").map(PathBuf::from));
    let prompts = match &prompts_dir {
        Some(dir) => Prompts::from_dir(dir)?,
        // The user's overrides, when they have any.
        None => {
            let dir = crate::config::config_dir().map(|d| d.join("prompts"));
            Prompts::load(dir.filter(|d| d.is_dir()).as_deref())?
        }
    };

    let (exec, cancel) = executor_for(ctx, dataset_path.as_deref(), args.cold)?;
    let sandbox = exec.sandbox()?;
    let python = &sandbox.isolation().python.executable;
    // Modules matter only to tasks that have tests: a testless selection is refused alone.
    if ds.tasks.iter().any(crate::pipeline::testless::has_tests)
        && let Some(w) = crate::pipeline::envcheck::missing_warning(python, &ds)
    {
        eprintln!("classlab: warning: {w}");
    }
    let recorded_u32 = |key: &str| recorded.get(key).and_then(Value::as_u64).map(|n| n as u32);
    let req = RunRequest {
        resume,
        // On resume the session's tasks, unless others are given (and then refused).
        tasks: if args.tasks.is_empty() {
            log.as_ref().and_then(recorded_tasks)
        } else {
            Some(args.tasks.clone())
        },
        jobs: args
            .jobs
            .or_else(|| {
                recorded
                    .get("jobs")
                    .and_then(Value::as_u64)
                    .map(|n| n as usize)
            })
            .unwrap_or(0),
        max_repairs: args
            .max_repairs
            .or_else(|| recorded_u32("max_repairs"))
            .unwrap_or(3),
        schedule,
        public_tests,
        params,
        prompts,
        // Recorded when chosen (or resumed with one), so reports group runs by condition.
        docstrings: (args.docstrings.is_some() || recorded.get("docstrings").is_some())
            .then(|| docstrings.to_string()),
        provider_choice: Some(choice),
        budget: Duration::from_secs_f64(
            args.timeout
                .or_else(|| recorded.get("budget_s").and_then(Value::as_f64))
                .unwrap_or(5.0)
                .clamp(0.1, 3600.0),
        ),
        prompts_dir,
        harness: args.harness.choose(log.as_ref().map(|_| &recorded))?,
        ..RunRequest::new(&ds, strategy, provider, root)
    };
    let human = ctx.output == Output::Human;
    // The bar (a terminal only) also with --json: it is on stderr.
    let planned = req.tasks.as_ref().map_or(ds.tasks.len(), Vec::len);
    let bar = Progress::new(planned, "tasks");
    let on_update = |u: Update<'_>| {
        if let Update::Event(event, state) = u {
            let (done, total) = state.progress();
            bar.set(done, total);
            if human {
                progress_line(&bar, &event.body, state);
            }
        }
    };
    let result = generate::run(&req, &exec, &cancel, &on_update);
    if cancel.load(std::sync::atomic::Ordering::SeqCst) {
        bar.interrupted();
    }
    drop(bar);
    let result = result?;
    let mut problems = problems;
    if !result.without_tests.is_empty() {
        eprintln!(
            "classlab: warning: {}",
            Escaped(&crate::pipeline::testless::skipped_warning(
                &result.without_tests,
                planned
            ))
        );
        problems += 1;
    }
    let log = SessionLog::open(&result.dir)?;
    let r = report(&log.meta, &result.state);
    let missing = r.not_generated.len();
    match ctx.output {
        // The shape of `report --json`, with this one session.
        Output::Json => print_json(&json!({ "sessions": [r] }))?,
        Output::Human => {
            print_reports(&[(&log, &result.state, &r)]);
            println!("session: {}", Escaped(&result.dir.display().to_string()));
            if !r.public_tests_left_out.is_empty() {
                println!(
                    "public tests left out (the reference does not pass them): {}",
                    r.public_tests_left_out.len()
                );
                for t in &r.public_tests_left_out {
                    println!(
                        "  {} {}: {}",
                        Escaped(&t.task_id),
                        Escaped(&t.test),
                        Escaped(&t.reason)
                    );
                }
            }
            if !r.not_generated.is_empty() {
                println!(
                    "not generated ({} task{}, model requests failed; in no metric):",
                    missing,
                    if missing == 1 { "" } else { "s" }
                );
                for t in &r.not_generated {
                    println!("  {}: {}", Escaped(&t.task_id), Escaped(&t.reason));
                }
            }
            if result.state.cancelled {
                println!(
                    "stopped before the end: `classlab run --resume {}` finishes it",
                    log.meta.id
                );
            }
        }
    }
    if missing > 0 {
        bail!(
            "run {} is incomplete: {missing} task{} not generated because model requests \
             failed; `classlab run --resume {}` asks again",
            log.meta.id,
            if missing == 1 { "" } else { "s" },
            log.meta.id
        );
    }
    Ok(Outcome { problems })
}

fn apply_params(params: &mut crate::llm::Params, args: &RunArgs) {
    if let Some(t) = args.temperature {
        params.temperature = t;
    }
    if args.max_tokens.is_some() {
        params.max_tokens = args.max_tokens;
    }
    if args.seed.is_some() {
        params.seed = args.seed;
    }
    if args.no_stream {
        params.stream = false;
    }
}

/// A line on stderr (above the bar when it is drawn) for what a human follows of a run.
fn progress_line(bar: &Progress, body: &EventBody, state: &EvalState) {
    match body {
        EventBody::TaskFinished {
            task_id, summary, ..
        } => {
            let (done, total) = state.progress();
            let bucket = summary.outcome.map_or("-", |b| b.as_str());
            bar.line(&format!(
                "[{done:>4}/{total}] {task_id:<16} {bucket:<10} {}/{} tests",
                summary.passed, summary.judged
            ));
        }
        EventBody::TaskNotGenerated {
            task_id,
            method,
            reason,
            ..
        } => {
            let (done, total) = state.progress();
            let method = method
                .as_deref()
                .map(|m| format!(" `{m}`"))
                .unwrap_or_default();
            bar.line(&format!(
                "[{done:>4}/{total}] {task_id:<16} not generated{method}: {reason}"
            ));
        }
        EventBody::LlmResponse {
            task_id,
            failure: Some(f),
            ..
        } => bar.line(&format!(
            "classlab: warning: {task_id}: model request failed: {}",
            f.message
        )),
        EventBody::Error { task_id, message } => bar.line(&format!(
            "classlab: warning: {}{message}",
            task_id
                .as_deref()
                .map(|t| format!("{t}: "))
                .unwrap_or_default()
        )),
        _ => {}
    }
}

/// The session a `replay` opens, checked to be a generation run.
pub(crate) fn replay_session(ctx: &Context, given: &str) -> anyhow::Result<PathBuf> {
    let root = sessions_root(ctx.sessions.as_deref());
    let dir = resolve_session(&root, given)?;
    let meta = store::read_meta(&dir)?;
    if meta.kind != "run" {
        bail!(
            "session {} is a `{}` session; `classlab replay` opens generation runs",
            meta.id,
            meta.kind
        );
    }
    Ok(dir)
}
