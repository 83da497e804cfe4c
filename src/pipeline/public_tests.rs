//! The public tests TDD shows the model and runs for one method (domain.md §1, §2):
//! the dataset's `public_tests` when it has them, else a TestCase made from the `>>>`
//! examples of the method's docstring, or the first K tests of its private test class.
//!
//! A fragment follows the dataset convention: optional import lines, then TestCase classes,
//! without `import unittest` ([`PublicTests::runnable`] adds it). It is run after the code
//! under test, in the same module.

use std::fmt;
use std::str::FromStr;

use crate::analysis::parse::{Class, parse_module};
use crate::analysis::test_classes;
use crate::model::Task;

/// Where public tests come from when the dataset has none for a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PublicTestsMode {
    /// Only the dataset's public tests.
    Dataset,
    /// The docstring's `>>>` examples as a TestCase.
    #[default]
    Doctest,
    /// The first K test methods of the method's private test class (the run has then seen
    /// part of its private tests).
    Split(usize),
}

impl FromStr for PublicTestsMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim().to_ascii_lowercase();
        match t.as_str() {
            "dataset" => Ok(PublicTestsMode::Dataset),
            "doctest" | "doctests" => Ok(PublicTestsMode::Doctest),
            _ => match t.strip_prefix("split:").map(|k| k.trim().parse::<usize>()) {
                Some(Ok(k)) if k > 0 => Ok(PublicTestsMode::Split(k)),
                Some(_) => Err(format!("`{s}`: K in split:K must be a whole number ≥ 1")),
                None => Err(format!(
                    "unknown public-tests mode `{s}`; expected dataset, doctest or split:K"
                )),
            },
        }
    }
}

impl fmt::Display for PublicTestsMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PublicTestsMode::Dataset => f.write_str("dataset"),
            PublicTestsMode::Doctest => f.write_str("doctest"),
            PublicTestsMode::Split(k) => write!(f, "split:{k}"),
        }
    }
}

/// The public tests of one method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicTests {
    /// A unittest module fragment: optional imports, then TestCase class(es).
    pub code: String,
    /// The (first) TestCase class.
    pub class_name: String,
    /// Test method names, in source order.
    pub test_names: Vec<String>,
    /// `dataset`, `doctest` or `split`.
    pub source: &'static str,
    /// True when these are private tests: results on the private suite are then not blind.
    pub seen_private: bool,
    /// What was left out and why (examples with syntax errors …).
    pub notes: Vec<String>,
}

impl PublicTests {
    /// The fragment with `import unittest` in front: what to append to the code under test.
    pub fn runnable(&self) -> String {
        format!("import unittest\n\n{}", self.code)
    }

    /// The test ids a run reports (`Class.test_name`), as the sandbox expects them.
    pub fn ids(&self) -> Vec<String> {
        crate::exec::unittest_expected(&self.runnable()).0
    }

    /// These tests without the ones whose id (`Class.test_name`) `drop` accepts: each cut
    /// from its line to the next line of content. `None` when no test is left.
    pub fn without(&self, drop: &dyn Fn(&str) -> bool) -> Option<PublicTests> {
        let module = parse_module(&self.code);
        let src = self.code.as_str();
        let mut cuts: Vec<(usize, usize)> = Vec::new();
        for class in &module.classes {
            for m in class.methods.iter().filter(|m| m.name.starts_with("test")) {
                if drop(&format!("{}.{}", class.name, m.name)) {
                    let end =
                        next_content_line(src, m.end_byte).min(class.end_byte.max(m.end_byte));
                    cuts.push((line_start(src, m.start_byte), end.max(m.end_byte)));
                }
            }
        }
        cuts.sort_unstable();
        let mut code = String::new();
        let mut at = 0;
        for (from, to) in cuts {
            if from < at {
                continue;
            }
            code.push_str(&src[at..from]);
            at = to;
        }
        code.push_str(&src[at..]);
        // A class left with no test at all gets a body that still parses.
        let mut tests = PublicTests {
            code: code.trim_end().to_string() + "\n",
            test_names: Vec::new(),
            ..self.clone()
        };
        tests.code = with_bodies(&tests.code);
        let kept: Vec<String> = tests.ids();
        if kept.is_empty() {
            return None;
        }
        tests.test_names = kept
            .iter()
            .filter_map(|id| id.rsplit('.').next().map(str::to_string))
            .collect();
        Some(tests)
    }
}

/// Give a class whose body is now empty (or only a docstring was left out) a `pass`, so
/// the fragment still compiles.
fn with_bodies(code: &str) -> String {
    let module = parse_module(code);
    let mut out = code.to_string();
    // Back to front, so earlier offsets stay valid.
    for class in module.classes.iter().rev() {
        let body = code.get(class.header_byte..class.end_byte).unwrap_or("");
        let after_colon = body.find(':').map(|i| &body[i + 1..]).unwrap_or("");
        if after_colon.trim().is_empty() {
            let at = class.end_byte.min(out.len());
            out.insert_str(at, "\n    pass");
        }
    }
    out
}

/// The public tests of `method`: the dataset's when present (whatever the mode), else as
/// `mode` says. `None` when there is nothing to run.
pub fn public_tests(task: &Task, method: &str, mode: PublicTestsMode) -> Option<PublicTests> {
    let m = task.method(method);
    if let Some(code) = m.and_then(|m| m.public_tests.as_deref())
        && let Some(tests) = from_dataset(code)
    {
        return Some(tests);
    }
    match mode {
        PublicTestsMode::Dataset => None,
        PublicTestsMode::Doctest => from_doctests(task, method),
        PublicTestsMode::Split(k) => from_private(task, method, k),
    }
}

