//! ClassEval-compatible functional metrics (domain.md §5). Pure: no I/O, no panics on any input.
//!
//! The rules follow FudanSELab/ClassEval `classeval_evaluation/test_pipeline.py`
//! (`AutoTest.test`, `get_test_answer`, `evaluate`, `cal_pass_at_k`, `cal_metrics_pass_at_k`):
//!
//! * Per test class and sample the harness records `(testsRun, len(failures), len(errors))`
//!   of one `unittest` run; any exception while importing the module or running the class
//!   (import error, the 5-second `func_timeout`, a missing TestCase attribute) records `0, 0, 0`.
//! * Verdict ([`answer`]), in this order: `error` if testsRun = 0 or errors = testsRun;
//!   `success` if errors + failures = 0; `partial_success` if errors + failures < testsRun;
//!   else `fail` (so errors + failures = testsRun with some failures is `fail`, and all-error
//!   is `error`, never `fail`).
//! * Per task and sample ([`class_answer`]): `class_success` when every test class is
//!   `success`; `class_partial_success` when none is `fail` or `error`; else `class_fail`.
//! * Over a run ([`classeval_metrics`]): per test class, c = samples with `success`
//!   (resp. `success` or `partial_success`); `fun_success` / `fun_partial_success` = mean of
//!   pass@k(n, c, k) over all test classes of all tasks; per task, c = samples that are
//!   `class_success` (resp. `class_success` or `class_partial_success`);
//!   `class_success` / `class_partial_success` = mean of pass@k over tasks.
//! * pass@k = 1 − C(n−c, k)/C(n, k) (the unbiased estimator), computed as the product
//!   1 − Π_{i=n−c+1..n} (1 − k/i), which never forms a binomial coefficient.
//!
//! Deliberate choices where the official code has no answer (it would crash or never meets
//! the case): a task with no test classes counts as a task that never succeeds (the official
//! `evaluate` raises a KeyError); an empty run gives 0.0 for every rate instead of a
//! ZeroDivisionError; a test class named twice in one sample counts once, the last entry
//! winning (a Python dict); test classes missing from some samples count as not succeeding in
//! those samples.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::model::{Outcome, SuiteFailure, SuiteResult};

/// What unittest reported for one test class in one sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ClassCounts {
    #[serde(rename = "testsRun", alias = "tests_run", alias = "run")]
    pub tests_run: usize,
    pub failures: usize,
    pub errors: usize,
}

impl ClassCounts {
    pub fn new(tests_run: usize, failures: usize, errors: usize) -> Self {
        ClassCounts {
            tests_run,
            failures,
            errors,
        }
    }
}

/// ClassEval's verdict for one test class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    Success,
    PartialSuccess,
    Fail,
    Error,
}

impl Answer {
    pub fn as_str(self) -> &'static str {
        match self {
            Answer::Success => "success",
            Answer::PartialSuccess => "partial_success",
            Answer::Fail => "fail",
            Answer::Error => "error",
        }
    }

    /// `success` or `partial_success`.
    pub fn is_partial_or_better(self) -> bool {
        matches!(self, Answer::Success | Answer::PartialSuccess)
    }
}

/// ClassEval's verdict for one task (one sample).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClassAnswer {
    ClassSuccess,
    ClassPartialSuccess,
    ClassFail,
}

impl ClassAnswer {
    pub fn as_str(self) -> &'static str {
        match self {
            ClassAnswer::ClassSuccess => "class_success",
            ClassAnswer::ClassPartialSuccess => "class_partial_success",
            ClassAnswer::ClassFail => "class_fail",
        }
    }
}

/// `get_test_answer`: the verdict of one test class from its counts.
pub fn answer(c: ClassCounts) -> Answer {
    let bad = c.errors.saturating_add(c.failures);
    if c.tests_run == 0 || c.errors == c.tests_run {
        Answer::Error
    } else if bad == 0 {
        Answer::Success
    } else if bad < c.tests_run {
        Answer::PartialSuccess
    } else {
        Answer::Fail
    }
}

