//! The statistics of a report, folded from a session: per-task outcomes with the metrics'
//! denominators, an interval for every metric, shares, repair cost and failure causes.
//! Also the data API of the TUI (its evaluation screen's intervals, its test detail's cause).

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::metrics::causes::{Cause, CauseRow, CauseTable, Failure, classify};
use crate::metrics::fingerprint::Bucket;
use crate::metrics::functional::{SampleCounts, TaskCounts};
use crate::model::{Outcome, SuiteFailure, Task};
use crate::session::reduce::{EvalState, FingerprintView};
use crate::session::store::Meta;
use crate::session::{MethodStatus, TaskRun};
use crate::stats::compare::SessionData;
use crate::stats::interval::{ClusteredMean, clustered_mean, wilson};
use crate::stats::outcomes::{self, Interval, METRICS, Share};

/// Every finished task's per-test-class counts, one entry per sample, in the run's order:
/// all of them (`official`), or as `EvalState::metrics` scores them, `EnvErr` out of the
/// denominators — see [`session_outcomes`].
fn task_counts_by(
    state: &EvalState,
    pick: &dyn Fn(&TaskRun) -> Option<SampleCounts>,
) -> Vec<TaskCounts> {
    // One pass over the runs (a task's samples are next to each other in the map), then the
    // tasks in the run's order: O(n), no lookup per task (this runs on every event of a live
    // session the TUI shows).
    let mut by_task: HashMap<&str, Vec<SampleCounts>> = HashMap::new();
    for ((task, _), run) in state.runs() {
        if let Some(counts) = pick(run) {
            by_task.entry(task.as_str()).or_default().push(counts);
        }
    }
    let mut out: Vec<TaskCounts> = Vec::with_capacity(by_task.len());
    let announced = state.task_ids.iter().map(String::as_str);
    let finished = state.runs().keys().map(|(t, _)| t.as_str());
    for id in announced.chain(finished) {
        if let Some(samples) = by_task.remove(id) {
            out.push(TaskCounts {
                task_id: id.to_string(),
                samples,
            });
        }
    }
    out
}

/// Every finished task's counts, every sample and test class (the official evaluator's view).
pub fn task_counts(state: &EvalState) -> Vec<TaskCounts> {
    task_counts_by(state, &|run| {
        Some(run.summary.as_ref()?.test_classes.clone())
    })
}

/// The outcomes the statistics use, with `EvalState::metrics`' denominators: an `EnvErr`
/// sample out of the class-level metrics, its environment-failed test classes out of the
/// test-class-level ones.
pub fn session_outcomes(state: &EvalState) -> Vec<outcomes::TaskOutcome> {
    let class_level = task_counts_by(state, &|run| {
        let summary = run.summary.as_ref()?;
        (summary.outcome != Some(Bucket::EnvErr)).then(|| summary.test_classes.clone())
    });
    let fun_level = task_counts_by(state, &|run| {
        Some(crate::session::derived::counted_test_classes(
            run.summary.as_ref()?,
        ))
    });
    outcomes::outcomes_split(&class_level, &fun_level)
}

/// Repair rounds with intervals: per method and the share of methods repaired (clustered
/// by task), per class (one value per task).
#[derive(Debug, Clone, Serialize)]
pub struct RepairIntervals {
    pub rounds_per_method: ClusteredMean,
    pub methods_repaired: ClusteredMean,
    pub rounds_per_class: ClusteredMean,
}

/// Over the methods the repair cost counts (the model's: not `NotGenerated`, not `EnvErr`).
pub fn repair_intervals(state: &EvalState) -> Option<RepairIntervals> {
    let mut rounds: Vec<(&str, f64)> = Vec::new();
    let mut per_class: Vec<(&str, f64)> = Vec::new();
    for ((task, _), t) in &state.trace.tasks {
        if t.not_generated || t.whole_class {
            continue;
        }
        let counted: Vec<f64> = t
            .methods
            .iter()
            .filter(|m| {
                m.status.is_some_and(|s| {
                    !matches!(s, MethodStatus::NotGenerated | MethodStatus::EnvErr)
                })
            })
            .map(|m| f64::from(m.repairs))
            .collect();
        if !counted.is_empty() {
            per_class.push((task.as_str(), counted.iter().sum()));
            rounds.extend(counted.into_iter().map(|r| (task.as_str(), r)));
        }
    }
    let repaired: Vec<(&str, f64)> = rounds
        .iter()
        .map(|(t, r)| (*t, f64::from(u8::from(*r > 0.0))))
        .collect();
    Some(RepairIntervals {
        rounds_per_method: clustered_mean(&rounds)?,
        methods_repaired: clustered_mean(&repaired)?,
        rounds_per_class: clustered_mean(&per_class)?,
    })
}

