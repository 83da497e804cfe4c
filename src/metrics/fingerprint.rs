//! Failure fingerprints (domain.md §5): the outcome spectrum per evaluated class and per
//! method, and the exception taxonomy of failing tests. Pure: no I/O, no panics on any input.
//!
//! # Outcome spectrum
//! One [`Bucket`] per class (or per method, judged on its test class's tests), decided in this
//! order by [`classify_tests`]:
//! 0. tampering: a suite the harness found tampered with ([`SuiteFailure::Tampered`]) or a
//!    suite with any [`Outcome::Tampered`] test has no verdict that stands, and the class is
//!    judged on the model: `RuntimeErr`, nothing passed (every judged test counts as failed),
//!    never `EnvErr` nor `Timeout`. Every method of such a class is `RuntimeErr` too (the
//!    whole run is untrustworthy, not just one test class). No bucket of its own: the
//!    spectrum's JSON keeps its ten keys; reports list tampered tasks apart (see
//!    [`tampering`]);
//! 1. the suite failed to import: `EnvErr` when the cause is the environment (see below),
//!    `SyntaxErr` for `SyntaxError`/`IndentationError`/`TabError`, `Timeout` for a timeout,
//!    else `RuntimeErr`;
//! 2. the suite was cut short and some of the judged tests never ran: `Timeout` after a
//!    time limit, `RuntimeErr` after a crash, the memory limit or a protocol violation;
//! 3. a failing test whose exception is environmental → `EnvErr` (the verdict would not be
//!    the model's); a failing test that timed out → `Timeout`;
//! 4. judged tests = all but skipped ones (a test expected but never heard of, in a suite that
//!    otherwise ended normally, is a failure); passed = `Pass` + `Xfail`; none judged → no
//!    bucket (`None`);
//! 5. nothing passed: `RuntimeErr` when every judged test errored with a non-assertion
//!    exception, else `LogicErr` (it ran and assertions were evaluated);
//! 6. otherwise by pass rate with [`Thresholds`]: `Fail` (< weak), `Weak` (< strong),
//!    `Strong` (< near_perfect), `NearPerf` (< 100 %), `Perfect` (all passed).
//!
//! # Environment errors ([`test_env_cause`], [`import_env_cause`])
//! `EnvErr` is decided from classlab's own evidence only, never from an exception object,
//! message, cause or traceback the code under test produced (it can `raise RuntimeError()
//! from ConnectionError("[Errno 101] Network is unreachable")`, or `exec` a `raise` so that
//! no frame of its own shows). Two kinds of evidence count:
//! * **the interpreter lacks a module the task needs**: `ModuleNotFoundError`/`ImportError`
//!   `No module named 'm'` where `m` is imported by the task's tests or reference
//!   ([`EnvContext::task_modules`]) **and** the evaluation interpreter was verified, outside
//!   the sandbox, to lack it ([`EnvContext::missing_modules`], `pipeline::envcheck`). A
//!   module only the model's code imports (`jwt`, `sklearn`), or one the interpreter has
//!   (`import numpy.typo`), is the model's, as the official evaluator counts it;
//! * **the reference fails the same test the same way here**: the task's reference solution,
//!   run in the same environment (interpreter, harness, limits; [`EnvContext::reference`],
//!   `pipeline::reference`), fails that test with the same exception type (an assertion
//!   failure counts as `AssertionError`), or could not import with that type. This covers
//!   missing nltk data, NumPy 2's removed `np.mat`, PyPDF2 3's renamed API, the network,
//!   and tests that depend on the date, the hostname or running as root — whatever breaks
//!   the reference here breaks it for every model, and nothing else does.
//!
//! The code under test can at most claim, for a test the reference itself fails here, the
//! failure honest code gets anyway. A test `Unjudged` by the split harness (an object the
//! protocol cannot carry) is the model's unless the reference is `Unjudged` on it too.
//! [`env_cause`] reads a cause off a *trusted* failure's type and message (the reference's,
//! in `validate`); it never decides a verdict on the code under test.
//!
//! # Exception taxonomy ([`exc_kind`])
//! The last dotted component of the exception type is mapped; well-known subclasses go to
//! their base where the base has a bucket: `ModuleNotFoundError` → `ImportError`;
//! `json.JSONDecodeError` and `Unicode*Error` → `ValueError` (they subclass it);
//! `UnboundLocalError` → `NameError`; `IndentationError`/`TabError` → `SyntaxError`;
//! `NotImplementedError` → `RuntimeError` (but `RecursionError` keeps its own bucket);
//! `decimal.DivisionByZero` → `ZeroDivisionError`; `Timeout`/`FunctionTimedOut`/
//! `TimeoutError`/`TimeoutExpired` → `Timeout`. Everything else (`OSError`, `OverflowError`,
//! `LookupError`, `StopIteration`, `sqlite3.*` …) → `Other`.
//! A failing test without an exception type is an `AssertionError` when it failed an
//! assertion, `Other` otherwise (a `Tampered` test without one: `Other`). Tests that never ran
//! because the module failed to import count once each with the import's exception (a
//! timeout: `Timeout`; a crash or tampering: `Other`). Failures are split model/environment by
//! the same rules as the spectrum; in a tampered suite every failure is the model's.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::{Outcome, SuiteFailure, SuiteResult, TestResult};

