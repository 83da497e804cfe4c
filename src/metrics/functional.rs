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
//! `evaluate` raises a KeyError); a rate over nothing (no task, no test class) is `None` —
//! `n/a`, JSON `null` — never 0, where the official code would raise a ZeroDivisionError; a test class named twice in one sample counts once, the last entry
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

/// ClassEval's four headline metrics, with the counts behind them. A rate over zero items
/// (no test class, no task) is `None`: there is nothing it measures (`n/a`, JSON `null`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionalMetrics {
    pub fun_success: Option<f64>,
    pub fun_partial_success: Option<f64>,
    pub class_success: Option<f64>,
    pub class_partial_success: Option<f64>,
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
    /// Nothing counted yet, for pass@`k`: every count and sum zero, no rate.
    pub(crate) fn zero(k: usize) -> Self {
        FunctionalMetrics {
            fun_success: None,
            fun_partial_success: None,
            class_success: None,
            class_partial_success: None,
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
    /// ones over the tasks (`None` when there are none).
    pub(crate) fn set_rates_from_sums(&mut self) {
        let rate = |sum: f64, count: usize| (count > 0).then(|| sum / count as f64);
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
mod tests;
