//! A generation run: one session, tasks on `jobs` worker threads, each task's strategy
//! talking to a provider and the sandbox through a [`TaskIo`] that records every step.
//! `--resume` continues unfinished tasks from their recorded events (see `task_io`).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;

use super::eval::TOOL_VERSION;
use super::prompts::Prompts;
use super::providers::ProviderChoice;
use super::public_tests::PublicTestsMode;
use super::schedule::ScheduleMode;
use super::task_io::{Sink, TaskIo};
use crate::dataset::Dataset;
use crate::exec::{DEFAULT_HARNESS, Executor, Harness, Sandbox};
use crate::llm::{Params, Provider};
use crate::metrics::fingerprint::Thresholds;
use crate::model::{Strategy, TaskIndex};
use crate::session::event::{Event, EventBody};
use crate::session::store::{
    DatasetRef, EVENTS_FILE, Meta, SCHEMA, SessionError, SessionWriter, new_id, now_rfc3339,
    sha256_hex,
};
use crate::session::{EvalState, InputRecord, Inputs, Resumable, SessionLog};

/// Everything a generation run needs.
pub struct RunRequest<'a> {
    pub dataset: &'a Dataset,
    pub dataset_digest: String,
    pub strategy: Strategy,
    pub provider: Arc<dyn Provider>,
    pub prompts: Prompts,
    pub sessions_root: PathBuf,
    /// Continue this session instead of starting one.
    pub resume: Option<PathBuf>,
    /// Task ids to run (`None`: every task).
    pub tasks: Option<Vec<String>>,
    /// Tasks at once (0: one per core).
    pub jobs: usize,
    pub max_repairs: u32,
    pub schedule: ScheduleMode,
    pub public_tests: PublicTestsMode,
    pub params: Params,
    /// Time budget per test class of the private tests (ClassEval: 5 s).
    pub budget: Duration,
    pub hash_seed: Option<u32>,
    pub thresholds: Thresholds,
    /// How the provider was chosen, recorded so `--resume` can rebuild it (no secrets: only
    /// the name of the API key's variable).
    pub provider_choice: Option<ProviderChoice>,
    /// Where `prompts` came from (`None`: embedded or the user's config directory).
    pub prompts_dir: Option<PathBuf>,
    /// The docstring level the tasks were given at (`full`, `partial`, `none`), when the
    /// edge changed it; recorded so reports can group runs by it.
    pub docstrings: Option<String>,
    /// Which harness runs the public and private tests (on resume: the session's).
    pub harness: Harness,
}

impl<'a> RunRequest<'a> {
    /// A run with the defaults: every task, one per core, 3 repairs, the predicted schedule,
    /// the dataset's public tests else doctests, temperature 0.
    pub fn new(
        dataset: &'a Dataset,
        strategy: Strategy,
        provider: Arc<dyn Provider>,
        sessions_root: PathBuf,
    ) -> Self {
        RunRequest {
            dataset,
            dataset_digest: crate::dataset::digest(dataset),
            strategy,
            provider,
            prompts: Prompts::embedded(),
            sessions_root,
            resume: None,
            tasks: None,
            jobs: 0,
            max_repairs: 3,
            schedule: ScheduleMode::Predicted,
            public_tests: PublicTestsMode::Doctest,
            params: Params::default(),
            budget: Duration::from_secs(5),
            hash_seed: None,
            thresholds: Thresholds::default(),
            provider_choice: None,
            prompts_dir: None,
            docstrings: None,
            harness: DEFAULT_HARNESS,
        }
    }
}

/// What a run reports while it goes: every recorded event (with the state after it), and
/// streamed model text (not recorded: the response event holds the whole text).
pub enum Update<'e> {
    Event(&'e Event, &'e EvalState),
    Delta {
        task_id: &'e str,
        sample: u32,
        call: u32,
        text: &'e str,
    },
}