/// The task verdict for one sample from its test classes' verdicts. No test class at all is
/// `class_fail` (there is nothing that succeeded).
pub fn class_answer<I: IntoIterator<Item = Answer>>(answers: I) -> ClassAnswer {
    let (mut any, mut all_success, mut any_bad) = (false, true, false);
    for a in answers {
        any = true;
        all_success &= a == Answer::Success;
        any_bad |= matches!(a, Answer::Fail | Answer::Error);
    }
    if !any {
        ClassAnswer::ClassFail
    } else if all_success {
        ClassAnswer::ClassSuccess
    } else if !any_bad {
        ClassAnswer::ClassPartialSuccess
    } else {
        ClassAnswer::ClassFail
    }
}

/// The unbiased pass@k estimator 1 − C(n−c, k)/C(n, k) for n samples of which c are correct.
/// `None` when undefined (k = 0 or k > n); c is clamped to n.
pub fn pass_at_k(n: usize, c: usize, k: usize) -> Option<f64> {
    if k == 0 || k > n {
        return None;
    }
    let c = c.min(n);
    if c == 0 {
        return Some(0.0);
    }
    if n - c < k {
        return Some(1.0);
    }
    // C(n−c, k)/C(n, k) = Π_{i=n−c+1}^{n} (1 − k/i)
    let kf = k as f64;
    let ratio: f64 = ((n - c + 1)..=n).map(|i| 1.0 - kf / i as f64).product();
    Some(1.0 - ratio)
}

/// One test class's counts in one sample, named.
pub type SampleCounts = Vec<(String, ClassCounts)>;

/// Everything the metrics need about one task: its samples' per-test-class counts.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TaskCounts {
    pub task_id: String,
    /// One entry per sample (greedy runs have one).
    pub samples: Vec<SampleCounts>,
}

/// ClassEval's four headline metrics, with the counts behind them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionalMetrics {
    pub fun_success: f64,
    pub fun_partial_success: f64,
    pub class_success: f64,
    pub class_partial_success: f64,
    /// The k of pass@k.
    pub k: usize,
    pub tasks: usize,
    pub test_classes: usize,
    /// Σ pass@k over test classes (an integer count for greedy runs) — the numerators.
    pub fun_success_sum: f64,
    pub fun_partial_success_sum: f64,
    pub class_success_sum: f64,
    pub class_partial_success_sum: f64,
    /// Tasks/test classes left out because pass@k is undefined for them (fewer than k samples).
    pub skipped: Vec<String>,
}

impl FunctionalMetrics {
    /// Nothing counted yet, for pass@`k`: every count, sum and rate zero.
    pub(crate) fn zero(k: usize) -> Self {
        FunctionalMetrics {
            fun_success: 0.0,
            fun_partial_success: 0.0,
            class_success: 0.0,
            class_partial_success: 0.0,
            k,
            tasks: 0,
            test_classes: 0,
            fun_success_sum: 0.0,
            fun_partial_success_sum: 0.0,
            class_success_sum: 0.0,
            class_partial_success_sum: 0.0,
            skipped: Vec::new(),
        }
    }

    /// The four rates from their sums: the `fun_*` ones over the test classes, the `class_*`
    /// ones over the tasks (0 when there are none).
    pub(crate) fn set_rates_from_sums(&mut self) {
        let rate = |sum: f64, count: usize| if count == 0 { 0.0 } else { sum / count as f64 };
        self.fun_success = rate(self.fun_success_sum, self.test_classes);
        self.fun_partial_success = rate(self.fun_partial_success_sum, self.test_classes);
        self.class_success = rate(self.class_success_sum, self.tasks);
        self.class_partial_success = rate(self.class_partial_success_sum, self.tasks);
    }
}

/// Per task: verdicts per sample and test class, and the task verdict per sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskVerdicts {
    pub task_id: String,
    /// Test class names in first-seen order (over samples).
    pub test_classes: Vec<String>,
    /// `answers[sample][test class]`, `None` when the sample lacks that class.
    pub answers: Vec<Vec<Option<Answer>>>,
    pub class_answers: Vec<ClassAnswer>,
}

