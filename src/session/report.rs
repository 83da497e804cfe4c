//! A run's report (`classlab report`, `run --json`): the evaluation's functional metrics and
//! fingerprint, the dependency metrics of a TDD run's predictions against the ground truth
//! recorded beside them, the repair cost, and model usage — all folded from the session —
//! and the tasks whose runs the harness found tampered with, listed apart (they count as the
//! model's failures in the metrics and the fingerprint, but a reader must see them by name).

use std::collections::BTreeMap;

use serde::Serialize;

use super::attempts::{TamperingAttempt, TamperingRate, tampering_attempts, tampering_rate};
use super::reduce::{EvalState, FingerprintView};
use super::store::Meta;
use super::trace::{RepairCost, UsageTotals};
use crate::metrics::deps::{self, DepReport, Prediction, TaskInput};
use crate::metrics::fingerprint::tampering;
use crate::metrics::functional::FunctionalMetrics;
use crate::stats::bootstrap::PassAtK;
use crate::stats::outcomes::{self, Interval};

mod figures;
pub mod first_seen;
pub use figures::{
    RepairIntervals, Shares, cause_table, intervals, repair_intervals, session_data,
    session_outcomes, shares, task_counts,
};

#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub session: String,
    /// The harness that judged the code: `split` or `inproc`.
    pub harness: String,
    /// What the verdicts are worth when the harness cannot vouch for them (in-process:
    /// forgeable by code written against the harness).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub harness_caveat: Option<String>,
    pub strategy: Option<String>,
    pub model: Option<String>,
    /// `openai`, `replay` or `reference` (`null` for evaluations of existing outputs).
    pub provider: Option<String>,
    /// The docstring condition of a generation run (`run --docstrings`, docs/conditions.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub docstrings: Option<String>,
    pub metrics: FunctionalMetrics,
    /// What the environment kept out of the metrics' denominators (EnvErr).
    pub env_err: crate::session::EnvErrCount,
    /// A 95 % interval for every metric (docs/statistics.md).
    #[serde(serialize_with = "crate::stats::outcomes::in_metric_order")]
    pub intervals: BTreeMap<&'static str, Interval>,
    /// pass@k of `class_success` with a bootstrap interval, when tasks have several samples.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pass_at_k: Vec<PassAtK>,
    pub fingerprint: FingerprintView,
    /// The fingerprint's buckets and exception kinds as shares with Wilson intervals.
    pub shares: Shares,
    /// Failing tests by cause (AttributeError, TypeError, NameError, ImportError), when the
    /// report computed them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub causes: Option<crate::metrics::causes::CauseTable>,
    /// `tdd` runs only: predicted vs extracted dependencies (domain.md §4).
    pub dependency: Option<DependencyReport>,
    /// `tdd` runs only (domain.md §5).
    pub repair: Option<RepairCost>,
    /// The repair cost with 95 % intervals (methods clustered by task).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repair_intervals: Option<RepairIntervals>,
    pub usage: UsageTotals,
    /// Tasks whose final suite (or a public-test run) the harness found tampered with.
    pub tampered: Vec<TamperedTask>,
    /// Samples whose code attempted tampering, with every sign of it (runner, host, static).
    pub tampering_attempts: Vec<TamperingAttempt>,
    /// The share of evaluated samples with an attempt and its Wilson interval: a lower bound.
    pub tampering_rate: TamperingRate,
    /// `finished`, `incomplete` (some tasks not generated), `stopped` or `unfinished`.
    pub status: &'static str,
    /// Tasks not generated because a model request failed: in no metric's denominator;
    /// `run --resume` asks again.
    pub not_generated: Vec<NotGeneratedTask>,
    /// `tdd` runs: public tests left out of the loop because the reference solution does
    /// not pass them (both times it ran them), with the reason.
    pub public_tests_left_out: Vec<LeftOutPublicTest>,
}

/// One public test the TDD loop did not use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LeftOutPublicTest {
    pub task_id: String,
    pub method: String,
    pub test: String,
    pub reason: String,
}

/// The public tests left out, in the run's task order and each task's method order.
pub fn left_out_public_tests(state: &EvalState) -> Vec<LeftOutPublicTest> {
    let mut out = Vec::new();
    for id in &state.task_ids {
        let Some(trace) = state.trace.task(id, 0) else {
            continue;
        };
        for m in &trace.methods {
            for l in m.public_check.iter().flat_map(|c| &c.left_out) {
                out.push(LeftOutPublicTest {
                    task_id: id.clone(),
                    method: m.name.clone(),
                    test: l.test.clone(),
                    reason: l.reason.clone(),
                });
            }
        }
    }
    out
}

