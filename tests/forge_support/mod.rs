//! Forging a small class of a test's own in the real sandbox (ClassEval's environment,
//! validated under the default harness), for the forge's rule tests.

use std::sync::OnceLock;
use std::sync::atomic::AtomicBool;

use classlab::dataset;
use classlab::exec::{Sandbox, SandboxOptions};
use classlab::forge::task::{Forged, Settings, forge_task};
use classlab::model::Task;

use super::common;

fn sandbox() -> &'static Sandbox {
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

/// Forge a task whose skeleton and reference are `source` (a ClassEval task's other fields);
/// kept or dropped.
pub fn forge_source(class_name: &str, source: &str) -> Forged {
    let ds = dataset::load(Some(&common::classeval_json())).expect("ClassEval loads");
    let mut t: Task = ds
        .tasks
        .into_iter()
        .find(|t| t.id == "ClassEval_8")
        .expect("task present");
    t.id = format!("Rules_{class_name}");
    t.class_name = class_name.to_string();
    t.skeleton = source.to_string();
    t.solution = source.to_string();
    t.imports = Vec::new();
    let settings = Settings {
        iterations: 300,
        mutant_iterations: 0,
        validation_runs: 3,
        ..Settings::default()
    };
    forge_task(sandbox(), &t, &settings, &AtomicBool::new(false))
}
