//! Rigor as curation sees it (pure): review findings when a task's tests fall below the gates
//! of `[rigor]` in the config — `R1` branch coverage of the reference below the gate, `R2`
//! mutation score below the gate — and a drafted test for a surviving mutant, to complete in
//! `$EDITOR` from the review queue.

use crate::analysis::lint::{Finding, Part, Severity};
use crate::config::RigorGates;
use crate::model::Task;
use crate::rigor::{MutantResult, TaskRigor};

/// The rigor findings of a task, from its stored rigor.
pub fn findings(task: &Task, r: &TaskRigor, gates: &RigorGates) -> Vec<Finding> {
    let mut out = Vec::new();
    let finding = |code: &'static str, line: Option<usize>, message: String| Finding {
        task_id: task.id.clone(),
        code,
        severity: Severity::Error,
        method: None,
        part: Part::Tests,
        line,
        message,
        fix: None,
    };
    if let Some(cov) = &r.coverage
        && let Some(b) = cov.branch
        && b < f64::from(gates.branch_coverage)
    {
        let arcs: Vec<String> = cov
            .missing_arcs
            .iter()
            .take(4)
            .map(|(a, b)| format!("{a}→{b}"))
            .collect();
        out.push(finding(
            "R1",
            None,
            format!(
                "the tests take {b:.1}% of the reference's branches ({}/{}; gate {}%); never taken: {}",
                cov.branches.0,
                cov.branches.1,
                gates.branch_coverage,
                arcs.join(", ")
            ),
        ));
    }
    if let Some(s) = r.score()
        && s * 100.0 < f64::from(gates.mutation_score)
    {
        let c = r.counts();
        let first = r
            .survivors()
            .next()
            .map(|m| {
                format!(
                    "; e.g. line {}: `{}` → `{}` ({})",
                    m.diff.line, m.diff.before, m.diff.after, m.mutant.op
                )
            })
            .unwrap_or_default();
        out.push(finding(
            "R2",
            None,
            format!(
                "the tests kill {:.1}% of the mutants of the reference ({} of {}, gate {}%): {} survive{first}",
                s * 100.0,
                c.killed,
                c.mutants - c.equivalent - c.not_run,
                gates.mutation_score,
                c.survived
            ),
        ));
    }
    out
}

/// The survivor to draft a test for: the first in `method`'s lines when it has one, else
/// the task's first.
pub fn survivor_in(r: &TaskRigor, lines: Option<(usize, usize)>) -> Option<&MutantResult> {
    let inside = |m: &&MutantResult| lines.is_some_and(|(a, b)| (a..=b).contains(&m.diff.line));
    r.survivors().find(inside).or_else(|| r.survivors().next())
}