mod env;
pub use env::{
    EnvCause, EnvContext, ReferenceEvidence, env_cause, import_env_cause, test_env_cause,
    trusted_import_cause, trusted_test_cause,
};

/// The outcome spectrum's buckets; serde names as in domain.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Bucket {
    SyntaxErr,
    RuntimeErr,
    LogicErr,
    Fail,
    Weak,
    Strong,
    NearPerf,
    Perfect,
    Timeout,
    EnvErr,
}

impl Bucket {
    pub const ALL: [Bucket; 10] = [
        Bucket::SyntaxErr,
        Bucket::RuntimeErr,
        Bucket::LogicErr,
        Bucket::Fail,
        Bucket::Weak,
        Bucket::Strong,
        Bucket::NearPerf,
        Bucket::Perfect,
        Bucket::Timeout,
        Bucket::EnvErr,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Bucket::SyntaxErr => "SyntaxErr",
            Bucket::RuntimeErr => "RuntimeErr",
            Bucket::LogicErr => "LogicErr",
            Bucket::Fail => "Fail",
            Bucket::Weak => "Weak",
            Bucket::Strong => "Strong",
            Bucket::NearPerf => "NearPerf",
            Bucket::Perfect => "Perfect",
            Bucket::Timeout => "Timeout",
            Bucket::EnvErr => "EnvErr",
        }
    }

    /// Buckets that judge the model (everything but `Timeout` and `EnvErr`).
    pub fn is_model_verdict(self) -> bool {
        !matches!(self, Bucket::Timeout | Bucket::EnvErr)
    }
}

/// Pass-rate thresholds of the spectrum (fractions in 0..=1). Configuration, not constants.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Thresholds {
    /// `Weak` from this rate on (below: `Fail`). Default 0.20.
    pub weak: f64,
    /// `Strong` from this rate on. Default 0.60.
    pub strong: f64,
    /// `NearPerf` from this rate on, below 100 %. Default 0.98.
    pub near_perfect: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            weak: 0.20,
            strong: 0.60,
            near_perfect: 0.98,
        }
    }
}

impl Thresholds {
    /// The rate bucket for `passed` of `judged` tests (0 < passed ≤ judged); `None` when
    /// nothing passed or nothing was judged (those are `LogicErr`/`RuntimeErr` or no verdict,
    /// decided by [`classify_tests`]).
    pub fn rate_bucket(&self, passed: usize, judged: usize) -> Option<Bucket> {
        if passed == 0 || judged == 0 {
            return None;
        }
        if passed >= judged {
            return Some(Bucket::Perfect);
        }
        // Division is correctly rounded: 49/50 compares equal to the literal 0.98.
        let rate = passed as f64 / judged as f64;
        Some(if rate >= self.near_perfect {
            Bucket::NearPerf
        } else if rate >= self.strong {
            Bucket::Strong
        } else if rate >= self.weak {
            Bucket::Weak
        } else {
            Bucket::Fail
        })
    }
}

