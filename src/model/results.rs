//! Test results: what the sandbox reports and what metrics, sessions and views consume.

use serde::{Deserialize, Serialize};

/// The outcome of one test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Pass,
    /// An assertion failed.
    Fail,
    /// Any other exception.
    Error,
    Skip,
    /// Expected failure that failed (pytest `xfail`, unittest `expectedFailure`).
    Xfail,
    /// Expected failure that passed (strict: counts as a failure).
    Xpass,
    /// Expected by the parent but never reported (the suite died, or the code under test
    /// prevented it from running).
    NotRun,
    /// The harness saw the test run tampered with (its verdict cannot be trusted): a failure.
    Tampered,
}

impl Outcome {
    /// The test did not pass: it failed, errored, passed unexpectedly, never ran, or its
    /// verdict was tampered with (a skip or an expected failure is not against the code).
    pub fn is_failing(self) -> bool {
        !matches!(self, Outcome::Pass | Outcome::Skip | Outcome::Xfail)
    }
}

/// Where the exception that failed a test (or an import) was raised: the innermost exception's
/// last traceback frame. Environment errors need evidence outside the model's code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// In the code under test (the model's code).
    Code,
    /// In the test module.
    Tests,
    /// Anywhere else: the standard library, an installed package, the import system.
    Library,
}

/// One test's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestResult {
    /// `TestClass.test_method` for unittest; `test_function` or `TestClass.test_method` for pytest.
    pub id: String,
    pub outcome: Outcome,
    /// The innermost meaningful exception type (`AttributeError` raised in the method, not
    /// the wrapper around it), for fail/error.
    pub exc_type: Option<String>,
    pub message: Option<String>,
    /// Traceback text, frames in the code under test kept with their line numbers.
    pub traceback: Option<String>,
    /// Line in the code under test where the failure arose, when it did arise there.
    pub code_line: Option<usize>,
    pub duration_s: f64,
    /// Where the exception was raised (harness records from before this field: unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
}

impl TestResult {
    /// A result with just an id and an outcome (for synthetic results and tests).
    pub fn new(id: impl Into<String>, outcome: Outcome) -> Self {
        TestResult {
            id: id.into(),
            outcome,
            exc_type: None,
            message: None,
            traceback: None,
            code_line: None,
            duration_s: 0.0,
            origin: None,
        }
    }

    /// The test class of a `Class.method` id, if it has one.
    pub fn test_class(&self) -> Option<&str> {
        self.id.rsplit_once('.').map(|(c, _)| c)
    }
    pub fn name(&self) -> &str {
        self.id.rsplit_once('.').map_or(&self.id, |(_, m)| m)
    }
}

/// Why a suite as a whole did not run to completion normally.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SuiteFailure {
    /// The module under test (or the test module) failed to compile or import.
    Import {
        exc_type: String,
        message: String,
        /// Line in the code under test, when known (SyntaxError, or the raising frame).
        line: Option<usize>,
        traceback: Option<String>,
        /// Where the exception was raised (unknown in sessions from before this field).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        origin: Option<Origin>,
    },
    /// Killed at the wall-clock or CPU-time limit.
    Timeout { limit_s: f64 },
    /// Killed at (or failed because of) the memory limit.
    Memory,
    /// Died by a signal or exited early without the harness's final record.
    Crashed {
        signal: Option<i32>,
        exit_code: Option<i32>,
        detail: String,
    },
    /// The result channel carried something the harness cannot have sent (bad nonce,
    /// duplicated or unexpected ids, records after the final one).
    Protocol { detail: String },
    /// The harness, the test files or the result channel were tampered with: no verdict of the
    /// suite stands, and it counts as a failure (the model's).
    Tampered { detail: String },
}

/// Who reports a sign of tampering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceSource {
    /// The split harness's runner, from what it saw the code's process do (a comparison equal
    /// to a decoy, a malformed message, an answer that never came): trusted.
    Runner,
    /// The code's own process, about the code (patched test machinery, stack inspection,
    /// ctypes): untrusted, and a lower bound (the code can silence it).
    Host,
    /// classlab's static indicators, read from the code's source outside the sandbox
    /// (`analysis::tamper`): never sent by a harness; a lower bound too (they miss what the
    /// code builds at run time).
    Static,
}

/// A sign that the code under test tried to tamper with its evaluation (split harness). Not
/// a verdict: verdicts are the runner's alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    pub source: EvidenceSource,
    /// The test running when it was seen, when one was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<String>,
    pub detail: String,
}

/// Everything one sandboxed suite run returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteResult {
    /// One entry per expected test (missing ones as `NotRun`), then any extra tests reported.
    pub tests: Vec<TestResult>,
    pub failure: Option<SuiteFailure>,
    /// Captured output, capped; `*_dropped` counts the bytes cut.
    pub stdout: String,
    pub stderr: String,
    pub stdout_dropped: u64,
    pub stderr_dropped: u64,
    pub wall_s: f64,
    /// Files or processes the suite left outside its directory (should be empty).
    pub leftovers: Vec<String>,
    /// Signs of tampering (split harness; results from before it have none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
}

impl SuiteResult {
    /// A suite result from its tests and how it ended, with no captured output.
    pub fn new(tests: Vec<TestResult>, failure: Option<SuiteFailure>) -> Self {
        SuiteResult {
            tests,
            failure,
            stdout: String::new(),
            stderr: String::new(),
            stdout_dropped: 0,
            stderr_dropped: 0,
            wall_s: 0.0,
            leftovers: Vec::new(),
            evidence: Vec::new(),
        }
    }
}
