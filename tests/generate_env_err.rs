//! A public test that fails because the environment lacks a module the task needs is the
//! environment's failure, not the model's (issue 12, A4): the TDD loop ends the method as
//! `env_err` without a repair round, and such a test is not "left out" as a wrong test.
//! ClassEval_48's skeleton imports `netifaces`, which the project's ClassEval environment (like
//! the official evaluator's) lacks. The model answers like the reference through the mock
//! server: a model keeps the skeleton's imports (the reference provider writes its own class,
//! whose imports lack `netifaces`, so it cannot show this).

mod common;

use common::mock_llm::MockLlm;
use common::reference_model::{ReferenceModel, report_and_events};
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
    let dataset = classlab::dataset::load_path(&common::classeval_json()).unwrap();
    let model = ReferenceModel::new(&dataset);
    let mock = MockLlm::start(move |req| model.reply(req));
    let sessions = tempfile::tempdir().unwrap();
    let (report, events) = report_and_events(
        assert_cmd::Command::cargo_bin("classlab")
            .unwrap()
            .args(["run", "--json", "--strategy", "tdd", "--no-stream"])
            .args(["--base-url", &mock.base_url(), "--model", "reference-like"])
            .arg("--sessions")
            .arg(sessions.path())
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
