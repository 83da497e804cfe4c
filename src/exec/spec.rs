//! What to run: a suite's files, its kind, the test ids the parent expects, and its limits.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::analysis::{self, parse::parse_tree};

mod split;
pub use split::{HOST, Harness, Placement, SPLIT_RUNNER, SplitDirs, python_argv};

/// Resource limits of one suite. `Default` suits ClassEval (CPU 10 s, wall 25 s).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    /// Wall clock for the whole suite; the process tree is killed at this limit.
    pub wall: Duration,
    /// CPU time per process (`RLIMIT_CPU`; SIGXCPU, then SIGKILL one second later).
    pub cpu: Duration,
    /// Per-test limit inside the harness (SIGALRM); the test errors with `Timeout` and the
    /// suite goes on. `None`: only the suite limits apply.
    pub test_timeout: Option<Duration>,
    /// Time budget of each test class inside the harness (ClassEval's evaluator: 5 s per
    /// class). A class that overruns it is abandoned — its remaining tests error with
    /// `Timeout` — and the next class runs. `None`: no class budget.
    pub class_timeout: Option<Duration>,
    /// Limit on importing the code and the test modules inside the harness (a heavy library
    /// loads at import: real-world classes import streamlit, torch …). `None`: imports are
    /// held to `test_timeout`, as before.
    #[serde(default)]
    pub import_timeout: Option<Duration>,
    /// Memory of the whole tree (memory cgroup; falls back to the address-space limit).
    pub memory_bytes: u64,
    /// Address space per process (`RLIMIT_AS`).
    pub address_space_bytes: u64,
    /// Processes and threads of the tree (pids cgroup; `RLIMIT_NPROC` when not root).
    pub pids: u32,
    /// Largest file the suite may write (`RLIMIT_FSIZE`).
    pub file_size: u64,
    /// Size of the private tmpfs that holds the work dir (when a mount namespace is available).
    pub disk_bytes: u64,
    /// Open descriptors per process (`RLIMIT_NOFILE`).
    pub open_files: u64,
    /// Bytes of stdout and of stderr kept; the rest is counted and dropped.
    pub output_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            wall: Duration::from_secs(25),
            cpu: Duration::from_secs(10),
            test_timeout: None,
            class_timeout: None,
            import_timeout: None,
            memory_bytes: 1 << 30,
            address_space_bytes: 4 << 30,
            pids: 64,
            file_size: 64 << 20,
            disk_bytes: 128 << 20,
            open_files: 256,
            output_bytes: 1 << 20,
        }
    }
}

impl Limits {
    /// Short limits for tests of the sandbox itself.
    pub fn quick() -> Self {
        Limits {
            wall: Duration::from_secs(5),
            cpu: Duration::from_secs(2),
            memory_bytes: 256 << 20,
            address_space_bytes: 1 << 30,
            pids: 32,
            file_size: 8 << 20,
            disk_bytes: 16 << 20,
            ..Limits::default()
        }
    }
}

/// How the suite's tests are run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SuiteKind {
    /// `unittest.TestCase` classes in `module` (a module name importable from the work dir,
    /// e.g. `test_classeval` for `test_classeval.py`). The classes run are those named in the
    /// expected ids.
    Unittest { module: String },
    /// A pytest-style test file (`tests/test_snippet_3.py`): run with pytest when the file
    /// imports it (pytest missing → an import failure marked as an environment error), with a
    /// built-in runner for plain `test_*` functions and `Test*` classes otherwise.
    Pytest { file: String },
}

/// Lines of a file that hold the code under test (1-based, inclusive; `last: None` = to the
/// end). Tracebacks report `code_line` only for frames in these regions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeRegion {
    pub file: String,
    pub first: usize,
    pub last: Option<usize>,
}

/// One suite to run in the sandbox.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteSpec {
    /// Files to create in the fresh work dir: (relative path, content).
    pub files: Vec<(String, String)>,
    pub kind: SuiteKind,
    /// Modules of the code under test, imported before the tests so that an import failure is
    /// reported as such (separate-module layouts, e.g. `snippet_3`). Empty for one-module
    /// layouts.
    pub code_modules: Vec<String>,
    /// Where the code under test is.
    pub code: Vec<CodeRegion>,
    /// Test ids the parent expects (`TestClass.test_method`, `test_function`), from the trusted
    /// test file. Ids not reported come back as `NotRun`.
    pub expected: Vec<String>,
    /// Ids whose skip or expected failure is legitimate (the test file itself marks them);
    /// any other skip or expected failure is reported as a failure.
    pub allowed_skips: Vec<String>,
    pub limits: Limits,
    /// `PYTHONHASHSEED`; `None` = 0 (deterministic set/dict ordering of str).
    pub hash_seed: Option<u32>,
    /// Which harness runs the suite (specs from before split mode: in-process).
    #[serde(default)]
    pub harness: Harness,
    /// Split mode, ClassEval's one-module layout: the code module whose top-level names are
    /// the test module's globals (see [`SuiteSpec::with_harness`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub globals_module: Option<String>,
}

