//! The split harness's side of a suite: which process runs it ([`Harness`]), where each file
//! goes ([`Placement`]), the two processes' specs, and how their sources reach Python.
//!
//! In split mode the benchmark's tests and every verdict live in a *runner* process that never
//! executes the code under test; the code lives in a *host* process reachable only through the
//! object protocol of `assets/harness/wire.py` (see docs/sandbox.md). The launcher lays the
//! suite's files out in three directories ([`SplitDirs`]): the tests (runner only), the code
//! (host only) and a scratch directory both share.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{CodeRegion, SuiteKind, SuiteSpec};

/// The runner of split mode: the wire, the runner's proxies, and the harness itself.
pub const SPLIT_RUNNER: &str = concat!(
    include_str!("../../../assets/harness/wire.py"),
    include_str!("../../../assets/harness/split.py"),
    include_str!("../../../assets/harness/runner.py"),
);

/// The host of split mode: the wire and the host.
pub const HOST: &str = concat!(
    include_str!("../../../assets/harness/wire.py"),
    include_str!("../../../assets/harness/host.py"),
);

/// What `python -c` runs: the harness's source comes after the spec, in chunks (one argument
/// holds at most 128 KiB, `MAX_ARG_STRLEN`), and this joins and runs them.
pub const BOOT: &str =
    "import sys;exec(compile(''.join(sys.argv[2:]),'<classlab-harness>','exec'))";

/// Largest chunk of source per argument (below `MAX_ARG_STRLEN`, 128 KiB).
const CHUNK: usize = 100_000;

/// `-c BOOT SPEC CHUNK...`: the arguments after the interpreter's own flags (`-s -P -B`) that
/// run `source` with `spec_json` as `sys.argv[1]`, whatever the source's size.
pub fn python_argv(source: &str, spec_json: &str) -> Vec<String> {
    let mut argv = vec!["-c".to_string(), BOOT.to_string(), spec_json.to_string()];
    let mut rest = source;
    while !rest.is_empty() {
        let mut end = rest.len().min(CHUNK);
        if end < rest.len() {
            // At a line's end when there is one; at a character boundary in any case.
            end = match rest[..end].rfind('\n') {
                Some(nl) => nl + 1,
                None => (0..=end)
                    .rev()
                    .find(|&i| rest.is_char_boundary(i))
                    .unwrap_or(0),
            };
            if end == 0 {
                end = rest.char_indices().nth(1).map_or(rest.len(), |(i, _)| i);
            }
        }
        argv.push(rest[..end].to_string());
        rest = &rest[end..];
    }
    argv
}

/// Which harness runs a suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Harness {
    /// One process runs the tests and the code under test (verdicts are forgeable by code
    /// written against the harness).
    #[default]
    Inproc,
    /// The tests run in a runner process, the code in a host process it cannot reach.
    Split,
}

/// Where a suite file goes in split mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// A test module: readable by the runner only.
    Tests,
    /// The code under test: readable by the host only.
    Code,
    /// Data both read and write (the scratch directory, both processes' cwd).
    Data,
}

/// The three directories of a split suite, as the processes see them inside the sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitDirs {
    pub tests: PathBuf,
    pub code: PathBuf,
    pub scratch: PathBuf,
}

/// The code module of ClassEval's one-module layout once split from its tests.
pub const GLOBALS_MODULE: &str = "code_module";

impl SuiteSpec {
    /// The suite for `harness`. ClassEval's one-module layout (code and tests concatenated in
    /// one file) becomes, for split mode, the code as its own module ([`GLOBALS_MODULE`]) and
    /// the tests as the test module whose globals are the code's top-level names; and back.
    pub fn with_harness(mut self, harness: Harness) -> SuiteSpec {
        if self.harness == harness {
            return self;
        }
        self.harness = harness;
        match harness {
            Harness::Split => self.split_one_module(),
            Harness::Inproc => self.join_one_module(),
        }
        self
    }

    fn test_file(&self) -> String {
        match &self.kind {
            SuiteKind::Unittest { module } => format!("{}.py", module.replace('.', "/")),
            SuiteKind::Pytest { file } => file.clone(),
        }
    }

    fn split_one_module(&mut self) {
        let test_file = self.test_file();
        let [
            CodeRegion {
                file,
                first: 1,
                last: Some(last),
            },
        ] = self.code.as_slice()
        else {
            return;
        };
        if *file != test_file || !self.code_modules.is_empty() {
            return;
        }
        let last = *last;
        let Some(i) = self.files.iter().position(|(rel, _)| *rel == test_file) else {
            return;
        };
        let text = std::mem::take(&mut self.files[i].1);
        let mut code = String::new();
        let mut tests = String::new();
        for (n, line) in text.split_inclusive('\n').enumerate() {
            match n + 1 {
                k if k <= last => code.push_str(line),
                k if k == last + 1 && line.trim().is_empty() => {} // the separating line
                _ => tests.push_str(line),
            }
        }
        let code_file = format!("{GLOBALS_MODULE}.py");
        self.files[i].1 = tests;
        self.files.insert(i, (code_file.clone(), code));
        self.code = vec![CodeRegion {
            file: code_file,
            first: 1,
            last: Some(last),
        }];
        self.globals_module = Some(GLOBALS_MODULE.to_string());
    }

