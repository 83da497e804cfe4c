//! Forging in the real sandbox for the forge's tests (ClassEval's environment, validated under
//! the default harness): ClassEval tasks, and small classes of a test's own.
#![allow(dead_code)]

use std::sync::OnceLock;
use std::sync::atomic::AtomicBool;

use classlab::dataset;
use classlab::exec::{Sandbox, SandboxOptions};
use classlab::forge::task::{Forged, Settings, forge_task};
use classlab::model::Task;

use super::common;

pub fn sandbox() -> &'static Sandbox {
    static SB: OnceLock<Sandbox> = OnceLock::new();
    SB.get_or_init(|| {
        Sandbox::with_options(SandboxOptions {
            python: Some(common::project_python("classeval")),
            warm: true,
            ..Default::default()
        })
        .expect("sandbox available")
    })
}

/// A ClassEval task by id.
pub fn task(id: &str) -> Task {
    let ds = dataset::load(Some(&common::classeval_json())).expect("ClassEval loads");
    ds.tasks
        .into_iter()
        .find(|t| t.id == id)
        .expect("task present")
}

/// Settings small enough for a test: a short exploration, no mutant hunt, three validations.
pub fn quick() -> Settings {
    Settings {
        iterations: 300,
        mutant_iterations: 0,
        validation_runs: 3,
        ..Settings::default()
    }
}

/// Forge a task whose skeleton and reference are `source` (a ClassEval task's other fields);
/// kept or dropped.
pub fn forge_source(class_name: &str, source: &str) -> Forged {
    let mut t = task("ClassEval_8");
    t.id = format!("Rules_{class_name}");
    t.class_name = class_name.to_string();
    t.skeleton = source.to_string();
    t.solution = source.to_string();
    t.imports = Vec::new();
    forge_task(sandbox(), &t, &quick(), &AtomicBool::new(false))
}
