//! Mutation analysis in the forge, through `rigor`: the reference's mutants steer the explorer
//! (it hunts them, and keeps sequences that kill new ones), and the written suite is scored by
//! rigor's analysis exactly as `classlab rigor` scores a hand-written one — the same operators,
//! the same driver, coverage.py's figures of the suite as written.

use std::sync::atomic::AtomicBool;

use serde::Serialize;
use serde_json::{Value, json};

use crate::exec::Sandbox;
use crate::model::Task;
use crate::rigor::{self, Mutant, Options, Subject, TaskRigor};

/// The mutants of `class_name` in `code` (empty, with the reason, when none can be made).
pub fn mutants_of(code: &str, class_name: &str) -> (Vec<Mutant>, Option<String>) {
    match rigor::mutants(code, class_name) {
        Ok(m) => (m, None),
        Err(e) => (Vec::new(), Some(e.to_string())),
    }
}

/// The mutants as the explorer reads them: byte spans of the reference and their text, the
/// lines of the enclosing statement, and for a `def` header the body it governs.
pub fn explorer_input(mutants: &[Mutant]) -> Value {
    Value::Array(
        mutants
            .iter()
            .enumerate()
            .map(|(i, m)| {
                json!({
                    "id": i, "start": m.start, "end": m.end, "text": m.replacement,
                    "lines": [m.lines.0, m.lines.1], "scope": m.scope.map(|(a, b)| [a, b]),
                })
            })
            .collect(),
    )
}

/// What rigor measured of a written suite.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct Score {
    /// killed / (mutants − equivalent − not run), 0–1.
    pub score: Option<f64>,
    pub mutants: usize,
    pub killed: usize,
    pub equivalent: usize,
    pub not_run: usize,
    /// Survivors as `classlab rigor --json` lists them: operator, line, before, after.
    pub survived: Vec<Value>,
    /// Why the suite could not be scored.
    pub error: Option<String>,
}

/// Score `task`'s tests (the forged suite) on its reference with rigor's analysis: coverage of
/// the suite as written and the mutation score over `mutants`.
pub fn score(
    sandbox: &Sandbox,
    task: &Task,
    mutants: &[Mutant],
    cancel: &AtomicBool,
) -> (Score, Option<rigor::Coverage>) {
    let subject = Subject::of_task(task);
    let mut result = None;
    rigor::analyze_many(
        sandbox,
        &[(&subject, mutants)],
        &Options::default(),
        1,
        cancel,
        &mut |p| {
            if let rigor::batch::Progress::Finished { result: r, .. } = p {
                result = Some(r);
            }
        },
    );
    let analysis = match result {
        Some(Ok(a)) => a,
        Some(Err(e)) => return (failed(e.to_string()), None),
        None => return (failed("no result from rigor".into()), None),
    };
    let r = TaskRigor::new(&task.id, &task.solution, mutants.to_vec(), analysis);
    let c = r.counts();
    let s = Score {
        score: c.score(),
        mutants: c.mutants,
        killed: c.killed,
        equivalent: c.equivalent,
        not_run: c.not_run,
        survived: r
            .survivors()
            .map(|m| json!({"op": m.mutant.op, "line": m.diff.line, "before": m.diff.before, "after": m.diff.after}))
            .collect(),
        error: r.error.clone(),
    };
    (s, r.coverage)
}

fn failed(why: String) -> Score {
    Score {
        error: Some(why),
        ..Score::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_explorer_gets_spans_lines_and_scopes() {
        let code = "class A:\n    def f(self, x=1):\n        return x + 1\n";
        let (m, err) = mutants_of(code, "A");
        assert_eq!(err, None);
        assert!(!m.is_empty());
        let v = explorer_input(&m);
        let first = &v[0];
        assert_eq!(first["id"], 0);
        let (s, e) = (
            first["start"].as_u64().unwrap() as usize,
            first["end"].as_u64().unwrap() as usize,
        );
        assert_eq!(&code[s..e], &code[m[0].start..m[0].end]);
        assert!(first["lines"][0].as_u64().unwrap() >= 2);
        assert!(mutants_of("x = (", "A").1.is_some());
    }
}
