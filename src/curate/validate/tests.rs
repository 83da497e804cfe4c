//! The pure part of validation: two runs → counts, findings and coverage.

use std::collections::{BTreeMap, BTreeSet};

use super::coverage::{method_ranges, percent};
use super::*;
use crate::exec::FileCoverage;
use crate::model::{Method, Outcome, SuiteFailure, TestResult};

const SOLUTION: &str = "class Box:\n    def __init__(self):\n        self.items = []\n\n    \
def add(self, x):\n        \"\"\"Add.\"\"\"\n        self.items.append(x)\n        return x\n\n    \
def size(self):\n        if self.items:\n            return len(self.items)\n        return 0\n";

const TESTS: &str = "import unittest\n\nclass BoxTestAdd(unittest.TestCase):\n    def test_a(self):\n        \
pass\n\n    def test_b(self):\n        pass\n\nclass BoxTestSize(unittest.TestCase):\n    def test_c(self):\n        \
pass\n";

fn method(name: &str, class: &str) -> Method {
    Method {
        name: name.into(),
        description: String::new(),
        test_class: Some(class.into()),
        test_code: String::new(),
        solution: String::new(),
        annotated: None,
        public_tests: None,
    }
}

fn task() -> Task {
    Task {
        id: "T_1".into(),
        class_name: "Box".into(),
        solution: SOLUTION.into(),
        test_module: TESTS.into(),
        methods: vec![method("add", "BoxTestAdd"), method("size", "BoxTestSize")],
        ..Task::default()
    }
}

fn test(id: &str, o: Outcome) -> TestResult {
    TestResult::new(id, o)
}

/// A run with these outcomes, every test calling what it is named after.
fn run(seed: u32, tests: &[(&str, Outcome)]) -> SuiteRun {
    let mut probe = ProbeReport {
        complete: true,
        final_files: Some(vec!["test_classeval.py".into()]),
        ..ProbeReport::default()
    };
    for (id, _) in tests {
        let m = if id.starts_with("BoxTestAdd") {
            "add"
        } else {
            "size"
        };
        probe
            .calls
            .insert(id.to_string(), BTreeSet::from([m.to_string()]));
    }
    SuiteRun {
        seed,
        result: SuiteResult::new(tests.iter().map(|(i, o)| test(i, *o)).collect(), None),
        probe,
    }
}

fn private(a: SuiteRun, b: SuiteRun) -> SuiteRuns {
    SuiteRuns {
        key: SuiteKey::Private,
        tests_text: TESTS.into(),
        initial_files: vec!["test_classeval.py".into()],
        runs: [a, b],
    }
}

const ALL_PASS: &[(&str, Outcome)] = &[
    ("BoxTestAdd.test_a", Outcome::Pass),
    ("BoxTestAdd.test_b", Outcome::Pass),
    ("BoxTestSize.test_c", Outcome::Pass),
];

fn codes(v: &TaskValidation) -> Vec<&'static str> {
    v.findings.iter().map(|f| f.code).collect()
}

#[test]
fn agreeing_passing_runs_have_no_findings() {
    let v = task_validation(
        &task(),
        &[private(run(0, ALL_PASS), run(1, ALL_PASS))],
        vec![],
    );
    assert!(v.runs_agree && v.passes_twice(), "{v:#?}");
    assert_eq!(
        v.reference.private,
        Count {
            passed: 3,
            total: 3
        }
    );
    assert!(v.findings.is_empty(), "{:#?}", v.findings);
}

#[test]
fn outcomes_that_differ_are_t11_naming_the_tests() {
    let mut second = ALL_PASS.to_vec();
    second[1].1 = Outcome::Fail;
    let v = task_validation(
        &task(),
        &[private(run(0, ALL_PASS), run(1, &second))],
        vec![],
    );
    assert!(!v.runs_agree && !v.passes_twice());
    assert_eq!(codes(&v), ["T11"]);
    let f = &v.findings[0];
    assert_eq!(f.method.as_deref(), Some("add"));
    assert_eq!((f.part.as_str(), f.line), ("tests", Some(7)));
    assert!(
        f.message.contains("BoxTestAdd.test_b (pass → fail)"),
        "{}",
        f.message
    );
    assert!(f.message.contains("PYTHONHASHSEED 0 and 1"));
    assert_eq!(
        v.reference.private,
        Count {
            passed: 2,
            total: 3
        }
    );
}

