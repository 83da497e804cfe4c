//! Why a test failed, for the exceptions whose cause can be read off the traceback and the
//! code: `AttributeError`, `TypeError`, `NameError`, `ImportError` (and
//! `ModuleNotFoundError`). Pure: text in, a cause out; no I/O, no panics.
//!
//! The causes:
//! * **missing method** — the tests call `obj.name(…)` and the class defines no `name`;
//! * **signature mismatch** — a call failed on arity or argument names, and the generated
//!   method's parameters differ from the skeleton's;
//! * **unassigned attribute** — `obj.name` is read and the class never assigns or defines it;
//! * **not imported** — `name 'x' is not defined` and the module neither imports nor defines x;
//! * **missing module** — `No module named 'x'`: the environment's fault (`EnvErr`) when the
//!   task itself needs x (its skeleton, reference or tests import it), else the model's
//!   choice of a package that is not there.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::analysis::parse_module;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    MissingMethod,
    SignatureMismatch,
    UnassignedAttribute,
    NotImported,
    /// A module the task needs is not installed: `EnvErr`, never the model's fault.
    MissingModuleEnv,
    /// The model imports a module that is not installed (its choice).
    MissingModuleModel,
    /// One of the four exceptions, but none of the causes above fits.
    Unexplained,
}

impl Cause {
    pub const ALL: [Cause; 7] = [
        Cause::MissingMethod,
        Cause::SignatureMismatch,
        Cause::UnassignedAttribute,
        Cause::NotImported,
        Cause::MissingModuleEnv,
        Cause::MissingModuleModel,
        Cause::Unexplained,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Cause::MissingMethod => "method called but not defined",
            Cause::SignatureMismatch => "signature differs from the skeleton",
            Cause::UnassignedAttribute => "attribute read but never assigned",
            Cause::NotImported => "name used but not imported",
            Cause::MissingModuleEnv => "module missing (EnvErr)",
            Cause::MissingModuleModel => "model imports a module not installed",
            Cause::Unexplained => "unexplained",
        }
    }

    pub fn is_env(self) -> bool {
        self == Cause::MissingModuleEnv
    }
}

/// A session's failures counted by cause.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CauseTable {
    /// Failing tests (or module imports) with one of the four exceptions.
    pub considered: usize,
    /// Those given a cause other than `unexplained`.
    pub explained: usize,
    pub rows: Vec<CauseRow>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CauseRow {
    pub cause: Cause,
    pub label: &'static str,
    pub count: usize,
    pub share: f64,
    /// Wilson 95 % interval of the share.
    pub ci95: (f64, f64),
}

/// One failing test and what it ran against.
#[derive(Debug, Clone, Copy, Default)]
pub struct Failure<'a> {
    /// e.g. `AttributeError`, `builtins.TypeError`.
    pub exc_type: &'a str,
    pub message: &'a str,
    pub traceback: &'a str,
    /// The generated module (class and imports).
    pub code: &'a str,
    /// The skeleton given to the model (signatures to compare with).
    pub skeleton: &'a str,
    /// The test module (what the tests call).
    pub tests: &'a str,
    /// The reference solution, for the modules the task needs.
    pub reference: &'a str,
}

/// The cause of a failure; `None` when the exception is not one of the four.
pub fn classify(f: &Failure) -> Option<Cause> {
    let short = f.exc_type.trim().rsplit('.').next().unwrap_or("").trim();
    // The message may carry the type as a prefix (`AttributeError: …`, pytest's form).
    let message = f
        .message
        .trim()
        .strip_prefix(&format!("{short}: "))
        .unwrap_or(f.message.trim());
    match short {
        "AttributeError" => Some(attribute(f, message)),
        "TypeError" => Some(type_error(f, message)),
        "NameError" | "UnboundLocalError" => Some(name_error(f, message)),
        "ImportError" | "ModuleNotFoundError" => Some(import_error(f, message)),
        _ => None,
    }
}

/// The quoted names of a message, in order: `'X' object has no attribute 'y'` → [X, y].
fn quoted(message: &str) -> Vec<&str> {
    message.split('\'').skip(1).step_by(2).collect()
}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    c.next().is_some_and(|f| f.is_alphabetic() || f == '_')
        && c.all(|x| x.is_alphanumeric() || x == '_')
}

/// Names the code defines anywhere: functions and methods, classes.
fn defined(code: &str) -> BTreeSet<String> {
    let m = parse_module(code);
    let mut out: BTreeSet<String> = m.functions.iter().cloned().collect();
    for c in &m.classes {
        out.insert(c.name.clone());
        out.extend(c.methods.iter().map(|d| d.name.clone()));
    }
    out
}

