//! The failure-cause table of a session: every failing test whose exception is one of the
//! four [`classify`] reads, counted by cause.

use crate::metrics::causes::{Cause, CauseRow, CauseTable, Failure, classify};
use crate::model::{Outcome, SuiteFailure, Task};
use crate::session::EvalState;
use crate::stats::interval::wilson;

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
