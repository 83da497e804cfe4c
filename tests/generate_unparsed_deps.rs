//! An unparsed dependency reply is unscored everywhere (issue 21 item 6): a TDD run whose
//! model answered the dependency analysis without any JSON must not show `deps exact 100.0%`
//! and `macro F1 1.000` — in `run`, in `report`, as `depcheck` already had it: the tasks are
//! unscored and every dependency rate is `n/a` (JSON `null`).

mod common;

use assert_cmd::Command;
use classlab::llm::Purpose;
use common::mock_llm::{MockLlm, MockReply};
use common::reference_model::{self, ReferenceModel};
use serde_json::Value;

/// The reference model, except that its dependency analysis is prose without a graph.
fn model() -> MockLlm {
    let model = ReferenceModel::sample();
    MockLlm::start(move |req| {
        let (call, answer) = model.call_and_answer(req);
        match call.purpose {
            Purpose::DependencyAnalysis => {
                MockReply::Text("Every method looks independent to me; no JSON, sorry.".into())
            }
            _ => MockReply::Text(answer),
        }
    })
}

#[test]
fn an_unreadable_dependency_reply_is_unscored_in_run_and_report() {
    let mock = model();
    let sessions = tempfile::tempdir().unwrap();
    let classlab = || {
        let mut c = Command::cargo_bin("classlab").unwrap();
        c.env("NO_COLOR", "1")
            .arg("--sessions")
            .arg(sessions.path());
        c
    };
    let out = classlab()
        .args([
            "run",
            "--strategy",
            "tdd",
            "--provider",
            "openai",
            "--no-stream",
        ])
        .args(["--base-url", &mock.base_url(), "--model", "prose"])
        .args(["--tasks", "Sample_0,Sample_1"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let row = |label: &str| {
        text.lines()
            .find(|l| l.starts_with(label))
            .unwrap_or_else(|| panic!("no `{label}` row:\n{text}"))
            .to_string()
    };
    assert!(row("deps exact").ends_with("n/a"), "{}", row("deps exact"));
    assert!(
        row("deps macro F1").ends_with("n/a"),
        "{}",
        row("deps macro F1")
    );
    assert!(
        row("deps scored tasks").contains("0 (2 unreadable, unscored)"),
        "{}",
        row("deps scored tasks")
    );
    let session = reference_model::only_session(sessions.path());
    let out = classlab()
        .arg("--json")
        .arg("report")
        .arg(&session)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let dep = &report["sessions"][0]["dependency"];
    assert_eq!(
        dep["unscored_tasks"],
        serde_json::json!(["Sample_0", "Sample_1"])
    );
    let m = &dep["metrics"];
    assert_eq!(m["methods"], 0);
    for key in ["exact_pct", "class_accuracy", "macro", "micro"] {
        assert!(m[key].is_null(), "{key}: {}", m[key]);
    }
    // The functional metrics are the classes' own: the reference passes its tests.
    assert_eq!(report["sessions"][0]["metrics"]["class_success"], 1.0);
}