#[test]
fn a_suite_that_ends_differently_is_t11() {
    let mut b = run(1, ALL_PASS);
    b.result.failure = Some(SuiteFailure::Timeout { limit_s: 20.0 });
    let v = task_validation(&task(), &[private(run(0, ALL_PASS), b)], vec![]);
    assert_eq!(codes(&v), ["T11"]);
    assert!(v.findings[0].message.contains("timed out after 20 s"));
}

#[test]
fn failing_in_both_runs_is_i2_at_the_code_line() {
    let mut fails = ALL_PASS.to_vec();
    fails[2].1 = Outcome::Error;
    let (mut a, mut b) = (run(0, &fails), run(1, &fails));
    for r in [&mut a, &mut b] {
        let t = &mut r.result.tests[2];
        t.exc_type = Some("TypeError".into());
        t.message = Some("bad operand".into());
        t.code_line = Some(12);
    }
    let v = task_validation(&task(), &[private(a, b)], vec![]);
    assert_eq!(codes(&v), ["I2"]);
    let f = &v.findings[0];
    assert_eq!(
        (f.part.as_str(), f.line, f.method.as_deref()),
        ("solution", Some(12), Some("size"))
    );
    assert!(
        f.message
            .contains("BoxTestSize.test_c (TypeError: bad operand)")
    );
    assert!(v.runs_agree);
}

#[test]
fn an_import_failure_is_one_i2() {
    let not_run: Vec<(&str, Outcome)> = ALL_PASS
        .iter()
        .map(|(i, _)| (*i, Outcome::NotRun))
        .collect();
    let fail = || SuiteFailure::Import {
        exc_type: "SyntaxError".into(),
        message: "invalid syntax".into(),
        line: Some(3),
        traceback: None,
        origin: None,
    };
    let (mut a, mut b) = (run(0, &not_run), run(1, &not_run));
    a.result.failure = Some(fail());
    b.result.failure = Some(fail());
    let v = task_validation(&task(), &[private(a, b)], vec![]);
    assert_eq!(codes(&v), ["I2"]);
    assert_eq!(
        (v.findings[0].part.as_str(), v.findings[0].line),
        ("solution", Some(3))
    );
    assert_eq!(
        v.reference.private,
        Count {
            passed: 0,
            total: 3
        }
    );
}

#[test]
fn files_left_behind_are_t5_by_test() {
    let (mut a, b) = (run(0, ALL_PASS), run(1, ALL_PASS));
    a.probe.final_files = Some(vec![
        "test_classeval.py".into(),
        "out.txt".into(),
        "setup.log".into(),
        "__pycache__/x.pyc".into(),
    ]);
    a.probe
        .created
        .insert("BoxTestAdd.test_b".into(), vec!["out.txt".into()]);
    // Created and removed again by a later test: not left behind.
    a.probe
        .created
        .insert("BoxTestAdd.test_a".into(), vec!["tmp.txt".into()]);
    a.result.leftovers = vec!["/tmp/x appeared outside the work dir during the suite".into()];
    let v = task_validation(&task(), &[private(a, b)], vec![]);
    assert_eq!(codes(&v), ["T5", "T5", "T5"]);
    assert!(
        v.findings[0]
            .message
            .contains("BoxTestAdd.test_b (out.txt)")
    );
    assert_eq!(v.findings[0].method.as_deref(), Some("add"));
    assert!(
        v.findings[1].message.contains("outside any test")
            && v.findings[1].message.contains("setup.log")
    );
    assert!(v.findings[2].message.contains("/tmp/x"));
    assert!(v.runs_agree, "leftovers are not a disagreement");
}

