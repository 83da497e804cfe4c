//! The fold over a session's events. A live run and a replay go through the same `apply`,
//! so what the dashboard shows while a run executes is exactly what a report shows later.

use std::collections::BTreeMap;

use serde::Serialize;

use super::event::{Event, EventBody, Scope, TaskSummary};
use super::trace::Trace;
use crate::metrics::fingerprint::{Bucket, ExceptionHistogram, Spectrum};
use crate::metrics::functional::{self, FunctionalMetrics, TaskCounts};
use crate::model::SuiteResult;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Pending,
    Running,
    Done,
}

/// Everything known about one (task, sample).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRun {
    pub status: Status,
    pub code: Option<String>,
    pub notes: Vec<String>,
    /// The private (final) suite.
    pub private: Option<SuiteResult>,
    /// Public-test suites, in order (method-level runs).
    pub public: Vec<(Option<String>, SuiteResult)>,
    pub summary: Option<TaskSummary>,
    /// Set when the task ended without a class because a model request failed
    /// (`provider error: …`, prefixed with the method when one was being written). Such a
    /// task is `Done` but not finished: no metric counts it and `--resume` runs it again.
    pub not_generated: Option<String>,
}

impl TaskRun {
    fn pending() -> Self {
        TaskRun {
            status: Status::Pending,
            code: None,
            notes: Vec::new(),
            private: None,
            public: Vec::new(),
            summary: None,
            not_generated: None,
        }
    }
}

/// A run's fingerprint as reports show it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct FingerprintView {
    /// Evaluated classes per outcome bucket.
    pub spectrum: Spectrum,
    /// Target methods per outcome bucket (each judged on its own test class).
    pub method_spectrum: Spectrum,
    /// Failing tests attributed to the model, by exception kind.
    pub exceptions: ExceptionHistogram,
    /// Failing tests attributed to the environment (never counted against the model).
    pub env_exceptions: ExceptionHistogram,
}

/// How a run ended, as far as its log tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunEnd {
    Finished,
    /// Ended, but some tasks were not generated because model requests failed (`--resume`
    /// asks again).
    Incomplete,
    /// Cancelled before the end (`--resume` finishes it).
    Stopped,
    /// No `run_finished` (killed, crashed, or still running elsewhere).
    Unfinished,
}

impl RunEnd {
    pub fn label(self) -> &'static str {
        match self {
            RunEnd::Finished => "finished",
            RunEnd::Incomplete => "incomplete",
            RunEnd::Stopped => "stopped",
            RunEnd::Unfinished => "unfinished",
        }
    }
}

/// Tasks whose outcome (first sample) is not the same in every run, in natural order —
/// the comparison researchers look for. A task missing from a run counts as differing.
pub fn differing_tasks(runs: &[&EvalState]) -> Vec<String> {
    let mut ids: Vec<&str> = runs
        .iter()
        .flat_map(|s| {
            s.task_ids
                .iter()
                .map(String::as_str)
                .chain(s.runs.keys().map(|(t, _)| t.as_str()))
        })
        .collect();
    ids.sort_by(|a, b| crate::model::natural_cmp(a, b));
    ids.dedup();
    ids.into_iter()
        .filter(|id| {
            let outcomes: Vec<Option<Bucket>> = runs.iter().map(|s| s.outcome(id)).collect();
            outcomes.windows(2).any(|w| w[0] != w[1])
        })
        .map(str::to_string)
        .collect()
}

#[derive(Debug, Clone, Default)]
pub struct EvalState {
    /// Every task the run covers, in order (from `run_started`).
    pub task_ids: Vec<String>,
    pub samples: u32,
    /// The run's configuration as `run_started` recorded it (`Null` before it).
    pub config: serde_json::Value,
    pub runs: BTreeMap<(String, u32), TaskRun>,
    pub started: bool,
    pub finished: bool,
    pub cancelled: bool,
    pub resumed: usize,
    pub errors: Vec<String>,
    /// Events applied (the last seq + 1 for a healthy log).
    pub events: u64,
    /// What generation did (empty for evaluations of existing outputs).
    pub trace: Trace,
}

