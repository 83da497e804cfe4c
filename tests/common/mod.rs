//! Shared helpers for integration tests: where the shared real data lives.

#![allow(dead_code)]

pub mod mock_llm;
pub mod reference_model;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// `../shared/data/<rel>` beside the checkout (CI puts `shared/` there).
pub fn shared_data(rel: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(rel);
    assert!(
        path.exists(),
        "{} is missing: tests need ../shared/data beside the checkout",
        path.display()
    );
    path
}

pub fn classeval_json() -> PathBuf {
    shared_data("classeval/ClassEval_data.json")
}

/// The project's Python environment `name` (`classeval` or `realclasseval`), provisioned first
/// if need be: `scripts/setup-python.sh NAME` runs once per test process (it is idempotent, and
/// takes a flock, so test binaries that run at once wait for one another instead of building
/// twice); a failed provisioning fails the test with the script's output.
pub fn project_python(name: &str) -> PathBuf {
    static DONE: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = root.join(".python").join(name).join("bin/python");
    let mut done = DONE.lock().unwrap_or_else(|e| e.into_inner());
    if !done.iter().any(|d| d == name) {
        let out = std::process::Command::new("bash")
            .arg(root.join("scripts/setup-python.sh"))
            .arg(name)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("bash runs scripts/setup-python.sh");
        assert!(
            out.status.success(),
            "scripts/setup-python.sh {name} failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            python.is_file(),
            "{} missing after set-up",
            python.display()
        );
        done.push(name.to_string());
    }
    python
}

/// Evaluations are heavy (a suite per core): a test binary runs them one after another.
static HEAVY: Mutex<()> = Mutex::new(());

/// `classlab [--python PY] eval --json --dataset D --predictions P` in a fresh sessions
/// directory; its JSON output. Exit 3 (input problems reported) is accepted.
pub fn eval_json(python: Option<&Path>, dataset: &Path, predictions: &Path) -> serde_json::Value {
    let _guard = HEAVY.lock().unwrap_or_else(|e| e.into_inner());
    let sessions = tempfile::tempdir().unwrap();
    let mut cmd = assert_cmd::Command::cargo_bin("classlab").unwrap();
    if let Some(python) = python {
        cmd.arg("--python").arg(python);
    }
    let out = cmd
        .args(["eval", "--json", "--sessions"])
        .arg(sessions.path())
        .arg("--dataset")
        .arg(dataset)
        .arg("--predictions")
        .arg(predictions)
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 3)),
        "eval failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("eval --json prints JSON")
}

/// The JSON a classlab command printed, after checking it exited 0 (its stderr otherwise).
pub fn ok_json(out: std::process::Output) -> serde_json::Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

/// `classlab --sessions SESSIONS` without colours, ready for its subcommand.
pub fn classlab(sessions: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("classlab").unwrap();
    cmd.env("NO_COLOR", "1").arg("--sessions").arg(sessions);
    cmd
}

/// The JSON a classlab command printed, after checking it exited 0 or 3 (input problems
/// reported; its stderr otherwise).
pub fn json_despite_input_problems(out: std::process::Output) -> serde_json::Value {
    assert!(
        matches!(out.status.code(), Some(0 | 3)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}