/// One task a failed model request left without a class.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotGeneratedTask {
    pub task_id: String,
    pub sample: u32,
    /// `provider error: …`, prefixed with the method being written.
    pub reason: String,
}

/// One task whose run was tampered with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TamperedTask {
    pub task_id: String,
    pub sample: u32,
    /// What was tampered with: the suite's detail and each tampered test (`id: message`);
    /// public-test runs prefixed with their method.
    pub detail: String,
}

/// `depcheck`'s shape, for the predictions a run made.
#[derive(Debug, Clone, Serialize)]
pub struct DependencyReport {
    pub ground_truth: &'static str,
    #[serde(flatten)]
    pub report: DepReport,
}

pub fn report(meta: &Meta, state: &EvalState) -> RunReport {
    let tdd = meta.strategy.as_deref() == Some("tdd");
    let provider = (meta.kind == "run").then(|| meta.source.clone()).flatten();
    let outcomes = session_outcomes(state);
    let fingerprint = state.fingerprint();
    RunReport {
        session: meta.id.clone(),
        harness: meta.harness_name().to_string(),
        harness_caveat: meta.verdict_caveat().map(String::from),
        strategy: meta.strategy.clone(),
        model: meta.model.clone(),
        provider,
        docstrings: None,
        metrics: state.metrics(),
        env_err: state.env_err(),
        intervals: intervals(&outcomes),
        pass_at_k: outcomes::pass_at_k(&outcomes),
        fingerprint: fingerprint.clone(),
        shares: shares(&fingerprint),
        causes: None,
        dependency: tdd.then(|| dependency(state)).flatten(),
        repair: tdd.then(|| state.trace.repair_cost()).flatten(),
        repair_intervals: tdd.then(|| repair_intervals(state)).flatten(),
        usage: state.trace.usage,
        tampered: tampered_tasks(state),
        tampering_attempts: tampering_attempts(state),
        tampering_rate: tampering_rate(state),
        status: state.run_end().label(),
        not_generated: state
            .not_generated()
            .map(|(task_id, sample, reason)| NotGeneratedTask {
                task_id: task_id.to_string(),
                sample,
                reason: reason.to_string(),
            })
            .collect(),
        public_tests_left_out: left_out_public_tests(state),
    }
}

/// Tasks (and samples) whose runs were tampered with, in the run's task order.
pub fn tampered_tasks(state: &EvalState) -> Vec<TamperedTask> {
    let mut out = Vec::new();
    let mut runs: Vec<_> = state.runs().iter().collect();
    runs.sort_by(|((a, sa), _), ((b, sb), _)| state.run_order((a, *sa), (b, *sb)));
    for ((task_id, sample), run) in runs {
        let mut details: Vec<String> = run.private.iter().flat_map(tampering).collect();
        for (method, suite) in &run.public {
            let prefix = match method {
                Some(m) => format!("public tests of `{m}`"),
                None => "public tests".to_string(),
            };
            details.extend(
                tampering(suite)
                    .into_iter()
                    .map(|d| format!("{prefix}: {d}")),
            );
        }
        if !details.is_empty() {
            out.push(TamperedTask {
                task_id: task_id.clone(),
                sample: *sample,
                detail: details.join("; "),
            });
        }
    }
    out
}