impl EvalState {
    pub fn from_events<'a>(events: impl IntoIterator<Item = &'a Event>) -> Self {
        let mut state = EvalState::default();
        for e in events {
            state.apply(e);
        }
        state
    }

    pub fn apply(&mut self, event: &Event) {
        self.events += 1;
        match &event.body {
            EventBody::RunStarted {
                tasks,
                samples,
                config,
                ..
            } => {
                self.started = true;
                self.config = config.clone();
                self.samples = (*samples).max(1);
                self.task_ids = tasks.clone();
                for id in tasks {
                    for s in 0..self.samples {
                        self.runs
                            .entry((id.clone(), s))
                            .or_insert_with(TaskRun::pending);
                    }
                }
            }
            EventBody::RunResumed { continues, .. } => {
                self.resumed += 1;
                self.finished = false;
                self.cancelled = false;
                // What was not generated is asked again.
                for run in self.runs.values_mut().filter(|r| r.not_generated.is_some()) {
                    run.status = Status::Running;
                    run.not_generated = None;
                }
                self.trace.resume_not_generated();
                if !*continues {
                    // Whatever was running when the run stopped starts again from scratch.
                    for (key, run) in self
                        .runs
                        .iter_mut()
                        .filter(|(_, r)| r.status == Status::Running)
                    {
                        *run = TaskRun::pending();
                        self.trace.reset(&key.0, key.1);
                    }
                }
            }
            EventBody::TaskStarted { task_id, sample } => {
                self.trace.reset(task_id, *sample);
                let run = TaskRun {
                    status: Status::Running,
                    ..TaskRun::pending()
                };
                self.runs.insert((task_id.clone(), *sample), run);
            }
            EventBody::CodeExtracted {
                task_id,
                sample,
                code,
                notes,
                method: None,
                ..
            } => {
                let run = self.run_mut(task_id, *sample);
                run.code = Some(code.clone());
                run.notes = notes.clone();
                // The judged class: each method's region in it, once the task finishes.
                self.trace.apply(&event.body);
            }
            EventBody::TestRun {
                task_id,
                sample,
                scope,
                method,
                result,
                ..
            } => {
                let run = self.run_mut(task_id, *sample);
                match scope {
                    Scope::Private => run.private = Some(result.clone()),
                    Scope::Public => run.public.push((method.clone(), result.clone())),
                    // The reference vetting public tests: no run of the model's code.
                    Scope::Reference => {}
                }
                // A method's public run belongs to one of its rounds too.
                self.trace.apply(&event.body);
            }
            EventBody::TaskFinished {
                task_id,
                sample,
                summary,
            } => {
                let run = self.run_mut(task_id, *sample);
                run.status = Status::Done;
                run.summary = Some(summary.clone());
                run.not_generated = None;
                // Per-method entries of the judged class (every strategy).
                self.trace.apply(&event.body);
            }
            EventBody::TaskNotGenerated {
                task_id,
                sample,
                method,
                reason,
            } => {
                let run = self.run_mut(task_id, *sample);
                run.status = Status::Done;
                run.not_generated = Some(match method {
                    Some(m) => format!("`{m}`: {reason}"),
                    None => reason.clone(),
                });
                self.trace.apply(&event.body);
            }
            EventBody::Error { task_id, message } => self.errors.push(match task_id {
                Some(t) => format!("{t}: {message}"),
                None => message.clone(),
            }),
            EventBody::RunFinished { cancelled } => {
                self.finished = true;
                self.cancelled = *cancelled;
            }
            other => self.trace.apply(other),
        }
    }

    fn run_mut(&mut self, task_id: &str, sample: u32) -> &mut TaskRun {
        self.runs
            .entry((task_id.to_string(), sample))
            .or_insert_with(TaskRun::pending)
    }

    pub fn run(&self, task_id: &str, sample: u32) -> Option<&TaskRun> {
        self.runs.get(&(task_id.to_string(), sample))
    }

    pub fn run_end(&self) -> RunEnd {
        match (self.finished, self.cancelled) {
            (true, false) if self.not_generated().next().is_some() => RunEnd::Incomplete,
            (true, false) => RunEnd::Finished,
            (_, true) => RunEnd::Stopped,
            (false, false) => RunEnd::Unfinished,
        }
    }

    /// (done, total) over (task, sample) pairs.
    pub fn progress(&self) -> (usize, usize) {
        let done = self
            .runs
            .values()
            .filter(|r| r.status == Status::Done)
            .count();
        (done, self.runs.len())
    }

    /// Finished (task, sample) pairs, for `--resume` (a task not generated is not finished).
    pub fn done(&self) -> impl Iterator<Item = &(String, u32)> {
        self.runs
            .iter()
            .filter(|(_, r)| r.status == Status::Done && r.not_generated.is_none())
            .map(|(k, _)| k)
    }

    /// (task, sample, why) of every task not generated because a model request failed, in
    /// the run's task order.
    pub fn not_generated(&self) -> impl Iterator<Item = (&str, u32, &str)> {
        let position = |id: &str| self.task_ids.iter().position(|t| t == id);
        let mut out: Vec<(&str, u32, &str)> = self
            .runs
            .iter()
            .filter_map(|((t, s), r)| Some((t.as_str(), *s, r.not_generated.as_deref()?)))
            .collect();
        out.sort_by_key(|(t, s, _)| (position(t), *s));
        out.into_iter()
    }

    /// ClassEval's metrics over the finished tasks (pass@1 with every sample a task has).
    pub fn metrics(&self) -> FunctionalMetrics {
        let mut tasks: BTreeMap<&str, TaskCounts> = BTreeMap::new();
        for ((task_id, _), run) in &self.runs {
            if let Some(summary) = &run.summary {
                tasks
                    .entry(task_id)
                    .or_insert_with(|| TaskCounts {
                        task_id: task_id.clone(),
                        samples: Vec::new(),
                    })
                    .samples
                    .push(summary.test_classes.clone());
            }
        }
        // Keep the run's task order (ClassEval's sums are order-free, but reports are not).
        let mut ordered: Vec<TaskCounts> = self
            .task_ids
            .iter()
            .filter_map(|id| tasks.remove(id.as_str()))
            .collect();
        ordered.extend(tasks.into_values());
        functional::classeval_metrics(&ordered, 1)
    }

    pub fn fingerprint(&self) -> FingerprintView {
        let mut fp = FingerprintView::default();
        for summary in self.runs.values().filter_map(|r| r.summary.as_ref()) {
            if let Some(b) = summary.outcome {
                fp.spectrum.add(b);
            }
            for b in summary.methods.iter().filter_map(|(_, b)| *b) {
                fp.method_spectrum.add(b);
            }
            fp.exceptions.merge(&summary.exceptions);
            fp.env_exceptions.merge(&summary.env_exceptions);
        }
        fp
    }

    /// The outcome of a task's first sample, if finished.
    pub fn outcome(&self, task_id: &str) -> Option<Bucket> {
        self.run(task_id, 0)?.summary.as_ref()?.outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::functional::ClassCounts;

    fn ev(seq: u64, body: EventBody) -> Event {
        Event { seq, ts: 0.0, body }
    }

    fn summary(bucket: Bucket, counts: ClassCounts) -> TaskSummary {
        TaskSummary {
            outcome: Some(bucket),
            passed: counts.tests_run - counts.failures - counts.errors,
            judged: counts.tests_run,
            test_classes: vec![("C".into(), counts)],
            exceptions: ExceptionHistogram::default(),
            env_exceptions: ExceptionHistogram::default(),
            methods: Vec::new(),
        }
    }

    #[test]
    fn folds_progress_metrics_and_fingerprint_step_by_step() {
        let events = vec![
            ev(
                0,
                EventBody::RunStarted {
                    tool_version: "t".into(),
                    tasks: vec!["A".into(), "B".into()],
                    samples: 1,
                    config: serde_json::Value::Null,
                },
            ),
            ev(
                1,
                EventBody::TaskStarted {
                    task_id: "A".into(),
                    sample: 0,
                },
            ),
            ev(
                2,
                EventBody::TaskFinished {
                    task_id: "A".into(),
                    sample: 0,
                    summary: summary(Bucket::Perfect, ClassCounts::new(4, 0, 0)),
                },
            ),
            ev(
                3,
                EventBody::TaskStarted {
                    task_id: "B".into(),
                    sample: 0,
                },
            ),
            ev(
                4,
                EventBody::TaskFinished {
                    task_id: "B".into(),
                    sample: 0,
                    summary: summary(Bucket::Weak, ClassCounts::new(4, 2, 0)),
                },
            ),
            ev(5, EventBody::RunFinished { cancelled: false }),
        ];
        let mut state = EvalState::default();
        let mut seen = Vec::new();
        for e in &events {
            state.apply(e);
            seen.push((state.progress(), state.fingerprint().spectrum.total()));
        }
        assert_eq!(
            seen,
            [
                ((0, 2), 0),
                ((0, 2), 0),
                ((1, 2), 1),
                ((1, 2), 1),
                ((2, 2), 2),
                ((2, 2), 2)
            ]
        );
        let m = state.metrics();
        assert_eq!(m.class_success, 0.5);
        assert_eq!(m.fun_partial_success, 1.0);
        assert_eq!(state.outcome("B"), Some(Bucket::Weak));
        assert!(state.finished && !state.cancelled);
    }

    #[test]
    fn a_resume_restarts_what_was_running() {
        let events = vec![
            ev(
                0,
                EventBody::RunStarted {
                    tool_version: "t".into(),
                    tasks: vec!["A".into()],
                    samples: 1,
                    config: serde_json::Value::Null,
                },
            ),
            ev(
                1,
                EventBody::TaskStarted {
                    task_id: "A".into(),
                    sample: 0,
                },
            ),
            ev(
                2,
                EventBody::RunResumed {
                    remaining: vec!["A".into()],
                    continues: false,
                },
            ),
        ];
        let state = EvalState::from_events(&events);
        assert_eq!(state.run("A", 0).unwrap().status, Status::Pending);
        assert_eq!(state.resumed, 1);
    }
}
