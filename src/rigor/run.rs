//! What rigor analyses and what comes back: a subject (a reference module and a test module),
//! the options, each mutant's outcome and the analysis of a subject. Running is `batch.rs`.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::coverage::Coverage;
use crate::exec::{pytest_expected, unittest_expected};
use crate::model::{Task, TestLayout};

/// What to analyse: the code (the reference, as one module) and a test module.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Subject {
    /// The code module's text and name (`solution`, `snippet_24`).
    pub code: String,
    pub code_module: String,
    /// The test module's text, file (relative path) and module name.
    pub tests: String,
    pub test_file: String,
    pub test_module: String,
    /// ClassEval's way: the tests run with the code's globals (one module in ClassEval's
    /// harness). Otherwise the tests import the code module.
    pub concatenated: bool,
    pub pytest: bool,
    /// Test ids, from the test text (parsed here, not in the sandbox).
    pub expected: Vec<String>,
}

impl Subject {
    /// A unittest module that sees the code's globals (ClassEval, generated unittest suites).
    pub fn unittest_concatenated(code: &str, tests: &str) -> Subject {
        Subject {
            code: code.into(),
            code_module: "solution".into(),
            tests: tests.into(),
            test_file: "test_classeval.py".into(),
            test_module: "test_classeval".into(),
            concatenated: true,
            pytest: false,
            expected: unittest_expected(tests).0,
        }
    }

    /// A pytest-style file that imports the code as `code_module` (RealClassEval).
    pub fn pytest_module(code: &str, code_module: &str, tests: &str, test_file: &str) -> Subject {
        let test_module = std::path::Path::new(test_file).file_stem().map_or_else(
            || "test_module".into(),
            |s| s.to_string_lossy().into_owned(),
        );
        Subject {
            code: code.into(),
            code_module: code_module.into(),
            tests: tests.into(),
            test_file: test_file.into(),
            test_module,
            concatenated: false,
            pytest: true,
            expected: pytest_expected(tests).0,
        }
    }

    /// A task's reference under its own tests.
    pub fn of_task(task: &Task) -> Subject {
        match &task.test_layout {
            TestLayout::Concatenated => {
                Subject::unittest_concatenated(&task.solution, &task.test_module)
            }
            TestLayout::Module {
                code_module,
                test_file,
            } => Subject::pytest_module(&task.solution, code_module, &task.test_module, test_file),
        }
    }
}

/// Which runner executes the mutants.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Runner {
    /// One warm interpreter per subject; per mutant a fork runs the covering tests first
    /// (cheapest first, stopping at the first failure); survivors confirmed by the suite.
    #[default]
    Schemata,
    /// The straightforward runner the benchmark compares with: per mutant a fork that
    /// imports the mutated module from a file and runs the whole suite in order.
    Plain,
}

/// How to analyse.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Options {
    /// A test's budget on a mutant: `max(base, factor × its time on the reference)`.
    pub test_budget_base: Duration,
    pub test_budget_factor: f64,
    /// Stop starting mutants after this long; the rest are `not_run`.
    pub task_budget: Option<Duration>,
    /// Measure coverage (and select tests by it).
    pub coverage: bool,
    pub runner: Runner,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            test_budget_base: Duration::from_millis(200),
            test_budget_factor: 10.0,
            task_budget: None,
            coverage: true,
            runner: Runner::Schemata,
        }
    }
}

/// What happened to one mutant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// A test that passes on the reference failed on it (or it no longer imports).
    Killed,
    /// A test timed out on it, twice (the second time at twice the budget).
    Timeout,
    /// The whole suite passed on it.
    Survived,
    /// Compiles to the reference's bytecode (TCE): removed, never run.
    Equivalent,
    /// Not run (the task budget ran out, or the run ended early).
    NotRun,
}

/// One mutant's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub status: Status,
    /// The test that killed it (`None` when the module no longer imports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// How: `fail`, `error`, `crash`, `timeout`, `import:<exception>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub how: Option<String>,
    #[serde(default)]
    pub tests_run: usize,
    #[serde(default)]
    pub seconds: f64,
}

impl Outcome {
    pub(crate) fn not_run() -> Outcome {
        Outcome {
            status: Status::NotRun,
            by: None,
            how: None,
            tests_run: 0,
            seconds: 0.0,
        }
    }
}

/// Everything the driver reported about a subject.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    pub coverage: Option<Coverage>,
    /// Why coverage is missing, when it is.
    pub coverage_error: Option<String>,
    /// Each test's outcome and time on the reference (untraced run).
    pub reference: BTreeMap<String, (String, f64)>,
    /// Tests left out of mutation runs (they did not pass on the reference in both runs),
    /// with their outcome there.
    pub excluded: BTreeMap<String, String>,
    /// Tests the mutants ran against.
    pub valid_tests: usize,
    /// One per mutant given, in order.
    pub outcomes: Vec<Outcome>,
    /// The subject could not be analysed (the reference does not import, no test passes,
    /// the driver died); its mutants are `not_run`.
    pub error: Option<String>,
    pub wall_s: f64,
    /// Seconds of the driver's phases (`warm`, `coverage`, `reference`, `done` = all), as it
    /// measured them.
    #[serde(default)]
    pub phases: BTreeMap<String, f64>,
    /// Why the children import the reference themselves rather than run on the task's one
    /// import (`None`: they run on it, or the runner never shares an import).
    #[serde(default)]
    pub reimport: Option<String>,
}

/// Why a subject could not be analysed at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    #[error("the rigor driver failed in the sandbox: {0}")]
    Driver(String),
}
