//! A task's rigor: its mutants with their outcomes and its coverage, the figures derived from
//! them, and the JSON shape `classlab rigor --json` prints (issue 23). Pure.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::coverage::Coverage;
use super::mutant::{LineDiff, Mutant};
use super::run::{Analysis, Outcome, Status};

/// One mutant, its one-line diff, and what happened to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MutantResult {
    pub mutant: Mutant,
    pub diff: LineDiff,
    pub outcome: Outcome,
}

/// Everything rigor knows about one task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRigor {
    pub task_id: String,
    pub coverage: Option<Coverage>,
    pub coverage_error: Option<String>,
    pub mutants: Vec<MutantResult>,
    /// Tests left out of mutation runs (not passing on the reference), with their outcome.
    pub excluded: std::collections::BTreeMap<String, String>,
    pub valid_tests: usize,
    /// Why the task could not be analysed (its mutants are then `not_run`).
    pub error: Option<String>,
    /// Seconds the task took in the sandbox.
    pub wall_s: f64,
    /// Seconds of the driver's phases (see [`Analysis::phases`]).
    #[serde(default)]
    pub phases: std::collections::BTreeMap<String, f64>,
    /// See [`Analysis::reimport`].
    #[serde(default)]
    pub reimport: Option<String>,
}

/// Mutant counts of a task (or of many).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Every generated mutant.
    pub mutants: usize,
    /// Killed, timeouts included.
    pub killed: usize,
    pub survived: usize,
    pub equivalent: usize,
    pub timeouts: usize,
    pub not_run: usize,
}

impl Counts {
    /// killed / (mutants − equivalent − not_run); `None` when nothing ran.
    pub fn score(&self) -> Option<f64> {
        let ran = self
            .mutants
            .saturating_sub(self.equivalent)
            .saturating_sub(self.not_run);
        (ran > 0).then(|| self.killed as f64 / ran as f64)
    }

    pub fn add(&mut self, o: &Counts) {
        self.mutants += o.mutants;
        self.killed += o.killed;
        self.survived += o.survived;
        self.equivalent += o.equivalent;
        self.timeouts += o.timeouts;
        self.not_run += o.not_run;
    }
}

impl TaskRigor {
    /// Put a task's mutants (with their diffs on `source`) and the driver's analysis together.
    pub fn new(task_id: &str, source: &str, mutants: Vec<Mutant>, a: Analysis) -> TaskRigor {
        let mutants = mutants
            .into_iter()
            .zip(a.outcomes)
            .map(|(m, outcome)| MutantResult {
                diff: m.diff(source),
                mutant: m,
                outcome,
            })
            .collect();
        TaskRigor {
            task_id: task_id.to_string(),
            coverage: a.coverage,
            coverage_error: a.coverage_error,
            mutants,
            excluded: a.excluded,
            valid_tests: a.valid_tests,
            error: a.error,
            wall_s: a.wall_s,
            phases: a.phases,
            reimport: a.reimport,
        }
    }

    pub fn counts(&self) -> Counts {
        let mut c = Counts {
            mutants: self.mutants.len(),
            ..Counts::default()
        };
        for m in &self.mutants {
            match m.outcome.status {
                Status::Killed => c.killed += 1,
                Status::Timeout => {
                    c.killed += 1;
                    c.timeouts += 1;
                }
                Status::Survived => c.survived += 1,
                Status::Equivalent => c.equivalent += 1,
                Status::NotRun => c.not_run += 1,
            }
        }
        c
    }

    pub fn score(&self) -> Option<f64> {
        self.counts().score()
    }

    pub fn survivors(&self) -> impl Iterator<Item = &MutantResult> {
        self.mutants
            .iter()
            .filter(|m| m.outcome.status == Status::Survived)
    }

    /// Branch coverage in percent (`None` without branches or without coverage).
    pub fn branch(&self) -> Option<f64> {
        self.coverage.as_ref().and_then(|c| c.branch)
    }

    /// The task's entry in `classlab rigor --json`.
    pub fn json(&self) -> Value {
        let c = self.counts();
        let cov = self.coverage.as_ref();
        json!({
            "line": cov.and_then(|c| c.line),
            "branch": cov.and_then(|c| c.branch),
            "branches": cov.map(|c| [c.branches.0, c.branches.1]),
            "uncovered_lines": cov.map(|c| c.uncovered_lines.clone()).unwrap_or_default(),
            "missing_arcs": cov.map(|c| c.missing_arcs.iter().map(|(a, b)| [*a, *b]).collect::<Vec<_>>()).unwrap_or_default(),
            "mutants": c.mutants,
            "killed": c.killed,
            "survived": self.survivors().map(|m| json!({
                "op": m.mutant.op,
                "line": m.diff.line,
                "before": m.diff.before,
                "after": m.diff.after,
            })).collect::<Vec<_>>(),
            "equivalent": c.equivalent,
            "timeouts": c.timeouts,
            "not_run": c.not_run,
            "score": c.score(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rigor::Operator;

    fn outcome(status: Status) -> Outcome {
        Outcome {
            status,
            by: None,
            how: None,
            tests_run: 0,
            seconds: 0.0,
        }
    }

    #[test]
    fn score_leaves_out_equivalent_and_not_run_and_counts_timeouts_as_kills() {
        let src = "x = 1 < 2\n";
        let m = Mutant {
            op: Operator::Boundary,
            start: 6,
            end: 7,
            replacement: "<=".into(),
            context: (4, 9),
            lines: (1, 1),
            scope: None,
        };
        let statuses = [
            Status::Killed,
            Status::Timeout,
            Status::Survived,
            Status::Equivalent,
            Status::NotRun,
        ];
        let a = Analysis {
            outcomes: statuses.iter().map(|s| outcome(*s)).collect(),
            ..Analysis::default()
        };
        let t = TaskRigor::new("T", src, vec![m; 5], a);
        let c = t.counts();
        assert_eq!(
            (
                c.mutants,
                c.killed,
                c.survived,
                c.equivalent,
                c.timeouts,
                c.not_run
            ),
            (5, 2, 1, 1, 1, 1)
        );
        assert_eq!(c.score(), Some(2.0 / 3.0));
        let j = t.json();
        assert_eq!(j["survived"][0]["before"], "1 < 2");
        assert_eq!(j["survived"][0]["after"], "1 <= 2");
        assert_eq!(j["survived"][0]["op"], "boundary");
        assert_eq!(j["branch"], Value::Null);
        assert_eq!(Counts::default().score(), None);
    }
}
