//! Environment errors: what the environment provides a task ([`EnvContext`]) and whether a
//! failure is the environment's rather than the model's ([`env_cause_at`]; the rules are in
//! the parent module's documentation).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::short_name;
use crate::model::{Origin, Outcome, SuiteFailure, TestResult};

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
    /// environment's to lack: its `ModuleNotFoundError` is the model's (when the harness
    /// told where it was raised).
    pub missing_modules: BTreeSet<String>,
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
            missing_modules: BTreeSet::new(),
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

/// Whether an exception (type name and message) is the environment's fault for this task,
/// wherever it was raised: the rules for results without an origin (see the module
/// documentation; [`env_cause_at`] applies the origin).
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

/// Where an exception arose, as far as the harness could tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Site {
    /// The innermost exception's last frame; `None` for results recorded before the harness
    /// told (the older rules of [`env_cause`] apply).
    pub origin: Option<Origin>,
    /// The traceback passes through the code under test (the result's `code_line`).
    pub through_code: bool,
}

impl Site {
    /// Where a test's exception arose.
    pub fn of_test(t: &TestResult) -> Site {
        Site {
            origin: t.origin,
            through_code: t.code_line.is_some(),
        }
    }

    /// Where an import failure arose (`None` for other suite failures).
    pub fn of_import(f: &SuiteFailure) -> Option<Site> {
        match f {
            SuiteFailure::Import { line, origin, .. } => Some(Site {
                origin: *origin,
                through_code: line.is_some(),
            }),
            _ => None,
        }
    }
}

/// Whether an exception is the environment's fault for this task, given where it was raised
/// (see the module documentation). With no origin, the same as [`env_cause`].
pub fn env_cause_at(
    exc_type: &str,
    message: &str,
    site: Site,
    ctx: &EnvContext,
) -> Option<EnvCause> {
    let cause = env_cause(exc_type, message, ctx)?;
    let Some(origin) = site.origin else {
        return Some(cause);
    };
    let outside = origin != Origin::Code;
    let stands = match &cause {
        // Evidence outside the model's code: the interpreter lacks a module the task needs.
        EnvCause::MissingModule(m) if message.contains("No module named") => {
            ctx.missing_modules.contains(m)
        }
        // `cannot import name 'X' from 'm'`: the tests' (or a library's) need, not the model's.
        EnvCause::MissingModule(m) => ctx.missing_modules.contains(m) || outside,
        EnvCause::MissingData(_) | EnvCause::IncompatibleVersion(_) => outside,
        EnvCause::Network => outside && !site.through_code,
    };
    stands.then_some(cause)
}

/// Whether a failing test's exception is the environment's fault (never for a tampered one).
pub fn test_env_cause(t: &TestResult, ctx: &EnvContext) -> Option<EnvCause> {
    if t.outcome == Outcome::Tampered {
        return None;
    }
    env_cause_at(
        t.exc_type.as_deref().unwrap_or(""),
        t.message.as_deref().unwrap_or(""),
        Site::of_test(t),
        ctx,
    )
}

/// Whether an import failure is the environment's fault (`None` for other suite failures).
pub fn import_env_cause(f: &SuiteFailure, ctx: &EnvContext) -> Option<EnvCause> {
    let site = Site::of_import(f)?;
    match f {
        SuiteFailure::Import {
            exc_type, message, ..
        } => env_cause_at(exc_type, message, site, ctx),
        _ => None,
    }
}