/// What paired comparisons need of a session.
pub fn session_data(meta: &Meta, state: &EvalState) -> SessionData {
    SessionData {
        id: meta.id.clone(),
        announced: state.task_ids.clone(),
        outcomes: session_outcomes(state),
    }
}

/// The interval of every metric that has observations.
pub fn intervals(tasks: &[outcomes::TaskOutcome]) -> BTreeMap<&'static str, Interval> {
    METRICS
        .iter()
        .filter_map(|m| Some((*m, outcomes::metric_interval(tasks, m)?)))
        .collect()
}

/// Shares of the fingerprint, each with its Wilson interval.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Shares {
    /// Evaluated classes per outcome bucket.
    pub spectrum: Vec<Share>,
    /// The model's failing tests per exception kind.
    pub exceptions: Vec<Share>,
}

pub fn shares(fp: &FingerprintView) -> Shares {
    let spectrum: Vec<(String, usize)> = fp
        .spectrum
        .counts
        .iter()
        .map(|(b, n)| (b.as_str().to_string(), *n))
        .collect();
    let exceptions: Vec<(String, usize)> = fp
        .exceptions
        .counts
        .iter()
        .map(|(k, n)| (format!("{k:?}"), *n))
        .collect();
    Shares {
        spectrum: outcomes::shares(&spectrum),
        exceptions: outcomes::shares(&exceptions),
    }
}

/// `task` finds a task of the dataset the session ran on (skeleton, tests, reference);
/// without it only the traceback and the generated code are read.
pub fn cause_table(state: &EvalState, task: &dyn Fn(&str) -> Option<Task>) -> CauseTable {
    let mut counts = [0usize; Cause::ALL.len()];
    for ((task_id, _), run) in state.runs() {
        let (Some(suite), Some(code)) = (&run.private, &run.code) else {
            continue;
        };
        let t = task(task_id);
        let base = Failure {
            code,
            skeleton: t.as_ref().map_or("", |t| t.skeleton.as_str()),
            tests: t.as_ref().map_or("", |t| t.test_module.as_str()),
            reference: t.as_ref().map_or("", |t| t.solution.as_str()),
            ..Failure::default()
        };
        let mut add = |f: Failure| {
            if let Some(c) = classify(&f) {
                counts[Cause::ALL.iter().position(|x| *x == c).unwrap_or(0)] += 1;
            }
        };
        if let Some(SuiteFailure::Import {
            exc_type,
            message,
            traceback,
            ..
        }) = &suite.failure
        {
            add(Failure {
                exc_type,
                message,
                traceback: traceback.as_deref().unwrap_or(""),
                ..base
            });
        }
        for test in &suite.tests {
            if matches!(test.outcome, Outcome::Fail | Outcome::Error)
                && let Some(exc) = &test.exc_type
            {
                add(Failure {
                    exc_type: exc,
                    message: test.message.as_deref().unwrap_or(""),
                    traceback: test.traceback.as_deref().unwrap_or(""),
                    ..base
                });
            }
        }
    }
    let considered: usize = counts.iter().sum();
    let unexplained = Cause::ALL
        .iter()
        .position(|c| *c == Cause::Unexplained)
        .map_or(0, |i| counts[i]);
    CauseTable {
        considered,
        explained: considered - unexplained,
        rows: Cause::ALL
            .iter()
            .zip(counts)
            .filter_map(|(c, n)| {
                Some(CauseRow {
                    cause: *c,
                    label: c.as_str(),
                    count: n,
                    share: n as f64 / considered as f64,
                    ci95: wilson(n, considered)?,
                })
            })
            .collect(),
    }
}