impl SuiteSpec {
    /// ClassEval layout: the code and the test module concatenated into ONE module
    /// (`test_classeval.py`), as ClassEval's own harness does. The expected ids come from the
    /// test text alone.
    pub fn unittest_one_module(code: &str, tests: &str) -> SuiteSpec {
        let mut text = String::with_capacity(code.len() + tests.len() + 2);
        text.push_str(code);
        if !text.ends_with('\n') {
            text.push('\n');
        }
        let code_lines = text.lines().count();
        text.push('\n');
        text.push_str(tests);
        let (expected, allowed_skips) = unittest_expected(tests);
        SuiteSpec {
            files: vec![("test_classeval.py".into(), text)],
            kind: SuiteKind::Unittest {
                module: "test_classeval".into(),
            },
            code_modules: Vec::new(),
            code: vec![CodeRegion {
                file: "test_classeval.py".into(),
                first: 1,
                last: Some(code_lines),
            }],
            expected,
            allowed_skips,
            limits: Limits::default(),
            hash_seed: None,
            harness: Harness::Inproc,
            globals_module: None,
        }
    }

    /// Separate modules: `<code_module>.py` holds the code, `<test_module>.py` the unittest
    /// tests (which import the code module).
    pub fn unittest_separate(
        code_module: &str,
        code: &str,
        test_module: &str,
        tests: &str,
    ) -> SuiteSpec {
        let kind = SuiteKind::Unittest {
            module: test_module.into(),
        };
        Self::separate(
            code_module,
            code,
            &format!("{test_module}.py"),
            tests,
            kind,
            unittest_expected(tests),
        )
    }

    /// RealClassEval layout: `snippet_N.py` beside `tests/test_snippet_N.py` (which does
    /// `import snippet_N as module_0`).
    pub fn pytest_snippet(
        code_module: &str,
        code: &str,
        test_file: &str,
        tests: &str,
    ) -> SuiteSpec {
        let kind = SuiteKind::Pytest {
            file: test_file.into(),
        };
        Self::separate(
            code_module,
            code,
            test_file,
            tests,
            kind,
            pytest_expected(tests),
        )
    }

    /// The code as its own module beside a test file that imports it.
    fn separate(
        code_module: &str,
        code: &str,
        test_file: &str,
        tests: &str,
        kind: SuiteKind,
        (expected, allowed_skips): (Vec<String>, Vec<String>),
    ) -> SuiteSpec {
        SuiteSpec {
            files: vec![
                (format!("{code_module}.py"), code.to_string()),
                (test_file.to_string(), tests.to_string()),
            ],
            kind,
            code_modules: vec![code_module.into()],
            code: vec![CodeRegion {
                file: format!("{code_module}.py"),
                first: 1,
                last: None,
            }],
            expected,
            allowed_skips,
            limits: Limits::default(),
            hash_seed: None,
            harness: Harness::Inproc,
            globals_module: None,
        }
    }

    pub fn with_limits(mut self, limits: Limits) -> SuiteSpec {
        self.limits = limits;
        self
    }
}

/// A method decorator that may skip it (`unittest.skip`, `skipIf`, `skipUnless`) or expect it
/// to fail (`expectedFailure`, `pytest.mark.xfail`).
fn decorated_skip(decorators: &[String]) -> bool {
    decorators
        .iter()
        .any(|d| d.contains("skip") || d.contains("expectedFailure") || d.contains("xfail"))
}

/// Test ids of the `unittest.TestCase` classes of a test module (classes deriving, directly or
/// through another class of the module, from `TestCase`), and the ids the file itself skips.
pub fn unittest_expected(tests: &str) -> (Vec<String>, Vec<String>) {
    let module = analysis::parse_module(tests);
    let top: Vec<&analysis::Class> = module
        .classes
        .iter()
        .filter(|c| !c.qualified_name.contains('.'))
        .collect();
    let is_case = |c: &analysis::Class| c.bases.iter().any(|b| b.trim().ends_with("TestCase"));
    let mut cases: Vec<&str> = top
        .iter()
        .filter(|c| is_case(c))
        .map(|c| c.name.as_str())
        .collect();
    loop {
        let before = cases.len();
        for c in &top {
            if !cases.contains(&c.name.as_str())
                && c.bases.iter().any(|b| cases.contains(&b.trim()))
            {
                cases.push(c.name.as_str());
            }
        }
        if cases.len() == before {
            break;
        }
    }
    let by_name = |n: &str| top.iter().find(|c| c.name == n).copied();
    let mut ids = Vec::new();
    let mut skips = Vec::new();
    for c in top.iter().filter(|c| cases.contains(&c.name.as_str())) {
        // Own test methods first, then inherited ones (unittest sorts by name anyway).
        let mut names: Vec<(String, bool)> = Vec::new();
        let mut chain = vec![*c];
        let mut k = 0;
        while k < chain.len() {
            for b in &chain[k].bases {
                if let Some(base) = by_name(b.trim())
                    && !chain.iter().any(|x| x.name == base.name)
                {
                    chain.push(base);
                }
            }
            k += 1;
        }
        for cls in chain {
            for m in &cls.methods {
                if m.name.starts_with("test") && !names.iter().any(|(n, _)| *n == m.name) {
                    names.push((m.name.clone(), decorated_skip(&m.decorators)));
                }
            }
        }
        names.sort();
        for (n, skip) in names {
            let id = format!("{}.{}", c.name, n);
            if skip {
                skips.push(id.clone());
            }
            ids.push(id);
        }
    }
    (ids, skips)
}