/// The exception taxonomy of failing tests; serde names as in domain.md
/// (`ImportError` covers `ModuleNotFoundError`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ExcKind {
    AttributeError,
    TypeError,
    AssertionError,
    ValueError,
    NameError,
    KeyError,
    IndexError,
    ZeroDivisionError,
    FileNotFoundError,
    ImportError,
    RuntimeError,
    SyntaxError,
    RecursionError,
    Timeout,
    Other,
}

impl ExcKind {
    pub const ALL: [ExcKind; 15] = [
        ExcKind::AttributeError,
        ExcKind::TypeError,
        ExcKind::AssertionError,
        ExcKind::ValueError,
        ExcKind::NameError,
        ExcKind::KeyError,
        ExcKind::IndexError,
        ExcKind::ZeroDivisionError,
        ExcKind::FileNotFoundError,
        ExcKind::ImportError,
        ExcKind::RuntimeError,
        ExcKind::SyntaxError,
        ExcKind::RecursionError,
        ExcKind::Timeout,
        ExcKind::Other,
    ];
}

/// The last dotted component of an exception type name (`json.decoder.JSONDecodeError` →
/// `JSONDecodeError`), trimmed.
fn short_name(exc_type: &str) -> &str {
    let t = exc_type.trim();
    t.rsplit('.').next().unwrap_or(t).trim()
}

/// The taxonomy bucket of an exception type name (see the module documentation).
pub fn exc_kind(exc_type: &str) -> ExcKind {
    match short_name(exc_type) {
        "AttributeError" => ExcKind::AttributeError,
        "TypeError" => ExcKind::TypeError,
        "AssertionError" => ExcKind::AssertionError,
        "ValueError"
        | "JSONDecodeError"
        | "UnicodeError"
        | "UnicodeDecodeError"
        | "UnicodeEncodeError"
        | "UnicodeTranslateError" => ExcKind::ValueError,
        "NameError" | "UnboundLocalError" => ExcKind::NameError,
        "KeyError" => ExcKind::KeyError,
        "IndexError" => ExcKind::IndexError,
        "ZeroDivisionError" | "DivisionByZero" | "DivisionUndefined" => ExcKind::ZeroDivisionError,
        "FileNotFoundError" => ExcKind::FileNotFoundError,
        "ImportError" | "ModuleNotFoundError" => ExcKind::ImportError,
        "RuntimeError" | "NotImplementedError" => ExcKind::RuntimeError,
        "SyntaxError" | "IndentationError" | "TabError" => ExcKind::SyntaxError,
        "RecursionError" => ExcKind::RecursionError,
        "Timeout" | "FunctionTimedOut" | "TimeoutError" | "TimeoutExpired" => ExcKind::Timeout,
        _ => ExcKind::Other,
    }
}

/// What the harness found tampered with in one suite: the suite's own detail, then each
/// tampered test (`id: message`). Empty when nothing was.
pub fn tampering(suite: &SuiteResult) -> Vec<String> {
    // The suite's own account says it all; otherwise the tests', a few of them.
    if let Some(SuiteFailure::Tampered { detail }) = &suite.failure {
        return vec![detail.clone()];
    }
    let tampered: Vec<&TestResult> = suite
        .tests
        .iter()
        .filter(|t| t.outcome == Outcome::Tampered)
        .collect();
    let mut out: Vec<String> = tampered
        .iter()
        .take(3)
        .map(|t| match t.message.as_deref().map(str::trim) {
            Some(m) if !m.is_empty() => format!("{}: {m}", t.id),
            _ => format!("{}: verdict tampered with", t.id),
        })
        .collect();
    if tampered.len() > 3 {
        out.push(format!("and {} more tests", tampered.len() - 3));
    }
    out
}

