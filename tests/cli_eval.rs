//! `classlab eval`, `fingerprint`, `sessions`, `doctor` on the bundled sample through the real
//! sandbox, including bad input: unknown tasks, empty completions, non-UTF-8 bytes, a truncated
//! events file — clear messages, no panic, nothing lost.

mod common;

use std::path::Path;

use common::classlab;
use predicates::prelude::*;
use serde_json::Value;

/// JSONL predictions holding the bundled sample's reference solutions (and extra lines).
fn reference_jsonl(dir: &Path, extra: &str) -> std::path::PathBuf {
    let ds = classlab::dataset::sample();
    let mut text = String::new();
    for t in &ds.tasks {
        let line = serde_json::json!({"task_id": t.id, "model": "reference", "strategy": "holistic", "code": t.solution});
        text.push_str(&line.to_string());
        text.push('\n');
    }
    text.push_str(extra);
    let path = dir.join("preds.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

fn session_dir(sessions: &Path) -> std::path::PathBuf {
    std::fs::read_dir(sessions)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.join("meta.json").is_file())
        .unwrap()
}

#[test]
fn sample_references_are_perfect_and_unknown_tasks_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let preds = reference_jsonl(
        dir.path(),
        "{\"task_id\": \"NoSuchTask\", \"code\": \"x = 1\"}\n",
    );
    let out = classlab(dir.path())
        .args(["eval", "--json", "--predictions"])
        .arg(&preds)
        .output()
        .unwrap();
    // The unknown task is a problem of the input: reported, exit 3, the rest evaluated.
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("NoSuchTask") && stderr.contains("preds.jsonl"),
        "{stderr}"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["metrics"]["class_success"], 1.0);
    assert_eq!(v["fingerprint"]["spectrum"]["Perfect"], 8);
    for key in [
        "fun_success",
        "fun_partial_success",
        "class_partial_success",
    ] {
        assert_eq!(v["metrics"][key], 1.0, "{key}");
    }
    let t = &v["tasks"]["Sample_0"];
    assert_eq!(t["outcome"], "Perfect");
    // Each method judged on its own test class: the sample has 36 methods.
    assert_eq!(t["methods"]["report"], "Perfect");
    assert_eq!(v["fingerprint"]["method_spectrum"]["Perfect"], 36);
    assert_eq!(
        t["test_classes"]["WordFrequencyReportTestReport"]["answer"],
        "success"
    );
    assert!(
        t["tests"]
            .as_array()
            .unwrap()
            .iter()
            .all(|x| x["outcome"] == "pass")
    );

    // The session lists, fingerprints, and shows the error event for the unknown task.
    let sessions = classlab(dir.path())
        .args(["sessions", "--json"])
        .output()
        .unwrap();
    let list: Value = serde_json::from_slice(&sessions.stdout).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["status"], "finished");
    let id = list[0]["session"].as_str().unwrap().to_string();
    let fp = classlab(dir.path())
        .args(["fingerprint", "--json", &id])
        .output()
        .unwrap();
    assert!(fp.status.success());
    let fp: Value = serde_json::from_slice(&fp.stdout).unwrap();
    assert_eq!(fp["sessions"][0]["fingerprint"]["spectrum"]["Perfect"], 8);
}

