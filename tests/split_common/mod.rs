//! Running suites under the split harness for `tests/split_*.rs`: through the dev driver
//! (`tests/harness/driver.py`: runner and host as two processes joined by a socket pair,
//! classlab's result channel emulated, no sandbox) until the launcher starts the two processes
//! in the sandbox. The suites are classlab's own (`SuiteSpec::with_harness(Split)`); the code
//! under test is this repository's attack code, never a model's.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use classlab::exec::{Harness, SuiteSpec};
use classlab::model::Task;
use serde_json::Value;

use crate::common;

/// What a suite's run reported.
#[derive(Debug)]
pub struct Run {
    /// Test id -> outcome (`pass`, `fail`, `error`, `tampered`, ...), first record of each.
    pub outcomes: BTreeMap<String, String>,
    pub records: Vec<Value>,
    /// (source, detail) of every evidence item.
    pub evidence: Vec<(String, String)>,
    pub stderr: String,
}

impl Run {
    pub fn passes(&self) -> usize {
        self.outcomes.values().filter(|o| *o == "pass").count()
    }

    pub fn outcome(&self, id: &str) -> &str {
        self.outcomes
            .get(id)
            .map(String::as_str)
            .unwrap_or_else(|| panic!("no {id} in {:#?}", self.records))
    }

    pub fn record(&self, id: &str) -> &Value {
        self.records
            .iter()
            .find(|r| r["t"] == "test" && r["id"] == id)
            .unwrap_or_else(|| panic!("no {id} in {:#?}", self.records))
    }

    pub fn evidence_mentions(&self, source: &str, needle: &str) -> bool {
        self.evidence
            .iter()
            .any(|(s, d)| s == source && d.contains(needle))
    }

    pub fn import_failure(&self) -> Option<&Value> {
        self.records.iter().find(|r| r["t"] == "import")
    }
}

/// Run `spec` (converted to split mode) with the ClassEval environment's interpreter.
pub fn run_split(spec: &SuiteSpec) -> Run {
    run_with(
        spec.clone().with_harness(Harness::Split),
        false,
        "classeval",
    )
}

/// Run `spec` in split mode with RealClassEval's interpreter.
pub fn run_split_realclasseval(spec: &SuiteSpec) -> Run {
    run_with(
        spec.clone().with_harness(Harness::Split),
        false,
        "realclasseval",
    )
}

/// Run `spec` in process (the same driver), for comparison.
pub fn run_inproc(spec: &SuiteSpec) -> Run {
    run_with(
        spec.clone().with_harness(Harness::Inproc),
        true,
        "classeval",
    )
}

fn run_with(spec: SuiteSpec, inproc: bool, env: &str) -> Run {
    let python = common::project_python(env);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("suite.json");
    std::fs::write(&file, serde_json::to_vec(&spec).unwrap()).unwrap();
    let mut cmd = std::process::Command::new(python);
    cmd.arg(root.join("tests/harness/driver.py"))
        .arg(&file)
        .arg("--json")
        .stdin(std::process::Stdio::null());
    if inproc {
        cmd.arg("--inproc");
    }
    let out = cmd.output().expect("the dev driver runs");
    assert!(
        out.status.success(),
        "driver failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("driver JSON");
    let records: Vec<Value> = v["records"].as_array().cloned().unwrap_or_default();
    let mut outcomes = BTreeMap::new();
    let mut evidence = Vec::new();
    for r in &records {
        match r["t"].as_str() {
            Some("test") => {
                let id = r["id"].as_str().unwrap_or("").to_string();
                let o = r["o"].as_str().unwrap_or("").to_string();
                outcomes.entry(id).or_insert(o);
            }
            Some("evidence") => {
                let source = r["source"].as_str().unwrap_or("").to_string();
                for item in r["items"].as_array().into_iter().flatten() {
                    evidence.push((
                        source.clone(),
                        item["detail"].as_str().unwrap_or("").to_string(),
                    ));
                }
            }
            _ => {}
        }
    }
    let stderr = v["stderr"].as_str().unwrap_or("").to_string();
    assert!(
        !stderr.contains("classlab harness error"),
        "the runner itself failed:\n{stderr}"
    );
    Run {
        outcomes,
        records,
        evidence,
        stderr,
    }
}

/// A ClassEval task of the shared data.
pub fn classeval_task(id: &str) -> Task {
    static DS: OnceLock<classlab::dataset::Dataset> = OnceLock::new();
    let ds = DS.get_or_init(|| {
        classlab::dataset::load(Some(&common::classeval_json())).expect("ClassEval loads")
    });
    ds.tasks
        .iter()
        .find(|t| t.id == id)
        .unwrap_or_else(|| panic!("no task {id}"))
        .clone()
}

/// A RealClassEval task of the shared slice (`post_cut-off` or `csn`).
pub fn realclasseval_task(slice: &str, id: &str) -> Task {
    let dir = common::shared_data(&format!("realclasseval/{slice}"));
    let ds = classlab::dataset::load(Some(&dir)).expect("RealClassEval loads");
    ds.tasks
        .into_iter()
        .find(|t| t.id == id)
        .unwrap_or_else(|| panic!("no task {id}"))
}

/// The suite `classlab eval` runs for `code` on `task`.
pub fn suite(task: &Task, code: &str) -> SuiteSpec {
    classlab::pipeline::eval::suite_for(task, code, std::time::Duration::from_secs(5), None)
}

/// The attack's run, checked to score no better than the task's honest skeleton.
pub fn no_better(task_id: &str, attack: &str) -> Run {
    let task = classeval_task(task_id);
    let honest = run_split(&suite(&task, &task.skeleton));
    let forged = run_split(&suite(&task, attack));
    assert!(
        forged.passes() <= honest.passes(),
        "{task_id}: the attack passes {} tests, the honest skeleton {}:\n{:#?}",
        forged.passes(),
        honest.passes(),
        forged.outcomes
    );
    forged
}