/// Whether the suite, or any of its tests, was tampered with.
pub fn is_tampered(suite: &SuiteResult) -> bool {
    matches!(suite.failure, Some(SuiteFailure::Tampered { .. }))
        || suite.tests.iter().any(|t| t.outcome == Outcome::Tampered)
}

/// The verdict for one class or method.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Classified {
    /// `None` when there was nothing to judge (no tests, all skipped).
    pub bucket: Option<Bucket>,
    pub passed: usize,
    /// Tests judged (skipped ones excluded).
    pub judged: usize,
    /// Set when the bucket is `EnvErr`.
    pub env_cause: Option<EnvCause>,
}

impl Classified {
    fn bucket(bucket: Bucket) -> Self {
        Classified {
            bucket: Some(bucket),
            passed: 0,
            judged: 0,
            env_cause: None,
        }
    }
}

fn is_failing(outcome: Outcome) -> bool {
    matches!(
        outcome,
        Outcome::Fail | Outcome::Error | Outcome::Xpass | Outcome::Tampered
    )
}

/// A test's exception type for the taxonomy (assertion failures without a type count as
/// `AssertionError`).
fn test_exc_kind(t: &TestResult) -> ExcKind {
    match (&t.exc_type, t.outcome) {
        (Some(e), _) if !e.trim().is_empty() => exc_kind(e),
        (_, Outcome::Fail) => ExcKind::AssertionError,
        _ => ExcKind::Other,
    }
}

fn import_bucket(failure: &SuiteFailure, exc_type: &str, ctx: &EnvContext) -> Classified {
    if let Some(cause) = import_env_cause(failure, ctx) {
        return Classified {
            env_cause: Some(cause),
            ..Classified::bucket(Bucket::EnvErr)
        };
    }
    Classified::bucket(match exc_kind(exc_type) {
        ExcKind::SyntaxError => Bucket::SyntaxErr,
        ExcKind::Timeout => Bucket::Timeout,
        _ => Bucket::RuntimeErr,
    })
}

/// Classify a set of tests (a whole suite, or one method's test class) given how the suite
/// ended. See the module documentation for the rules.
pub fn classify_tests(
    tests: &[&TestResult],
    failure: Option<&SuiteFailure>,
    ctx: &EnvContext,
    thresholds: &Thresholds,
) -> Classified {
    if matches!(failure, Some(SuiteFailure::Tampered { .. }))
        || tests.iter().any(|t| t.outcome == Outcome::Tampered)
    {
        return tampered_verdict(tests);
    }
    let unfinished = tests.is_empty() || tests.iter().any(|t| t.outcome == Outcome::NotRun);
    // A suite cut short still ran some tests: its verdict counts them (`15/21 tests`, not
    // `0/0` when the last test class timed out).
    let ran = |bucket: Bucket| {
        let (passed, judged) = tests_that_ran(tests);
        Classified {
            passed,
            judged,
            ..Classified::bucket(bucket)
        }
    };
    match failure {
        Some(f @ SuiteFailure::Import { exc_type, .. }) => return import_bucket(f, exc_type, ctx),
        Some(SuiteFailure::Timeout { .. }) if unfinished => return ran(Bucket::Timeout),
        Some(
            SuiteFailure::Memory | SuiteFailure::Crashed { .. } | SuiteFailure::Protocol { .. },
        ) if unfinished => {
            return ran(Bucket::RuntimeErr);
        }
        _ => {}
    }
    let failing: Vec<&&TestResult> = tests.iter().filter(|t| is_failing(t.outcome)).collect();
    if let Some(cause) = failing.iter().find_map(|t| test_env_cause(t, ctx)) {
        return Classified {
            env_cause: Some(cause),
            ..ran(Bucket::EnvErr)
        };
    }
    if failing.iter().any(|t| test_exc_kind(t) == ExcKind::Timeout) {
        return ran(Bucket::Timeout);
    }
    let judged: Vec<&&TestResult> = tests
        .iter()
        .filter(|t| t.outcome != Outcome::Skip)
        .collect();
    let passed = judged
        .iter()
        .filter(|t| matches!(t.outcome, Outcome::Pass | Outcome::Xfail))
        .count();
    let bucket = if judged.is_empty() {
        None
    } else if passed == 0 {
        let all_errors = judged.iter().all(|t| {
            matches!(t.outcome, Outcome::Error | Outcome::NotRun)
                && test_exc_kind(t) != ExcKind::AssertionError
        });
        Some(if all_errors {
            Bucket::RuntimeErr
        } else {
            Bucket::LogicErr
        })
    } else {
        thresholds.rate_bucket(passed, judged.len())
    };
    Classified {
        bucket,
        passed,
        judged: judged.len(),
        env_cause: None,
    }
}

