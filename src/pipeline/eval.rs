//! Evaluation: model outputs → extracted code → sandboxed suites → a session of events.
//!
//! Every suite result becomes events the moment it arrives, so a run can be watched live,
//! stopped, resumed (finished tasks are skipped) and reopened.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::json;

use super::reference::{self, ReferenceRuns};
use crate::analysis::extract::{self, Strategy};
use crate::dataset::outputs::{Outputs, OutputsFormat};
use crate::dataset::{Dataset, Problem};
use crate::exec::{DEFAULT_HARNESS, Executor, Harness, Pool, Sandbox, SetupError};
use crate::metrics::fingerprint::{ReferenceEvidence, Thresholds};
use crate::model::{SuiteResult, TaskIndex};
use crate::session::store::{DatasetRef, Meta, SCHEMA, new_id, now_rfc3339};
use crate::session::{EvalState, Event, EventBody, Resumable, Scope, SessionError, SessionWriter};

mod code;
pub mod compare;
mod judge;
mod session_inputs;
pub use code::realclasseval_code;
pub use judge::{class_counts, env_context, suite_for, summarize, summarize_in};
pub use session_inputs::inputs;
pub(crate) use session_inputs::{add_harness, add_judging, check_inputs};
use session_inputs::{check_resumable, config_json};

pub const TOOL_VERSION: &str = env!("CARGO_PKG_VERSION");

/// One (task, sample) to evaluate, with the code to run.
#[derive(Debug, Clone)]
pub struct Item {
    pub task: usize,
    pub sample: u32,
    pub code: String,
    pub notes: Vec<String>,
}

/// Match outputs to tasks and extract the code to run. Samples for unknown tasks are
/// reported, never silently dropped.
pub fn prepare(dataset: &Dataset, outputs: &Outputs) -> (Vec<Item>, Vec<Problem>) {
    let mut items = Vec::new();
    let mut problems = Vec::new();
    let mut unknown = BTreeSet::new();
    let model = outputs.model.clone().unwrap_or_default();
    let positions = TaskIndex::of(&dataset.tasks);
    for s in &outputs.samples {
        let Some(index) = positions.position(&s.task_id) else {
            if unknown.insert(s.task_id.clone()) {
                problems.push(Problem {
                    file: outputs.file.clone(),
                    task: Some(s.task_id.clone()),
                    field: None,
                    message: format!(
                        "no task `{}` in {}; not evaluated",
                        s.task_id, dataset.origin
                    ),
                });
            }
            continue;
        };
        let task = &dataset.tasks[index];
        let (code, notes) = if !s.raw {
            (s.text.clone(), Vec::new())
        } else if outputs.format == OutputsFormat::ClassEval {
            let strategy = outputs.strategy.unwrap_or(Strategy::Holistic);
            let e = extract::extract_class_for_model(&s.text, task, strategy, &model);
            (e.code, e.notes)
        } else if outputs.format == OutputsFormat::RealClassEval {
            realclasseval_code(&s.text)
        } else {
            (
                extract::extract_code(&s.text),
                vec!["code extracted from the reply".into()],
            )
        };
        if s.text.trim().is_empty() {
            problems.push(Problem {
                file: outputs.file.clone(),
                task: Some(s.task_id.clone()),
                field: Some(format!("sample {}", s.sample)),
                message: "empty completion (evaluated as empty code)".into(),
            });
        }
        items.push(Item {
            task: index,
            sample: s.sample,
            code,
            notes,
        });
    }
    (items, problems)
}

/// A suite in the evaluation's pool: a candidate's (by its position in the work list), or a
/// reference's run that candidates' failures wait for (by its cache key, see `reference`).
enum Job {
    Candidate(usize),
    Reference(String),
}