fn from_dataset(code: &str) -> Option<PublicTests> {
    let module = parse_module(code);
    let classes: Vec<_> = test_classes(&module)
        .into_iter()
        .filter(|c| !c.tests.is_empty())
        .collect();
    let first = classes.first()?;
    Some(PublicTests {
        code: code.trim_end().to_string() + "\n",
        class_name: first.name.clone(),
        test_names: classes.iter().flat_map(|c| c.tests.clone()).collect(),
        source: "dataset",
        seen_private: false,
        notes: Vec::new(),
    })
}

/// The method's private test class cut to its first `k` test methods (setUp, tearDown and
/// helpers kept), with the test module's imports other than `unittest` in front.
fn from_private(task: &Task, method: &str, k: usize) -> Option<PublicTests> {
    if k == 0 {
        return None;
    }
    private_selection(task, method, &|i, _| i < k).ok()
}

/// The method's private test class and the source it was found in: its own `test_code`,
/// else the class of that name in the whole test module.
fn private_class(task: &Task, method: &str) -> Option<(String, Class)> {
    let m = task.method(method)?;
    // Without its own source, the class is looked up by name in the whole test module.
    let source = match (&m.test_class, m.test_code.trim().is_empty()) {
        (_, false) => &m.test_code,
        (Some(_), true) => &task.test_module,
        (None, true) => return None,
    };
    let module = parse_module(source);
    let class = match &m.test_class {
        Some(name) => module.class(name),
        None => module
            .classes
            .iter()
            .find(|c| !c.qualified_name.contains('.')),
    }?
    .clone();
    Some((source.clone(), class))
}

/// The test methods (`test…`) of `method`'s private test class, in source order; `None`
/// when the method has no test class.
pub fn private_test_names(task: &Task, method: &str) -> Option<Vec<String>> {
    let (_, class) = private_class(task, method)?;
    Some(
        class
            .methods
            .iter()
            .filter(|d| d.name.starts_with("test"))
            .map(|d| d.name.clone())
            .collect(),
    )
}

/// The method's private test class with only the test methods `keep` accepts (by their
/// index among the test methods, and name), setUp, tearDown and helpers kept, with the test
/// module's imports other than `unittest` in front. Errors say why there is nothing to keep.
pub fn private_selection(
    task: &Task,
    method: &str,
    keep: &dyn Fn(usize, &str) -> bool,
) -> Result<PublicTests, String> {
    if task.method(method).is_none() {
        return Err(format!("no method named {method}"));
    }
    let (source, class) =
        private_class(task, method).ok_or_else(|| format!("{method} has no private test class"))?;
    let tests: Vec<_> = class
        .methods
        .iter()
        .filter(|d| d.name.starts_with("test"))
        .collect();
    if tests.is_empty() {
        return Err(format!(
            "the test class {} of {method} has no test methods",
            class.name
        ));
    }
    let kept: Vec<_> = tests
        .iter()
        .enumerate()
        .filter(|(i, t)| keep(*i, &t.name))
        .map(|(_, t)| *t)
        .collect();
    if kept.is_empty() {
        return Err(format!("no test of {method} chosen"));
    }
    let source = source.as_str();
    let start = line_start(source, class.start_byte);
    let end = class.end_byte.min(source.len());
    let mut text = String::new();
    let mut at = start;
    // Cut each dropped test from its line start to the next kept line.
    for dropped in tests
        .iter()
        .filter(|t| !kept.iter().any(|k| std::ptr::eq(*k, **t)))
    {
        let from = line_start(source, dropped.start_byte);
        let to = next_content_line(source, dropped.end_byte).min(end);
        if from < at || to > end {
            continue;
        }
        text.push_str(&source[at..from]);
        at = to;
    }
    text.push_str(source.get(at..end).unwrap_or(""));
    let text = text.trim_end().to_string() + "\n";
    let imports: Vec<String> = parse_module(&task.test_module)
        .imports
        .into_iter()
        .filter(|i| i.split_whitespace().collect::<Vec<_>>() != ["import", "unittest"])
        .collect();
    let code = if imports.is_empty() {
        text
    } else {
        format!("{}\n\n\n{text}", imports.join("\n"))
    };
    Ok(PublicTests {
        code,
        class_name: class.name.clone(),
        test_names: kept.iter().map(|t| t.name.clone()).collect(),
        source: "split",
        seen_private: true,
        notes: Vec::new(),
    })
}

/// The docstring's `>>>` examples of `method` as a TestCase (`None` when it has none that
/// make a test): what [`PublicTestsMode::Doctest`] uses.
pub fn doctest_public_tests(task: &Task, method: &str) -> Option<PublicTests> {
    from_doctests(task, method)
}

fn line_start(src: &str, at: usize) -> usize {
    let at = at.min(src.len());
    src[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// The start of the first non-blank line after the line holding `at` (or the end).
fn next_content_line(src: &str, at: usize) -> usize {
    let at = at.min(src.len());
    let mut pos = src[at..].find('\n').map_or(src.len(), |i| at + i + 1);
    while pos < src.len() {
        let end = src[pos..].find('\n').map_or(src.len(), |i| pos + i + 1);
        if !src[pos..end].trim().is_empty() {
            break;
        }
        pos = end;
    }
    pos
}

mod doctest;

use doctest::from_doctests;

#[cfg(test)]
mod tests;
