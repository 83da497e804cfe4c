//! Failure fingerprints (domain.md §5): the outcome spectrum per evaluated class and per
//! method, and the exception taxonomy of failing tests. Pure: no I/O, no panics on any input.
//!
//! # Outcome spectrum
//! One [`Bucket`] per class (or per method, judged on its test class's tests), decided in this
//! order by [`classify_tests`]:
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
//! # Environment errors ([`env_cause`])
//! * `ModuleNotFoundError`/`ImportError` naming a module the **task** needs (imported by its
//!   tests or its reference `import_statement`, [`EnvContext::task_modules`]); a module only
//!   the model's code imports (`jwt`, `sklearn`) is the model's fault, as the official
//!   evaluator counts it. `cannot import name 'X' from 'm'` counts by `m` (an API change of an
//!   installed task package, like PyPDF2 3, is the environment's).
//! * nltk's `LookupError` for missing data (`Resource … not found`).
//! * Network: `URLError`, `ConnectionError` and its subclasses, `socket.gaierror`/`herror`,
//!   `RemoteDisconnected`, urllib3/requests connection errors, and any `OSError` whose message
//!   says the network or name resolution is unavailable.
//! * `FileNotFoundError` for a file listed in [`EnvContext::data_files`] (data files the
//!   tests expect to exist; the caller knows them).
//! * An API a task module removed (`… was removed in the NumPy 2.0 release`, `PdfFileReader
//!   is deprecated and was removed in PyPDF2 3.0.0`): whatever code called it was written for
//!   the benchmark's versions.
//! * nltk's `LookupError` is recognised by its message, or by the task importing nltk (a
//!   harness keeping only the first message line sees a row of asterisks).
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
//! assertion, `Other` otherwise. Tests that never ran because the module failed to import
//! count once each with the import's exception (a timeout: `Timeout`; a crash: `Other`).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::model::{Outcome, SuiteFailure, SuiteResult, TestResult};

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

/// What the environment provides for one task, to tell its failures from the model's.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct EnvContext {
    /// Top-level module names the task needs: imported by its tests or by its reference
    /// `import_statement` (see [`EnvContext::from_sources`]).
    pub task_modules: BTreeSet<String>,
    /// Data files the tests expect to exist (file names or paths; matched by file name).
    pub data_files: BTreeSet<String>,
}

impl EnvContext {
    /// Task modules from import lines and source texts (the task's `import_statement`
    /// entries and its test module): every `import a.b, c as d` and `from a.b import x`
    /// line, at any indentation, contributes its top-level names (`a`, `c`); relative
    /// imports contribute nothing.
    pub fn from_sources<'a, I: IntoIterator<Item = &'a str>>(sources: I) -> EnvContext {
        let mut task_modules = BTreeSet::new();
        for src in sources {
            for line in src.lines() {
                task_modules.extend(imported_modules(line));
            }
        }
        EnvContext {
            task_modules,
            data_files: BTreeSet::new(),
        }
    }

    /// The same context with these data files added.
    pub fn with_data_files<I: IntoIterator<Item = S>, S: Into<String>>(mut self, files: I) -> Self {
        self.data_files.extend(files.into_iter().map(Into::into));
        self
    }
}