/// Everything `run` needs.
pub struct EvalRequest<'a> {
    pub dataset: &'a Dataset,
    pub dataset_digest: String,
    pub outputs: &'a Outputs,
    pub sessions_root: PathBuf,
    /// Continue this session instead of starting one.
    pub resume: Option<PathBuf>,
    pub jobs: usize,
    /// Time budget per test class (per test for pytest modules).
    pub budget: Duration,
    pub hash_seed: Option<u32>,
    pub thresholds: Thresholds,
    /// Only these tasks of the outputs (`None`: every task they hold).
    pub tasks: Option<Vec<String>>,
    /// Which harness judges the code (on resume: the session's).
    pub harness: Harness,
}

impl<'a> EvalRequest<'a> {
    /// A new evaluation with the defaults: ClassEval's 5 s per test class, one suite per
    /// core, deterministic hash seed, default thresholds.
    pub fn new(dataset: &'a Dataset, outputs: &'a Outputs, sessions_root: PathBuf) -> Self {
        EvalRequest {
            dataset,
            dataset_digest: crate::dataset::digest(dataset),
            outputs,
            sessions_root,
            resume: None,
            jobs: 0,
            budget: Duration::from_secs(5),
            hash_seed: None,
            thresholds: Thresholds::default(),
            tasks: None,
            harness: DEFAULT_HARNESS,
        }
    }
}

/// The dataset's tasks an evaluation of `outputs` runs (those the outputs hold, of `only`
/// when given), in dataset order.
pub fn evaluated_tasks(
    dataset: &Dataset,
    outputs: &Outputs,
    only: Option<&[String]>,
) -> Vec<crate::model::Task> {
    let held: BTreeSet<&str> = outputs.samples.iter().map(|s| s.task_id.as_str()).collect();
    let only: Option<BTreeSet<&str>> = only.map(|o| o.iter().map(String::as_str).collect());
    dataset
        .tasks
        .iter()
        .filter(|t| held.contains(t.id.as_str()))
        .filter(|t| only.as_ref().is_none_or(|o| o.contains(t.id.as_str())))
        .cloned()
        .collect()
}

/// Keep the items of the selected tasks; a selected id the outputs do not hold is an error
/// naming it (a typo must not shrink an evaluation silently).
fn selected(req: &EvalRequest<'_>, items: Vec<Item>) -> Result<Vec<Item>, EvalError> {
    let Some(only) = &req.tasks else {
        return Ok(items);
    };
    let held: BTreeSet<&str> = items
        .iter()
        .map(|i| req.dataset.tasks[i.task].id.as_str())
        .collect();
    let unknown: Vec<&str> = only
        .iter()
        .map(String::as_str)
        .filter(|t| !held.contains(t))
        .collect();
    if !unknown.is_empty() {
        return Err(EvalError::Mismatch(format!(
            "--tasks: no output for {} in {} (for a task of the dataset); no session was created",
            unknown.join(", "),
            req.outputs.file
        )));
    }
    let only: BTreeSet<&str> = only.iter().map(String::as_str).collect();
    Ok(items
        .into_iter()
        .filter(|i| only.contains(req.dataset.tasks[i.task].id.as_str()))
        .collect())
}

/// The sandbox evaluations use: warm (fork server) unless `cold`. Prefer an [`Executor`]
/// built at the edge; this sets one up on the spot.
pub fn sandbox(python: Option<PathBuf>, cold: bool) -> Result<Sandbox, crate::exec::ExecError> {
    let sandbox = Sandbox::with_options(crate::exec::SandboxOptions {
        python,
        warm: !cold,
        ..Default::default()
    })?;
    // Missing modules are verified against the interpreter the suites run in (`env_context`).
    super::envcheck::use_interpreter(&sandbox.isolation().python.executable);
    Ok(sandbox)
}

pub struct EvalOutcome {
    pub dir: PathBuf,
    pub state: EvalState,
    /// Problems of matching outputs to tasks.
    pub problems: Vec<Problem>,
}

#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error("{0}")]
    Mismatch(String),
    #[error(transparent)]
    Setup(#[from] SetupError),
}

/// The executor's sandbox, with the interpreter it runs recorded for the environment checks
/// (`env_context`: which task modules are missing).
pub(crate) fn sandbox_of(exec: &Executor) -> Result<Arc<Sandbox>, SetupError> {
    let sandbox = exec.sandbox()?;
    super::envcheck::use_interpreter(&sandbox.isolation().python.executable);
    Ok(sandbox)
}

