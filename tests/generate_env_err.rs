//! A public test that fails because the environment lacks a module the task needs is the
//! environment's failure, not the model's (issue 12, A4): the TDD loop ends the method as
//! `env_err` without a repair round, and such a test is not "left out" as a wrong test.
//! ClassEval_48's skeleton imports `netifaces`, which the project's ClassEval environment (like
//! the official evaluator's) lacks.

mod common;

use common::reference_model::{reference_tdd_run, report_and_events};
use serde_json::Value;

#[test]
fn a_missing_module_ends_the_method_as_env_err_without_repair() {
    let python = common::project_python("classeval");
    let probe = std::process::Command::new(&python)
        .args(["-c", "import netifaces"])
        .output()
        .unwrap();
    assert!(
        !probe.status.success(),
        "this test needs an environment without netifaces"
    );
    let sessions = tempfile::tempdir().unwrap();
    let (report, events) = report_and_events(
        reference_tdd_run(sessions.path())
            .args(["--public-tests", "split:1", "--tasks", "ClassEval_48"])
            .arg("--dataset")
            .arg(common::classeval_json())
            .output()
            .unwrap(),
        sessions.path(),
    );
    let of_kind = |k: &str| -> Vec<&Value> { events.iter().filter(|e| e["kind"] == k).collect() };
    let finished = of_kind("method_finished");
    assert!(!finished.is_empty());
    for m in &finished {
        assert_eq!(m["status"], "env_err", "{m}");
        assert_eq!(m["repairs"], 0, "{m}");
    }
    assert!(of_kind("reflection").is_empty(), "no repair round");
    // The tests stay: they are not wrong, the environment is incomplete.
    for c in of_kind("public_tests_checked") {
        assert!(c.get("left_out").is_none(), "{c}");
    }
    assert_eq!(report["public_tests_left_out"], serde_json::json!([]));
}
