//! The task linter: the static part of the ClassEval issue taxonomy (domain.md §6).
//!
//! Pure (no I/O): a [`Task`] in, [`Finding`]s out. Every rule has a code, a fixed severity and
//! a line in [`RULES`]; the families live one per file. Precision matters more than recall: a
//! rule fires only where the defect is decidable from the code, and a rule that is often
//! arguable is `info`, never `error`.

mod deps;
mod docfields;
mod docstrings;
mod docstyle;
mod doctests;
mod duplicates;
mod implementation;
mod rules;
mod skeleton;
mod syntax;
mod testnames;
mod tests;

use serde::Serialize;
use tree_sitter::Tree;

use super::parse::{Class, parse_tree};
use super::{TaskAnalysis, analyze_task};
use crate::model::Task;

pub use rules::{RULES, Rule, rule};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The task is wrong or misleading as it stands; a reviewer must fix or explain it.
    Error,
    /// Very likely a defect, but not one that breaks the task.
    Warning,
    /// Style the cleaned benchmark (ClassEval-TDD) wants; arguable case by case.
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// Which text of the task a finding's line points into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    Skeleton,
    Solution,
    Tests,
    /// The method's public tests (validation's findings; the linter does not read them).
    #[serde(rename = "public_tests")]
    PublicTests,
}

impl Part {
    pub fn as_str(self) -> &'static str {
        match self {
            Part::Skeleton => "skeleton",
            Part::Solution => "solution",
            Part::Tests => "tests",
            Part::PublicTests => "public_tests",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub task_id: String,
    pub code: &'static str,
    pub severity: Severity,
    /// The target method concerned; `None` for task-level findings.
    pub method: Option<String>,
    pub part: Part,
    /// 1-based line in the part's text (`skeleton`, `solution_code` or `test`).
    pub line: Option<usize>,
    pub message: String,
    /// The mechanical fix, when there is one.
    pub fix: Option<String>,
}

/// Everything the rule families share about one task: the analysis and the three trees.
pub(crate) struct Ctx<'a> {
    pub task: &'a Task,
    pub an: TaskAnalysis,
    /// The class of the skeleton (by the task's class name), when it has one.
    pub sk_class: Option<Class>,
    pub sk_tree: Option<Tree>,
    pub sol_tree: Option<Tree>,
    pub test_tree: Option<Tree>,
    /// Set by the skeleton rules: the skeleton parses and holds the class, so the rules that
    /// read it (docstrings) can run.
    pub skeleton_ok: bool,
    findings: Vec<Finding>,
}

impl<'a> Ctx<'a> {
    fn new(task: &'a Task) -> Self {
        let an = analyze_task(task);
        let sk_class = an.skeleton.class(&task.class_name).cloned();
        Ctx {
            sk_class,
            sk_tree: parse_tree(&task.skeleton),
            sol_tree: parse_tree(&task.solution),
            test_tree: parse_tree(&task.test_module),
            an,
            task,
            skeleton_ok: false,
            findings: Vec::new(),
        }
    }

    /// The source text of a part.
    pub fn text(&self, part: Part) -> &'a str {
        match part {
            Part::Skeleton => &self.task.skeleton,
            Part::Solution => &self.task.solution,
            Part::Tests => &self.task.test_module,
            Part::PublicTests => "",
        }
    }

    /// Record a finding; its severity is the rule's.
    pub fn emit(&mut self, code: &'static str, at: At<'_>, message: String, fix: Option<String>) {
        let severity = rule(code).map_or(Severity::Warning, |r| r.severity);
        self.findings.push(Finding {
            task_id: self.task.id.clone(),
            code,
            severity,
            method: at.method.map(str::to_string),
            part: at.part,
            line: at.line,
            message,
            fix,
        });
    }

    /// True when the task names `name` as a target method.
    pub fn is_target(&self, name: &str) -> bool {
        if self.task.methods.is_empty() {
            self.an.solution_methods.iter().any(|m| m == name)
        } else {
            self.task.method(name).is_some()
        }
    }

    /// Target method names: the dataset's list, else the reference class's methods.
    pub fn targets(&self) -> Vec<String> {
        if self.task.methods.is_empty() {
            self.an.solution_methods.clone()
        } else {
            self.task.methods.iter().map(|m| m.name.clone()).collect()
        }
    }
}

/// Where a finding points.
#[derive(Debug, Clone, Copy)]
pub(crate) struct At<'m> {
    pub part: Part,
    pub method: Option<&'m str>,
    pub line: Option<usize>,
}

impl<'m> At<'m> {
    pub fn new(part: Part, method: Option<&'m str>, line: Option<usize>) -> Self {
        At { part, method, line }
    }
}

/// Lint one task with every rule. Findings come sorted by part, line and code.
pub fn lint_task(task: &Task) -> Vec<Finding> {
    let mut ctx = Ctx::new(task);
    implementation::check(&mut ctx);
    skeleton::check(&mut ctx);
    docstrings::check(&mut ctx);
    tests::check(&mut ctx);
    deps::check(&mut ctx);
    let mut findings = ctx.findings;
    findings.sort_by(|a, b| {
        (a.part, a.line, a.code, &a.method).cmp(&(b.part, b.line, b.code, &b.method))
    });
    findings.dedup();
    findings
}

#[cfg(test)]
pub(crate) mod testutil;