fn public(m: &str, calls: &[(&str, &[&str])]) -> SuiteRuns {
    let mk = |seed| {
        let mut r = run(seed, &[]);
        r.result = SuiteResult::new(
            calls
                .iter()
                .map(|(id, _)| test(id, Outcome::Pass))
                .collect(),
            None,
        );
        r.probe.calls = calls
            .iter()
            .map(|(id, c)| (id.to_string(), c.iter().map(|s| s.to_string()).collect()))
            .collect();
        r
    };
    SuiteRuns {
        key: SuiteKey::Public(m.into()),
        tests_text:
            "class BoxTestSizePublic(unittest.TestCase):\n    def test_p(self):\n        pass\n"
                .into(),
        initial_files: vec!["test_classeval.py".into()],
        runs: [mk(0), mk(1)],
    }
}

#[test]
fn traced_calls_give_t8_and_t9() {
    let cases: &[(&[&str], &[&str])] = &[
        (&["size"], &[]),
        (&["size", "__init__", "helper"], &[]),
        (&["add", "size"], &["T9"]),
        (&[], &["T8"]),
        (&["add"], &["T8", "T9"]),
    ];
    for (calls, want) in cases {
        let s = public("size", &[("BoxTestSizePublic.test_p", calls)]);
        let v = task_validation(
            &task(),
            &[private(run(0, ALL_PASS), run(1, ALL_PASS)), s],
            vec![],
        );
        assert_eq!(codes(&v), *want, "calls {calls:?}");
        for f in &v.findings {
            assert_eq!((f.part.as_str(), f.line), ("public_tests", Some(2)));
            assert_eq!(f.method.as_deref(), Some("size"));
        }
        assert_eq!(
            v.reference.public,
            Count {
                passed: 1,
                total: 1
            }
        );
    }
    let v = task_validation(
        &task(),
        &[public("size", &[("BoxTestSizePublic.test_p", &["add"])])],
        vec![],
    );
    assert!(
        v.findings
            .iter()
            .any(|f| f.code == "T9" && f.message.contains("test_p → add"))
    );
}

#[test]
fn private_tests_that_never_call_their_method_are_t8() {
    let (mut a, mut b) = (run(0, ALL_PASS), run(1, ALL_PASS));
    for r in [&mut a, &mut b] {
        r.probe.calls.insert(
            "BoxTestSize.test_c".into(),
            BTreeSet::from(["add".to_string()]),
        );
    }
    let v = task_validation(&task(), &[private(a, b)], vec![]);
    assert_eq!(
        codes(&v),
        ["T8"],
        "private tests calling other methods are no T9"
    );
    assert!(v.findings[0].message.contains("never invoke `size`"));
    assert!(v.findings[0].message.ends_with("; they call add"));
    assert_eq!(v.findings[0].severity, Severity::Error);
}

#[test]
fn a_method_reached_only_through_another_is_a_t8_info() {
    let (mut a, mut b) = (run(0, ALL_PASS), run(1, ALL_PASS));
    for r in [&mut a, &mut b] {
        r.probe.calls.insert(
            "BoxTestSize.test_c".into(),
            BTreeSet::from(["add".to_string()]),
        );
        let both = BTreeSet::from(["add".to_string(), "size".to_string()]);
        r.probe.reached.insert("BoxTestSize.test_c".into(), both);
    }
    let v = task_validation(&task(), &[private(a, b)], vec![]);
    assert_eq!(codes(&v), ["T8"]);
    assert_eq!(v.findings[0].severity, Severity::Info);
    assert!(v.findings[0].message.contains("only through other methods"));
}

#[test]
fn untraced_suites_get_a_note_not_findings() {
    let (mut a, mut b) = (run(0, ALL_PASS), run(1, ALL_PASS));
    a.probe.calls.clear();
    b.probe.calls.clear();
    let v = task_validation(&task(), &[private(a, b)], vec!["add".into()]);
    assert!(v.findings.is_empty());
    assert!(
        v.notes.iter().any(|n| n.contains("not traced")),
        "{:?}",
        v.notes
    );
    assert_eq!(v.no_public_tests, ["add"]);
}

#[test]
fn method_ranges_are_bodies() {
    let r = method_ranges(SOLUTION, "Box").unwrap_or_default();
    assert_eq!(r["__init__"], [(3, 3)]);
    assert_eq!(r["add"], [(6, 8)]);
    assert_eq!(r["size"], [(11, 13)]);
    assert!(method_ranges(SOLUTION, "Nope").is_none());
}

