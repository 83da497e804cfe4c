//! One subject (a reference module and a test module) through the driver in the sandbox:
//! coverage, the reference's own test run, then every mutant. This is the library API other
//! floors use (`forge` scores generated suites with it): [`analyze`] takes the texts and the
//! mutants and returns each mutant's outcome.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::coverage::Coverage;
use super::mutant::Mutant;
use crate::exec::{Limits, Program, Sandbox, pytest_expected, unittest_expected};
use crate::model::{Task, TestLayout};

/// The in-sandbox driver.
pub const DRIVER: &str = include_str!("../../assets/rigor/driver.py");

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
    fn not_run() -> Outcome {
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
}

/// Why a subject could not be analysed at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    #[error("the rigor driver failed in the sandbox: {0}")]
    Driver(String),
}

/// Sandbox limits for one subject: wide (the driver enforces every test's budget itself).
fn limits(opts: &Options, mutants: usize) -> Limits {
    let wall = match opts.task_budget {
        Some(b) => b + Duration::from_secs(180),
        None => Duration::from_secs(600 + 10 * mutants as u64),
    };
    Limits {
        wall,
        cpu: wall,
        memory_bytes: 2 << 30,
        pids: 128,
        disk_bytes: 256 << 20,
        ..Limits::default()
    }
}

/// The driver's input.
fn input(subject: &Subject, mutants: &[Mutant], opts: &Options) -> Value {
    json!({
        "layout": if subject.concatenated { "concatenated" } else { "module" },
        "code_module": subject.code_module,
        "code_file": format!("{}.py", subject.code_module),
        "test_file": subject.test_file,
        "test_module": subject.test_module,
        "test_kind": if subject.pytest { "pytest" } else { "unittest" },
        "expected": subject.expected,
        "coverage": opts.coverage,
        "mode": opts.runner,
        "test_budget_base": opts.test_budget_base.as_secs_f64(),
        "test_budget_factor": opts.test_budget_factor,
        "task_budget": opts.task_budget.map(|d| d.as_secs_f64()),
        "mutants": mutants.iter().enumerate().map(|(i, m)| json!({
            "id": i, "start": m.start, "end": m.end, "text": m.replacement,
            "lines": [m.lines.0, m.lines.1], "scope": m.scope.map(|(a, b)| [a, b]),
        })).collect::<Vec<_>>(),
    })
}

/// Analyse `subject` with `mutants` (byte spans of `subject.code`). `on_mutant` hears of each
/// outcome as it arrives (index into `mutants`).
pub fn analyze(
    sandbox: &Sandbox,
    subject: &Subject,
    mutants: &[Mutant],
    opts: &Options,
    cancel: &AtomicBool,
    on_mutant: &mut dyn FnMut(usize, &Outcome),
) -> Result<Analysis, RunError> {
    let program = Program {
        source: DRIVER.to_string(),
        files: vec![
            (format!("{}.py", subject.code_module), subject.code.clone()),
            (subject.test_file.clone(), subject.tests.clone()),
        ],
        input: input(subject, mutants, opts),
        limits: limits(opts, mutants.len()),
        hash_seed: None,
    };
    let mut a = Analysis {
        outcomes: vec![Outcome::not_run(); mutants.len()],
        ..Analysis::default()
    };
    let mut done = false;
    let run = sandbox.run_program(&program, cancel, &mut |v| {
        fold(&mut a, &v, &mut done, on_mutant);
    });
    a.wall_s = run.wall_s;
    if !done && a.error.is_none() {
        return Err(RunError::Driver(format!(
            "{} {}",
            run.describe(),
            run.stderr
                .trim_end()
                .lines()
                .rev()
                .take(3)
                .collect::<Vec<_>>()
                .join(" | ")
        )));
    }
    Ok(a)
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(String::from)
}

/// One driver record into the analysis.
fn fold(a: &mut Analysis, v: &Value, done: &mut bool, on_mutant: &mut dyn FnMut(usize, &Outcome)) {
    let kind = v.get("kind").and_then(Value::as_str);
    if let (Some(k), Some(s)) = (kind, v.get("seconds").and_then(Value::as_f64))
        && k != "mutant"
    {
        a.phases.insert(k.to_string(), s);
    }
    if let Some(cpu) = v.get("cpu").and_then(Value::as_f64) {
        a.phases.insert("cpu".into(), cpu);
    }
    match kind {
        Some("coverage") => {
            a.coverage_error = text(v, "error");
            if let Some(entry) = v.get("report").filter(|r| !r.is_null()) {
                match Coverage::from_report(entry) {
                    Ok(c) => a.coverage = Some(c),
                    Err(e) => a.coverage_error = Some(e),
                }
            }
        }
        Some("reference") => {
            if let Some(tests) = v.get("tests").and_then(Value::as_object) {
                for (id, r) in tests {
                    let outcome = r.get(0).and_then(Value::as_str).unwrap_or("?");
                    let secs = r.get(1).and_then(Value::as_f64).unwrap_or(0.0);
                    a.reference.insert(id.clone(), (outcome.to_string(), secs));
                }
            }
        }
        Some("start") => {
            a.valid_tests = v.get("valid").and_then(Value::as_u64).unwrap_or(0) as usize;
            if let Some(ex) = v.get("excluded").and_then(Value::as_object) {
                for (id, o) in ex {
                    a.excluded
                        .insert(id.clone(), o.as_str().unwrap_or("?").to_string());
                }
            }
        }
        Some("mutant") => {
            let Some(i) = v.get("id").and_then(Value::as_u64).map(|i| i as usize) else {
                return;
            };
            let status = match v.get("status").and_then(Value::as_str) {
                Some("killed") => Status::Killed,
                Some("timeout") => Status::Timeout,
                Some("survived") => Status::Survived,
                Some("equivalent") => Status::Equivalent,
                _ => Status::NotRun,
            };
            let outcome = Outcome {
                status,
                by: text(v, "by"),
                how: text(v, "how"),
                tests_run: v.get("tests_run").and_then(Value::as_u64).unwrap_or(0) as usize,
                seconds: v.get("seconds").and_then(Value::as_f64).unwrap_or(0.0),
            };
            if let Some(slot) = a.outcomes.get_mut(i) {
                on_mutant(i, &outcome);
                *slot = outcome;
            }
        }
        Some("fatal") => {
            a.error = Some(format!(
                "{}: {}",
                text(v, "phase").unwrap_or_default(),
                text(v, "message").unwrap_or_default()
            ));
        }
        Some("done") => *done = true,
        _ => {}
    }
}