/// Run (or resume) an evaluation. `on_event` sees every event as it is written; setting
/// `cancel` stops the run cleanly (running suites are killed, the stop is recorded).
pub fn run(
    req: &EvalRequest<'_>,
    exec: &Executor,
    cancel: &AtomicBool,
    on_event: &mut dyn FnMut(&Event, &EvalState),
) -> Result<EvalOutcome, EvalError> {
    let sandbox = sandbox_of(exec)?;
    let python = sandbox.isolation().python.executable.clone();
    let (items, mut problems) = prepare(req.dataset, req.outputs);
    if items.is_empty() {
        return Err(EvalError::Mismatch(no_task_matches(
            req.dataset,
            req.outputs,
        )));
    }
    let items = selected(req, items)?;
    let items = with_tests(req, items, &mut problems)?;
    let samples = req.outputs.samples_per_task().max(1);
    let inputs = inputs(req, &sandbox);
    let mut warnings = Vec::new();
    let (mut writer, mut state) = match &req.resume {
        Some(dir) => {
            // The lock first (a second writer is refused at once), then the checks, and only
            // then is the log touched.
            let mut resuming = Resumable::open(dir)?;
            let legacy = check_resumable(&mut resuming, req, &inputs)?;
            warnings.extend(legacy);
            let (writer, log) = resuming.into_writer()?;
            (writer, EvalState::from_events(&log.events))
        }
        None => {
            let label = req
                .outputs
                .model
                .clone()
                .unwrap_or_else(|| "outputs".into());
            let meta = Meta {
                schema: SCHEMA,
                id: new_id("eval", &label),
                kind: "eval".into(),
                created: now_rfc3339(),
                tool_version: TOOL_VERSION.into(),
                dataset: DatasetRef {
                    origin: req.dataset.origin.clone(),
                    name: req.dataset.name.clone(),
                    tasks: req.dataset.tasks.len(),
                    digest: req.dataset_digest.clone(),
                },
                model: req.outputs.model.clone(),
                strategy: req.outputs.strategy.map(|s| s.to_string()),
                source: Some(req.outputs.file.clone()),
                harness: Some(req.harness.to_string()),
                harness_caveat: req.harness.caveat().map(String::from),
            };
            (
                SessionWriter::create_with_inputs(&req.sessions_root, &meta, &inputs)?,
                EvalState::default(),
            )
        }
    };
    let mut emit = |writer: &mut SessionWriter,
                    state: &mut EvalState,
                    body: EventBody|
     -> Result<(), EvalError> {
        let event = writer.append(body)?;
        state.apply(&event);
        on_event(&event, state);
        Ok(())
    };

    let done: BTreeSet<(String, u32)> = state.done().cloned().collect();
    let todo: Vec<&Item> = items
        .iter()
        .filter(|i| !done.contains(&(req.dataset.tasks[i.task].id.clone(), i.sample)))
        .collect();
    if state.started {
        let remaining = todo
            .iter()
            .map(|i| req.dataset.tasks[i.task].id.clone())
            .collect();
        emit(
            &mut writer,
            &mut state,
            EventBody::RunResumed {
                remaining,
                continues: false,
            },
        )?;
    } else {
        let mut tasks: Vec<String> = Vec::new();
        let mut seen = TaskIndex::default();
        for i in &items {
            let id = &req.dataset.tasks[i.task].id;
            if seen.insert(id, tasks.len()) {
                tasks.push(id.clone());
            }
        }
        let mut config = config_json(req);
        // Lets a live view tell this run from the same session read from disk.
        config["session_dir"] = json!(writer.dir());
        emit(
            &mut writer,
            &mut state,
            EventBody::RunStarted {
                tool_version: TOOL_VERSION.into(),
                tasks,
                samples,
                config,
            },
        )?;
    }
    for message in warnings {
        emit(
            &mut writer,
            &mut state,
            EventBody::Error {
                task_id: None,
                message,
            },
        )?;
    }
    for p in &problems {
        emit(
            &mut writer,
            &mut state,
            EventBody::Error {
                task_id: p.task.clone(),
                message: p.to_string(),
            },
        )?;
    }

    let references = ReferenceRuns::new(&req.sessions_root, &sandbox.isolation().python);
    let pool: Pool<Job> = Pool::new(sandbox, req.jobs);
    // Candidates whose failures wait for the reference's run (by its cache key), and the
    // reference runs this evaluation already has.
    let mut waiting: BTreeMap<String, Vec<(usize, SuiteResult)>> = BTreeMap::new();
    let mut reference_runs: BTreeMap<String, SuiteResult> = BTreeMap::new();
    // Submit as workers free up, so `task_started` means "running now", not "queued".
    let mut next = 0;
    let mut running = 0usize;
    let capacity = if req.jobs == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        req.jobs
    };
    let mut cancelled = false;
    loop {
        while !cancelled && running < capacity && next < todo.len() {
            let item = todo[next];
            let task = &req.dataset.tasks[item.task];
            emit(
                &mut writer,
                &mut state,
                EventBody::TaskStarted {
                    task_id: task.id.clone(),
                    sample: item.sample,
                },
            )?;
            emit(
                &mut writer,
                &mut state,
                EventBody::CodeExtracted {
                    task_id: task.id.clone(),
                    sample: item.sample,
                    code: item.code.clone(),
                    notes: item.notes.clone(),
                    method: None,
                    round: None,
                },
            )?;
            emit(
                &mut writer,
                &mut state,
                EventBody::StaticIndicators {
                    task_id: task.id.clone(),
                    sample: item.sample,
                    indicators: crate::analysis::tamper::scan(&item.code),
                },
            )?;
            let spec = suite_for(task, &item.code, req.budget, req.hash_seed);
            pool.submit(Job::Candidate(next), spec.with_harness(req.harness));
            next += 1;
            running += 1;
        }
        if running == 0 {
            break;
        }
        if cancel.load(Ordering::SeqCst) && !cancelled {
            cancelled = true;
            pool.cancel();
        }
        let (job, result) = match pool.results().recv_timeout(Duration::from_millis(100)) {
            Ok(r) => r,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => continue,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
        };
        running -= 1;
        if cancelled {
            // A killed suite says nothing about the model: leave the task unfinished so that
            // `--resume` runs it again (a candidate waiting for its reference too).
            continue;
        }
        // The candidates judged by this result, with the reference's run when they need it.
        let judged: Vec<(usize, SuiteResult, Option<SuiteResult>)> = match job {
            Job::Candidate(n) => {
                let task = &req.dataset.tasks[todo[n].task];
                if !reference::needed(task, &result) {
                    vec![(n, result, None)]
                } else {
                    let spec =
                        reference::suite(task, req.budget, req.hash_seed).with_harness(req.harness);
                    let key = references.key(&spec);
                    let known = reference_runs
                        .get(&key)
                        .cloned()
                        .or_else(|| references.cached(&key));
                    if let Some(r) = known {
                        reference_runs.insert(key, r.clone());
                        vec![(n, result, Some(r))]
                    } else {
                        let first = !waiting.contains_key(&key);
                        waiting.entry(key.clone()).or_default().push((n, result));
                        if first {
                            pool.submit(Job::Reference(key), spec);
                            running += 1;
                        }
                        Vec::new()
                    }
                }
            }
            Job::Reference(key) => {
                let candidates = waiting.remove(&key).unwrap_or_default();
                if let Some((n, _)) = candidates.first() {
                    references.store(&key, &req.dataset.tasks[todo[*n].task].id, &result);
                }
                reference_runs.insert(key, result.clone());
                candidates
                    .into_iter()
                    .map(|(n, r)| (n, r, Some(result.clone())))
                    .collect()
            }
        };
        for (n, result, reference) in judged {
            let item = todo[n];
            let task = &req.dataset.tasks[item.task];
            let mut ctx = super::envcheck::context_in(task, Some(&python));
            if let Some(r) = &reference {
                ctx = ctx.with_reference(ReferenceEvidence::of(r));
            }
            let summary = summarize_in(task, &result, &req.thresholds, &ctx);
            let runs = [
                Some((Scope::Private, result)),
                reference.map(|r| (Scope::Reference, r)),
            ];
            for (scope, result) in runs.into_iter().flatten() {
                emit(
                    &mut writer,
                    &mut state,
                    EventBody::TestRun {
                        task_id: task.id.clone(),
                        sample: item.sample,
                        scope,
                        method: None,
                        round: None,
                        result,
                    },
                )?;
            }
            emit(
                &mut writer,
                &mut state,
                EventBody::TaskFinished {
                    task_id: task.id.clone(),
                    sample: item.sample,
                    summary,
                },
            )?;
        }
    }
    pool.close();
    emit(
        &mut writer,
        &mut state,
        EventBody::RunFinished { cancelled },
    )?;
    Ok(EvalOutcome {
        dir: writer.dir().to_path_buf(),
        state,
        problems,
    })
}