/// (passed, judged) over the tests that ran to a verdict: neither skipped nor cut off
/// before they ran; a test that timed out ran (and failed).
fn tests_that_ran(tests: &[&TestResult]) -> (usize, usize) {
    let judged = tests
        .iter()
        .filter(|t| !matches!(t.outcome, Outcome::Skip | Outcome::NotRun))
        .count();
    let passed = tests
        .iter()
        .filter(|t| matches!(t.outcome, Outcome::Pass | Outcome::Xfail))
        .count();
    (passed, judged)
}

/// The verdict on tampered tests: the model's, nothing passed.
fn tampered_verdict(tests: &[&TestResult]) -> Classified {
    Classified {
        judged: tests.iter().filter(|t| t.outcome != Outcome::Skip).count(),
        ..Classified::bucket(Bucket::RuntimeErr)
    }
}

/// Classify a whole evaluated class.
pub fn classify_suite(
    suite: &SuiteResult,
    ctx: &EnvContext,
    thresholds: &Thresholds,
) -> Classified {
    let tests: Vec<&TestResult> = suite.tests.iter().collect();
    classify_tests(&tests, suite.failure.as_ref(), ctx, thresholds)
}

/// Classify each method on its test class's tests. `methods` maps method → test class (as
/// the task lists them); a method's tests are those whose id has that class prefix.
pub fn classify_methods(
    suite: &SuiteResult,
    methods: &[(String, String)],
    ctx: &EnvContext,
    thresholds: &Thresholds,
) -> Vec<(String, Classified)> {
    // A tampered test anywhere leaves no verdict of the suite standing, for any method.
    let tampered = is_tampered(suite);
    methods
        .iter()
        .map(|(method, class)| {
            let tests: Vec<&TestResult> = suite
                .tests
                .iter()
                .filter(|t| t.test_class() == Some(class.as_str()))
                .collect();
            let verdict = if tampered {
                tampered_verdict(&tests)
            } else {
                classify_tests(&tests, suite.failure.as_ref(), ctx, thresholds)
            };
            (method.clone(), verdict)
        })
        .collect()
}

/// Counts per bucket. Serialises as a plain `{bucket: count}` map listing every bucket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Spectrum {
    pub counts: BTreeMap<Bucket, usize>,
}

impl Default for Spectrum {
    fn default() -> Self {
        Spectrum {
            counts: Bucket::ALL.iter().map(|b| (*b, 0)).collect(),
        }
    }
}

impl Spectrum {
    pub fn add(&mut self, bucket: Bucket) {
        let n = self.counts.entry(bucket).or_insert(0);
        *n = n.saturating_add(1);
    }

    pub fn get(&self, bucket: Bucket) -> usize {
        self.counts.get(&bucket).copied().unwrap_or(0)
    }

    pub fn total(&self) -> usize {
        self.counts
            .values()
            .fold(0usize, |a, b| a.saturating_add(*b))
    }

    /// Classes judged on the model (`Timeout` and `EnvErr` left out).
    pub fn model_total(&self) -> usize {
        self.counts
            .iter()
            .filter(|(b, _)| b.is_model_verdict())
            .fold(0usize, |a, (_, n)| a.saturating_add(*n))
    }

