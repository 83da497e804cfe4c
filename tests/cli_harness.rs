//! `--harness split|inproc` (issue 22, item 6) on `eval`, `run` and `validate` over the bundled
//! sample through the real sandbox: the harness is recorded in the session (meta.json, its
//! configuration and input digests), an in-process session says its verdicts are forgeable
//! in meta.json and every report, a resume keeps the session's harness (a session from before
//! the split harness resumes in-process) and refuses another.

mod common;

use std::path::{Path, PathBuf};

use common::classlab;
use serde_json::Value;

/// JSONL predictions holding the bundled sample's reference solutions.
fn reference_jsonl(dir: &Path) -> PathBuf {
    let ds = classlab::dataset::sample();
    let mut text = String::new();
    for t in &ds.tasks {
        let line = serde_json::json!({"task_id": t.id, "model": "reference", "code": t.solution});
        text.push_str(&line.to_string());
        text.push('\n');
    }
    let path = dir.join("preds.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

fn json_of(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn meta_of(session: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(session.join("meta.json")).unwrap()).unwrap()
}

#[test]
fn a_split_evaluation_is_recorded_as_split_and_judges_the_references_perfect() {
    let dir = tempfile::tempdir().unwrap();
    let preds = reference_jsonl(dir.path());
    let out = classlab(dir.path())
        .args(["eval", "--json", "--harness", "split", "--predictions"])
        .arg(&preds)
        .output()
        .unwrap();
    let v = json_of(&out);
    assert_eq!(v["harness"], "split");
    assert!(v["harness_caveat"].is_null(), "{}", v["harness_caveat"]);
    assert_eq!(v["metrics"]["class_success"], 1.0, "{v:#}");
    assert_eq!(v["fingerprint"]["spectrum"]["Perfect"], 8);
    let session = PathBuf::from(v["dir"].as_str().unwrap());
    let meta = meta_of(&session);
    assert_eq!(meta["harness"], "split");
    assert!(meta.get("harness_caveat").is_none(), "{meta:#}");
    assert_eq!(meta["inputs"]["config"]["values"]["harness"], "split");
    // Resuming it in-process would mix two harnesses' verdicts: refused, naming the setting.
    let id = v["session"].as_str().unwrap();
    let out = classlab(dir.path())
        .args(["eval", "--resume", id, "--harness", "inproc"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("harness"), "{err}");
    // Without the flag the session's own harness is used.
    let out = classlab(dir.path())
        .args(["eval", "--json", "--resume", id])
        .output()
        .unwrap();
    assert_eq!(json_of(&out)["harness"], "split");
}

#[test]
fn an_in_process_evaluation_says_its_verdicts_are_forgeable_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let preds = reference_jsonl(dir.path());
    let out = classlab(dir.path())
        .args(["eval", "--json", "--harness", "inproc", "--predictions"])
        .arg(&preds)
        .output()
        .unwrap();
    let v = json_of(&out);
    assert_eq!(v["harness"], "inproc");
    assert!(
        v["harness_caveat"].as_str().unwrap().contains("forge"),
        "{v:#}"
    );
    let session = PathBuf::from(v["dir"].as_str().unwrap());
    let meta = meta_of(&session);
    assert_eq!(meta["harness"], "inproc");
    assert!(meta["harness_caveat"].as_str().unwrap().contains("forge"));
    // The configuration digests as a session from before the harness was recorded.
    assert!(meta["inputs"]["config"]["values"].get("harness").is_none());
    let id = v["session"].as_str().unwrap().to_string();
    // The terminal table, the report in every format.
    let out = classlab(dir.path())
        .args(["fingerprint", &id])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("verdicts: in-process harness"), "{text}");
    let out = classlab(dir.path())
        .args(["report", "--json", &id])
        .output()
        .unwrap();
    let r = json_of(&out);
    assert_eq!(r["sessions"][0]["harness"], "inproc");
    assert!(
        r["sessions"][0]["harness_caveat"]
            .as_str()
            .unwrap()
            .contains("forge")
    );
    for format in ["md", "html", "latex"] {
        let out = classlab(dir.path())
            .args(["report", "--format", format, &id])
            .output()
            .unwrap();
        assert!(out.status.success(), "{format}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("Verdicts") && text.contains("forge"),
            "{format}: {text}"
        );
    }
    // Resuming it with the split harness is refused.
    let out = classlab(dir.path())
        .args(["eval", "--resume", &id, "--harness", "split"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("harness"));
}

#[test]
fn a_session_from_before_the_split_harness_resumes_in_process() {
    let dir = tempfile::tempdir().unwrap();
    let preds = reference_jsonl(dir.path());
    let out = classlab(dir.path())
        .args(["eval", "--json", "--harness", "inproc", "--predictions"])
        .arg(&preds)
        .output()
        .unwrap();
    let v = json_of(&out);
    let session = PathBuf::from(v["dir"].as_str().unwrap());
    let id = v["session"].as_str().unwrap().to_string();
    // As an older classlab wrote it: no harness in meta.json nor in the run's configuration.
    let mut meta = meta_of(&session);
    let m = meta.as_object_mut().unwrap();
    m.remove("harness");
    m.remove("harness_caveat");
    std::fs::write(session.join("meta.json"), meta.to_string()).unwrap();
    let events = std::fs::read_to_string(session.join("events.jsonl")).unwrap();
    let old: String = events
        .lines()
        .map(|l| {
            let mut e: Value = serde_json::from_str(l).unwrap();
            if let Some(c) = e.pointer_mut("/config").and_then(Value::as_object_mut) {
                c.remove("harness");
            }
            e.to_string() + "\n"
        })
        .collect();
    assert_ne!(old, events, "the run_started event carried the harness");
    std::fs::write(session.join("events.jsonl"), old).unwrap();
    let out = classlab(dir.path())
        .args(["eval", "--json", "--resume", &id])
        .output()
        .unwrap();
    let v = json_of(&out);
    assert_eq!(v["harness"], "inproc");
    assert!(v["harness_caveat"].as_str().unwrap().contains("forge"));
    // An unknown harness is a usage error.
    classlab(dir.path())
        .args(["eval", "--harness", "both", "--predictions"])
        .arg(&preds)
        .assert()
        .code(2);
}

#[test]
fn run_and_validate_take_the_harness_too() {
    let dir = tempfile::tempdir().unwrap();
    let out = classlab(dir.path())
        .args([
            "run",
            "--json",
            "--strategy",
            "holistic",
            "--provider",
            "reference",
            "--tasks",
            "Sample_0",
            "--harness",
            "split",
        ])
        .output()
        .unwrap();
    let v = json_of(&out);
    let run = &v["sessions"][0];
    assert_eq!(run["harness"], "split", "{v:#}");
    assert!(run.get("harness_caveat").is_none(), "{v:#}");
    assert_eq!(run["metrics"]["class_success"], 1.0, "{v:#}");
    let id = run["session"].as_str().unwrap();
    assert_eq!(meta_of(&dir.path().join(id))["harness"], "split");
    let out = classlab(dir.path())
        .args([
            "validate",
            "--json",
            "--tasks",
            "Sample_0",
            "--harness",
            "split",
        ])
        .output()
        .unwrap();
    let v = json_of(&out);
    let t = &v["tasks"][0];
    assert!(
        t["notes"].to_string().contains("split harness"),
        "what it did not measure is said: {v:#}"
    );
    assert_eq!(t["runs_agree"], true, "{v:#}");
    assert_eq!(
        t["reference"]["private"]["passed"], t["reference"]["private"]["total"],
        "{v:#}"
    );
    assert_eq!(t["findings"], serde_json::json!([]), "{v:#}");
}
