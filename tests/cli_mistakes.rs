//! Mistakes are refused, not recorded as results (issue 12, A5 and B15): outputs that match
//! no task, a dependency-predictions file or an empty list given as model outputs, a folder
//! given as `--predictions`, a generation session given to `eval --resume`, depcheck with
//! nothing to score, `run` without a strategy — each one clear error, and no session made.
//! Sessions can be deleted, a Ctrl-C'd evaluation exits 130 and is marked stopped.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

const CLASSEVAL: &str = "../shared/data/classeval";

fn classlab(sessions: &Path) -> Command {
    let mut cmd = Command::cargo_bin("classlab").unwrap();
    cmd.env("NO_COLOR", "1").arg("--sessions").arg(sessions);
    cmd
}

fn gpt4_outputs() -> PathBuf {
    Path::new(CLASSEVAL).join("model_output/GPT-4-Turbo_class_H_greedy.json")
}

/// JSONL of the sample's reference solutions, each with `suffix` appended to its code.
fn reference_jsonl(dir: &Path, name: &str, suffix: &str) -> PathBuf {
    let ds = classlab::dataset::sample();
    let mut text = String::new();
    for t in &ds.tasks {
        let code = format!("{}{suffix}", t.solution);
        let line = serde_json::json!({"task_id": t.id, "model": "reference", "code": code});
        text.push_str(&line.to_string());
        text.push('\n');
    }
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn no_session(sessions: &Path) {
    let made: Vec<_> = std::fs::read_dir(sessions)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(made.is_empty(), "sessions were created: {made:?}");
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn outputs_matching_no_task_are_refused_with_one_error_and_no_session() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    // ClassEval's outputs against the bundled sample: a forgotten --dataset.
    let out = classlab(&sessions)
        .args(["eval", "--predictions"])
        .arg(gpt4_outputs())
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(
        err.lines().count(),
        1,
        "one error, no warning per task: {err}"
    );
    assert!(
        err.contains("none of the 100 tasks") && err.contains("--dataset"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    no_session(&sessions);
}

#[test]
fn dependency_predictions_and_empty_lists_are_not_model_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    let deps = dir.path().join("deps.json");
    std::fs::write(
        &deps,
        r#"{"Sample_0": {"dependencies": {"report": ["top_words"]}, "order": ["top_words", "report"]},
            "Sample_1": {"dependencies": {}, "order": []}}"#,
    )
    .unwrap();
    let out = classlab(&sessions)
        .args(["eval", "--predictions"])
        .arg(&deps)
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("deps.json") && err.contains("dependency predictions"),
        "{err}"
    );
    for (name, text) in [("empty.json", "[]"), ("empty.jsonl", "\n")] {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        classlab(&sessions)
            .args(["eval", "--predictions"])
            .arg(&p)
            .assert()
            .code(1)
            .stderr(
                predicate::str::contains(name)
                    .and(predicate::str::contains("no model output to evaluate")),
            );
    }
    no_session(&sessions);
}

#[test]
fn a_folder_as_predictions_and_a_missing_file_say_what_they_are_once() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    let out = classlab(&sessions)
        .args(["eval", "--predictions", CLASSEVAL])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("is a directory") && err.contains("--predictions"),
        "{err}"
    );
    assert!(
        !err.contains("dataset file"),
        "not the dataset's message: {err}"
    );
    let out = classlab(&sessions)
        .args(["eval", "--predictions", "/no/such/outputs.json"])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
    no_session(&sessions);
}

