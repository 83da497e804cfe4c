//! Comparing sessions fairly: on the tasks **every** session finished. A run stopped at 33 of
//! 100 tasks beside a finished one would otherwise put a rate over 33 tasks beside a rate over
//! 100, and count the 67 tasks never run as "outcome differs". Used by `classlab fingerprint`
//! and the TUI's compare view.

use std::collections::{BTreeMap, BTreeSet};

use crate::metrics::fingerprint::Bucket;
use crate::model::natural_cmp;
use crate::session::EvalState;

/// One task both (all) sessions finished, with each session's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRow {
    pub task_id: String,
    /// Per session, in the order given (first sample's outcome).
    pub outcomes: Vec<Option<Bucket>>,
}

impl TaskRow {
    pub fn differs(&self) -> bool {
        self.outcomes.windows(2).any(|w| w[0] != w[1])
    }
}

/// Sessions restricted to the tasks they all finished.
#[derive(Debug, Clone, Default)]
pub struct Comparison {
    /// Every session's fold restricted to the common tasks: its metrics and fingerprint are
    /// over the same tasks as every other's.
    pub states: Vec<EvalState>,
    /// The tasks every session finished, in natural order, with each session's outcome.
    pub rows: Vec<TaskRow>,
    /// Per session, how many tasks it finished that are left out (another did not).
    pub left_out: Vec<usize>,
    /// Tasks some session finished but not every one, in natural order.
    pub left_out_tasks: Vec<String>,
}

impl Comparison {
    /// The common tasks whose outcome is not the same in every session.
    pub fn differing(&self) -> impl Iterator<Item = &TaskRow> {
        self.rows.iter().filter(|r| r.differs())
    }

    /// "on the 33 tasks both finished (67 of session 2's left out)" — what the figures cover.
    pub fn scope(&self, names: &[String]) -> String {
        let n = self.rows.len();
        let all = if self.states.len() == 2 {
            "both"
        } else {
            "all"
        };
        let plural = if n == 1 { "" } else { "s" };
        let out: Vec<String> = self
            .left_out
            .iter()
            .zip(names)
            .filter(|(k, _)| **k > 0)
            .map(|(k, name)| format!("{k} of {name}'s"))
            .collect();
        if out.is_empty() {
            format!("on the {n} task{plural} {all} finished (none left out)")
        } else {
            format!(
                "on the {n} task{plural} {all} finished ({} left out)",
                out.join(", ")
            )
        }
    }
}

/// Tasks a session finished: every sample of it evaluated.
fn finished_tasks(state: &EvalState) -> BTreeSet<String> {
    let mut done: BTreeMap<&str, u32> = BTreeMap::new();
    for (task_id, _) in state.done() {
        *done.entry(task_id).or_default() += 1;
    }
    let need = state.samples.max(1);
    done.into_iter()
        .filter(|(_, n)| *n >= need)
        .map(|(t, _)| t.to_string())
        .collect()
}

pub fn compare(states: &[&EvalState]) -> Comparison {
    let finished: Vec<BTreeSet<String>> = states.iter().map(|s| finished_tasks(s)).collect();
    let common: BTreeSet<String> = match finished.split_first() {
        Some((first, rest)) => first
            .iter()
            .filter(|t| rest.iter().all(|f| f.contains(*t)))
            .cloned()
            .collect(),
        None => BTreeSet::new(),
    };
    let mut ids: Vec<&String> = common.iter().collect();
    ids.sort_by(|a, b| natural_cmp(a, b));
    let rows = ids
        .into_iter()
        .map(|id| TaskRow {
            task_id: id.clone(),
            outcomes: states.iter().map(|s| s.outcome(id)).collect(),
        })
        .collect();
    let left_out = finished.iter().map(|f| f.len() - common.len()).collect();
    let mut left_out_tasks: Vec<String> = finished
        .iter()
        .flatten()
        .filter(|t| !common.contains(*t))
        .cloned()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    left_out_tasks.sort_by(|a, b| natural_cmp(a, b));
    let restricted = states
        .iter()
        .map(|s| s.restricted_to(&|t| common.contains(t)))
        .collect();
    Comparison {
        states: restricted,
        rows,
        left_out,
        left_out_tasks,
    }
}