/// The items whose task has tests. Tasks without tests are in no metric: when none of the
/// outputs' tasks has tests the evaluation is refused (no session), otherwise those without
/// are left out and named in one problem (the command's exit code 3).
fn with_tests(
    req: &EvalRequest<'_>,
    items: Vec<Item>,
    problems: &mut Vec<Problem>,
) -> Result<Vec<Item>, EvalError> {
    let mut seen = TaskIndex::default();
    let selected: Vec<&crate::model::Task> = items
        .iter()
        .map(|i| &req.dataset.tasks[i.task])
        .filter(|t| seen.insert(&t.id, 0))
        .collect();
    let (_, testless) = super::testless::split(selected.iter().copied());
    if testless.is_empty() {
        return Ok(items);
    }
    if testless.len() == selected.len() {
        return Err(EvalError::Mismatch(super::testless::none_has_tests(
            &testless,
            "evaluate",
            "no session was created",
        )));
    }
    problems.push(Problem {
        file: req.outputs.file.clone(),
        task: None,
        field: None,
        message: super::testless::skipped_warning(&testless, selected.len()),
    });
    let left_out: BTreeSet<&String> = testless.iter().collect();
    Ok(items
        .into_iter()
        .filter(|i| !left_out.contains(&req.dataset.tasks[i.task].id))
        .collect())
}