pub struct RunOutcome {
    pub dir: PathBuf,
    pub state: EvalState,
    /// Selected tasks left out because they have no tests (in no metric; the caller says so).
    pub without_tests: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Session(#[from] SessionError),
    /// A prompt template (a user override) that does not render.
    #[error(transparent)]
    Prompt(#[from] super::prompts::PromptError),
    #[error("{0}")]
    Invalid(String),
    /// A resumed task's recorded events cannot be continued: run it again from scratch.
    #[error("the recorded events of a task cannot be continued")]
    Restart,
    /// A model request failed after its retries: the task ends `not generated` (recorded by
    /// the strategy; never escapes a task).
    #[error("provider error: {message}")]
    NotGenerated {
        method: Option<String>,
        message: String,
    },
    /// The model endpoint cannot be reached before the first task: nothing was started.
    #[error("{0}")]
    Unreachable(String),
    #[error(transparent)]
    Setup(#[from] crate::exec::SetupError),
}

fn config_json(req: &RunRequest<'_>) -> serde_json::Value {
    let mut config = json!({
        "dataset": req.dataset.origin,
        "dataset_digest": req.dataset_digest,
        "strategy": req.strategy,
        "provider": req.provider.kind(),
        "model": req.provider.model(),
        "jobs": req.jobs,
        "max_repairs": req.max_repairs,
        "schedule": req.schedule.to_string(),
        "public_tests": req.public_tests.to_string(),
        "params": req.params,
        "budget_s": req.budget.as_secs_f64(),
        "hash_seed": req.hash_seed,
        "thresholds": req.thresholds,
        "prompts": req.prompts.fingerprint(),
        "prompts_dir": req.prompts_dir,
        "provider_choice": req.provider_choice,
        "harness": req.harness,
    });
    // Only when the edge changed it: the configuration of earlier runs stays as it was.
    if let Some(level) = &req.docstrings {
        config["docstrings"] = json!(level);
    }
    config
}

/// The base URL requests go to, as the provider resolved it (the flag, else the endpoint
/// profile's); `None` for providers that ask no server.
fn base_url(req: &RunRequest<'_>) -> Option<String> {
    let choice = req
        .provider_choice
        .as_ref()
        .filter(|c| c.kind == "openai")?;
    req.provider.base_url().or(choice.base_url.clone())
}

/// What a run's results depend on, digested into the session's meta: the dataset, the
/// answers replayed (`--provider replay`: the source session's event log), and the effective
/// configuration — strategy, provider, base URL and model, the tasks, repairs, schedule,
/// public tests, sampling parameters, prompt templates, test budget, hash seed, thresholds
/// and interpreter. `--jobs`, streaming and the API key's variable change how, not what.
pub fn inputs(req: &RunRequest<'_>, sandbox: &Sandbox) -> Result<Inputs, RunError> {
    let choice = req.provider_choice.as_ref();
    let outputs = match choice.and_then(|c| c.replay_from.as_ref()) {
        Some(from) if req.provider.kind() == "replay" => {
            let log = from.join(EVENTS_FILE);
            let bytes = std::fs::read(&log)
                .map_err(|e| RunError::Invalid(format!("{}: {e}", log.display())))?;
            Some(InputRecord::file(
                from.display().to_string(),
                sha256_hex(&bytes),
            ))
        }
        _ => None,
    };
    let mut params = serde_json::to_value(&req.params).unwrap_or_default();
    if let Some(p) = params.as_object_mut() {
        p.remove("stream");
    }
    Ok(Inputs {
        dataset: InputRecord::file(&req.dataset.origin, &req.dataset_digest),
        outputs,
        config: InputRecord::config({
            let mut config = json!({
            "strategy": req.strategy,
            "provider": req.provider.kind(),
            "base_url": base_url(req),
            "model": req.provider.model(),
            "tasks": selected_tasks(req)?,
            "max_repairs": req.max_repairs,
            "schedule": req.schedule.to_string(),
            "public_tests": req.public_tests.to_string(),
            "params": params,
            "prompts": req.prompts.fingerprint(),
            });
            // What the model saw depends on it (absent: full, as before it existed).
            if let Some(level) = &req.docstrings {
                config["docstrings"] = json!(level);
            }
            super::eval::add_judging(
                &mut config,
                req.budget,
                req.hash_seed,
                &req.thresholds,
                sandbox,
            );
            super::eval::add_harness(&mut config, req.harness);
            config
        }),
        recorded_on_resume: None,
    })
}

/// The task ids a run covers, in dataset order; unknown ids are an error naming them.
fn selected_tasks(req: &RunRequest<'_>) -> Result<Vec<String>, RunError> {
    let all: Vec<String> = req.dataset.tasks.iter().map(|t| t.id.clone()).collect();
    let Some(wanted) = &req.tasks else {
        return Ok(all);
    };
    let known = TaskIndex::of(&req.dataset.tasks);
    let unknown: Vec<&String> = wanted.iter().filter(|w| !known.contains(w)).collect();
    if !unknown.is_empty() {
        return Err(RunError::Invalid(format!(
            "no task {} in {}",
            unknown
                .iter()
                .map(|u| format!("`{u}`"))
                .collect::<Vec<_>>()
                .join(", "),
            req.dataset.origin
        )));
    }
    let wanted = TaskIndex::from_ids(wanted.iter().map(String::as_str));
    Ok(all.into_iter().filter(|id| wanted.contains(id)).collect())
}

fn new_meta(req: &RunRequest<'_>) -> Meta {
    let model = req.provider.model();
    Meta {
        schema: SCHEMA,
        id: new_id("run", &format!("{}-{}", req.strategy, model)),
        kind: "run".into(),
        created: now_rfc3339(),
        tool_version: TOOL_VERSION.into(),
        dataset: DatasetRef {
            origin: req.dataset.origin.clone(),
            name: req.dataset.name.clone(),
            tasks: req.dataset.tasks.len(),
            digest: req.dataset_digest.clone(),
        },
        model: Some(model),
        strategy: Some(req.strategy.to_string()),
        source: Some(req.provider.kind().to_string()),
        harness: Some(req.harness.to_string()),
        harness_caveat: req.harness.caveat().map(String::from),
    }
}

/// Run (or resume) a generation run. Setting `cancel` stops it cleanly: model calls and
/// suites in flight are abandoned, their tasks stay unfinished (`--resume` finishes them) and
/// the stop is recorded.
pub fn run(
    req: &RunRequest<'_>,
    exec: &Executor,
    cancel: &AtomicBool,
    on_update: &(dyn Fn(Update<'_>) + Sync),
) -> Result<RunOutcome, RunError> {
    let sandbox = super::eval::sandbox_of(exec)?;
    // Tasks without tests are in no metric: none with tests is refused before anything is
    // created (or asked of a model); the others are left out and named by the caller.
    let without_tests = match &req.resume {
        Some(_) => Vec::new(),
        None => {
            let selected = selected_tasks(req)?;
            let positions = TaskIndex::of(&req.dataset.tasks);
            let tasks = selected
                .iter()
                .filter_map(|id| positions.get(&req.dataset.tasks, id));
            let (tested, testless) = super::testless::split(tasks);
            if tested.is_empty() && !testless.is_empty() {
                return Err(RunError::Invalid(super::testless::none_has_tests(
                    &testless,
                    "generate and judge",
                    "no session was created",
                )));
            }
            testless
        }
    };
    // A dead endpoint is refused before anything is started (or resumed).
    req.provider.reachable().map_err(RunError::Unreachable)?;
    let inputs = inputs(req, &sandbox)?;
    let mut warning = None;
    let (writer, prior) = match &req.resume {
        Some(dir) => {
            // The lock first (a second writer is refused at once), then the checks, and only
            // then is the log touched.
            let mut resuming = Resumable::open(dir)?;
            warning = check_resumable(&mut resuming, req, &inputs)?;
            let (writer, log) = resuming.into_writer()?;
            (writer, log.events)
        }
        None => (
            SessionWriter::create_with_inputs(&req.sessions_root, &new_meta(req), &inputs)?,
            Vec::new(),
        ),
    };
    let state = EvalState::from_events(&prior);
    let dir = writer.dir().to_path_buf();
    let sink = Sink::new(writer, state, on_update);

    let todo: Vec<String> = if state_started(&prior) {
        let done: BTreeSet<String> =
            sink.with_state(|s| s.done().map(|(t, _)| t.clone()).collect());
        let remaining: Vec<String> = sink.with_state(|s| {
            s.task_ids
                .iter()
                .filter(|t| !done.contains(*t))
                .cloned()
                .collect()
        });
        sink.emit(EventBody::RunResumed {
            remaining: remaining.clone(),
            continues: true,
        })?;
        remaining
    } else {
        let left_out: BTreeSet<&String> = without_tests.iter().collect();
        let tasks: Vec<String> = selected_tasks(req)?
            .into_iter()
            .filter(|id| !left_out.contains(id))
            .collect();
        let mut config = config_json(req);
        config["session_dir"] = json!(dir);
        sink.emit(EventBody::RunStarted {
            tool_version: TOOL_VERSION.into(),
            tasks: tasks.clone(),
            samples: 1,
            config,
        })?;
        tasks
    };
    if let Some(message) = warning {
        sink.emit(EventBody::Error {
            task_id: None,
            message,
        })?;
    }
    let journals = journals_by_task(&prior);

    let next = AtomicUsize::new(0);
    let workers = if req.jobs == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        req.jobs
    }
    .clamp(1, todo.len().max(1));
    let journals = Mutex::new(journals);
    let positions = TaskIndex::of(&req.dataset.tasks);
    let failure: Mutex<Option<RunError>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    if cancel.load(Ordering::SeqCst) {
                        return;
                    }
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(task_id) = todo.get(i) else {
                        return;
                    };
                    let Some(task) = positions.get(&req.dataset.tasks, task_id) else {
                        continue;
                    };
                    let journal = journals
                        .lock()
                        .map(|mut j| j.remove(task_id).unwrap_or_default())
                        .unwrap_or_default();
                    let mut io = TaskIo::new(task, 0, journal, &sink, req, &sandbox, cancel);
                    let mut done = super::strategy::run_task(&mut io);
                    if let Err(RunError::Restart) = done {
                        let fresh = VecDeque::new();
                        let mut io = TaskIo::new(task, 0, fresh, &sink, req, &sandbox, cancel);
                        done = super::strategy::run_task(&mut io);
                    }
                    if let Err(e) = done {
                        if let Ok(mut f) = failure.lock() {
                            f.get_or_insert(e);
                        }
                        cancel.store(true, Ordering::SeqCst);
                        return;
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().ok().flatten() {
        // The log is the truth of what happened; say why the run stopped before ending it.
        let _ = sink.emit(EventBody::Error {
            task_id: None,
            message: e.to_string(),
        });
        let _ = sink.emit(EventBody::RunFinished { cancelled: true });
        return Err(e);
    }
    let cancelled =
        cancel.load(Ordering::SeqCst) && sink.with_state(|s| s.progress().0 < s.progress().1);
    sink.emit(EventBody::RunFinished { cancelled })?;
    Ok(RunOutcome {
        dir,
        state: sink.into_state(),
        without_tests,
    })
}

fn state_started(prior: &[Event]) -> bool {
    prior
        .iter()
        .any(|e| matches!(e.body, EventBody::RunStarted { .. }))
}

/// The recorded events of each unfinished task, in order: what a resumed task replays.
fn journals_by_task(prior: &[Event]) -> BTreeMap<String, VecDeque<EventBody>> {
    let mut journals: BTreeMap<String, VecDeque<EventBody>> = BTreeMap::new();
    for e in prior {
        if let Some((task, _)) = e.body.task() {
            if matches!(e.body, EventBody::TaskStarted { .. }) {
                // A task started twice (an older log): only the last attempt counts.
                journals.remove(task);
            }
            journals
                .entry(task.to_string())
                .or_default()
                .push_back(e.body.clone());
        }
    }
    // A failed request is asked again: its task continues from just before the failure.
    for journal in journals.values_mut() {
        let failed = journal.iter().position(|b| {
            matches!(
                b,
                EventBody::LlmResponse {
                    failure: Some(_),
                    ..
                }
            )
        });
        if let Some(at) = failed {
            journal.truncate(at);
        }
    }
    journals
}

/// Refuse to resume `resuming` with other inputs than it started with (see
/// [`super::eval::check_inputs`]); a warning when the session predates input digests.
fn check_resumable(
    resuming: &mut Resumable,
    req: &RunRequest<'_>,
    inputs: &Inputs,
) -> Result<Option<String>, RunError> {
    if resuming.inputs.is_none() {
        check_legacy(&resuming.log, req)?;
    }
    super::eval::check_inputs(
        resuming,
        "run",
        "a generation run",
        "replayed session (--from)",
        inputs,
    )
    .map_err(RunError::Invalid)
}

/// What a session from before input digests lets us check: its kind, dataset, prompt
/// templates (recorded in `run_started`) and strategy.
fn check_legacy(log: &SessionLog, req: &RunRequest<'_>) -> Result<(), RunError> {
    let meta = &log.meta;
    meta.check_resumable("run", "a generation run", &req.dataset_digest)
        .map_err(RunError::Invalid)?;
    let recorded_prompts = log.events.iter().find_map(|e| match &e.body {
        EventBody::RunStarted { config, .. } => config.get("prompts")?.as_str().map(str::to_string),
        _ => None,
    });
    if let Some(recorded) = recorded_prompts
        && recorded != req.prompts.fingerprint()
    {
        return Err(RunError::Invalid(format!(
            "session {} was run with other prompt templates (fingerprint {}…, now {}…); \
             resume it with the same templates (--prompts DIR)",
            meta.id,
            recorded.get(..12).unwrap_or(&recorded),
            req.prompts.fingerprint().get(..12).unwrap_or_default()
        )));
    }
    if meta.strategy.as_deref() != Some(&req.strategy.to_string()) {
        return Err(RunError::Invalid(format!(
            "session {} ran strategy {}, not {}",
            meta.id,
            meta.strategy.as_deref().unwrap_or("?"),
            req.strategy
        )));
    }
    Ok(())
}
