//! The fold over a session's events — the only one: a live run and a replay go through the
//! same `apply`, so what the dashboard shows while a run executes is exactly what a report
//! shows later. One `apply` updates everything derived (progress, metrics, fingerprint,
//! per-method status, the generation trace) in O(1) amortised: reading any of it costs
//! nothing proportional to the run (see `derived`).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::derived::{Derived, EnvErrCount};
use super::event::{Event, EventBody, Scope};
pub use super::task_run::{FingerprintView, Status, TaskRun};
use super::trace::Trace;
use crate::metrics::fingerprint::Bucket;
use crate::metrics::functional::{ClassCounts, FunctionalMetrics};
use crate::model::TaskIndex;

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
    /// Every (task, sample): read them with [`EvalState::runs`]; only `apply` changes them.
    runs: BTreeMap<(String, u32), TaskRun>,
    pub started: bool,
    pub finished: bool,
    pub cancelled: bool,
    pub resumed: usize,
    pub errors: Vec<String>,
    /// Events applied (the last seq + 1 for a healthy log).
    pub events: u64,
    /// What generation did (empty for evaluations of existing outputs).
    pub trace: Trace,
    /// Task id → position in `task_ids`.
    positions: TaskIndex,
    derived: Derived,
    /// Runs now `Running`, and runs not generated: what a resume touches.
    running: BTreeSet<(String, u32)>,
    not_generated: BTreeSet<(String, u32)>,
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
                self.positions = TaskIndex::from_ids(tasks.iter().map(String::as_str));
                for id in tasks {
                    for s in 0..self.samples {
                        self.update(id, s, |_| {});
                    }
                }
            }
            EventBody::RunResumed { continues, .. } => {
                self.resumed += 1;
                self.finished = false;
                self.cancelled = false;
                // What was not generated is asked again.
                for (task, sample) in std::mem::take(&mut self.not_generated) {
                    self.update(&task, sample, |run| {
                        run.status = Status::Running;
                        run.not_generated = None;
                    });
                }
                self.trace.resume_not_generated();
                if !*continues {
                    // Whatever was running when the run stopped starts again from scratch.
                    for (task, sample) in std::mem::take(&mut self.running) {
                        self.update(&task, sample, |run| *run = TaskRun::pending());
                        self.trace.reset(&task, sample);
                    }
                }
            }
            EventBody::TaskStarted { task_id, sample } => {
                self.trace.reset(task_id, *sample);
                self.update(task_id, *sample, |run| {
                    *run = TaskRun::pending();
                    run.status = Status::Running;
                });
            }
            EventBody::CodeExtracted {
                task_id,
                sample,
                code,
                notes,
                method: None,
                ..
            } => self.update(task_id, *sample, |run| {
                run.code = Some(code.clone());
                run.notes = notes.clone();
            }),
            EventBody::StaticIndicators {
                task_id,
                sample,
                indicators,
            } => self.update(task_id, *sample, |run| {
                run.indicators = Some(indicators.clone());
            }),
            EventBody::TestRun {
                task_id,
                sample,
                scope,
                method,
                result,
                ..
            } => {
                self.update(task_id, *sample, |run| match scope {
                    Scope::Private => run.set_private(result),
                    Scope::Public => run.public.push((method.clone(), result.clone())),
                    // The reference vetting public tests: no run of the model's code.
                    Scope::Reference => {}
                });
                // A method's public run belongs to one of its rounds too.
                self.trace.apply(&event.body);
            }
            EventBody::TaskFinished {
                task_id,
                sample,
                summary,
            } => {
                self.update(task_id, *sample, |run| {
                    run.status = Status::Done;
                    run.summary = Some(summary.clone());
                    run.not_generated = None;
                });
                // Per-method entries of the judged class (every strategy).
                let key = (task_id.clone(), *sample);
                let run = self.runs.get(&key);
                self.trace.finish(
                    &key,
                    run.and_then(|r| r.code.as_deref()),
                    run.and_then(|r| r.private.as_ref()),
                    summary,
                );
            }
            EventBody::TaskNotGenerated {
                task_id,
                sample,
                method,
                reason,
            } => {
                self.update(task_id, *sample, |run| {
                    run.status = Status::Done;
                    run.not_generated = Some(match method {
                        Some(m) => format!("`{m}`: {reason}"),
                        None => reason.clone(),
                    });
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

    /// Change one run (created pending if new) and keep everything derived from it current:
    /// its old part in the sums is taken out, its new one put in.
    fn update(&mut self, task_id: &str, sample: u32, change: impl FnOnce(&mut TaskRun)) {
        let key = (task_id.to_string(), sample);
        let run = self
            .runs
            .entry(key.clone())
            .or_insert_with(TaskRun::pending);
        let judged = run.summary.is_some();
        self.derived.account(run, false);
        change(run);
        self.derived.account(run, true);
        let (running, not_generated) = (run.status == Status::Running, run.not_generated.is_some());
        let rejudge = judged || run.summary.is_some();
        if running {
            self.running.insert(key.clone());
        } else {
            self.running.remove(&key);
        }
        if not_generated {
            self.not_generated.insert(key);
        } else {
            self.not_generated.remove(&key);
        }
        if rejudge {
            self.rejudge(task_id);
        }
    }

    /// A task's judged samples changed: its part in the metrics again.
    fn rejudge(&mut self, task_id: &str) {
        let range = (task_id.to_string(), 0)..=(task_id.to_string(), u32::MAX);
        let samples = self
            .runs
            .range(range)
            .filter_map(|(_, r)| r.summary.as_ref());
        self.derived.retask(task_id, samples);
    }

    /// Every (task, sample) known, in key order.
    pub fn runs(&self) -> &BTreeMap<(String, u32), TaskRun> {
        &self.runs
    }

    pub fn run(&self, task_id: &str, sample: u32) -> Option<&TaskRun> {
        self.runs.get(&(task_id.to_string(), sample))
    }

    /// The order reports list (task, sample)s in: the run's task order (`run_started`), tasks
    /// it did not announce after in natural order, then by sample.
    pub fn run_order(&self, a: (&str, u32), b: (&str, u32)) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        match (self.task_position(a.0), self.task_position(b.0)) {
            (Some(x), Some(y)) => x.cmp(&y),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => crate::model::natural_cmp(a.0, b.0),
        }
        .then(a.1.cmp(&b.1))
    }

    /// Where the run announced this task (`run_started`'s order), in O(1).
    pub fn task_position(&self, task_id: &str) -> Option<usize> {
        self.positions.position(task_id)
    }

    /// The same state over only the tasks `keep` accepts (comparisons restrict sessions to
    /// the tasks all of them finished); everything derived is recounted once.
    pub fn restricted_to(&self, keep: &dyn Fn(&str) -> bool) -> EvalState {
        let mut out = EvalState {
            task_ids: self.task_ids.iter().filter(|t| keep(t)).cloned().collect(),
            runs: BTreeMap::new(),
            positions: TaskIndex::default(),
            derived: Derived::default(),
            running: BTreeSet::new(),
            not_generated: BTreeSet::new(),
            ..self.clone()
        };
        out.positions = TaskIndex::from_ids(out.task_ids.iter().map(String::as_str));
        for ((task, sample), run) in self.runs.iter().filter(|((t, _), _)| keep(t)) {
            out.update(task, *sample, |r| *r = run.clone());
        }
        out
    }

    pub fn run_end(&self) -> RunEnd {
        match (self.finished, self.cancelled) {
            (true, false) if self.derived.not_generated > 0 => RunEnd::Incomplete,
            (true, false) => RunEnd::Finished,
            (_, true) => RunEnd::Stopped,
            (false, false) => RunEnd::Unfinished,
        }
    }

    /// (done, total) over (task, sample) pairs.
    pub fn progress(&self) -> (usize, usize) {
        // A forge session asks about some tasks only: its progress is theirs.
        self.trace
            .forge_progress()
            .unwrap_or((self.derived.done, self.runs.len()))
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
        let mut out: Vec<(&str, u32, &str)> = self
            .not_generated
            .iter()
            .filter_map(|key| {
                let why = self.runs.get(key)?.not_generated.as_deref()?;
                Some((key.0.as_str(), key.1, why))
            })
            .collect();
        out.sort_by_key(|(t, s, _)| (self.task_position(t), *s));
        out.into_iter()
    }

    /// ClassEval's metrics over the finished tasks (pass@1 with every sample a task has),
    /// the environment's failures left out of every denominator (see [`Self::env_err`]).
    pub fn metrics(&self) -> FunctionalMetrics {
        self.derived.metrics()
    }

    /// The metrics as the official evaluator computes them: `EnvErr` counted as failures
    /// (to reproduce published figures).
    pub fn metrics_official(&self) -> FunctionalMetrics {
        self.derived.official()
    }

    /// What the environment kept out of [`Self::metrics`]' denominators.
    pub fn env_err(&self) -> EnvErrCount {
        self.derived.env
    }

    /// The test classes of a finished (task, sample) that enter the metrics, with their
    /// counts (`EnvErr` ones left out); `None` before it finished.
    pub fn counted_test_classes(
        &self,
        task_id: &str,
        sample: u32,
    ) -> Option<Vec<(String, ClassCounts)>> {
        let summary = self.run(task_id, sample)?.summary.as_ref()?;
        Some(super::derived::counted_test_classes(summary))
    }

    pub fn fingerprint(&self) -> FingerprintView {
        self.derived.fingerprint.clone()
    }

    /// The outcome of a task's first sample, if finished.
    pub fn outcome(&self, task_id: &str) -> Option<Bucket> {
        self.run(task_id, 0)?.summary.as_ref()?.outcome
    }
}

#[cfg(test)]
mod tests;