/// Why outputs none of whose tasks is in the dataset are refused (a forgotten `--dataset`,
/// most often): a session of 0 of 0 tasks would look like a result.
pub fn no_task_matches(dataset: &Dataset, outputs: &Outputs) -> String {
    let mut seen = BTreeSet::new();
    let ids: Vec<&str> = outputs
        .samples
        .iter()
        .map(|s| s.task_id.as_str())
        .filter(|id| seen.insert(*id))
        .collect();
    let shown: Vec<&str> = ids.iter().copied().take(3).collect();
    let more = if ids.len() > shown.len() { ", …" } else { "" };
    format!(
        "none of the {} tasks in {} ({}{more}) is a task of the dataset {} ({} tasks, e.g. {}); \
         give the dataset the outputs were generated for with --dataset; no session was created",
        ids.len(),
        outputs.file,
        shown.join(", "),
        dataset.origin,
        dataset.tasks.len(),
        dataset.tasks.first().map_or("none", |t| t.id.as_str()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::SuiteResult;

    /// The task-finished summary records each method's test class, so that views never
    /// guess it from names (issue 12 B13).
    #[test]
    fn a_summary_records_each_methods_test_class() {
        let dataset = crate::dataset::load(None).expect("the sample loads");
        let task = &dataset.tasks[0];
        let summary = summarize(
            task,
            &SuiteResult::new(Vec::new(), None),
            &Thresholds::default(),
        );
        let want: Vec<(String, String)> = task
            .methods
            .iter()
            .filter_map(|m| Some((m.name.clone(), m.test_class.clone()?)))
            .collect();
        assert!(!want.is_empty());
        assert_eq!(summary.method_tests, want);
    }
}