#[test]
fn coverage_percentages() {
    let stmts = BTreeSet::from([1, 2, 3, 5, 7, 8, 10, 11, 12, 13]);
    type Case<'a> = (&'a [usize], &'a [(usize, usize)], Option<f64>);
    let cases: &[Case] = &[
        (&[3, 7, 8, 11, 12], &[(11, 13)], Some(66.7)),
        (&[], &[(6, 8)], Some(0.0)),
        (&[7, 8], &[(6, 8)], Some(100.0)),
        (&[1], &[(20, 30)], None),
        (&[3, 7, 8], &[(3, 3), (6, 8), (11, 13)], Some(50.0)),
    ];
    for (exec, ranges, want) in cases {
        let exec: BTreeSet<usize> = exec.iter().copied().collect();
        assert_eq!(
            percent(&stmts, &exec, ranges),
            *want,
            "{exec:?} in {ranges:?}"
        );
    }
}

#[test]
fn task_coverage_pools_runs_and_notes_errors() {
    let cov = |executed: &[usize]| FileCoverage {
        file: "test_classeval.py".into(),
        statements: BTreeSet::from([1, 2, 3, 5, 7, 8, 10, 11, 12, 13]),
        executed: executed.iter().copied().collect(),
    };
    let (mut a, mut b) = (run(0, ALL_PASS), run(1, ALL_PASS));
    a.probe.coverage = vec![cov(&[3, 7, 8, 11, 12])];
    b.probe.coverage = vec![cov(&[3, 13])];
    let mut p = public("size", &[("BoxTestSizePublic.test_p", &["size"])]);
    p.runs[0].probe.coverage_error = Some("ModuleNotFoundError: No module named 'coverage'".into());
    let v = task_validation(&task(), &[private(a, b), p], vec![]);
    // The class's figures are rigor's, filled in by `validate`.
    assert_eq!((v.coverage.class, v.coverage.branch), (None, None));
    assert_eq!(v.coverage.private_methods["size"], Some(100.0));
    assert_eq!(v.coverage.methods["size"], None);
    assert_eq!(v.coverage.methods["add"], None);
    assert!(
        v.notes.iter().any(|n| n.contains("coverage not measured")),
        "{:?}",
        v.notes
    );
}

#[test]
fn summary_counts_codes_and_tasks() {
    let mut second = ALL_PASS.to_vec();
    second[0].1 = Outcome::Error;
    let bad = task_validation(
        &task(),
        &[private(run(0, ALL_PASS), run(1, &second))],
        vec!["add".into()],
    );
    let good = task_validation(
        &task(),
        &[private(run(0, ALL_PASS), run(1, ALL_PASS))],
        vec![],
    );
    let s = summarize(&[bad, good], 4, 1.5);
    assert_eq!((s.tasks, s.passed_twice), (2, 1));
    assert_eq!(s.tasks_by_code.get("T11").map(Vec::len), Some(1));
    assert_eq!(s.findings_by_code.get("T11"), Some(&1));
    assert_eq!(
        (s.methods_with_public_tests, s.methods_without_public_tests),
        (3, 1)
    );
    let _: &BTreeMap<String, usize> = &s.findings_by_code;
}

#[test]
fn environment_failures_say_so() {
    let mut fails = ALL_PASS.to_vec();
    fails[2].1 = Outcome::Error;
    let (mut a, mut b) = (run(0, &fails), run(1, &fails));
    for r in [&mut a, &mut b] {
        let t = &mut r.result.tests[2];
        t.exc_type = Some("LookupError".into());
        t.message =
            Some("\n*****\n  Resource 'punkt' not found.\n  Please use the NLTK Downloader".into());
    }
    let mut t = task();
    t.test_module = format!("import nltk\n{TESTS}");
    let v = task_validation(&t, &[private(a, b)], vec![]);
    assert_eq!(codes(&v), ["I2"]);
    let m = &v.findings[0].message;
    assert!(m.contains("because of the environment"), "{m}");
    assert!(
        m.contains("LookupError: Resource 'punkt' not found."),
        "{m}"
    );
    assert!(m.contains("environment: missing data punkt"), "{m}");
}