/// Verdicts of one task, dict semantics for repeated names (last entry wins).
pub fn task_verdicts(task: &TaskCounts) -> TaskVerdicts {
    let mut names: Vec<String> = Vec::new();
    for sample in &task.samples {
        for (name, _) in sample {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    let mut answers = Vec::with_capacity(task.samples.len());
    let mut class_answers = Vec::with_capacity(task.samples.len());
    for sample in &task.samples {
        let by_name: BTreeMap<&str, ClassCounts> =
            sample.iter().map(|(n, c)| (n.as_str(), *c)).collect();
        let row: Vec<Option<Answer>> = names
            .iter()
            .map(|n| by_name.get(n.as_str()).map(|c| answer(*c)))
            .collect();
        class_answers.push(class_answer(by_name.values().map(|c| answer(*c))));
        answers.push(row);
    }
    TaskVerdicts {
        task_id: task.task_id.clone(),
        test_classes: names,
        answers,
        class_answers,
    }
}

/// `fun_success`, `fun_partial_success`, `class_success`, `class_partial_success` as pass@k
/// over the given tasks (ClassEval's `cal_metrics_pass_at_k`; greedy runs use k = 1).
pub fn classeval_metrics(tasks: &[TaskCounts], k: usize) -> FunctionalMetrics {
    let mut m = FunctionalMetrics::zero(k);
    for task in tasks {
        let v = task_verdicts(task);
        let n = v.class_answers.len();
        if pass_at_k(n, 0, k).is_none() {
            m.skipped.push(task.task_id.clone());
            continue;
        }
        m.tasks += 1;
        for col in 0..v.test_classes.len() {
            let column = v.answers.iter().map(|row| row.get(col).copied().flatten());
            let (mut ok, mut partial) = (0, 0);
            for a in column.flatten() {
                ok += usize::from(a == Answer::Success);
                partial += usize::from(a.is_partial_or_better());
            }
            m.test_classes += 1;
            m.fun_success_sum += pass_at_k(n, ok, k).unwrap_or(0.0);
            m.fun_partial_success_sum += pass_at_k(n, partial, k).unwrap_or(0.0);
        }
        let ok = v
            .class_answers
            .iter()
            .filter(|a| **a == ClassAnswer::ClassSuccess)
            .count();
        let partial = v
            .class_answers
            .iter()
            .filter(|a| **a != ClassAnswer::ClassFail)
            .count();
        m.class_success_sum += pass_at_k(n, ok, k).unwrap_or(0.0);
        m.class_partial_success_sum += pass_at_k(n, partial, k).unwrap_or(0.0);
    }
    m.set_rates_from_sums();
    m
}

/// Per-test-class counts of one sandboxed suite, as ClassEval's harness would have recorded
/// them, for the task's test classes (`test_classes`, duplicates counted once, in order):
/// * tests are grouped by the class prefix of [`crate::model::TestResult::id`], matched
///   exactly (a dataset name with a stray space, like ClassEval_97's `" Words2NumbersTest"`,
///   matches nothing and gets `0` run, as `getattr(module, name)` fails officially);
/// * a suite that failed to import → every test class `0, 0, 0`;
/// * a suite the harness found tampered with ([`SuiteFailure::Tampered`]) fails every test:
///   each test class counts its tests (at least one) as run and failed (`fail`) — no verdict
///   of the suite stands, and the failure is the model's;
/// * a suite cut short (timeout, memory, crash, protocol violation) → a test class with a
///   test that never ran gets `0, 0, 0` (officially, a class whose run raised — the 5 s
///   timeout — records nothing); completed classes keep their counts;
/// * otherwise `NotRun` tests are not counted; every other outcome counts as run
///   (skips and expected failures too, as in `unittest`); `Fail` and `Xpass` (a strict
///   unexpected success) and `Tampered` (a verdict the harness found tampered with) are
///   failures; `Error` is an error;
/// * a class with a timed-out test counts as not run at all (ClassEval abandons a class at its
///   time budget and records nothing for it);
/// * a test id reported twice counts as one test run but contributes every record to the
///   failures/errors: `unittest` records a test that errors and then errors again in
///   `tearDown` twice in `errors` (ClassEval_69's merge tests: officially `1 run, 2 errors`,
///   hence `fail`, not `error`). A harness that wants these verdicts must report the second
///   record; it can only make a result worse, never better.
pub fn suite_class_counts(suite: &SuiteResult, test_classes: &[String]) -> SampleCounts {
    let mut out: SampleCounts = Vec::new();
    for name in test_classes {
        if out.iter().any(|(n, _)| n == name) {
            continue;
        }
        out.push((name.clone(), ClassCounts::default()));
    }
    if matches!(suite.failure, Some(SuiteFailure::Import { .. })) {
        return out;
    }
    if matches!(suite.failure, Some(SuiteFailure::Tampered { .. })) {
        for (name, counts) in out.iter_mut() {
            let ids: BTreeSet<&str> = suite
                .tests
                .iter()
                .filter(|t| t.test_class() == Some(name.as_str()))
                .map(|t| t.id.as_str())
                .collect();
            let n = ids.len().max(1);
            *counts = ClassCounts::new(n, n, 0);
        }
        return out;
    }
    let cut_short = suite.failure.is_some();
    for (name, counts) in out.iter_mut() {
        let tests: Vec<_> = suite
            .tests
            .iter()
            .filter(|t| t.test_class() == Some(name.as_str()))
            .collect();
        if cut_short && tests.iter().any(|t| t.outcome == Outcome::NotRun) {
            continue;
        }
        // A class abandoned at its time budget records nothing, as ClassEval's evaluator
        // (a `func_timeout` per test class) reports it: 0 run, hence `error`.
        if tests
            .iter()
            .any(|t| t.exc_type.as_deref() == Some("Timeout"))
        {
            continue;
        }
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        for t in tests {
            match t.outcome {
                Outcome::NotRun => continue,
                Outcome::Fail | Outcome::Xpass | Outcome::Tampered => counts.failures += 1,
                Outcome::Error => counts.errors += 1,
                Outcome::Pass | Outcome::Skip | Outcome::Xfail => {}
            }
            if seen.insert(t.id.as_str()) {
                counts.tests_run += 1;
            }
        }
    }
    out
}

/// The counts of a pytest module judged as one test class: `0, 0, 0` when the suite failed
/// before any test ran; a tampered suite fails every test (at least one); otherwise every test
/// that ran counts, `Fail`, `Xpass` and `Tampered` as failures and `Error` as an error.
pub fn module_counts(suite: &SuiteResult) -> ClassCounts {
    if matches!(suite.failure, Some(SuiteFailure::Tampered { .. })) {
        let n = suite.tests.len().max(1);
        return ClassCounts::new(n, n, 0);
    }
    if suite.failure.is_some() && suite.tests.iter().all(|t| t.outcome == Outcome::NotRun) {
        return ClassCounts::default();
    }
    let run: Vec<_> = suite
        .tests
        .iter()
        .filter(|t| t.outcome != Outcome::NotRun)
        .collect();
    let failures = run
        .iter()
        .filter(|t| {
            matches!(
                t.outcome,
                Outcome::Fail | Outcome::Xpass | Outcome::Tampered
            )
        })
        .count();
    let errors = run.iter().filter(|t| t.outcome == Outcome::Error).count();
    ClassCounts::new(run.len(), failures, errors)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TestResult;

    #[test]
    fn answer_table() {
        // (run, failures, errors) → answer, with the official rule's edge cases.
        let cases: &[((usize, usize, usize), Answer)] = &[
            ((0, 0, 0), Answer::Error),
            ((0, 0, 1), Answer::Error), // setUpClass error: nothing ran
            ((0, 2, 0), Answer::Error), // impossible, still "none ran"
            ((5, 0, 0), Answer::Success),
            ((5, 0, 5), Answer::Error), // all errored
            ((5, 5, 0), Answer::Fail),  // all failed
            ((5, 3, 2), Answer::Fail),  // errors + failures == run, mixed
            ((5, 4, 0), Answer::PartialSuccess),
            ((5, 0, 4), Answer::PartialSuccess),
            ((5, 2, 2), Answer::PartialSuccess),
            ((1, 0, 0), Answer::Success),
            ((1, 1, 0), Answer::Fail),
            ((1, 0, 1), Answer::Error),
            ((1, 1, 1), Answer::Error), // errors == run wins over the failure
            ((2, 1, 1), Answer::Fail),  // errors + failures == run, mixed
            ((2, 0, 3), Answer::Fail),  // more errors than tests, errors != run
            ((usize::MAX, usize::MAX, usize::MAX), Answer::Error),
            ((usize::MAX, usize::MAX, 1), Answer::Fail), // no overflow
        ];
        for ((run, f, e), want) in cases {
            assert_eq!(
                answer(ClassCounts::new(*run, *f, *e)),
                *want,
                "{run} {f} {e}"
            );
        }
    }

    #[test]
    fn class_answer_table() {
        use Answer::*;
        let cases: &[(&[Answer], ClassAnswer)] = &[
            (&[Success, Success], ClassAnswer::ClassSuccess),
            (&[Success, PartialSuccess], ClassAnswer::ClassPartialSuccess),
            (&[PartialSuccess], ClassAnswer::ClassPartialSuccess),
            (&[Success, Fail], ClassAnswer::ClassFail),
            (&[Success, Error], ClassAnswer::ClassFail),
            (&[Error], ClassAnswer::ClassFail),
            (&[], ClassAnswer::ClassFail),
        ];
        for (answers, want) in cases {
            assert_eq!(class_answer(answers.iter().copied()), *want, "{answers:?}");
        }
    }

    fn binom(n: u64, k: u64) -> f64 {
        (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
    }

    #[test]
    fn pass_at_k_table() {
        type Case = ((usize, usize, usize), Option<f64>);
        let cases: &[Case] = &[
            ((1, 1, 1), Some(1.0)),
            ((1, 0, 1), Some(0.0)),
            ((10, 3, 1), Some(0.3)),
            ((10, 0, 5), Some(0.0)),
            ((10, 6, 5), Some(1.0)), // n − c < k
            ((5, 9, 1), Some(1.0)),  // c clamped to n
            ((3, 1, 0), None),
            ((3, 1, 4), None),
            ((0, 0, 1), None),
        ];
        for ((n, c, k), want) in cases {
            let got = pass_at_k(*n, *c, *k);
            match (got, want) {
                (Some(g), Some(w)) => assert!((g - w).abs() < 1e-12, "{n} {c} {k}: {g}"),
                _ => assert_eq!(got, *want, "{n} {c} {k}"),
            }
        }
        // Agrees with the binomial form where that is representable.
        for (n, c, k) in [(10, 3, 2), (20, 7, 5), (50, 10, 10), (100, 37, 10)] {
            let direct = 1.0 - binom(n - c, k) / binom(n, k);
            let got = pass_at_k(n as usize, c as usize, k as usize).unwrap();
            assert!(
                (got - direct).abs() < 1e-9,
                "{n} {c} {k}: {got} vs {direct}"
            );
        }
        // Stable where binomials overflow f64.
        let big = pass_at_k(100_000, 1, 50_000).unwrap();
        assert!((big - 0.5).abs() < 1e-9, "{big}");
        assert!(pass_at_k(2000, 1000, 1000).unwrap() <= 1.0);
    }

    fn counts(rows: &[(&str, (usize, usize, usize))]) -> SampleCounts {
        rows.iter()
            .map(|(n, (r, f, e))| (n.to_string(), ClassCounts::new(*r, *f, *e)))
            .collect()
    }

    #[test]
    fn greedy_metrics() {
        let tasks = vec![
            TaskCounts {
                task_id: "A".into(),
                samples: vec![counts(&[("T1", (5, 0, 0)), ("T2", (5, 1, 0))])],
            },
            TaskCounts {
                task_id: "B".into(),
                samples: vec![counts(&[("T1", (3, 0, 0)), ("T2", (4, 0, 0))])],
            },
            TaskCounts {
                task_id: "C".into(),
                samples: vec![counts(&[("T1", (0, 0, 0))])],
            },
            // No test classes: a task that never succeeds.
            TaskCounts {
                task_id: "D".into(),
                samples: vec![vec![]],
            },
        ];
        let m = classeval_metrics(&tasks, 1);
        assert_eq!((m.tasks, m.test_classes), (4, 5));
        assert_eq!(m.fun_success, 3.0 / 5.0);
        assert_eq!(m.fun_partial_success, 4.0 / 5.0);
        assert_eq!(m.class_success, 1.0 / 4.0);
        assert_eq!(m.class_partial_success, 2.0 / 4.0);
        assert!(m.skipped.is_empty());

        let empty = classeval_metrics(&[], 1);
        assert_eq!((empty.fun_success, empty.class_success), (0.0, 0.0));
    }

    #[test]
    fn sampled_metrics_and_dict_semantics() {
        // Two samples; T1 succeeds in one; the task succeeds in one.
        let task = TaskCounts {
            task_id: "A".into(),
            samples: vec![
                counts(&[("T1", (2, 0, 0)), ("T2", (2, 0, 0))]),
                counts(&[("T1", (2, 2, 0)), ("T2", (2, 0, 0)), ("T2", (2, 0, 0))]),
            ],
        };
        let m = classeval_metrics(std::slice::from_ref(&task), 1);
        assert_eq!(m.test_classes, 2);
        assert!((m.fun_success - 0.75).abs() < 1e-12); // (1/2 + 2/2) / 2
        assert!((m.class_success - 0.5).abs() < 1e-12);
        let m2 = classeval_metrics(std::slice::from_ref(&task), 2);
        assert!((m2.fun_success - 1.0).abs() < 1e-12);
        // k larger than the number of samples: undefined, reported.
        let m3 = classeval_metrics(std::slice::from_ref(&task), 3);
        assert_eq!(m3.skipped, vec!["A".to_string()]);
        assert_eq!(m3.tasks, 0);
        // Repeated name: the last entry wins.
        let dup = TaskCounts {
            task_id: "D".into(),
            samples: vec![counts(&[("T", (1, 1, 0)), ("T", (1, 0, 0))])],
        };
        let v = task_verdicts(&dup);
        assert_eq!(v.answers, vec![vec![Some(Answer::Success)]]);
    }

    fn t(id: &str, outcome: Outcome) -> TestResult {
        TestResult::new(id, outcome)
    }

    fn suite(tests: Vec<TestResult>, failure: Option<SuiteFailure>) -> SuiteResult {
        SuiteResult::new(tests, failure)
    }

    #[test]
    fn suite_to_counts() {
        use Outcome::*;
        let names: Vec<String> = ["A", "B", " C", "A"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let tests = vec![
            t("A.test_1", Pass),
            t("A.test_2", Fail),
            t("A.test_3", Error),
            t("A.test_4", Skip),
            t("A.test_5", Xfail),
            t("A.test_6", Xpass),
            t("B.test_1", Pass),
            t("B.test_2", NotRun),
            t("C.test_1", Pass),
            t("Other.test", Pass),
            t("loose_function", Pass),
        ];
        let got = suite_class_counts(&suite(tests.clone(), None), &names);
        assert_eq!(
            got,
            vec![
                ("A".to_string(), ClassCounts::new(6, 2, 1)),
                ("B".to_string(), ClassCounts::new(1, 0, 0)),
                (" C".to_string(), ClassCounts::new(0, 0, 0)),
            ]
        );
        let import = SuiteFailure::Import {
            exc_type: "SyntaxError".into(),
            message: "bad".into(),
            line: Some(3),
            traceback: None,
            origin: None,
        };
        let got = suite_class_counts(&suite(tests.clone(), Some(import)), &names);
        assert!(got.iter().all(|(_, c)| *c == ClassCounts::default()));
        // Timeout: B never finished → nothing recorded for B; A finished.
        let got = suite_class_counts(
            &suite(tests, Some(SuiteFailure::Timeout { limit_s: 5.0 })),
            &names,
        );
        assert_eq!(got[0].1, ClassCounts::new(6, 2, 1));
        assert_eq!(got[1].1, ClassCounts::default());
        assert_eq!(answer(got[1].1), Answer::Error);
    }

    #[test]
    fn a_test_reported_twice_is_one_run_two_errors() {
        use Outcome::*;
        let names = vec!["M".to_string()];
        // test error, then tearDown error: unittest's (1 run, 2 errors) → fail.
        let s = suite(
            vec![t("M.test_merge", Error), t("M.test_merge", Error)],
            None,
        );
        let got = suite_class_counts(&s, &names);
        assert_eq!(got[0].1, ClassCounts::new(1, 0, 2));
        assert_eq!(answer(got[0].1), Answer::Fail);
        // failure, then tearDown error: (1 run, 1 failure, 1 error) → error.
        let s = suite(
            vec![t("M.test_merge", Fail), t("M.test_merge", Error)],
            None,
        );
        assert_eq!(answer(suite_class_counts(&s, &names)[0].1), Answer::Error);
    }

    #[test]
    fn tampering_fails() {
        use Outcome::*;
        let names: Vec<String> = ["A", "B", "C"].iter().map(|s| s.to_string()).collect();
        let tests = vec![
            t("A.test_1", Pass),
            t("A.test_2", Tampered),
            t("B.test_1", Pass),
            t("B.test_2", NotRun),
        ];
        let tampered = || SuiteFailure::Tampered {
            detail: "result channel written by the code under test".into(),
        };
        // (suite failure, counts per class, answers, module counts)
        type Case = (
            Option<SuiteFailure>,
            [ClassCounts; 3],
            [Answer; 3],
            ClassCounts,
        );
        let cases: Vec<Case> = vec![
            (
                None,
                [
                    ClassCounts::new(2, 1, 0),
                    ClassCounts::new(1, 0, 0),
                    ClassCounts::default(),
                ],
                [Answer::PartialSuccess, Answer::Success, Answer::Error],
                ClassCounts::new(3, 1, 0),
            ),
            (
                Some(tampered()),
                [
                    ClassCounts::new(2, 2, 0),
                    ClassCounts::new(2, 2, 0),
                    // A class without a test result still fails.
                    ClassCounts::new(1, 1, 0),
                ],
                [Answer::Fail, Answer::Fail, Answer::Fail],
                ClassCounts::new(4, 4, 0),
            ),
        ];
        for (failure, counts, answers, module) in cases {
            let s = suite(tests.clone(), failure.clone());
            let got = suite_class_counts(&s, &names);
            let got_counts: Vec<ClassCounts> = got.iter().map(|(_, c)| *c).collect();
            assert_eq!(got_counts, counts, "{failure:?}");
            let got_answers: Vec<Answer> = got_counts.iter().map(|c| answer(*c)).collect();
            assert_eq!(got_answers, answers, "{failure:?}");
            assert_eq!(module_counts(&s), module, "{failure:?}");
        }
        // A tampered suite never counts as a success, even when every test said it passed.
        let all_pass = suite(vec![t("A.test_1", Pass)], Some(tampered()));
        assert_eq!(
            class_answer(
                suite_class_counts(&all_pass, &names[..1])
                    .iter()
                    .map(|(_, c)| answer(*c))
            ),
            ClassAnswer::ClassFail
        );
        assert_eq!(answer(module_counts(&all_pass)), Answer::Fail);
        // Nothing ran and no tampering: 0, 0, 0 as before.
        let died = suite(vec![t("m.test_x", NotRun)], Some(SuiteFailure::Memory));
        assert_eq!(module_counts(&died), ClassCounts::default());
    }
}