/// `self.name =`, `self.name +=`, `name = …` in a class body, `setattr(…, 'name'`.
fn assigned(code: &str, name: &str) -> bool {
    code.lines().any(|l| {
        let t = l.trim_start();
        let after_dot = format!(".{name}");
        let assigns = |rest: &str| {
            let r = rest.trim_start();
            (r.starts_with('=') && !r.starts_with("=="))
                || ["+=", "-=", "*=", "/=", "|=", ":"]
                    .iter()
                    .any(|op| r.starts_with(op))
        };
        t.match_indices(&after_dot).any(|(i, _)| {
            let rest = &t[i + after_dot.len()..];
            !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_') && assigns(rest)
        }) || t
            .strip_prefix(name)
            .is_some_and(|r| assigns(r) && !r.starts_with(':'))
            || (t.contains("setattr(") && t.contains(&format!("'{name}'")))
    })
}

fn attribute(f: &Failure, message: &str) -> Cause {
    // Python 3.10+ adds `. Did you mean: '_x'?`: not the missing name.
    let message = message.split(". Did you mean").next().unwrap_or(message);
    let q = quoted(message);
    // `'X' object has no attribute 'y'`, `type object 'X' has no attribute 'y'`.
    let Some(name) = q.last().filter(|n| is_ident(n)).copied() else {
        return Cause::Unexplained;
    };
    // Only the class under test's own attributes: `'int' object has no attribute 'upper'`
    // is a wrong value, not a missing member.
    let owner = q.first().copied().unwrap_or("");
    // `module 'snippet_3' has no attribute 'X'`: the module under test (the tests import
    // it) lacks a top-level name.
    if message.starts_with("module ") && f.tests.contains(&format!("import {owner}")) {
        return if defined(f.code).contains(name) || assigned(f.code, name) {
            Cause::Unexplained
        } else {
            Cause::UnassignedAttribute
        };
    }
    let classes = |code: &str| -> Vec<String> {
        parse_module(code)
            .classes
            .into_iter()
            .map(|c| c.name)
            .collect()
    };
    if message.starts_with("module ")
        || q.len() < 2
        || !(classes(f.code)
            .iter()
            .chain(&classes(f.skeleton))
            .any(|c| c == owner))
    {
        return Cause::Unexplained;
    }
    // Defined, yet missing at run time (on another object, or deleted): nothing to say.
    if defined(f.code).contains(name) {
        return Cause::Unexplained;
    }
    let call = format!(".{name}(");
    let called = [f.tests, f.traceback].iter().any(|s| s.contains(&call))
        || defined(f.skeleton).contains(name);
    if called && !assigned(f.code, name) {
        Cause::MissingMethod
    } else if !assigned(f.code, name) {
        Cause::UnassignedAttribute
    } else {
        Cause::Unexplained
    }
}

/// `f() takes 2 positional arguments but 3 were given`, `missing 1 required positional
/// argument`, `got an unexpected keyword argument 'x'`.
fn type_error(f: &Failure, message: &str) -> Cause {
    let arity = [
        "positional argument",
        "unexpected keyword argument",
        "required keyword-only argument",
        "multiple values for argument",
    ]
    .iter()
    .any(|p| message.contains(p));
    if !arity {
        return Cause::Unexplained;
    }
    // `Class.method()` or `method()`: the name before `()`.
    let Some(head) = message.split("()").next() else {
        return Cause::Unexplained;
    };
    let method = head.rsplit(['.', ' ']).next().unwrap_or(head);
    let params = |code: &str| -> Option<Vec<String>> {
        parse_module(code)
            .classes
            .iter()
            .flat_map(|c| &c.methods)
            .find(|m| m.name == method)
            .map(|m| m.params.clone())
    };
    match (params(f.skeleton), params(f.code)) {
        (Some(want), Some(got)) if want != got => Cause::SignatureMismatch,
        // `__init__` is given in ClassEval skeletons; a constructor call that fails on
        // arity against a class whose constructor the model rewrote.
        _ => Cause::Unexplained,
    }
}

fn name_error(f: &Failure, message: &str) -> Cause {
    let Some(name) = quoted(message).first().filter(|n| is_ident(n)).copied() else {
        return Cause::Unexplained;
    };
    let m = parse_module(f.code);
    let imported = m.imports.iter().any(|i| import_binds(i, name));
    let defined_top = defined(f.code).contains(name)
        || f.code
            .lines()
            .any(|l| l.starts_with(name) && l[name.len()..].trim_start().starts_with('='));
    if !imported && !defined_top {
        Cause::NotImported
    } else {
        Cause::Unexplained
    }
}

