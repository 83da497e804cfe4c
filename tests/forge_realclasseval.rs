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

#[test]
fn a_forged_dataset_is_analysed_in_the_environment_it_was_validated_in() {
    // No --python: the forged dataset is a JSON file, which by its kind alone would get
    // ClassEval's environment, where snippet_36's imports (`rich`, `claude_monitor`) are
    // missing (every mutant not_run).
    let tmp = tempfile::tempdir().unwrap();
    let cmd = |args: &[&str]| {
        let mut c = assert_cmd::Command::cargo_bin("classlab").unwrap();
        c.env("XDG_CONFIG_HOME", tmp.path().join("config"))
            .env("NO_COLOR", "1")
            .args(args);
        c
    };
    let slice = common::shared_data("realclasseval/post_cut-off");
    let out = tmp.path().join("forged");
    let forged = common::ok_json(
        cmd(&["--json", "forge"])
            .arg(&slice)
            .arg("snippet_36")
            .arg("--out")
            .arg(&out)
            .args(["--jobs", "1", "--iterations", "150"])
            .output()
            .unwrap(),
    );
    assert_eq!(forged["dropped"], serde_json::json!({}), "{forged}");
    let rigor = common::ok_json(
        cmd(&["--json", "rigor", "--dataset"])
            .arg(out.join("dataset.json"))
            .arg("--store")
            .arg(tmp.path().join("rigor.db"))
            .output()
            .unwrap(),
    );
    let t = &rigor["tasks"]["snippet_36"];
    assert_eq!(t["not_run"], 0, "{t}");
    assert!(t["score"].as_f64().is_some_and(|s| s > 0.0), "{t}");
    assert!(t["branch"].as_f64().is_some(), "{t}");
}
