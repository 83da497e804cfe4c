//! Forging RealClassEval tasks (a folder whose tests import the code as a module) from their
//! references alone, in the real sandbox: the forged suite is written for ClassEval's layout,
//! so the forged task must carry that layout, or no test would see the class. Needs Linux and
//! the project's `.python/realclasseval`.

mod common;

use std::sync::atomic::AtomicBool;

use classlab::dataset;
use classlab::exec::{Sandbox, SandboxOptions};
use classlab::forge::task::{Settings, forge_task};
use classlab::model::TestLayout;

#[test]
fn a_module_layout_task_is_forged_into_a_passing_concatenated_suite() {
    let dir = common::shared_data("realclasseval/post_cut-off");
    let ds = dataset::load(Some(&dir)).expect("RealClassEval loads");
    let t = ds
        .tasks
        .into_iter()
        .find(|t| t.id == "snippet_24")
        .expect("task present");
    assert!(matches!(t.test_layout, TestLayout::Module { .. }));
    let sandbox = Sandbox::with_options(SandboxOptions {
        python: Some(common::project_python("realclasseval")),
        warm: true,
        ..Default::default()
    })
    .expect("sandbox available");
    let settings = Settings {
        iterations: 200,
        mutant_iterations: 0,
        validation_runs: 2,
        ..Settings::default()
    };
    let f = forge_task(&sandbox, &t, &settings, &AtomicBool::new(false));
    assert_eq!(f.dropped, None, "{:?}", f.evidence);
    let forged = f.task.expect("forged");
    assert_eq!(forged.test_layout, TestLayout::Concatenated);
    assert!(f.evidence.tests >= 2, "{:?}", f.evidence);
    assert!(
        forged.test_module.contains("LocalPathExtractor()")
            || forged.test_module.contains("LocalPathExtractor."),
        "{}",
        forged.test_module
    );
}