/// Whether an import statement binds `name` (`import a.b` binds a; `as` aliases).
fn import_binds(stmt: &str, name: &str) -> bool {
    let s = stmt.trim();
    let names = if let Some(rest) = s.strip_prefix("from ") {
        rest.split_once(" import ").map_or("", |(_, n)| n)
    } else {
        s.strip_prefix("import ").unwrap_or("")
    };
    names
        .trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .map(|part| {
            let part = part.trim();
            match part.split_once(" as ") {
                Some((_, alias)) => alias.trim(),
                None => part.split('.').next().unwrap_or(part).trim(),
            }
        })
        .any(|n| n == name || n == "*")
}

fn import_error(f: &Failure, message: &str) -> Cause {
    // `No module named 'a.b'` → a; `cannot import name 'x' from 'y'` → y.
    let module = if message.contains("No module named") {
        quoted(message).first().copied()
    } else {
        quoted(message).get(1).copied()
    };
    let Some(module) = module.map(|m| m.split('.').next().unwrap_or(m)) else {
        return Cause::Unexplained;
    };
    if !message.contains("No module named") {
        return Cause::Unexplained;
    }
    let needs = |code: &str| {
        parse_module(code).imports.iter().any(|i| {
            let s = i.trim();
            let target = s
                .strip_prefix("from ")
                .map(|r| r.split_whitespace().next().unwrap_or(""))
                .or_else(|| s.strip_prefix("import "))
                .unwrap_or("");
            target
                .split(',')
                .any(|t| t.trim().split(['.', ' ']).next() == Some(module))
        })
    };
    if needs(f.skeleton) || needs(f.tests) || needs(f.reference) {
        Cause::MissingModuleEnv
    } else {
        Cause::MissingModuleModel
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SKELETON: &str = "import json\n\nclass Shop:\n    def __init__(self):\n        self.items = []\n\n    def add(self, item, qty):\n        \"\"\"Add.\"\"\"\n\n    def total(self):\n        \"\"\"Total.\"\"\"\n";
    const CODE: &str = "class Shop:\n    def __init__(self):\n        self.items = []\n\n    def add(self, item):\n        self.items.append(item)\n\n    def report(self):\n        return json.dumps(self.count)\n";

    fn fail<'a>(exc: &'a str, message: &'a str) -> Failure<'a> {
        Failure {
            exc_type: exc,
            message,
            code: CODE,
            skeleton: SKELETON,
            tests: "s = Shop()\ns.total()\ns.add('a', 2)\n",
            reference: "import json\nimport numpy as np\n",
            ..Failure::default()
        }
    }

    #[test]
    fn each_cause() {
        let c = |e, m| classify(&fail(e, m));
        assert_eq!(
            c("AttributeError", "'Shop' object has no attribute 'total'"),
            Some(Cause::MissingMethod)
        );
        assert_eq!(
            c("AttributeError", "'Shop' object has no attribute 'count'"),
            Some(Cause::UnassignedAttribute)
        );
        assert_eq!(
            c(
                "TypeError",
                "Shop.add() takes 2 positional arguments but 3 were given"
            ),
            Some(Cause::SignatureMismatch)
        );
        assert_eq!(
            c("NameError", "name 'json' is not defined"),
            Some(Cause::NotImported)
        );
        assert_eq!(
            c("ModuleNotFoundError", "No module named 'numpy'"),
            Some(Cause::MissingModuleEnv)
        );
        assert_eq!(
            c("builtins.ImportError", "No module named 'jwt'"),
            Some(Cause::MissingModuleModel)
        );
        assert_eq!(
            c("TypeError", "unsupported operand type(s)"),
            Some(Cause::Unexplained)
        );
        assert_eq!(c("AssertionError", "1 != 2"), None);
        assert_eq!(
            c(
                "AttributeError",
                "'Shop' object has no attribute 'count'. Did you mean: 'items'?"
            ),
            Some(Cause::UnassignedAttribute)
        );
        assert_eq!(
            c("AttributeError", "'int' object has no attribute 'total'"),
            Some(Cause::Unexplained)
        );
        assert_eq!(c("", ""), None);
    }

    #[test]
    fn helpers() {
        assert!(import_binds("from a.b import c as d, e", "d"));
        assert!(import_binds("import os.path", "os"));
        assert!(!import_binds("import os", "sys"));
        assert!(assigned("        self.count += 1", "count"));
        assert!(!assigned("        x = self.count == 1", "count"));
        assert_eq!(
            classify(&fail(
                "AttributeError",
                "AttributeError: 'Shop' object has no attribute 'total'"
            )),
            Some(Cause::MissingMethod)
        );
    }
}
