//! A run's report (`classlab report`, `run --json`): the evaluation's functional metrics and
//! fingerprint, the dependency metrics of a TDD run's predictions against the ground truth
//! recorded beside them, the repair cost, and model usage — all folded from the session.

use serde::Serialize;

use super::reduce::{EvalState, FingerprintView};
use super::store::Meta;
use super::trace::{RepairCost, UsageTotals};
use crate::metrics::deps::{self, DepReport, Prediction, TaskInput};
use crate::metrics::functional::FunctionalMetrics;

#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub session: String,
    pub strategy: Option<String>,
    pub model: Option<String>,
    /// `openai`, `replay` or `reference` (`null` for evaluations of existing outputs).
    pub provider: Option<String>,
    pub metrics: FunctionalMetrics,
    pub fingerprint: FingerprintView,
    /// `tdd` runs only: predicted vs extracted dependencies (domain.md §4).
    pub dependency: Option<DependencyReport>,
    /// `tdd` runs only (domain.md §5).
    pub repair: Option<RepairCost>,
    pub usage: UsageTotals,
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
    RunReport {
        session: meta.id.clone(),
        strategy: meta.strategy.clone(),
        model: meta.model.clone(),
        provider,
        metrics: state.metrics(),
        fingerprint: state.fingerprint(),
        dependency: tdd.then(|| dependency(state)).flatten(),
        repair: tdd.then(|| state.trace.repair_cost()).flatten(),
        usage: state.trace.usage,
    }
}

/// Scored over the tasks whose prediction was recorded, in the run's task order.
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
                predicted: Some(Prediction {
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
