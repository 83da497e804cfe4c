//! Output never carries the input's control characters (issue 21 item 14): a task id with an
//! OSC sequence and a newline, a model name with a CSI and a bidi override, reach `tasks`,
//! `eval` (its progress lines, table and warnings), `sessions` and `report` only as visible
//! escapes — a newline cannot forge a result line — while `--json` keeps them exact.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

const ID: &str = "Evil_0\u{1b}]0;pwned\u{7}\nSample_1     Perfect    9/9 tests";
const MODEL: &str = "gpt\u{1b}[2J\u{202e}4";

fn classlab(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("classlab").unwrap();
    c.env("NO_COLOR", "1").current_dir(dir);
    c
}

/// No control character but the line ends, no bidi control.
fn inert(text: &str, what: &str) {
    for c in text.chars() {
        assert!(
            c == '\n' || !classlab::text::needs_escape(c),
            "{what} carries {c:?}:\n{text}"
        );
    }
}

#[test]
fn hostile_ids_and_model_names_are_escaped_in_human_output_and_exact_in_json() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/sample/sample.json"),
    )
    .unwrap();
    let mut ds: Value = serde_json::from_str(&text).unwrap();
    let tasks = ds["tasks"].as_array_mut().unwrap();
    tasks.truncate(2);
    tasks[0]["task_id"] = ID.into();
    let solution = tasks[0]["solution_code"].as_str().unwrap().to_string();
    let dataset = dir.path().join("evil\u{1b}[31m.json");
    std::fs::write(&dataset, ds.to_string()).unwrap();
    let preds = dir.path().join("p.jsonl");
    std::fs::write(
        &preds,
        serde_json::json!({"task_id": ID, "model": MODEL, "code": solution}).to_string() + "\n",
    )
    .unwrap();
    let sessions = dir.path().join("sessions");

    let out = classlab(dir.path())
        .arg("--dataset")
        .arg(&dataset)
        .arg("tasks")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    inert(&stdout, "tasks");
    assert!(
        stdout.contains("Evil_0\\u{1b}]0;pwned\\u{7}\\nSample_1"),
        "{stdout}"
    );

    let out = classlab(dir.path())
        .arg("--sessions")
        .arg(&sessions)
        .arg("--dataset")
        .arg(&dataset)
        .args(["eval", "--predictions"])
        .arg(&preds)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(matches!(out.status.code(), Some(0 | 3)), "{stderr}");
    inert(&stdout, "eval stdout");
    inert(&stderr, "eval stderr");
    // The progress line is one line: the newline in the id did not forge a result.
    let forged = stderr
        .lines()
        .filter(|l| l.trim_start().starts_with("Sample_1"))
        .count();
    assert_eq!(forged, 0, "{stderr}");
    assert!(stdout.contains("gpt\\u{1b}[2J\\u{202e}4"), "{stdout}");

    let out = classlab(dir.path())
        .arg("--sessions")
        .arg(&sessions)
        .arg("sessions")
        .output()
        .unwrap();
    inert(&String::from_utf8_lossy(&out.stdout), "sessions");
    let session = std::fs::read_dir(&sessions)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    for format in ["md", "latex", "html"] {
        let out = classlab(dir.path())
            .arg("--sessions")
            .arg(&sessions)
            .args(["report", "--format", format])
            .arg(&session)
            .output()
            .unwrap();
        inert(&String::from_utf8_lossy(&out.stdout), format);
    }
    let out = classlab(dir.path())
        .arg("--sessions")
        .arg(&sessions)
        .args(["report"])
        .arg(&session)
        .output()
        .unwrap();
    inert(&String::from_utf8_lossy(&out.stdout), "report");

    // JSON stays exact.
    let out = classlab(dir.path())
        .arg("--sessions")
        .arg(&sessions)
        .args(["--json", "fingerprint"])
        .arg(&session)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["sessions"][0]["model"], MODEL);
    let out = classlab(dir.path())
        .arg("--dataset")
        .arg(&dataset)
        .args(["--json", "tasks"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["task_id"], ID);
}
