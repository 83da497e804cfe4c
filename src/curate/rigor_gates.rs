//! Rigor as curation sees it: review findings when a task's tests fall below the gates of
//! `[rigor]` in the config — `R1` branch coverage of the reference below the gate, `R2`
//! mutation score below the gate; errors, so they block approval like the linter's unless
//! explained or overridden — and a drafted test for a surviving mutant, to complete in
//! `$EDITOR` from the review queue. Only [`StoredRigor`] reads (the rigor store).

use std::path::Path;

use crate::analysis::lint::{Finding, Part, Severity};
use crate::config::RigorGates;
use crate::model::Task;
use crate::rigor::plan::subject_digest;
use crate::rigor::store::{Store, StoreError};
use crate::rigor::{MutantResult, Subject, TaskRigor};

/// The rule codes of rigor findings.
pub const CODES: [&str; 2] = ["R1", "R2"];

/// The rigor findings among a task's findings.
pub fn only_rigor(findings: &[Finding]) -> Vec<Finding> {
    findings
        .iter()
        .filter(|f| CODES.contains(&f.code))
        .cloned()
        .collect()
}

/// Stored rigor results, as the gates read them: a task's newest result for its reference and
/// tests as they stand (an edited task has none until `classlab rigor` measures it again).
pub struct StoredRigor {
    store: Option<Store>,
    gates: RigorGates,
}

impl StoredRigor {
    /// The store at `path` with the config's gates; no file there means no findings.
    pub fn open(path: &Path) -> Result<StoredRigor, StoreError> {
        let store = if path.exists() {
            Some(Store::open(path)?)
        } else {
            None
        };
        Ok(StoredRigor {
            store,
            gates: crate::config::current().rigor,
        })
    }

    /// No store: no findings.
    pub fn none() -> StoredRigor {
        StoredRigor {
            store: None,
            gates: RigorGates::DEFAULT,
        }
    }

    /// The rigor findings of `edited` (the task as the reviewer made it).
    pub fn findings(&self, edited: &Task) -> Vec<Finding> {
        let Some(store) = &self.store else {
            return Vec::new();
        };
        let digest = subject_digest(&Subject::of_task(edited));
        match store.latest(&edited.id, &digest) {
            Ok(Some(r)) => findings(edited, &r, &self.gates),
            _ => Vec::new(),
        }
    }
}

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
    fn rigor_findings_block_approval_until_overridden() {
        use crate::curate::{CurationStore, Gate, ReviewAction, Stamp, Status as Review};
        let t = task();
        let weak = rigor(&t, &[Status::Killed, Status::Survived], Some((1, 2)));
        let found = findings(&t, &weak, &RigorGates::DEFAULT);
        let stamp = Stamp {
            who: "me".into(),
            when: "2026-11-28T09:00:00Z".into(),
        };
        let mut store = CurationStore::default();
        let act = |store: &mut CurationStore, action, rigor: &[Finding]| {
            crate::curate::act(store, &t, action, &stamp, rigor)
        };
        let overriding = |gate| ReviewAction::Override {
            gate,
            reason: "checked by hand".into(),
        };
        // Whatever blocks without rigor is waived (validation, the linter's errors), so only
        // R1/R2 are left to block.
        let gates = crate::curate::task_gates(&store, &t, &[]);
        for f in crate::curate::review::blocking(&store.review("T"), &gates) {
            act(&mut store, overriding(f.gate), &[]).unwrap();
        }
        let approve = ReviewAction::Approve { comment: None };
        let err = act(&mut store, approve.clone(), &found).unwrap_err();
        assert!(
            err.to_string().contains("R1") && err.to_string().contains("R2"),
            "{err}"
        );
        assert_eq!(store.review("T").status, Review::Unreviewed);
        // Without stored rigor (e.g. the task was edited since it was measured), no finding.
        let mut other = store.clone();
        act(&mut other, approve.clone(), &[]).unwrap();
        // Waived like any error finding: an override covering them.
        act(&mut store, overriding(Gate::Findings), &found).unwrap();
        act(&mut store, approve, &found).unwrap();
        assert_eq!(store.review("T").status, Review::Approved);
        assert_eq!(only_rigor(&found).len(), 2);
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