/// The task's test module with a drafted test class appended: it names the surviving mutant
/// (its line, before and after) and fails until a person writes the check that tells the
/// reference from the mutant.
pub fn draft_killing_test(task: &Task, m: &MutantResult, method: Option<&str>) -> String {
    let mut text = task.test_module.trim_end().to_string();
    let line = m.diff.line;
    let source = task
        .solution
        .lines()
        .nth(line.saturating_sub(1))
        .unwrap_or("")
        .trim();
    let mutated = source.replacen(&m.diff.before, &m.diff.after, 1);
    let call = method.map_or_else(
        || "...".to_string(),
        |name| format!("{}(...).{name}(...)", task.class_name),
    );
    let doc = format!(
        "Drafted from a surviving mutant ({op}, line {line} of the reference): the whole suite\n\
         passes when `{before}` becomes `{after}`. Replace the failure with a check that passes\n\
         on the reference and fails on the mutant, then run `classlab validate` and `classlab\n\
         rigor` again.",
        op = m.mutant.op,
        before = m.diff.before,
        after = m.diff.after,
    );
    let body = format!("# reference: {source}\n# mutant:    {mutated}\n# e.g. result = {call}\n");
    let indent =
        |text: &str, pad: &str| -> String { text.lines().map(|l| format!("{pad}{l}\n")).collect() };
    let name = format!("test_kills_{}_line_{line}", m.mutant.op);
    if text.contains("unittest") {
        text.push_str(&format!(
            "\n\n\nclass {}RigorLine{line}(unittest.TestCase):\n    \"\"\"{}\"\"\"\n\n    def {name}(self):\n{}        self.fail(\"draft: write the test that kills this mutant\")\n",
            task.class_name,
            indent(&doc, "    ").trim(),
            indent(&body, "        "),
        ));
    } else {
        text.push_str(&format!(
            "\n\n\ndef {name}():\n    \"\"\"{}\"\"\"\n{}    assert False, \"draft: write the test that kills this mutant\"\n",
            indent(&doc, "    ").trim(),
            indent(&body, "    "),
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rigor::run::{Analysis, Outcome, Status};
    use crate::rigor::{Coverage, Mutant, Operator};

    fn rigor(task: &Task, statuses: &[Status], branch: Option<(usize, usize)>) -> TaskRigor {
        let start = task.solution.find("<").unwrap();
        let m = Mutant {
            op: Operator::Boundary,
            start,
            end: start + 1,
            replacement: "<=".into(),
            context: (start - 7, start + 3),
            lines: (3, 3),
            scope: None,
        };
        let outcomes = statuses
            .iter()
            .map(|s| Outcome {
                status: *s,
                by: None,
                how: None,
                tests_run: 1,
                seconds: 0.0,
            })
            .collect();
        let coverage = branch.map(|(c, t)| Coverage {
            branch: Some(100.0 * c as f64 / t as f64),
            branches: (c, t),
            missing_arcs: vec![(3, 4)],
            ..Coverage::default()
        });
        TaskRigor::new(
            &task.id,
            &task.solution,
            vec![m; statuses.len()],
            Analysis {
                outcomes,
                coverage,
                ..Analysis::default()
            },
        )
    }

    fn task() -> Task {
        Task {
            id: "T".into(),
            class_name: "Acc".into(),
            solution: "class Acc:\n    def w(self, amount):\n        if amount < 0:\n            raise ValueError\n".into(),
            test_module: "import unittest\n\nclass AccTest(unittest.TestCase):\n    pass\n".into(),
            ..Task::default()
        }
    }

    #[test]
    fn gates_make_r1_and_r2() {
        let t = task();
        let gates = RigorGates::DEFAULT;
        let weak = rigor(
            &t,
            &[Status::Killed, Status::Survived, Status::Survived],
            Some((1, 2)),
        );
        let codes: Vec<&str> = findings(&t, &weak, &gates).iter().map(|f| f.code).collect();
        assert_eq!(codes, ["R1", "R2"]);
        let strong = rigor(&t, &[Status::Killed, Status::Killed], Some((2, 2)));
        assert!(findings(&t, &strong, &gates).is_empty());
        let no_branches = rigor(&t, &[Status::Killed], None);
        assert!(
            findings(&t, &no_branches, &gates).is_empty(),
            "null branch coverage is no R1"
        );
        let lax = RigorGates {
            branch_coverage: 40,
            mutation_score: 30,
        };
        assert!(findings(&t, &weak, &lax).is_empty());
    }

    #[test]
    fn a_drafted_test_names_the_mutant_and_fails_until_written() {
        let t = task();
        let r = rigor(&t, &[Status::Survived], Some((2, 2)));
        let m = survivor_in(&r, Some((2, 4))).unwrap();
        let text = draft_killing_test(&t, m, Some("w"));
        assert!(text.starts_with(&t.test_module.trim_end().to_string()));
        assert!(text.contains("class AccRigorLine3(unittest.TestCase):"));
        assert!(text.contains("# reference: if amount < 0:"));
        assert!(text.contains("# mutant:    if amount <= 0:"));
        assert!(text.contains("Acc(...).w(...)"));
        assert!(text.contains("self.fail("));
        assert!(
            crate::corpus::ruff::RuffModule::parse(&text).is_some(),
            "{text}"
        );
    }
}
