//! The same code gets the same verdict in every pipeline (issue 21 items 11 and 2): a TDD run
//! of the reference solutions (`run --strategy tdd --provider reference`) judges each class as
//! `eval` of the reference solutions does — ClassEval_48 and _69 were `EnvErr` in the run
//! (the skeleton's constructor and imports instead of the reference's) and judged in `eval`.
//! And whatever code a run wrote, `eval` of that very code gives each task the run's verdict:
//! one code path prepares and judges code for both.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

const TASKS: [&str; 4] = [
    "ClassEval_0",
    "ClassEval_48",
    "ClassEval_69",
    "ClassEval_17",
];

fn classeval() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/classeval/ClassEval_data.json")
}

fn classlab(sessions: &Path) -> Command {
    let mut c = Command::cargo_bin("classlab").unwrap();
    c.env("NO_COLOR", "1")
        .arg("--sessions")
        .arg(sessions)
        .arg("--dataset")
        .arg(classeval());
    c
}

fn ok(out: &std::process::Output) -> Value {
    assert!(
        matches!(out.status.code(), Some(0 | 3)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// JSONL of `(task_id, code)` for `eval`.
fn jsonl(path: &Path, model: &str, code: &[(String, String)]) {
    let mut text = String::new();
    for (id, c) in code {
        text += &serde_json::json!({"task_id": id, "model": model, "code": c}).to_string();
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

/// The session directories under `root`, oldest first (the reference runs' cache beside them,
/// `.reference/`, is not one: a session has a `meta.json`).
fn sessions(root: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("meta.json").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// Each compared task's outcome in each of two sessions, as `fingerprint --json` has them.
fn outcomes(root: &Path, a: &Path, b: &Path) -> Value {
    // fingerprint reads sessions, no dataset (--dataset is refused).
    let out = Command::cargo_bin("classlab")
        .unwrap()
        .env("NO_COLOR", "1")
        .arg("--sessions")
        .arg(root)
        .args(["--json", "fingerprint"])
        .arg(a)
        .arg(b)
        .output()
        .unwrap();
    ok(&out)["compared"].clone()
}

#[test]
fn a_tdd_run_of_the_reference_judges_as_eval_of_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("sessions");
    let run = classlab(&root)
        .args([
            "--json",
            "run",
            "--strategy",
            "tdd",
            "--provider",
            "reference",
        ])
        .args(["--tasks", &TASKS.join(",")])
        .output()
        .unwrap();
    ok(&run);
    let run_dir = sessions(&root).remove(0);

    let dataset = classlab::dataset::load_path(&classeval()).unwrap();
    let solutions: Vec<(String, String)> = TASKS
        .iter()
        .map(|id| {
            let t = dataset.tasks.iter().find(|t| t.id == *id).unwrap();
            (t.id.clone(), t.solution.clone())
        })
        .collect();
    let file = dir.path().join("reference.jsonl");
    jsonl(&file, "reference", &solutions);
    ok(&classlab(&root)
        .args(["--json", "eval", "--predictions"])
        .arg(&file)
        .output()
        .unwrap());
    let eval_dir = sessions(&root).into_iter().find(|d| d != &run_dir).unwrap();
    let compared = outcomes(&root, &run_dir, &eval_dir);
    assert_eq!(compared["tasks"], TASKS.len(), "{compared}");
    assert_eq!(
        compared["differing"],
        serde_json::json!([]),
        "run vs eval of the reference: {}",
        compared["outcomes"]
    );
    // Both ran the private tests: 48's reference fails its network test here, the same way
    // in both (so EnvErr on the reference's own evidence, issue 22 item 3), 69 passes them all.
    assert_eq!(compared["outcomes"]["ClassEval_48"][0], "EnvErr");
    assert_eq!(compared["outcomes"]["ClassEval_69"][0], "Perfect");

    // The code the run wrote, evaluated as model outputs: the run's verdicts again.
    let events = std::fs::read_to_string(run_dir.join("events.jsonl")).unwrap();
    let written: Vec<(String, String)> = events
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["kind"] == "code_extracted" && e["method"].is_null())
        .map(|e| {
            (
                e["task_id"].as_str().unwrap().to_string(),
                e["code"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(written.len(), TASKS.len());
    let file = dir.path().join("written.jsonl");
    jsonl(&file, "written", &written);
    let before = sessions(&root);
    ok(&classlab(&root)
        .args(["--json", "eval", "--predictions"])
        .arg(&file)
        .output()
        .unwrap());
    let again = sessions(&root)
        .into_iter()
        .find(|d| !before.contains(d))
        .unwrap();
    let compared = outcomes(&root, &run_dir, &again);
    assert_eq!(compared["differing"], serde_json::json!([]), "{compared}");
}

/// One class whose module starts with `from __future__ import annotations` and whose task
/// gives its imports apart (`import_statement`), as a corpus export writes it: `run` (which
/// prepends the imports, as ClassEval's harness does), `eval` and `validate` prepare it the
/// same way, so all three pass it — before, `run` put the imports above the future import
/// (SyntaxError) while `validate` ran the class without them.
#[test]
fn run_eval_and_validate_prepare_a_class_the_same_way() {
    let dir = tempfile::tempdir().unwrap();
    let solution = "from __future__ import annotations\n\n\nclass Counter:\n    \
                    def __init__(self) -> None:\n        self.seen: Dict[str, int] = {}\n\n    \
                    def add(self, word: str) -> int:\n        \
                    self.seen[word] = self.seen.get(word, 0) + 1\n        \
                    return self.seen[word]\n";
    let tests = "import unittest\n\n\nclass CounterTestAdd(unittest.TestCase):\n    \
                 def test_add(self):\n        c = Counter()\n        c.add('a')\n        \
                 self.assertEqual(c.add('a'), 2)\n";
    let dataset = serde_json::json!({
        "format": "classlab-dataset", "version": 1, "name": "export",
        "tasks": [{
            "task_id": "Export_0", "class_name": "Counter",
            "skeleton": "from __future__ import annotations\n\n\nclass Counter:\n    def __init__(self) -> None:\n        self.seen: Dict[str, int] = {}\n\n    def add(self, word: str) -> int:\n        \"\"\"Count `word`; how often it was seen.\"\"\"\n",
            "solution_code": solution,
            "import_statement": ["from typing import Dict"],
            "class_description": "", "class_constructor": "", "fields": ["self.seen"],
            "test": tests, "test_classes": ["CounterTestAdd"],
            "methods_info": [{
                "method_name": "add", "method_description": "def add(self, word: str) -> int:",
                "test_class": "CounterTestAdd", "test_code": tests, "solution_code": "",
                "dependencies": {"Standalone": true, "lib_dependencies": [], "field_dependencies": [], "method_dependencies": []}
            }]
        }]
    });
    let path = dir.path().join("export.json");
    std::fs::write(&path, dataset.to_string()).unwrap();
    let root = dir.path().join("sessions");
    let cmd = || {
        let mut c = Command::cargo_bin("classlab").unwrap();
        c.env("NO_COLOR", "1")
            .env("XDG_DATA_HOME", dir.path().join("data"))
            .arg("--sessions")
            .arg(&root)
            .arg("--dataset")
            .arg(&path)
            .arg("--json");
        c
    };
    let run = ok(&cmd()
        .args(["run", "--strategy", "holistic", "--provider", "reference"])
        .output()
        .unwrap());
    assert_eq!(
        run["sessions"][0]["fingerprint"]["spectrum"]["Perfect"], 1,
        "run: {}",
        run["sessions"][0]["fingerprint"]
    );
    let file = dir.path().join("reference.jsonl");
    jsonl(&file, "reference", &[("Export_0".into(), solution.into())]);
    let eval = ok(&cmd()
        .args(["eval", "--predictions"])
        .arg(&file)
        .output()
        .unwrap());
    assert_eq!(
        eval["tasks"]["Export_0"]["outcome"], "Perfect",
        "eval: {eval}"
    );
    let validate = ok(&cmd().args(["validate", "--no-coverage"]).output().unwrap());
    assert_eq!(
        validate["summary"]["passed_twice"], 1,
        "validate: {validate}"
    );
}