    pub fn merge(&mut self, other: &Spectrum) {
        for (b, n) in &other.counts {
            let e = self.counts.entry(*b).or_insert(0);
            *e = e.saturating_add(*n);
        }
    }
}

impl FromIterator<Bucket> for Spectrum {
    fn from_iter<T: IntoIterator<Item = Bucket>>(iter: T) -> Self {
        let mut s = Spectrum::default();
        for b in iter {
            s.add(b);
        }
        s
    }
}

/// Counts per exception kind over failing tests. Serialises as a plain `{kind: count}` map
/// (only kinds seen).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ExceptionHistogram {
    pub counts: BTreeMap<ExcKind, usize>,
}

impl ExceptionHistogram {
    pub fn add(&mut self, kind: ExcKind) {
        self.add_n(kind, 1);
    }

    pub fn add_n(&mut self, kind: ExcKind, n: usize) {
        if n > 0 {
            let e = self.counts.entry(kind).or_insert(0);
            *e = e.saturating_add(n);
        }
    }

    pub fn get(&self, kind: ExcKind) -> usize {
        self.counts.get(&kind).copied().unwrap_or(0)
    }

    pub fn total(&self) -> usize {
        self.counts
            .values()
            .fold(0usize, |a, b| a.saturating_add(*b))
    }

    pub fn merge(&mut self, other: &ExceptionHistogram) {
        for (k, n) in &other.counts {
            self.add_n(*k, *n);
        }
    }
}

/// The failing tests of one suite by exception kind, the model's and the environment's apart.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SuiteExceptions {
    pub model: ExceptionHistogram,
    pub env: ExceptionHistogram,
}

/// Exception kinds of the failing tests of one suite (see the module documentation for
/// tests that never ran).
pub fn suite_exceptions(suite: &SuiteResult, ctx: &EnvContext) -> SuiteExceptions {
    let mut out = SuiteExceptions::default();
    let not_run = suite
        .tests
        .iter()
        .filter(|t| t.outcome == Outcome::NotRun)
        .count();
    // In a tampered suite no failure is the environment's.
    let tampered = is_tampered(suite);
    for t in suite.tests.iter().filter(|t| is_failing(t.outcome)) {
        let kind = test_exc_kind(t);
        if !tampered && test_env_cause(t, ctx).is_some() {
            out.env.add(kind);
        } else {
            out.model.add(kind);
        }
    }
    match &suite.failure {
        Some(f @ SuiteFailure::Import { exc_type, .. }) => {
            // An import failure with no expected tests still counts once.
            let n = not_run.max(1);
            let kind = exc_kind(exc_type);
            if !tampered && import_env_cause(f, ctx).is_some() {
                out.env.add_n(kind, n);
            } else {
                out.model.add_n(kind, n);
            }
        }
        Some(SuiteFailure::Timeout { .. }) => out.model.add_n(ExcKind::Timeout, not_run),
        Some(_) | None => out.model.add_n(ExcKind::Other, not_run),
    }
    out
}

/// A run's fingerprint: spectrum of classes, and the exception histograms.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Fingerprint {
    pub spectrum: Spectrum,
    /// Failing tests attributed to the model.
    pub exceptions: ExceptionHistogram,
    /// Failing tests attributed to the environment (kept apart).
    pub env_exceptions: ExceptionHistogram,
    /// Classes with nothing to judge.
    pub unclassified: usize,
}

impl Fingerprint {
    /// Add one evaluated class; returns its verdict.
    pub fn add_suite(
        &mut self,
        suite: &SuiteResult,
        ctx: &EnvContext,
        thresholds: &Thresholds,
    ) -> Classified {
        let c = classify_suite(suite, ctx, thresholds);
        match c.bucket {
            Some(b) => self.spectrum.add(b),
            None => self.unclassified = self.unclassified.saturating_add(1),
        }
        let ex = suite_exceptions(suite, ctx);
        self.exceptions.merge(&ex.model);
        self.env_exceptions.merge(&ex.env);
        c
    }
}

#[cfg(test)]
mod tests;
