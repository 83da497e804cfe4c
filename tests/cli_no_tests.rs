//! No tests is not 0 % (issue 21 item 1): tasks without tests — what `corpus export` writes —
//! are in no metric. `eval`, `run` and `validate` refuse when no selected task has tests (one
//! error, exit 1, no session); when some have, they run those, name the others and exit 3.
//! `lint` flags each such task (T15); browsing them (`tasks`, `show`) is no error.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn classlab(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("classlab").unwrap();
    cmd.env("NO_COLOR", "1")
        .env("XDG_DATA_HOME", dir.join("data"))
        .current_dir(dir);
    cmd
}

/// With the sessions directory, for the commands that write sessions.
fn with_sessions(dir: &Path) -> Command {
    let mut cmd = classlab(dir);
    cmd.arg("--sessions").arg(dir.join("sessions"));
    cmd
}

/// The bundled sample with the tests of its first `testless` tasks removed, as a corpus
/// export leaves every task.
fn sample_without_tests(dir: &Path, testless: usize) -> PathBuf {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/sample/sample.json"),
    )
    .unwrap();
    let mut ds: Value = serde_json::from_str(&text).unwrap();
    for task in ds["tasks"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .take(testless)
    {
        task["test"] = "".into();
        task["test_classes"] = serde_json::json!([]);
        for m in task["methods_info"].as_array_mut().unwrap() {
            m["test_class"] = Value::Null;
            m["test_code"] = "".into();
            m["public_tests"] = Value::Null;
        }
    }
    let path = dir.join(format!("export-{testless}.json"));
    std::fs::write(&path, ds.to_string()).unwrap();
    path
}

/// JSONL of the sample's reference solutions (what a model that wrote them would give).
fn reference_outputs(dir: &Path) -> PathBuf {
    let mut text = String::new();
    for t in &classlab::dataset::sample().tasks {
        let line = serde_json::json!({"task_id": t.id, "model": "reference", "code": t.solution});
        text.push_str(&line.to_string());
        text.push('\n');
    }
    let path = dir.join("reference.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

fn sessions_made(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("sessions")).map_or(0, |d| d.count())
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn eval_run_and_validate_refuse_when_no_task_has_tests() {
    let dir = tempfile::tempdir().unwrap();
    let export = sample_without_tests(dir.path(), 8);
    let outputs = reference_outputs(dir.path());
    let runs: [(&str, Vec<&str>); 3] = [
        (
            "eval",
            vec!["eval", "--predictions", outputs.to_str().unwrap()],
        ),
        (
            "run",
            vec!["run", "--strategy", "holistic", "--provider", "reference"],
        ),
        ("validate", vec!["validate"]),
    ];
    for (name, args) in runs {
        let out = with_sessions(dir.path())
            .arg("--dataset")
            .arg(&export)
            .args(&args)
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(
            err.contains("none of the 8 selected tasks has tests (Sample_0, Sample_1"),
            "{name}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{name}: one error line: {err}");
        assert!(out.stdout.is_empty(), "{name}: nothing on stdout");
        assert_eq!(sessions_made(dir.path()), 0, "{name} made a session");
    }
}

#[test]
fn tasks_with_tests_run_and_those_without_are_named_with_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let export = sample_without_tests(dir.path(), 3);
    let outputs = reference_outputs(dir.path());
    let out = with_sessions(dir.path())
        .arg("--json")
        .arg("--dataset")
        .arg(&export)
        .args(["eval", "--predictions"])
        .arg(&outputs)
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains(
            "3 of the 8 selected tasks have no tests and were not run (in no metric): \
             Sample_0, Sample_1, Sample_2"
        ),
        "{err}"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let tasks = v["tasks"].as_object().unwrap();
    assert_eq!(tasks.len(), 5, "{tasks:?}");
    assert!(!tasks.contains_key("Sample_0"));
    assert_eq!(v["metrics"]["tasks"], 5);
    assert_eq!(v["metrics"]["class_success"], 1.0);

    let out = with_sessions(dir.path())
        .arg("--dataset")
        .arg(&export)
        .args(["run", "--strategy", "holistic", "--provider", "reference"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("3 of the 8 selected tasks have no tests"),
        "{err}"
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("tasks done") && text.contains("5/5"),
        "{text}"
    );
}

#[test]
fn lint_flags_each_task_without_tests_and_browsing_is_no_error() {
    let dir = tempfile::tempdir().unwrap();
    let export = sample_without_tests(dir.path(), 2);
    let out = classlab(dir.path())
        .args(["--json", "--dataset"])
        .arg(&export)
        .args(["lint", "--rule", "T15"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let findings: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = findings
        .iter()
        .map(|f| f["task_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["Sample_0", "Sample_1"]);
    assert!(findings.iter().all(|f| f["severity"] == "error"));
    let rules = classlab(dir.path())
        .args(["lint", "--rules"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&rules.stdout).contains("T15"));
    for args in [vec!["tasks"], vec!["show", "Sample_0"]] {
        let out = classlab(dir.path())
            .arg("--dataset")
            .arg(&export)
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).is_empty(), "{args:?}: {}", stderr(&out));
    }
}