/// Test ids of a pytest-style module: top-level `test*` functions and the `test*` methods of
/// top-level `Test*` classes, in source order; and the ids the file itself skips.
pub fn pytest_expected(tests: &str) -> (Vec<String>, Vec<String>) {
    let module = analysis::parse_module(tests);
    let mut ids = Vec::new();
    let mut skips = Vec::new();
    let Some(tree) = parse_tree(tests) else {
        return (ids, skips);
    };
    let src = tests.as_bytes();
    let root = tree.root_node();
    let mut cursor = root.walk();
    for child in root.named_children(&mut cursor) {
        let (def, decorators) = if child.kind() == "decorated_definition" {
            let decos: Vec<String> = {
                let mut c2 = child.walk();
                child
                    .named_children(&mut c2)
                    .filter(|n| n.kind() == "decorator")
                    .map(|n| n.utf8_text(src).unwrap_or("").to_string())
                    .collect()
            };
            match child.child_by_field_name("definition") {
                Some(d) => (d, decos),
                None => continue,
            }
        } else {
            (child, Vec::new())
        };
        let name = def
            .child_by_field_name("name")
            .and_then(|n| n.utf8_text(src).ok())
            .unwrap_or("");
        match def.kind() {
            "function_definition" if name.starts_with("test") => {
                if decorated_skip(&decorators) {
                    skips.push(name.to_string());
                }
                ids.push(name.to_string());
            }
            "class_definition" if name.starts_with("Test") => {
                if let Some(cls) = module.classes.iter().find(|c| c.qualified_name == name) {
                    if cls.method("__init__").is_some() {
                        continue; // pytest does not collect classes with __init__
                    }
                    for m in cls.method_names() {
                        if m.starts_with("test") {
                            ids.push(format!("{name}.{m}"));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    (ids, skips)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unittest_ids_with_inheritance_and_skips() {
        let src = "import unittest\n\nclass Helper:\n    def test_no(self): pass\n\n\
class ATest(unittest.TestCase):\n    def test_b(self): pass\n    def test_a(self): pass\n    \
def helper(self): pass\n\nclass BTest(ATest):\n    @unittest.skip('x')\n    def test_c(self): pass\n";
        let (ids, skips) = unittest_expected(src);
        assert_eq!(
            ids,
            [
                "ATest.test_a",
                "ATest.test_b",
                "BTest.test_a",
                "BTest.test_b",
                "BTest.test_c"
            ]
        );
        assert_eq!(skips, ["BTest.test_c"]);
    }

    #[test]
    fn pytest_ids() {
        let src = "import pytest\nimport snippet_1 as module_0\n\n@pytest.mark.xfail(strict=True)\n\
def test_case_0():\n    module_0.G()\n\ndef test_case_1():\n    pass\n\ndef helper():\n    pass\n\n\
class TestThing:\n    def test_x(self):\n        pass\n\nclass TestInit:\n    def __init__(self): pass\n    \
def test_y(self): pass\n\n@pytest.mark.skip(reason='no')\ndef test_skipped():\n    pass\n";
        let (ids, skips) = pytest_expected(src);
        assert_eq!(
            ids,
            [
                "test_case_0",
                "test_case_1",
                "TestThing.test_x",
                "test_skipped"
            ]
        );
        assert_eq!(
            skips,
            ["test_case_0", "test_skipped"],
            "a skip or an expected failure the file asks for"
        );
    }

    #[test]
    fn one_module_layout_marks_code_lines() {
        let spec = SuiteSpec::unittest_one_module("class A:\n    pass\n", "import unittest\n");
        assert_eq!(spec.code[0].last, Some(2));
        assert_eq!(spec.files[0].1, "class A:\n    pass\n\nimport unittest\n");
    }
}
