//! Comparisons say what they compare (issue 12, A6): `classlab fingerprint A B` on a run
//! stopped partway and a finished one compares the tasks both finished, says how many were
//! left out, and lists each compared task's outcome in both (`--json` too).

mod common;

use std::path::{Path, PathBuf};

use common::classlab;
use serde_json::Value;

/// JSONL of the sample's reference solutions; the tasks in `broken` get code that fails.
fn outputs(dir: &Path, name: &str, model: &str, broken: &[&str]) -> PathBuf {
    let ds = classlab::dataset::sample();
    let mut text = String::new();
    for t in &ds.tasks {
        let code = if broken.contains(&t.id.as_str()) {
            format!("class {}:\n    pass\n", t.class_name)
        } else {
            t.solution.clone()
        };
        let line = serde_json::json!({"task_id": t.id, "model": model, "code": code});
        text.push_str(&line.to_string());
        text.push('\n');
    }
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn eval(sessions: &Path, preds: &Path) -> String {
    let v = common::ok_json(
        classlab(sessions)
            .args(["eval", "--json", "--jobs", "1", "--predictions"])
            .arg(preds)
            .output()
            .unwrap(),
    );
    v["session"].as_str().unwrap().to_string()
}

/// A copy of a session cut after its `keep`-th finished task, as a run stopped there (no
/// `run_finished`), under a new id.
fn stopped_copy(sessions: &Path, id: &str, keep: usize) -> String {
    let new_id = format!("{id}-partial");
    let (from, to) = (sessions.join(id), sessions.join(&new_id));
    std::fs::create_dir(&to).unwrap();
    let mut meta: Value =
        serde_json::from_str(&std::fs::read_to_string(from.join("meta.json")).unwrap()).unwrap();
    meta["id"] = Value::from(new_id.clone());
    std::fs::write(to.join("meta.json"), meta.to_string()).unwrap();
    let events = std::fs::read_to_string(from.join("events.jsonl")).unwrap();
    let mut kept = String::new();
    let mut finished = 0;
    for line in events.lines() {
        kept.push_str(line);
        kept.push('\n');
        if line.contains("\"kind\":\"task_finished\"") {
            finished += 1;
            if finished == keep {
                break;
            }
        }
    }
    assert_eq!(finished, keep);
    std::fs::write(to.join("events.jsonl"), kept).unwrap();
    new_id
}

#[test]
fn fingerprint_compares_the_tasks_both_sessions_finished() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    // A: every reference (Perfect); B: Sample_1 and Sample_6 broken.
    let a = eval(&sessions, &outputs(dir.path(), "a.jsonl", "model-a", &[]));
    let b = eval(
        &sessions,
        &outputs(dir.path(), "b.jsonl", "model-b", &["Sample_1", "Sample_6"]),
    );
    // A stopped after 3 of 8 tasks (jobs 1: Sample_0, Sample_1, Sample_2).
    let a3 = stopped_copy(&sessions, &a, 3);

    let out = classlab(&sessions)
        .args(["fingerprint", "--json", &a3, &b])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = &v["compared"];
    assert_eq!(c["tasks"], 3, "{v}");
    assert_eq!(
        c["outcomes"],
        serde_json::json!({
            "Sample_0": ["Perfect", "Perfect"],
            "Sample_1": ["Perfect", c["outcomes"]["Sample_1"][1]],
            "Sample_2": ["Perfect", "Perfect"],
        })
    );
    assert_ne!(c["outcomes"]["Sample_1"][1], "Perfect");
    // Sample_6 differs too, but A never ran it: not counted.
    assert_eq!(c["differing"], serde_json::json!(["Sample_1"]));
    assert_eq!(c["left_out_tasks"].as_array().unwrap().len(), 5);
    let (sa, sb) = (&v["sessions"][0], &v["sessions"][1]);
    assert_eq!(sa["left_out"], 0);
    assert_eq!(sb["left_out"], 5);
    // Each session keeps its own progress; the figures are over the same 3 tasks.
    assert_eq!(sa["progress"]["done"], 3);
    assert_eq!(sb["progress"]["done"], 8);
    assert_eq!(sa["metrics"]["class_success"], 1.0);
    let b_rate = sb["metrics"]["class_success"].as_f64().unwrap();
    assert!(
        (b_rate - 2.0 / 3.0).abs() < 1e-9,
        "B over the 3 tasks: {b_rate}"
    );

    let out = classlab(&sessions)
        .args(["fingerprint", &a3, &b])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("on the 3 tasks both finished (5 of model-b's left out)"),
        "{text}"
    );
    assert!(text.contains("1 of the 3 tasks compared differ"), "{text}");
    let row = text
        .lines()
        .find(|l| l.starts_with("Sample_1"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(row.contains("Perfect"), "both outcomes listed: {row}");
    assert!(!text.lines().any(|l| l.starts_with("Sample_6")), "{text}");
}