/// Scored over the tasks whose prediction was recorded, in the run's task order. A reply no
/// graph could be read from (`parsed: false`) is unscored (`unscored_tasks`), as `depcheck`
/// has it — never scored as "no dependencies", which would make every method without one exact.
fn dependency(state: &EvalState) -> Option<DependencyReport> {
    let inputs: Vec<TaskInput> = state
        .task_ids
        .iter()
        .filter_map(|id| {
            let p = state.trace.task(id, 0)?.prediction.as_ref()?;
            Some(TaskInput {
                task_id: id.clone(),
                methods: p.methods.clone(),
                truth: p.truth.clone(),
                predicted: p.parsed.then(|| Prediction {
                    deps: p.graph.clone(),
                    order: Some(p.order.clone()),
                }),
            })
        })
        .collect();
    (!inputs.is_empty()).then(|| DependencyReport {
        ground_truth: "extracted",
        report: deps::score(&inputs),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::functional::ClassCounts;
    use crate::model::{Outcome, SuiteFailure, SuiteResult, TestResult};
    use crate::session::event::{EventBody, Scope, TaskSummary};

    fn finished(task: &str, result: SuiteResult) -> Vec<EventBody> {
        vec![
            EventBody::TaskStarted {
                task_id: task.into(),
                sample: 0,
            },
            EventBody::TestRun {
                task_id: task.into(),
                sample: 0,
                scope: Scope::Private,
                method: None,
                round: None,
                result,
            },
            EventBody::TaskFinished {
                task_id: task.into(),
                sample: 0,
                summary: TaskSummary {
                    outcome: None,
                    passed: 0,
                    judged: 0,
                    test_classes: vec![("T".into(), ClassCounts::new(1, 1, 0))],
                    exceptions: Default::default(),
                    env_exceptions: Default::default(),
                    methods: Vec::new(),
                    method_tests: Vec::new(),
                },
            },
        ]
    }

    fn state() -> EvalState {
        let mut bodies = vec![EventBody::RunStarted {
            tool_version: "t".into(),
            tasks: vec![
                "ClassEval_10".into(),
                "ClassEval_2".into(),
                "ClassEval_3".into(),
            ],
            samples: 1,
            config: serde_json::Value::Null,
        }];
        // Finished out of the run's order: the list follows the run's order.
        bodies.extend(finished(
            "ClassEval_3",
            SuiteResult::new(
                vec![
                    TestResult::new("T.test_a", Outcome::Pass),
                    TestResult {
                        message: Some("result record forged".into()),
                        ..TestResult::new("T.test_b", Outcome::Tampered)
                    },
                ],
                None,
            ),
        ));
        bodies.extend(finished(
            "ClassEval_2",
            SuiteResult::new(vec![TestResult::new("T.test_a", Outcome::Pass)], None),
        ));
        bodies.extend(finished(
            "ClassEval_10",
            SuiteResult::new(
                vec![TestResult::new("T.test_a", Outcome::NotRun)],
                Some(SuiteFailure::Tampered {
                    detail: "the test module changed on disk".into(),
                }),
            ),
        ));
        EvalState::from_events(&crate::session::event::numbered(bodies))
    }

    #[test]
    fn tampered_tasks_are_listed_by_id_with_the_detail() {
        let want = vec![
            TamperedTask {
                task_id: "ClassEval_10".into(),
                sample: 0,
                detail: "the test module changed on disk".into(),
            },
            TamperedTask {
                task_id: "ClassEval_3".into(),
                sample: 0,
                detail: "T.test_b: result record forged".into(),
            },
        ];
        let st = state();
        assert_eq!(tampered_tasks(&st), want);
        let meta: Meta = serde_json::from_value(serde_json::json!({
            "schema": 1, "id": "s", "kind": "eval", "created": "2026-01-01T00:00:00Z",
            "tool_version": "t",
            "dataset": {"origin": "d.json", "name": "d", "tasks": 3, "digest": "0"},
            "model": "m", "strategy": null, "source": null
        }))
        .unwrap();
        let json = serde_json::to_value(report(&meta, &st)).unwrap();
        assert_eq!(
            json["tampered"],
            serde_json::json!([
                {"task_id": "ClassEval_10", "sample": 0, "detail": "the test module changed on disk"},
                {"task_id": "ClassEval_3", "sample": 0, "detail": "T.test_b: result record forged"},
            ])
        );
        // The keys reports had before are all still there.
        for key in [
            "session",
            "strategy",
            "model",
            "provider",
            "metrics",
            "fingerprint",
            "dependency",
            "repair",
            "usage",
        ] {
            assert!(json.get(key).is_some(), "{key}");
        }
        assert!(tampered_tasks(&EvalState::default()).is_empty());
    }

    #[test]
    fn tampered_public_runs_name_their_method() {
        let mut st = state();
        // Runs change through the reducer only.
        st.apply(&crate::session::Event {
            seq: st.events,
            ts: 0.0,
            body: EventBody::TestRun {
                task_id: "ClassEval_2".into(),
                sample: 0,
                scope: crate::session::Scope::Public,
                method: Some("add".into()),
                round: Some(0),
                result: SuiteResult::new(
                    Vec::new(),
                    Some(SuiteFailure::Tampered {
                        detail: "harness replaced".into(),
                    }),
                ),
            },
        });
        let got = tampered_tasks(&st);
        assert_eq!(got.len(), 3);
        assert_eq!(got[1].task_id, "ClassEval_2");
        assert_eq!(got[1].detail, "public tests of `add`: harness replaced");
    }
}