#[test]
fn wrong_code_and_empty_completions_are_judged_not_crashed() {
    let dir = tempfile::tempdir().unwrap();
    let ds = classlab::dataset::sample();
    let broken = ds
        .task("Sample_1")
        .unwrap()
        .solution
        .replace("return", "return None and ");
    let preds = dir.path().join("p.jsonl");
    std::fs::write(
        &preds,
        format!(
            "{}\n{}\n{}\n",
            serde_json::json!({"task_id": "Sample_0", "code": ""}),
            serde_json::json!({"task_id": "Sample_1", "code": broken}),
            serde_json::json!({"task_id": "Sample_2", "code": "class SlugRegistry(:\n    pass\n"}),
        ),
    )
    .unwrap();
    let v = common::json_despite_input_problems(
        classlab(dir.path())
            .args(["eval", "--json", "--predictions"])
            .arg(&preds)
            .output()
            .unwrap(),
    );
    // Empty code: the tests cannot find the class (NameError): a runtime failure.
    assert_eq!(v["tasks"]["Sample_0"]["outcome"], "RuntimeErr");
    assert_eq!(v["tasks"]["Sample_2"]["outcome"], "SyntaxErr");
    assert_eq!(v["tasks"]["Sample_2"]["failure"]["kind"], "import");
    assert_eq!(v["tasks"]["Sample_2"]["failure"]["exc_type"], "SyntaxError");
    assert_ne!(v["tasks"]["Sample_1"]["outcome"], "Perfect");
    assert_eq!(v["metrics"]["class_success"], 0.0);
}

#[test]
fn non_utf8_predictions_are_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let preds = dir.path().join("bad.jsonl");
    std::fs::write(
        &preds,
        b"{\"task_id\": \"Sample_0\", \"code\": \"\xff\xfe\"}\n",
    )
    .unwrap();
    classlab(dir.path())
        .args(["eval", "--predictions"])
        .arg(&preds)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("bad.jsonl").and(predicate::str::contains("not UTF-8")));
    classlab(dir.path())
        .args(["eval", "--predictions", "/no/such/file.json"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("/no/such/file.json"));
}

#[test]
fn a_truncated_event_log_is_reported_and_resumed_without_loss() {
    let dir = tempfile::tempdir().unwrap();
    let preds = reference_jsonl(dir.path(), "");
    classlab(dir.path())
        .args(["eval", "--predictions"])
        .arg(&preds)
        .assert()
        .success();
    let session = session_dir(dir.path());
    let events = session.join("events.jsonl");
    let text = std::fs::read_to_string(&events).unwrap();
    // Cut the log in the middle of its fifth-from-last line, as a crash would.
    let lines: Vec<&str> = text.lines().collect();
    let keep: usize = lines[..lines.len() - 5]
        .iter()
        .map(|l| l.len() + 1)
        .sum::<usize>()
        + lines[lines.len() - 5].len() / 2;
    std::fs::write(&events, &text.as_bytes()[..keep]).unwrap();
    let id = session.file_name().unwrap().to_string_lossy().into_owned();
    classlab(dir.path())
        .args(["fingerprint", &id])
        .assert()
        .code(3)
        .stderr(
            predicate::str::contains("torn last line")
                .and(predicate::str::contains("not finished")),
        );
    // Resume finishes what was cut off; every task ends up finished exactly once.
    classlab(dir.path())
        .args(["eval", "--resume", &id])
        .assert()
        .success();
    let log = classlab::session::SessionLog::open(&session).unwrap();
    assert!(log.problems.is_empty(), "{:?}", log.problems);
    let seqs: Vec<u64> = log.events.iter().map(|e| e.seq).collect();
    assert_eq!(
        seqs,
        (0..seqs.len() as u64).collect::<Vec<_>>(),
        "no gap, no duplicate"
    );
    let state = classlab::session::EvalState::from_events(&log.events);
    assert_eq!(state.progress(), (8, 8));
    assert!(state.finished && !state.cancelled);
    let finished: usize = log
        .events
        .iter()
        .filter(|e| e.body.kind() == "task_finished")
        .count();
    assert_eq!(finished, 8, "each task finished once");
    assert_eq!(state.metrics().class_success, Some(1.0));
}

#[test]
fn doctor_reports_interpreter_and_isolation() {
    // doctor reads no session: --sessions is refused (exit 2), so none is given.
    let out = assert_cmd::Command::cargo_bin("classlab")
        .unwrap()
        .env("NO_COLOR", "1")
        .args(["doctor", "--json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["isolation"]["python"]["version"]
            .as_str()
            .unwrap()
            .starts_with("3.")
    );
    assert!(v["missing_task_packages"].is_array());
}