    fn join_one_module(&mut self) {
        let Some(module) = self.globals_module.take() else {
            return;
        };
        let code_file = format!("{module}.py");
        let test_file = self.test_file();
        let Some(c) = self.files.iter().position(|(rel, _)| *rel == code_file) else {
            return;
        };
        let (_, code) = self.files.remove(c);
        let Some((_, tests)) = self.files.iter_mut().find(|(rel, _)| *rel == test_file) else {
            return;
        };
        let joined = SuiteSpec::unittest_one_module(&code, tests);
        *tests = joined.files[0].1.clone();
        self.code = joined.code;
    }

    /// Where `rel`, one of the suite's files, goes in split mode.
    pub fn placement(&self, rel: &str) -> Placement {
        if rel == self.test_file() {
            return Placement::Tests;
        }
        let module_file = |m: &String| format!("{}.py", m.replace('.', "/"));
        let is_code = self.code_modules.iter().any(|m| module_file(m) == rel)
            || self
                .globals_module
                .as_ref()
                .is_some_and(|m| module_file(m) == rel)
            || self.code.iter().any(|c| c.file == rel);
        if is_code {
            Placement::Code
        } else {
            Placement::Data
        }
    }

    /// What both harness modes' runners read from their spec: the kind, the test module or
    /// file, the code's modules and lines, the expected ids and the limits inside Python.
    pub fn harness_fields(&self) -> serde_json::Value {
        let mut v = serde_json::json!({
            "code_modules": self.code_modules,
            "code": self.code.iter().map(|c| serde_json::json!({
                "file": c.file, "first": c.first, "last": c.last,
            })).collect::<Vec<_>>(),
            "expected": self.expected,
            "test_timeout": self.limits.test_timeout.map(|d| d.as_secs_f64()),
            "class_timeout": self.limits.class_timeout.map(|d| d.as_secs_f64()),
            "import_timeout": self.limits.import_timeout.map(|d| d.as_secs_f64()),
            "allow_pytest": true,
            "eq_guard": true,
        });
        match &self.kind {
            SuiteKind::Unittest { module } => {
                v["kind"] = "unittest".into();
                v["test_module"] = module.clone().into();
            }
            SuiteKind::Pytest { file } => {
                v["kind"] = "pytest".into();
                v["test_file"] = file.clone().into();
            }
        }
        v
    }

    /// The runner's spec (`sys.argv[1]` of [`SPLIT_RUNNER`]): the harness fields, the
    /// directories, and the host socket's descriptor (5).
    pub fn runner_spec_json(&self, dirs: &SplitDirs) -> String {
        let mut v = self.harness_fields();
        v["harness"] = "split".into();
        v["tests_dir"] = dirs.tests.to_string_lossy().into_owned().into();
        v["code_dir"] = dirs.code.to_string_lossy().into_owned().into();
        v["scratch"] = dirs.scratch.to_string_lossy().into_owned().into();
        v["host_fd"] = 5.into();
        if let Some(m) = &self.globals_module {
            v["globals_module"] = m.clone().into();
        }
        v.to_string()
    }

    /// The host's spec (`sys.argv[1]` of [`HOST`]): where the code is, which modules to
    /// import, and nothing of the tests.
    pub fn host_spec_json(&self, dirs: &SplitDirs) -> String {
        let code = dirs.code.to_string_lossy().into_owned();
        let scratch = dirs.scratch.to_string_lossy().into_owned();
        let mut modules = self.code_modules.clone();
        modules.extend(self.globals_module.iter().cloned());
        serde_json::json!({
            "code_dir": code,
            "scratch": scratch,
            "code_modules": modules,
            "code": self.code.iter().map(|c| serde_json::json!({
                "file": c.file, "first": c.first, "last": c.last,
            })).collect::<Vec<_>>(),
            "sys_path": [code, scratch],
            "hash_seed": self.hash_seed.unwrap_or(0),
            "host_fd": 3,
            // The host imports the code as it starts, with the limit the runner gives that
            // import (the import allowance, else a test's).
            "import_timeout": self
                .limits
                .import_timeout
                .or(self.limits.test_timeout)
                .map(|d| d.as_secs_f64()),
        })
        .to_string()
    }
}

#[cfg(test)]
mod tests;
