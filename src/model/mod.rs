//! The task model every other module speaks: one benchmark task, whatever file it came from.
//!
//! Field names follow ClassEval's where they exist, so our own dataset format can be a plain
//! superset of theirs (see `dataset::classlab`).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

/// method → the methods it depends on (A → {B, …} when A depends on B).
pub type DepMap = BTreeMap<String, BTreeSet<String>>;

/// How a class was generated (domain.md §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// The whole class in one completion (ClassEval's `class_H`).
    Holistic,
    /// Method by method, each prompt holding the class so far (`method_I`).
    Incremental,
    /// Each method alone, assembled at the end (`method_C`).
    Compositional,
    /// Dependency-aware, test-driven, method by method with reflective repair.
    Tdd,
}

impl Strategy {
    /// From a ClassEval output file name (`…_class_H_…`, `…_method_I_…`, `…_method_C_…`).
    pub fn from_file_name(name: &str) -> Option<Strategy> {
        [
            ("class_H", Strategy::Holistic),
            ("method_I", Strategy::Incremental),
            ("method_C", Strategy::Compositional),
        ]
        .into_iter()
        .find(|(code, _)| name.contains(code))
        .map(|(_, s)| s)
    }

    /// From a name as users and files write it (`holistic`, `H`, `class_H`, `tdd` …).
    pub fn parse(s: &str) -> Option<Strategy> {
        match s.to_ascii_lowercase().as_str() {
            "holistic" | "h" | "class_h" => Some(Strategy::Holistic),
            "incremental" | "i" | "method_i" => Some(Strategy::Incremental),
            "compositional" | "c" | "method_c" => Some(Strategy::Compositional),
            "tdd" => Some(Strategy::Tdd),
            _ => None,
        }
    }

    /// ClassEval's one-letter code (`T` for TDD, which ClassEval does not have).
    pub fn letter(self) -> char {
        match self {
            Strategy::Holistic => 'H',
            Strategy::Incremental => 'I',
            Strategy::Compositional => 'C',
            Strategy::Tdd => 'T',
        }
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Strategy::Holistic => "holistic",
            Strategy::Incremental => "incremental",
            Strategy::Compositional => "compositional",
            Strategy::Tdd => "tdd",
        })
    }
}

/// One class-level benchmark task.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Task {
    pub id: String,
    pub class_name: String,
    /// The class docstring as the dataset gives it (ClassEval keeps the quotes and indentation).
    pub description: String,
    /// Import lines, one per entry (`import x`, `from a import b`).
    pub imports: Vec<String>,
    /// The given `class X:` header with its implemented `__init__`.
    pub constructor: String,
    /// Instance fields the constructor sets (`self.x`).
    pub fields: Vec<String>,
    /// Full skeleton: imports, class docstring, `__init__`, every target method without a body.
    pub skeleton: String,
    /// The reference class.
    pub solution: String,
    /// The whole (private) test module.
    pub test_module: String,
    /// Names of the test classes in `test_module`, as the dataset lists them.
    pub test_classes: Vec<String>,
    /// Target methods in skeleton order (`__init__` excluded: it is given).
    pub methods: Vec<Method>,
    /// How the code under test and the tests are laid out for a run.
    #[serde(default)]
    pub test_layout: TestLayout,
    pub provenance: Provenance,
}

/// How a task's tests meet the code under test.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TestLayout {
    /// ClassEval's way: the code and the unittest module are run as one module.
    #[default]
    Concatenated,
    /// The tests are a separate (pytest) file that imports the code as a module:
    /// RealClassEval's `test_snippet_N.py` does `import snippet_N as module_0`.
    Module {
        /// File name of the code, without `.py` (`snippet_24`).
        code_module: String,
        /// File name of the tests (`test_snippet_24.py`).
        test_file: String,
    },
}

/// One target method of a task.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Method {
    pub name: String,
    /// Signature and docstring, as in the skeleton.
    pub description: String,
    /// The test class that exercises this method, if the dataset names one.
    pub test_class: Option<String>,
    /// Source of that test class.
    pub test_code: String,
    /// The reference implementation of this method alone.
    pub solution: String,
    /// The dataset's human annotation; `None` when the dataset has none.
    pub annotated: Option<AnnotatedDeps>,
    /// Public (guidance) tests: a unittest module fragment with one TestCase, or `None`.
    pub public_tests: Option<String>,
}

