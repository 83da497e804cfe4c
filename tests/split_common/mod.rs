//! Running suites under the split harness for `tests/split_*.rs`: through the real sandbox
//! (`Sandbox::run` with `Harness::Split`: runner and host as two processes of the suite's
//! sandbox, distinct uids, the host one PID namespace down), cold, or warm when the test
//! binary's name ends in `_warm` (`split_attacks_warm.rs` includes `split_attacks.rs`). The
//! suites are classlab's own (`SuiteSpec::with_harness(Split)`); the code under test is this
//! repository's attack code, never a model's.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::OnceLock;

use classlab::exec::{Harness, Sandbox, SandboxOptions, SuiteSpec};
use classlab::model::Task;
use classlab::model::results::{SuiteResult, TestResult};

use super::common;

/// What a suite's run reported.
#[derive(Debug)]
pub struct Run {
    /// Test id -> outcome as the harness names it (`pass`, `fail`, `error`, `tampered`, ...).
    pub outcomes: BTreeMap<String, String>,
    pub result: SuiteResult,
    /// (source, detail) of every evidence item.
    pub evidence: Vec<(String, String)>,
}

impl Run {
    pub fn passes(&self) -> usize {
        self.outcomes.values().filter(|o| *o == "pass").count()
    }

    pub fn outcome(&self, id: &str) -> &str {
        self.outcomes
            .get(id)
            .map(String::as_str)
            .unwrap_or_else(|| panic!("no {id} in {:#?}", self.result))
    }

    pub fn record(&self, id: &str) -> &TestResult {
        self.result
            .tests
            .iter()
            .find(|t| t.id == id)
            .unwrap_or_else(|| panic!("no {id} in {:#?}", self.result))
    }

    pub fn evidence_mentions(&self, source: &str, needle: &str) -> bool {
        self.evidence
            .iter()
            .any(|(s, d)| s == source && d.contains(needle))
    }
}

/// Warm when the test binary is a `_warm` one.
pub fn warm() -> bool {
    module_path!()
        .split("::")
        .next()
        .is_some_and(|c| c.ends_with("_warm"))
}

/// The sandbox of the project's Python environment `env`, cold or warm as [`warm`] says.
fn sandbox(env: &str) -> &'static Sandbox {
    static CLASSEVAL: OnceLock<Sandbox> = OnceLock::new();
    static REALCLASSEVAL: OnceLock<Sandbox> = OnceLock::new();
    let cell = match env {
        "classeval" => &CLASSEVAL,
        _ => &REALCLASSEVAL,
    };
    cell.get_or_init(|| {
        let sb = Sandbox::with_options(SandboxOptions {
            python: Some(common::project_python(env)),
            warm: warm(),
            ..SandboxOptions::default()
        })
        .expect("sandbox available");
        assert_eq!(sb.isolation().warm, warm(), "{}", sb.isolation());
        sb
    })
}

/// Run `spec` (converted to split mode) with the ClassEval environment's interpreter.
pub fn run_split(spec: &SuiteSpec) -> Run {
    run_with(spec.clone().with_harness(Harness::Split), "classeval")
}

/// Run `spec` in split mode with RealClassEval's interpreter.
pub fn run_split_realclasseval(spec: &SuiteSpec) -> Run {
    run_with(spec.clone().with_harness(Harness::Split), "realclasseval")
}

/// Run `spec` in process (the same sandbox), for comparison.
pub fn run_inproc(spec: &SuiteSpec) -> Run {
    run_with(spec.clone().with_harness(Harness::Inproc), "classeval")
}

fn name_of<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

fn run_with(spec: SuiteSpec, env: &str) -> Run {
    let result = sandbox(env).run(&spec);
    assert!(
        !result.stderr.contains("classlab harness error"),
        "the runner itself failed:\n{}",
        result.stderr
    );
    let mut outcomes = BTreeMap::new();
    for t in &result.tests {
        outcomes
            .entry(t.id.clone())
            .or_insert_with(|| name_of(&t.outcome));
    }
    let evidence = result
        .evidence
        .iter()
        .map(|e| (name_of(&e.source), e.detail.clone()))
        .collect();
    Run {
        outcomes,
        result,
        evidence,
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