#[test]
fn resuming_a_generation_run_as_an_evaluation_says_what_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    classlab(&sessions)
        .args([
            "run",
            "--strategy",
            "holistic",
            "--provider",
            "reference",
            "--tasks",
            "Sample_0",
        ])
        .assert()
        .success();
    let list: Value = serde_json::from_slice(
        &classlab(&sessions)
            .args(["sessions", "--json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let id = list[0]["session"].as_str().unwrap().to_string();
    classlab(&sessions)
        .args(["eval", "--resume", &id])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("generation run").and(predicate::str::contains(format!(
                "classlab run --resume {id}"
            ))),
        );
}

#[test]
fn run_without_a_strategy_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    classlab(dir.path())
        .args(["run", "--provider", "reference"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--strategy").and(predicate::str::contains("Usage")));
}

#[test]
fn depcheck_with_no_valid_prediction_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.json");
    std::fs::write(&p, r#"{"ClassEval_0": {"dependencies": {}, "order": []}}"#).unwrap();
    classlab(dir.path())
        .args(["depcheck", "--predictions"])
        .arg(&p)
        .assert()
        .code(1)
        .stdout(predicate::str::is_empty())
        .stderr(
            predicate::str::contains("ClassEval_0").and(predicate::str::contains("nothing scored")),
        );
    std::fs::write(&p, "{}").unwrap();
    classlab(dir.path())
        .args(["depcheck", "--predictions"])
        .arg(&p)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no valid prediction"));
}

#[test]
fn sessions_rm_deletes_sessions_and_a_typo_deletes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    let preds = reference_jsonl(dir.path(), "refs.jsonl", "");
    for _ in 0..2 {
        classlab(&sessions)
            .args(["eval", "--jobs", "2", "--predictions"])
            .arg(&preds)
            .assert()
            .success();
    }
    let list = |sessions: &Path| -> Vec<String> {
        let v: Value = serde_json::from_slice(
            &classlab(sessions)
                .args(["sessions", "--json"])
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| s["session"].as_str().unwrap().to_string())
            .collect()
    };
    let ids = list(&sessions);
    assert_eq!(ids.len(), 2);
    classlab(&sessions)
        .args(["sessions", "rm", &ids[0], "no-such-session"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no-such-session"));
    assert_eq!(list(&sessions).len(), 2, "nothing deleted");
    classlab(&sessions)
        .args(["sessions", "rm", &ids[0]])
        .assert()
        .success()
        .stdout(predicate::str::contains("deleted"));
    assert_eq!(list(&sessions), vec![ids[1].clone()]);
    assert!(!sessions.join(&ids[0]).exists());
}

#[test]
fn an_evaluation_stopped_with_ctrl_c_exits_130_and_is_marked_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    // Every class sleeps on import: the run is still going when the signal comes.
    let preds = reference_jsonl(dir.path(), "slow.jsonl", "\nimport time\ntime.sleep(20)\n");
    let bin = assert_cmd::cargo::cargo_bin("classlab");
    let child = std::process::Command::new(bin)
        .arg("--sessions")
        .arg(&sessions)
        .args(["eval", "--json", "--jobs", "1", "--predictions"])
        .arg(&preds)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the first suite to start.
    let t0 = Instant::now();
    loop {
        let started = std::fs::read_dir(&sessions).ok().and_then(|d| {
            d.filter_map(Result::ok).find_map(|e| {
                std::fs::read_to_string(e.path().join("events.jsonl"))
                    .ok()
                    .filter(|t| t.contains("\"task_started\""))
            })
        });
        if started.is_some() {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(60), "no task started");
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(300));
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("stopped") && err.contains("--resume"), "{err}");
    let v: Value = serde_json::from_slice(
        &classlab(&sessions)
            .args(["sessions", "--json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(v[0]["status"], "stopped", "{v}");
    // --json still printed what was recorded; every outcome is a documented string (the
    // tasks never run are `NotRun`, not an undocumented null).
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["finished"], false);
    let readme = std::fs::read_to_string("README.md").unwrap();
    let tasks = v["tasks"].as_object().unwrap();
    assert!(tasks.values().any(|t| t["outcome"] == "NotRun"), "{v}");
    for (id, t) in tasks {
        let outcome = t["outcome"].as_str().unwrap_or_else(|| panic!("{id}: {t}"));
        assert!(
            readme.contains(&format!("`{outcome}`")),
            "{outcome} undocumented"
        );
    }
}
