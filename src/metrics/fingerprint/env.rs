//! Environment errors: what the environment provides a task ([`EnvContext`]: the modules it
//! lacks, what the reference solution did there) and whether a failure is the environment's
//! rather than the model's ([`test_env_cause`], [`import_env_cause`]; the rules are in the
//! parent module's documentation). [`env_cause`] describes a failure of *trusted* code (the
//! reference) from its exception; it never decides a verdict on the code under test.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::short_name;
use crate::model::{Outcome, SuiteFailure, SuiteResult, TestResult};

/// What the environment provides for one task, to tell its failures from the model's.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct EnvContext {
    /// Top-level module names the task needs: imported by its tests or by its reference
    /// `import_statement` (see [`EnvContext::from_sources`]).
    pub task_modules: BTreeSet<String>,
    /// Data files the tests expect to exist (file names or paths; matched by file name).
    pub data_files: BTreeSet<String>,
    /// Top-level modules verified missing from the evaluation interpreter (asked by the
    /// caller, see `pipeline::envcheck`). A task module not listed here is not the
    /// environment's to lack: its `ModuleNotFoundError` is the model's.
    pub missing_modules: BTreeSet<String>,
    /// What the task's reference solution did in the same environment (same interpreter, same
    /// harness, same limits), when it was run: the tests it fails there are the environment's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference: Option<ReferenceEvidence>,
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
            ..EnvContext::default()
        }
    }

    /// The same context with these data files added.
    pub fn with_data_files<I: IntoIterator<Item = S>, S: Into<String>>(mut self, files: I) -> Self {
        self.data_files.extend(files.into_iter().map(Into::into));
        self
    }

    /// The same context with these modules verified missing from the interpreter.
    pub fn with_missing_modules<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        modules: I,
    ) -> Self {
        self.missing_modules
            .extend(modules.into_iter().map(Into::into));
        self
    }

    /// The same context with what the reference solution did in this environment.
    pub fn with_reference(mut self, reference: ReferenceEvidence) -> Self {
        self.reference = Some(reference);
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
    /// The reference solution fails this test (the test id; `import` for the module's import)
    /// in the same environment, with the same exception type.
    Reference(String),
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

/// Why a failure of **trusted** code (the reference solution, in `validate` or as recorded
/// evidence) is the environment's, read off its exception type and message. Never applied to
/// the code under test: it can raise any type with any message (see [`test_env_cause`]).
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

/// Why a failing test of **trusted** code (the reference) is the environment's, read off its
/// exception ([`env_cause`]); `None` for a test without an exception type or a tampered one.
pub fn trusted_test_cause(t: &TestResult, ctx: &EnvContext) -> Option<EnvCause> {
    if t.outcome == Outcome::Tampered {
        return None;
    }
    env_cause(
        t.exc_type.as_ref()?,
        t.message.as_deref().unwrap_or(""),
        ctx,
    )
}

/// Why an import failure of **trusted** code (the reference) is the environment's, read off
/// its exception ([`env_cause`]); `None` for other suite failures.
pub fn trusted_import_cause(f: &SuiteFailure, ctx: &EnvContext) -> Option<EnvCause> {
    match f {
        SuiteFailure::Import {
            exc_type, message, ..
        } => env_cause(exc_type, message, ctx),
        _ => None,
    }
}

/// The exception type a failing test counts under when compared with the reference's: the
/// last dotted component of its type, `AssertionError` for an assertion failure without one,
/// else the outcome's name (`Xpass`).
fn failure_type(t: &TestResult) -> String {
    match t.exc_type.as_deref().map(short_name) {
        Some(e) if !e.is_empty() => e.to_string(),
        _ if t.outcome == Outcome::Fail => "AssertionError".into(),
        _ => format!("{:?}", t.outcome),
    }
}

/// What the reference solution did in one environment: the tests it failed there and with
/// which exception type. Evidence classlab gathered itself (the reference is the benchmark's
/// trusted code), so a test the reference fails the same way is no verdict on the model.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ReferenceEvidence {
    /// The reference's module failed to import with this exception type: no test could run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub import: Option<String>,
    /// Test id → the exception type the reference failed it with.
    pub failing: BTreeMap<String, String>,
}

impl ReferenceEvidence {
    /// The evidence of one run of the reference's suite. Tests it never reached (a suite cut
    /// short) and tampered verdicts are no evidence.
    pub fn of(result: &SuiteResult) -> ReferenceEvidence {
        let import = match &result.failure {
            Some(SuiteFailure::Import { exc_type, .. }) => Some(short_name(exc_type).to_string()),
            _ => None,
        };
        let failing = result
            .tests
            .iter()
            .filter(|t| t.outcome.is_failing())
            .filter(|t| !matches!(t.outcome, Outcome::NotRun | Outcome::Tampered))
            .map(|t| (t.id.clone(), failure_type(t)))
            .collect();
        ReferenceEvidence { import, failing }
    }

    /// The reference passed everything it ran.
    pub fn is_clean(&self) -> bool {
        self.import.is_none() && self.failing.is_empty()
    }

    /// Whether the reference fails test `id` with exception type `exc` (or could not even
    /// import, with that type).
    fn fails(&self, id: &str, exc: &str) -> bool {
        self.failing.get(id).is_some_and(|e| e == exc) || self.import.as_deref() == Some(exc)
    }
}

/// `ModuleNotFoundError`/`ImportError` `No module named 'm'` where `m` is a module the task
/// needs and the interpreter was verified to lack (envcheck, outside the sandbox). The message
/// only narrows which module: the evidence is the interpreter's.
fn missing_module_cause(exc_type: &str, message: &str, ctx: &EnvContext) -> Option<EnvCause> {
    if !matches!(short_name(exc_type), "ModuleNotFoundError" | "ImportError")
        || !message.contains("No module named")
    {
        return None;
    }
    let module = missing_module_name(message)?;
    (ctx.task_modules.contains(&module) && ctx.missing_modules.contains(&module))
        .then_some(EnvCause::MissingModule(module))
}

/// Whether a failing test of the code under test is the environment's fault: only from
/// classlab's own evidence — a module the task needs that the interpreter lacks, or the
/// reference failing the same test with the same exception type in the same environment.
/// Never from where the exception says it came from, its message or its cause (the code
/// under test can build any of them). Never for a tampered test.
pub fn test_env_cause(t: &TestResult, ctx: &EnvContext) -> Option<EnvCause> {
    if t.outcome == Outcome::Tampered {
        return None;
    }
    if let Some(cause) = missing_module_cause(
        t.exc_type.as_deref().unwrap_or(""),
        t.message.as_deref().unwrap_or(""),
        ctx,
    ) {
        return Some(cause);
    }
    let reference = ctx.reference.as_ref()?;
    reference
        .fails(&t.id, &failure_type(t))
        .then(|| EnvCause::Reference(t.id.clone()))
}

/// Whether an import failure of the code under test is the environment's fault (`None` for
/// other suite failures): a missing task module (as for a test), or the reference's own
/// import failing with the same exception type in the same environment.
pub fn import_env_cause(f: &SuiteFailure, ctx: &EnvContext) -> Option<EnvCause> {
    let SuiteFailure::Import {
        exc_type, message, ..
    } = f
    else {
        return None;
    };
    if let Some(cause) = missing_module_cause(exc_type, message, ctx) {
        return Some(cause);
    }
    let reference = ctx.reference.as_ref()?;
    (reference.import.as_deref() == Some(short_name(exc_type)))
        .then(|| EnvCause::Reference("import".into()))
}