/// ClassEval's `dependencies` object.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct AnnotatedDeps {
    pub standalone: bool,
    pub lib: Vec<String>,
    pub fields: Vec<String>,
    pub methods: Vec<String>,
}

/// Where a task came from, carried through curation and export.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Provenance {
    /// Benchmark or corpus name, e.g. `ClassEval`, `classlab-sample`.
    pub source: String,
    /// The id in the original benchmark, when this task was derived from one.
    pub original_id: Option<String>,
    /// Digest of the original task (hex SHA-256 of its canonical JSON), when known.
    pub original_digest: Option<String>,
    /// Free-form provenance notes (reviewer, date, findings resolved …).
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// A method name as ClassEval's test classes spell it in `<Class>Test<Method>`:
/// `add_grade` → `AddGrade`, `__normalize` → `Normalize`.
pub fn camel_case(name: &str) -> String {
    name.split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

impl Task {
    pub fn method(&self, name: &str) -> Option<&Method> {
        self.methods.iter().find(|m| m.name == name)
    }

    /// The class description as plain text: quotes and common indentation removed.
    pub fn description_text(&self) -> String {
        let t = self.description.trim();
        let t = t
            .trim_start_matches("\"\"\"")
            .trim_end_matches("\"\"\"")
            .trim_start_matches("'''")
            .trim_end_matches("'''");
        t.lines()
            .map(str::trim)
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
            .to_string()
    }

    pub fn method_names(&self) -> Vec<&str> {
        self.methods.iter().map(|m| m.name.as_str()).collect()
    }

    /// Whether the task has a test to run (a `def test…` in its test module): a class exported
    /// from a corpus has none, and nothing can judge code written for it.
    pub fn has_tests(&self) -> bool {
        !self.test_module.trim().is_empty() && self.test_count() > 0
    }

    /// Number of test methods (`def test…`) in the test module, counted textually so it needs
    /// no parse; analysis gives the exact per-class numbers.
    pub fn test_count(&self) -> usize {
        self.test_module
            .lines()
            .filter(|l| {
                let t = l.trim_start();
                t.starts_with("def test") || t.starts_with("async def test")
            })
            .count()
    }
}

/// Compare strings with digit runs as numbers, as task ids should sort: `T_2 < T_10`.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let (mut a, mut b) = (a, b);
    loop {
        match (a.chars().next(), b.chars().next()) {
            (None, None) => return std::cmp::Ordering::Equal,
            (None, Some(_)) => return std::cmp::Ordering::Less,
            (Some(_), None) => return std::cmp::Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let da = a.find(|c: char| !c.is_ascii_digit()).unwrap_or(a.len());
                let db = b.find(|c: char| !c.is_ascii_digit()).unwrap_or(b.len());
                let (na, nb) = (
                    a[..da].trim_start_matches('0'),
                    b[..db].trim_start_matches('0'),
                );
                let ord = na.len().cmp(&nb.len()).then_with(|| na.cmp(nb));
                if ord != std::cmp::Ordering::Equal {
                    return ord;
                }
                a = &a[da..];
                b = &b[db..];
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(&y);
                }
                a = &a[x.len_utf8()..];
                b = &b[y.len_utf8()..];
            }
        }
    }
}

pub mod chat;
pub mod index;
pub mod results;

/// What every report of an in-process session says about its verdicts (sessions record which
/// harness judged them; those from before the split harness ran in-process).
pub const INPROC_CAVEAT: &str = "in-process harness: the code under test runs in the process \
     that judges it, so code written against the harness can forge its verdicts \
     (docs/sandbox.md); `--harness split` keeps the judging out of its reach";
pub use index::TaskIndex;
pub use results::{Origin, Outcome, SuiteFailure, SuiteResult, TestResult};

#[cfg(test)]
mod tests {
    #[test]
    fn camel_case_as_classeval_names_test_classes() {
        assert_eq!(super::camel_case("add_grade"), "AddGrade");
        assert_eq!(super::camel_case("__normalize"), "Normalize");
        assert_eq!(super::camel_case(""), "");
    }
}
