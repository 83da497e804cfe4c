//! `EnvErr` rests on classlab's evidence only (issue 22 item 3): a task whose reference fails
//! here for the environment (ClassEval_52: no nltk data offline) is `EnvErr` because the
//! reference's run in the same suite fails the same tests the same way — recorded in the
//! session and cached below the sessions root — while code that dresses its own failure up as
//! the environment's (a `ConnectionError` cause it never raised, a `LookupError` from `exec`)
//! stays the model's failure. Through the real sandbox, on the real ClassEval data, for `eval`
//! and for `run`'s private tests.

mod common;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::Value;

fn dataset() -> Value {
    serde_json::from_slice(&std::fs::read(common::classeval_json()).unwrap()).unwrap()
}

/// The reference solution of `task_id`.
fn reference(ds: &Value, task_id: &str) -> String {
    let task = ds
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["task_id"] == task_id)
        .unwrap();
    task["solution_code"].as_str().unwrap().to_string()
}

/// The events of the one session below `root`.
fn events(root: &Path) -> Vec<Value> {
    let session = common::reference_model::only_session(root);
    common::reference_model::events(&session)
}

/// The `test_run` events of scope `reference` (no method: the private suite's evidence).
fn reference_runs<'e>(events: &'e [Value], task_id: &str) -> Vec<&'e Value> {
    events
        .iter()
        .filter(|e| e["kind"] == "test_run" && e["scope"] == "reference")
        .filter(|e| e["task_id"] == task_id && e.get("method").is_none_or(Value::is_null))
        .collect()
}

/// The cached reference runs below a sessions root, with when each was written.
fn cache(root: &Path) -> Vec<(PathBuf, SystemTime)> {
    let Ok(dir) = std::fs::read_dir(root.join(".reference")) else {
        return Vec::new();
    };
    let mut entries: Vec<(PathBuf, SystemTime)> = dir
        .map(|e| {
            let e = e.unwrap();
            (e.path(), e.metadata().unwrap().modified().unwrap())
        })
        .collect();
    entries.sort();
    entries
}

fn eval(sessions: &Path, predictions: &Path) -> Value {
    common::project_python("classeval");
    let out = common::classlab(sessions)
        .args(["eval", "--json", "--dataset"])
        .arg(common::classeval_json())
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

#[test]
fn eval_excuses_what_the_reference_fails_here_and_nothing_the_code_claims() {
    let ds = dataset();
    let dir = tempfile::tempdir().unwrap();
    let predictions = dir.path().join("predictions.jsonl");
    let launder_network = "class AccessGatewayFilter:\n    def __init__(self):\n        raise RuntimeError() from ConnectionError(\"[Errno 101] Network is unreachable\")\n";
    let launder_nltk = "class AreaCalculator:\n    def __init__(self, radius):\n        exec(\"raise LookupError('Resource punkt not found. Please use the NLTK Downloader')\")\n";
    let lines = [
        ("ClassEval_52", reference(&ds, "ClassEval_52")),
        ("ClassEval_0", launder_network.to_string()),
        ("ClassEval_1", launder_nltk.to_string()),
        ("ClassEval_2", reference(&ds, "ClassEval_2")),
    ];
    let mut text = String::new();
    for (task_id, code) in &lines {
        let line = serde_json::json!({"task_id": task_id, "model": "m", "code": code});
        text.push_str(&format!("{line}\n"));
    }
    std::fs::write(&predictions, text).unwrap();
    let sessions = tempfile::tempdir().unwrap();
    let first = eval(sessions.path(), &predictions);
    let outcome = |v: &Value, t: &str| v["tasks"][t]["outcome"].as_str().unwrap_or("").to_string();

    // The reference fails ClassEval_52's nltk tests here with LookupError: the environment.
    assert_eq!(
        outcome(&first, "ClassEval_52"),
        "EnvErr",
        "{}",
        first["tasks"]
    );
    // The reference passes ClassEval_0 and _1: whatever the code raised is its own.
    assert_eq!(
        outcome(&first, "ClassEval_0"),
        "RuntimeErr",
        "{}",
        first["tasks"]
    );
    assert_eq!(
        outcome(&first, "ClassEval_1"),
        "RuntimeErr",
        "{}",
        first["tasks"]
    );
    assert_eq!(outcome(&first, "ClassEval_2"), "Perfect");
    assert_eq!(
        first["metrics"]["env_err"]["tasks"], 1,
        "{}",
        first["metrics"]
    );

    // The evidence is in the session: the reference's run of each failing task's suite, and
    // none for the task that passed (a clean run needs no excuse).
    let log = events(sessions.path());
    for task in ["ClassEval_52", "ClassEval_0", "ClassEval_1"] {
        assert_eq!(reference_runs(&log, task).len(), 1, "{task}");
    }
    assert!(reference_runs(&log, "ClassEval_2").is_empty());
    let nltk = reference_runs(&log, "ClassEval_52")[0];
    assert!(
        nltk["result"]["tests"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["exc_type"] == "LookupError"),
        "{nltk}"
    );

    // Cached below the sessions root, one entry per suite, and reused by the next evaluation
    // (no entry written again); the verdicts are the same.
    let cached = cache(sessions.path());
    assert_eq!(cached.len(), 3, "{cached:?}");
    let again = eval(sessions.path(), &predictions);
    assert_eq!(cache(sessions.path()), cached);
    for (task, _) in &lines {
        assert_eq!(outcome(&again, task), outcome(&first, task), "{task}");
    }
}

#[test]
fn run_judges_its_private_tests_with_the_references_evidence() {
    let sessions = tempfile::tempdir().unwrap();
    common::project_python("classeval");
    let out = common::classlab(sessions.path())
        .args([
            "run",
            "--json",
            "--strategy",
            "holistic",
            "--provider",
            "reference",
            "--tasks",
            "ClassEval_52",
            "--dataset",
        ])
        .arg(common::classeval_json())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "run failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = events(sessions.path());
    let finished: Vec<&Value> = log
        .iter()
        .filter(|e| e["kind"] == "task_finished")
        .collect();
    assert_eq!(finished.len(), 1);
    assert_eq!(
        finished[0]["summary"]["outcome"], "EnvErr",
        "{}",
        finished[0]
    );
    assert_eq!(reference_runs(&log, "ClassEval_52").len(), 1);
    assert_eq!(cache(sessions.path()).len(), 1);
}
