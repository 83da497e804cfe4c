//! `classlab forge STORE.db [FILTER] --out DIR`: a corpus store as forge's source. Each class
//! becomes a task through its executable closure; a class that is not self-contained (here:
//! it imports numpy) is dropped with the closure's reason in the funnel; the self-contained
//! one gets tests that pass on it, and the forged dataset evaluates. Needs Linux and the
//! project's `.python/classeval`.

mod common;

use std::path::Path;

use serde_json::Value;

const SHAPES: &str = r#""""Shapes."""
import math

UNIT = 1.0


class Rect:
    """A rectangle."""

    def __init__(self, width, height):
        self.width = width
        self.height = height

    def area(self):
        """The area."""
        return self.width * self.height * UNIT

    def scale(self, k):
        """Scale by k; k must be positive."""
        if k <= 0:
            raise ValueError("k must be positive")
        self.width *= k
        self.height *= k
        return self

    def diagonal(self):
        return math.hypot(self.width, self.height)
"#;

const ARRAYS: &str = "import numpy as np\n\n\nclass Grid:\n    def __init__(self, n):\n        self.cells = np.zeros((n, n))\n\n    def fill(self, v):\n        self.cells[:] = v\n\n    def total(self):\n        return float(self.cells.sum())\n";

fn classlab() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("classlab").unwrap();
    cmd.env("NO_COLOR", "1");
    cmd
}

fn json_of(out: std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn store(dir: &Path) -> std::path::PathBuf {
    let repo = dir.join("repo/pkg");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::write(repo.join("shapes.py"), SHAPES).unwrap();
    std::fs::write(repo.join("arrays.py"), ARRAYS).unwrap();
    let db = dir.join("store.db");
    let out = classlab()
        .args(["corpus", "build"])
        .arg(dir.join("repo"))
        .arg("--out")
        .arg(&db)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    db
}

#[test]
fn a_store_selection_is_forged_and_a_class_that_is_not_self_contained_is_dropped_with_its_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let db = store(tmp.path());
    let python = common::project_python("classeval");
    let out = tmp.path().join("forged");
    let summary = json_of(
        classlab()
            .arg("--json")
            .arg("--python")
            .arg(&python)
            .arg("forge")
            .arg(&db)
            .args(["--out"])
            .arg(&out)
            .args(["--jobs", "1", "--iterations", "200"])
            .output()
            .unwrap(),
    );
    assert_eq!(summary["classes"], 2, "{summary}");
    assert_eq!(
        summary["dropped"],
        serde_json::json!({"closure: imports `numpy` (third-party)": 1}),
        "{summary}"
    );
    assert_eq!(summary["funnel"]["kept"], 1, "{summary}");
    let ds: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("dataset.json")).unwrap()).unwrap();
    let task = &ds["tasks"][0];
    assert_eq!(task["class_name"], "Rect");
    assert!(
        task["test"]
            .as_str()
            .unwrap()
            .contains("class RectTestScale(_FreshDir):")
    );
    // The input stays on record, and a filter narrows it: only the Grid class is selected.
    assert!(out.join("source/dataset.json").exists());
    let narrowed = json_of(
        classlab()
            .arg("--json")
            .arg("--python")
            .arg(&python)
            .arg("forge")
            .arg(&db)
            .arg("name = 'Grid'")
            .arg("--out")
            .arg(tmp.path().join("grid"))
            .output()
            .unwrap(),
    );
    assert_eq!(narrowed["classes"], 1, "{narrowed}");
    assert_eq!(narrowed["funnel"]["kept"], 0, "{narrowed}");

    // The forged dataset runs: the reference passes every generated test.
    let eval = json_of(
        classlab()
            .arg("--json")
            .arg("--sessions")
            .arg(tmp.path().join("sessions"))
            .arg("--python")
            .arg(&python)
            .args([
                "run",
                "--provider",
                "reference",
                "--strategy",
                "holistic",
                "--dataset",
            ])
            .arg(out.join("dataset.json"))
            .output()
            .unwrap(),
    );
    let run = &eval["sessions"][0];
    assert_eq!(run["fingerprint"]["spectrum"]["Perfect"], 1, "{eval}");
    assert_eq!(run["metrics"]["class_success"], 1.0, "{eval}");
}
