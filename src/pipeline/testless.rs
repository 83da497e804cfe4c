//! Tasks without tests (a `corpus export` selection, a RealClassEval class whose test file is
//! missing): nothing can judge them, so no metric may count them — a class with no test is not
//! a class that failed every test. `eval`, `run` and `validate` run only the selected tasks that
//! have tests, list the others, and refuse outright when none has any.

use crate::model::Task;

/// Whether the task has at least one test to run (a `def test…` in its test module).
pub fn has_tests(task: &Task) -> bool {
    task.has_tests()
}

/// The selected tasks split into those with tests and the ids of those without.
pub fn split<'a>(tasks: impl IntoIterator<Item = &'a Task>) -> (Vec<&'a Task>, Vec<String>) {
    let mut with = Vec::new();
    let mut without = Vec::new();
    for t in tasks {
        if has_tests(t) {
            with.push(t);
        } else {
            without.push(t.id.clone());
        }
    }
    (with, without)
}

/// At most this many ids are named in a message; the rest are counted.
const NAMED: usize = 10;

/// `A, B, C and 7 more`.
pub fn named(ids: &[String]) -> String {
    let shown: Vec<&str> = ids.iter().take(NAMED).map(String::as_str).collect();
    let mut out = shown.join(", ");
    if ids.len() > shown.len() {
        out.push_str(&format!(" and {} more", ids.len() - shown.len()));
    }
    out
}

/// The error when no selected task has tests: `what` is what would have been done
/// (`evaluate`, `generate and judge`, `validate`), `kept` what was therefore not made
/// (`no session was created`).
pub fn none_has_tests(testless: &[String], what: &str, kept: &str) -> String {
    format!(
        "none of the {n} selected task{s} has tests ({ids}): there is nothing to {what}, and a \
         class without tests is not a class that fails them; {kept}. Tasks exported from a \
         corpus carry no tests: add a test module per task (see docs/dataset-format.md), or \
         select tasks that have one",
        n = testless.len(),
        s = if testless.len() == 1 { "" } else { "s" },
        ids = named(testless),
    )
}

/// The warning naming the selected tasks that were left out for having no tests.
pub fn skipped_warning(testless: &[String], selected: usize) -> String {
    format!(
        "{} of the {selected} selected tasks have no tests and were not run (in no metric): {}",
        testless.len(),
        named(testless)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str, tests: &str) -> Task {
        Task {
            id: id.into(),
            test_module: tests.into(),
            ..Task::default()
        }
    }

    #[test]
    fn a_task_has_tests_when_its_module_defines_one() {
        let with =
            "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        pass\n";
        assert!(has_tests(&task("a", with)));
        assert!(has_tests(&task("p", "def test_x():\n    assert 1\n")));
        assert!(!has_tests(&task("b", "")));
        assert!(!has_tests(&task("c", "import unittest\n")));
        let all = [task("a", with), task("b", ""), task("c", "  \n")];
        let (w, wo) = split(&all);
        assert_eq!(w.len(), 1);
        assert_eq!(wo, vec!["b".to_string(), "c".to_string()]);
    }

    #[test]
    fn messages_name_the_tasks_and_count_the_rest() {
        let ids: Vec<String> = (0..13).map(|i| format!("T_{i}")).collect();
        assert!(named(&ids).ends_with("T_9 and 3 more"));
        let e = none_has_tests(&ids[..2], "evaluate", "no session was created");
        assert!(
            e.starts_with("none of the 2 selected tasks has tests (T_0, T_1)"),
            "{e}"
        );
        assert!(e.contains("no session was created"));
        assert_eq!(
            skipped_warning(&ids[..1], 4),
            "1 of the 4 selected tasks have no tests and were not run (in no metric): T_0"
        );
    }
}