fn top_module(dotted: &str) -> Option<String> {
    let name = dotted.trim().split('.').next()?.trim();
    (!name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .then(|| name.to_string())
}

/// Top-level modules one line imports.
fn imported_modules(line: &str) -> Vec<String> {
    let line = line.split('#').next().unwrap_or("").trim();
    if let Some(rest) = line.strip_prefix("import ") {
        rest.split(',')
            .filter_map(|part| top_module(part.split(" as ").next().unwrap_or("")))
            .collect()
    } else if let Some(rest) = line.strip_prefix("from ") {
        let module = rest.split(" import").next().unwrap_or("");
        if module.trim_start().starts_with('.') {
            return vec![];
        }
        top_module(module).into_iter().collect()
    } else {
        vec![]
    }
}

/// Why a failure is the environment's rather than the model's.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", content = "name", rename_all = "snake_case")]
pub enum EnvCause {
    /// A module the task needs is missing (or lacks a name the task imports).
    MissingModule(String),
    /// Data the task needs is missing (an nltk resource, an expected data file).
    MissingData(String),
    /// The network (or name resolution) is unavailable.
    Network,
    /// An installed task module lacks an API the task's code was written for (removed in a
    /// newer version than the benchmark's).
    IncompatibleVersion(String),
}

/// The first single-quoted name in a message (`No module named 'x.y'` → `x.y`).
fn quoted(message: &str) -> Option<&str> {
    let start = message.find('\'')? + 1;
    let len = message[start..].find('\'')?;
    Some(&message[start..start + len])
}

fn missing_module_name(message: &str) -> Option<String> {
    if let Some(rest) = message.split("No module named").nth(1) {
        let name = quoted(rest).unwrap_or_else(|| rest.split_whitespace().next().unwrap_or(""));
        return top_module(name);
    }
    if message.contains("cannot import name")
        && let Some(rest) = message.split(" from ").nth(1)
    {
        return quoted(rest).and_then(top_module);
    }
    None
}

const NETWORK_EXCEPTIONS: [&str; 11] = [
    "URLError",
    "ConnectionError",
    "ConnectionRefusedError",
    "ConnectionResetError",
    "ConnectionAbortedError",
    "gaierror",
    "herror",
    "RemoteDisconnected",
    "NewConnectionError",
    "MaxRetryError",
    "NameResolutionError",
];

const NETWORK_MESSAGES: [&str; 6] = [
    "Network is unreachable",
    "Name or service not known",
    "Temporary failure in name resolution",
    "nodename nor servname",
    "No address associated with hostname",
    "getaddrinfo failed",
];

/// A message saying an API "was removed in" a version of a task module (NumPy 2's `np.mat`,
/// PyPDF2 3's `PdfFileReader`): the module whose name it mentions (case-insensitively).
fn removed_api_module(message: &str, ctx: &EnvContext) -> Option<String> {
    let lower = message.to_lowercase();
    if !(lower.contains("was removed in") || lower.contains("has been removed in")) {
        return None;
    }
    ctx.task_modules
        .iter()
        .find(|m| m.len() > 1 && lower.contains(&m.to_lowercase()))
        .cloned()
}

/// Whether an exception (type name and message) is the environment's fault for this task.
pub fn env_cause(exc_type: &str, message: &str, ctx: &EnvContext) -> Option<EnvCause> {
    let short = short_name(exc_type);
    match short {
        "ModuleNotFoundError" | "ImportError" => {
            let module = missing_module_name(message)?;
            return ctx
                .task_modules
                .contains(&module)
                .then_some(EnvCause::MissingModule(module));
        }
        // nltk's message starts with a line of asterisks; a harness that keeps only the
        // first line loses the "Resource … not found" part, so an nltk task suffices.
        "LookupError"
            if message.contains("nltk")
                || message.contains("Resource")
                || ctx.task_modules.contains("nltk") =>
        {
            let resource = quoted(message).unwrap_or("nltk data").to_string();
            return Some(EnvCause::MissingData(resource));
        }
        "FileNotFoundError" => {
            let path = message
                .rsplit(": ")
                .next()
                .map(|p| p.trim().trim_matches(['\'', '"']))
                .unwrap_or("");
            let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
            let expected = ctx.data_files.iter().any(|d| {
                let d_file = d.rsplit(['/', '\\']).next().unwrap_or(d);
                !file.is_empty() && (d == path || d_file == file)
            });
            return expected.then(|| EnvCause::MissingData(path.to_string()));
        }
        _ => {}
    }
    if let Some(module) = removed_api_module(message, ctx) {
        return Some(EnvCause::IncompatibleVersion(module));
    }
    if NETWORK_EXCEPTIONS.contains(&short) || NETWORK_MESSAGES.iter().any(|m| message.contains(m)) {
        return Some(EnvCause::Network);
    }
    None
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
    matches!(outcome, Outcome::Fail | Outcome::Error | Outcome::Xpass)
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

fn import_bucket(exc_type: &str, message: &str, ctx: &EnvContext) -> Classified {
    if let Some(cause) = env_cause(exc_type, message, ctx) {
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
    let unfinished = tests.is_empty() || tests.iter().any(|t| t.outcome == Outcome::NotRun);
    match failure {
        Some(SuiteFailure::Import {
            exc_type, message, ..
        }) => return import_bucket(exc_type, message, ctx),
        Some(SuiteFailure::Timeout { .. }) if unfinished => {
            return Classified::bucket(Bucket::Timeout);
        }
        Some(
            SuiteFailure::Memory | SuiteFailure::Crashed { .. } | SuiteFailure::Protocol { .. },
        ) if unfinished => {
            return Classified::bucket(Bucket::RuntimeErr);
        }
        _ => {}
    }
    let failing: Vec<&&TestResult> = tests.iter().filter(|t| is_failing(t.outcome)).collect();
    if let Some(cause) = failing.iter().find_map(|t| {
        env_cause(
            t.exc_type.as_deref().unwrap_or(""),
            t.message.as_deref().unwrap_or(""),
            ctx,
        )
    }) {
        return Classified {
            env_cause: Some(cause),
            ..Classified::bucket(Bucket::EnvErr)
        };
    }
    if failing.iter().any(|t| test_exc_kind(t) == ExcKind::Timeout) {
        return Classified::bucket(Bucket::Timeout);
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
    methods
        .iter()
        .map(|(method, class)| {
            let tests: Vec<&TestResult> = suite
                .tests
                .iter()
                .filter(|t| t.test_class() == Some(class.as_str()))
                .collect();
            (
                method.clone(),
                classify_tests(&tests, suite.failure.as_ref(), ctx, thresholds),
            )
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
    for t in suite.tests.iter().filter(|t| is_failing(t.outcome)) {
        let kind = test_exc_kind(t);
        let env = env_cause(
            t.exc_type.as_deref().unwrap_or(""),
            t.message.as_deref().unwrap_or(""),
            ctx,
        );
        if env.is_some() {
            out.env.add(kind);
        } else {
            out.model.add(kind);
        }
    }
    match &suite.failure {
        Some(SuiteFailure::Import {
            exc_type, message, ..
        }) => {
            // An import failure with no expected tests still counts once.
            let n = not_run.max(1);
            let kind = exc_kind(exc_type);
            if env_cause(exc_type, message, ctx).is_some() {
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
mod tests {
    use super::*;

    fn t(id: &str, outcome: Outcome, exc: Option<&str>, msg: &str) -> TestResult {
        TestResult {
            id: id.into(),
            outcome,
            exc_type: exc.map(String::from),
            message: (!msg.is_empty()).then(|| msg.to_string()),
            traceback: None,
            code_line: None,
            duration_s: 0.0,
            origin: None,
        }
    }

    fn suite(tests: Vec<TestResult>, failure: Option<SuiteFailure>) -> SuiteResult {
        SuiteResult::new(tests, failure)
    }

    fn import(exc: &str, msg: &str) -> SuiteFailure {
        SuiteFailure::Import {
            exc_type: exc.into(),
            message: msg.into(),
            line: None,
            traceback: None,
            origin: None,
        }
    }

    /// `passed` passes and `failed` assertion failures.
    fn rate_suite(passed: usize, failed: usize) -> SuiteResult {
        let mut tests = Vec::new();
        for i in 0..passed {
            tests.push(t(&format!("T.test_p{i}"), Outcome::Pass, None, ""));
        }
        for i in 0..failed {
            tests.push(t(
                &format!("T.test_f{i}"),
                Outcome::Fail,
                Some("AssertionError"),
                "",
            ));
        }
        suite(tests, None)
    }

    fn ctx() -> EnvContext {
        EnvContext::from_sources([
            "import numpy as np\nfrom nltk.stem import WordNetLemmatizer",
            "import unittest, os.path\n    from .local import x\nfrom PyPDF2 import PdfFileReader",
        ])
        .with_data_files(["data/input.xlsx"])
    }

    #[test]
    fn task_modules_from_sources() {
        let c = ctx();
        let want: BTreeSet<String> = ["PyPDF2", "nltk", "numpy", "os", "unittest"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(c.task_modules, want);
    }

    #[test]
    fn rate_bucket_boundaries() {
        let th = Thresholds::default();
        // (passed, failed) → bucket; rates 19.99 %, 20 %, 59.99 %, 60 %, 97.99 %, 98 %, 99.99 %, 100 %.
        let cases: &[((usize, usize), Option<Bucket>)] = &[
            ((1, 9999), Some(Bucket::Fail)),
            ((1999, 8001), Some(Bucket::Fail)),  // 19.99 %
            ((1, 4), Some(Bucket::Weak)),        // 20 %
            ((2000, 8000), Some(Bucket::Weak)),  // 20.00 %
            ((5999, 4001), Some(Bucket::Weak)),  // 59.99 %
            ((3, 2), Some(Bucket::Strong)),      // 60 %
            ((9799, 201), Some(Bucket::Strong)), // 97.99 %
            ((49, 1), Some(Bucket::NearPerf)),   // 98 %
            ((9999, 1), Some(Bucket::NearPerf)), // 99.99 %
            ((5, 0), Some(Bucket::Perfect)),     // 100 %
            ((0, 5), Some(Bucket::LogicErr)),    // 0 %, assertions
        ];
        for ((p, f), want) in cases {
            let got = classify_suite(&rate_suite(*p, *f), &EnvContext::default(), &th);
            assert_eq!(got.bucket, *want, "{p} passed, {f} failed");
            assert_eq!((got.passed, got.judged), (*p, p + f));
        }
        // Thresholds are configuration.
        let strict = Thresholds {
            weak: 0.5,
            strong: 0.9,
            near_perfect: 0.99,
        };
        assert_eq!(strict.rate_bucket(2, 5), Some(Bucket::Fail));
        assert_eq!(strict.rate_bucket(3, 5), Some(Bucket::Weak));
        assert_eq!(strict.rate_bucket(98, 100), Some(Bucket::Strong));
        assert_eq!(th.rate_bucket(0, 5), None);
        assert_eq!(th.rate_bucket(1, 0), None);
        let nan = Thresholds {
            weak: f64::NAN,
            strong: f64::NAN,
            near_perfect: f64::NAN,
        };
        assert_eq!(nan.rate_bucket(1, 2), Some(Bucket::Fail));
        // Serde: missing fields take defaults.
        let parsed: Thresholds = serde_json::from_str(r#"{"weak": 0.25}"#).unwrap();
        assert_eq!(parsed.weak, 0.25);
        assert_eq!(parsed.near_perfect, 0.98);
    }

    #[test]
    fn class_buckets() {
        use Outcome::*;
        let th = Thresholds::default();
        let c = ctx();
        let cases: Vec<(&str, SuiteResult, Option<Bucket>)> = vec![
            (
                "syntax error at import",
                suite(
                    vec![t("T.a", NotRun, None, "")],
                    Some(import("IndentationError", "unexpected indent")),
                ),
                Some(Bucket::SyntaxErr),
            ),
            (
                "model-only module missing (jwt) is the model's",
                suite(
                    vec![t("T.a", NotRun, None, "")],
                    Some(import("ModuleNotFoundError", "No module named 'jwt'")),
                ),
                Some(Bucket::RuntimeErr),
            ),
            (
                "task module missing is the environment's",
                suite(
                    vec![t("T.a", NotRun, None, "")],
                    Some(import(
                        "ModuleNotFoundError",
                        "No module named 'numpy.linalg'",
                    )),
                ),
                Some(Bucket::EnvErr),
            ),
            (
                "API change of a task package",
                suite(
                    vec![],
                    Some(import(
                        "ImportError",
                        "cannot import name 'PdfFileReader' from 'PyPDF2' (/x/__init__.py)",
                    )),
                ),
                Some(Bucket::EnvErr),
            ),
            (
                "other import-time exception",
                suite(vec![], Some(import("NameError", "name 'x' is not defined"))),
                Some(Bucket::RuntimeErr),
            ),
            (
                "every test errors with non-assertion exceptions",
                suite(
                    vec![
                        t("T.a", Error, Some("AttributeError"), ""),
                        t("T.b", Error, Some("TypeError"), ""),
                    ],
                    None,
                ),
                Some(Bucket::RuntimeErr),
            ),
            (
                "no pass, mixed errors and assertion failures",
                suite(
                    vec![
                        t("T.a", Error, Some("TypeError"), ""),
                        t("T.b", Fail, Some("AssertionError"), ""),
                    ],
                    None,
                ),
                Some(Bucket::LogicErr),
            ),
            (
                "an error typed AssertionError counts as an assertion",
                suite(vec![t("T.a", Error, Some("AssertionError"), "")], None),
                Some(Bucket::LogicErr),
            ),
            (
                "nltk data missing",
                suite(
                    vec![
                        t("T.a", Pass, None, ""),
                        t(
                            "T.b",
                            Error,
                            Some("LookupError"),
                            "Resource 'wordnet' not found.",
                        ),
                    ],
                    None,
                ),
                Some(Bucket::EnvErr),
            ),
            (
                "network",
                suite(
                    vec![t(
                        "T.a",
                        Error,
                        Some("urllib.error.URLError"),
                        "<urlopen error>",
                    )],
                    None,
                ),
                Some(Bucket::EnvErr),
            ),
            (
                "name resolution through OSError",
                suite(
                    vec![t(
                        "T.a",
                        Error,
                        Some("OSError"),
                        "[Errno -3] Temporary failure in name resolution",
                    )],
                    None,
                ),
                Some(Bucket::EnvErr),
            ),
            (
                "expected data file missing",
                suite(
                    vec![t(
                        "T.a",
                        Error,
                        Some("FileNotFoundError"),
                        "[Errno 2] No such file or directory: '/tmp/x/input.xlsx'",
                    )],
                    None,
                ),
                Some(Bucket::EnvErr),
            ),
            (
                "a file the model invented is the model's",
                suite(
                    vec![t(
                        "T.a",
                        Error,
                        Some("FileNotFoundError"),
                        "[Errno 2] No such file or directory: 'other.txt'",
                    )],
                    None,
                ),
                Some(Bucket::RuntimeErr),
            ),
            (
                "suite timeout with unfinished tests",
                suite(
                    vec![t("T.a", Pass, None, ""), t("T.b", NotRun, None, "")],
                    Some(SuiteFailure::Timeout { limit_s: 5.0 }),
                ),
                Some(Bucket::Timeout),
            ),
            (
                "a test timed out",
                suite(
                    vec![
                        t("T.a", Pass, None, ""),
                        t("T.b", Error, Some("Timeout"), ""),
                    ],
                    None,
                ),
                Some(Bucket::Timeout),
            ),
            (
                "crash with unfinished tests",
                suite(
                    vec![t("T.a", NotRun, None, "")],
                    Some(SuiteFailure::Crashed {
                        signal: Some(11),
                        exit_code: None,
                        detail: "SIGSEGV".into(),
                    }),
                ),
                Some(Bucket::RuntimeErr),
            ),
            (
                "lost test (no suite failure) counts as failed",
                suite(
                    vec![t("T.a", Pass, None, ""), t("T.b", NotRun, None, "")],
                    None,
                ),
                Some(Bucket::Weak),
            ),
            (
                "skips are not judged",
                suite(
                    vec![t("T.a", Pass, None, ""), t("T.b", Skip, None, "")],
                    None,
                ),
                Some(Bucket::Perfect),
            ),
            (
                "xfail passes, xpass fails",
                suite(
                    vec![t("T.a", Xfail, None, ""), t("T.b", Xpass, None, "")],
                    None,
                ),
                Some(Bucket::Weak),
            ),
            (
                "nothing to judge",
                suite(vec![t("T.a", Skip, None, "")], None),
                None,
            ),
            ("no tests at all", suite(vec![], None), None),
        ];
        for (name, s, want) in cases {
            assert_eq!(classify_suite(&s, &c, &th).bucket, want, "{name}");
        }
    }

    #[test]
    fn env_vs_model_import_errors() {
        let c = ctx();
        let cases: &[(&str, &str, Option<EnvCause>)] = &[
            ("ModuleNotFoundError", "No module named 'jwt'", None),
            (
                "ModuleNotFoundError",
                "No module named 'sklearn.metrics'",
                None,
            ),
            (
                "ModuleNotFoundError",
                "No module named 'nltk'",
                Some(EnvCause::MissingModule("nltk".into())),
            ),
            (
                "ImportError",
                "No module named numpy",
                Some(EnvCause::MissingModule("numpy".into())),
            ),
            (
                "ImportError",
                "cannot import name 'foo' from 'os' (/usr/lib/os.py)",
                Some(EnvCause::MissingModule("os".into())),
            ),
            (
                "ImportError",
                "cannot import name 'x' from partially initialized module 'jwt'",
                None,
            ),
            ("ImportError", "something odd", None),
            (
                "LookupError",
                "\n  Resource 'punkt' not found.\n  Please use the NLTK Downloader",
                Some(EnvCause::MissingData("punkt".into())),
            ),
            (
                "LookupError",
                "unknown encoding: foo",
                Some(EnvCause::MissingData("nltk data".into())),
            ), // an nltk task
            (
                "AttributeError",
                "`np.mat` was removed in the NumPy 2.0 release. Use `np.asmatrix` instead.",
                Some(EnvCause::IncompatibleVersion("numpy".into())),
            ),
            (
                "DeprecationError",
                "PdfFileReader is deprecated and was removed in PyPDF2 3.0.0. Use PdfReader instead.",
                Some(EnvCause::IncompatibleVersion("PyPDF2".into())),
            ),
            (
                "AttributeError",
                "'Foo' object has no attribute 'bar'",
                None,
            ),
            (
                "socket.gaierror",
                "[Errno -2] Name or service not known",
                Some(EnvCause::Network),
            ),
            (
                "ConnectionRefusedError",
                "[Errno 111] Connection refused",
                Some(EnvCause::Network),
            ),
            (
                "requests.exceptions.ConnectionError",
                "HTTPSConnectionPool",
                Some(EnvCause::Network),
            ),
            (
                "FileNotFoundError",
                "[Errno 2] No such file or directory: 'data/input.xlsx'",
                Some(EnvCause::MissingData("data/input.xlsx".into())),
            ),
            (
                "FileNotFoundError",
                "[Errno 2] No such file or directory: ''",
                None,
            ),
            ("ValueError", "bad", None),
            ("", "", None),
        ];
        for (exc, msg, want) in cases {
            assert_eq!(env_cause(exc, msg, &c), *want, "{exc}: {msg}");
        }
    }

    #[test]
    fn lookup_error_outside_nltk_tasks_is_the_models() {
        let plain = EnvContext::from_sources(["import os"]);
        assert_eq!(
            env_cause("LookupError", "unknown encoding: foo", &plain),
            None
        );
        assert_eq!(
            env_cause("LookupError", "Resource punkt not found", &plain),
            Some(EnvCause::MissingData("nltk data".into()))
        );
        assert_eq!(
            env_cause("AttributeError", "x was removed in NumPy 2", &plain),
            None
        );
    }

    #[test]
    fn taxonomy_mapping() {
        let cases: &[(&str, ExcKind)] = &[
            ("AttributeError", ExcKind::AttributeError),
            ("TypeError", ExcKind::TypeError),
            ("AssertionError", ExcKind::AssertionError),
            ("ValueError", ExcKind::ValueError),
            ("json.JSONDecodeError", ExcKind::ValueError),
            ("json.decoder.JSONDecodeError", ExcKind::ValueError),
            ("UnicodeDecodeError", ExcKind::ValueError),
            ("NameError", ExcKind::NameError),
            ("UnboundLocalError", ExcKind::NameError),
            ("KeyError", ExcKind::KeyError),
            ("IndexError", ExcKind::IndexError),
            ("ZeroDivisionError", ExcKind::ZeroDivisionError),
            ("decimal.DivisionByZero", ExcKind::ZeroDivisionError),
            ("FileNotFoundError", ExcKind::FileNotFoundError),
            ("ModuleNotFoundError", ExcKind::ImportError),
            ("ImportError", ExcKind::ImportError),
            ("RuntimeError", ExcKind::RuntimeError),
            ("NotImplementedError", ExcKind::RuntimeError),
            ("SyntaxError", ExcKind::SyntaxError),
            ("IndentationError", ExcKind::SyntaxError),
            ("TabError", ExcKind::SyntaxError),
            ("RecursionError", ExcKind::RecursionError),
            ("Timeout", ExcKind::Timeout),
            ("func_timeout.exceptions.FunctionTimedOut", ExcKind::Timeout),
            ("TimeoutError", ExcKind::Timeout),
            ("OSError", ExcKind::Other),
            ("PermissionError", ExcKind::Other),
            ("OverflowError", ExcKind::Other),
            ("LookupError", ExcKind::Other),
            ("sqlite3.OperationalError", ExcKind::Other),
            (" KeyError ", ExcKind::KeyError),
            ("", ExcKind::Other),
            ("...", ExcKind::Other),
        ];
        for (name, want) in cases {
            assert_eq!(exc_kind(name), *want, "{name:?}");
        }
    }

    #[test]
    fn per_method_buckets() {
        use Outcome::*;
        let s = suite(
            vec![
                t("TestAdd.test_1", Pass, None, ""),
                t("TestAdd.test_2", Pass, None, ""),
                t("TestSub.test_1", Fail, Some("AssertionError"), ""),
                t("TestMul.test_1", Pass, None, ""),
                t("TestMul.test_2", NotRun, None, ""),
            ],
            Some(SuiteFailure::Timeout { limit_s: 5.0 }),
        );
        let methods: Vec<(String, String)> = [
            ("add", "TestAdd"),
            ("sub", "TestSub"),
            ("mul", "TestMul"),
            ("div", "TestDiv"),
        ]
        .iter()
        .map(|(m, c)| (m.to_string(), c.to_string()))
        .collect();
        let got: Vec<(String, Option<Bucket>)> =
            classify_methods(&s, &methods, &EnvContext::default(), &Thresholds::default())
                .into_iter()
                .map(|(m, c)| (m, c.bucket))
                .collect();
        assert_eq!(
            got,
            vec![
                ("add".to_string(), Some(Bucket::Perfect)),
                ("sub".to_string(), Some(Bucket::LogicErr)),
                ("mul".to_string(), Some(Bucket::Timeout)),
                // No tests for the method in a suite that timed out: unfinished.
                ("div".to_string(), Some(Bucket::Timeout)),
            ]
        );
        // An import failure judges every method alike.
        let broken = suite(vec![], Some(import("SyntaxError", "invalid syntax")));
        assert!(
            classify_methods(
                &broken,
                &methods,
                &EnvContext::default(),
                &Thresholds::default()
            )
            .iter()
            .all(|(_, c)| c.bucket == Some(Bucket::SyntaxErr))
        );
    }

    #[test]
    fn histograms_and_serde_names() {
        use Outcome::*;
        let c = ctx();
        let th = Thresholds::default();
        let mut fp = Fingerprint::default();
        fp.add_suite(
            &suite(
                vec![
                    t("T.a", Pass, None, ""),
                    t("T.b", Fail, None, ""),
                    t("T.c", Error, Some("json.JSONDecodeError"), ""),
                    t(
                        "T.d",
                        Error,
                        Some("LookupError"),
                        "Resource 'wordnet' not found",
                    ),
                ],
                None,
            ),
            &c,
            &th,
        );
        fp.add_suite(
            &suite(
                vec![t("T.a", NotRun, None, ""), t("T.b", NotRun, None, "")],
                Some(import("ModuleNotFoundError", "No module named 'jwt'")),
            ),
            &c,
            &th,
        );
        fp.add_suite(
            &suite(
                vec![t("T.a", Pass, None, ""), t("T.b", NotRun, None, "")],
                Some(SuiteFailure::Timeout { limit_s: 5.0 }),
            ),
            &c,
            &th,
        );
        assert_eq!(fp.spectrum.get(Bucket::EnvErr), 1);
        assert_eq!(fp.spectrum.get(Bucket::RuntimeErr), 1);
        assert_eq!(fp.spectrum.get(Bucket::Timeout), 1);
        assert_eq!(fp.spectrum.total(), 3);
        assert_eq!(fp.spectrum.model_total(), 1);
        assert_eq!(fp.exceptions.get(ExcKind::AssertionError), 1);
        assert_eq!(fp.exceptions.get(ExcKind::ValueError), 1);
        assert_eq!(fp.exceptions.get(ExcKind::ImportError), 2);
        assert_eq!(fp.exceptions.get(ExcKind::Timeout), 1);
        assert_eq!(fp.env_exceptions.get(ExcKind::Other), 1); // LookupError, kept apart
        let json = serde_json::to_value(&fp).unwrap();
        assert_eq!(json["spectrum"]["SyntaxErr"], 0);
        assert_eq!(json["spectrum"]["EnvErr"], 1);
        assert_eq!(json["spectrum"]["NearPerf"], 0);
        assert_eq!(json["exceptions"]["ImportError"], 2);
        let names: Vec<String> = Bucket::ALL.iter().map(|b| b.as_str().to_string()).collect();
        let keys: Vec<String> = json["spectrum"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(names, keys);
        let back: Fingerprint = serde_json::from_value(json).unwrap();
        assert_eq!(back, fp);
        let kinds: Vec<String> = ExcKind::ALL
            .iter()
            .map(|k| {
                serde_json::to_value(k)
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(kinds[9], "ImportError");
        assert_eq!(kinds[13], "Timeout");
        assert_eq!(kinds[14], "Other");
        let sp: Spectrum = [Bucket::Perfect, Bucket::Perfect, Bucket::Fail]
            .into_iter()
            .collect();
        assert_eq!((sp.get(Bucket::Perfect), sp.total()), (2, 3));
    }
}
