//! The `classlab` commands, as a script would call them (assert_cmd), including bad input.

mod common;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn classlab() -> Command {
    let mut cmd = Command::cargo_bin("classlab").unwrap();
    cmd.env("NO_COLOR", "1");
    cmd
}

fn json_of(cmd: &mut Command) -> Value {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn tasks_lists_the_bundled_sample() {
    classlab().arg("tasks").assert().success().stdout(
        predicate::str::contains("Sample_0").and(predicate::str::contains("WordFrequencyReport")),
    );
    let v = json_of(classlab().args(["tasks", "--json"]));
    let rows = v.as_array().unwrap();
    assert!((6..=10).contains(&rows.len()));
    let first = &rows[0];
    for key in ["task_id", "class_name", "methods", "edges", "tests"] {
        assert!(first.get(key).is_some(), "missing {key}: {first}");
    }
    assert_eq!(first["methods"].as_array().unwrap().len(), 5);
}

#[test]
fn tasks_on_classeval() {
    let v = json_of(
        classlab()
            .args(["tasks", "--json", "--dataset"])
            .arg(common::classeval_json()),
    );
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), 100);
    let methods: usize = rows
        .iter()
        .map(|r| r["methods"].as_array().unwrap().len())
        .sum();
    assert_eq!(methods, 410);
    let edges: u64 = rows.iter().map(|r| r["edges"].as_u64().unwrap()).sum();
    assert_eq!(edges, 125);
}

#[test]
fn show_one_task() {
    classlab()
        .args(["show", "Sample_2"])
        .assert()
        .success()
        .stdout(predicate::str::contains("__normalize"));
    let v = json_of(
        classlab()
            .args(["show", "ClassEval_0", "--json", "--dataset"])
            .arg(common::classeval_json()),
    );
    let filter = &v["methods"][0];
    assert_eq!(filter["name"], "filter");
    assert_eq!(
        filter["extracted"],
        serde_json::json!([
            "get_jwt_user",
            "is_start_with",
            "set_current_user_info_and_log"
        ])
    );
    assert_eq!(v["order"][3], "filter");
}

#[test]
fn show_unknown_task_is_a_one_line_error() {
    classlab().args(["show", "Nope_1"]).assert().code(1).stderr(
        predicate::str::contains("no task `Nope_1`")
            .and(predicate::str::is_match("^[^\n]*\n$").unwrap()),
    );
}

#[test]
fn deps_agreement_on_classeval() {
    let v = json_of(
        classlab()
            .args(["deps", "--json", "--dataset"])
            .arg(common::classeval_json()),
    );
    let s = &v["summary"];
    assert_eq!(s["methods"], 410);
    assert_eq!(s["methods_agree"], 391);
    assert_eq!(s["methods_differ"], 19);
    assert_eq!(s["edges_extracted"], 125);
    assert_eq!(s["edges_annotated"], 144);
    assert_eq!(s["edges_agree"], 125);
    assert_eq!(s["edges_only_extracted"], 0);
    assert_eq!(s["edges_only_annotated"], 19);
    let t0 = &v["tasks"][0];
    assert_eq!(t0["task_id"], "ClassEval_0");
    assert_eq!(
        t0["methods"]["filter"]["annotated"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert!(t0["cycles"].as_array().unwrap().is_empty());
}

const PREDICTIONS: &str = r#"{
  "Sample_0": {"dependencies": {"report": ["top_words", "count_words"], "top_words": ["count_words"], "count_words": []},
               "order": ["count_words", "top_words", "report", "tokenize", "add_stopword"]},
  "Sample_1": {"dependencies": {"add_item": ["_unit_price"], "total": ["line_total"]},
               "order": ["_unit_price", "add_item", "remove_item", "line_total", "total"]}
}"#;

#[test]
fn depcheck_scores_and_lists_violations() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "p.json", PREDICTIONS);
    let v = json_of(
        classlab()
            .args(["depcheck", "--json", "--predictions"])
            .arg(&p),
    );
    // Sample_0: report extra-only, count_words missing-only, 3 exact. Sample_1: total wrong,
    // line_total missing-only, 3 exact.
    let m = &v["metrics"];
    assert_eq!(m["methods"], 10);
    assert_eq!(m["counts"]["exact"], 6);
    assert_eq!(m["counts"]["missing_only"], 2);
    assert_eq!(m["counts"]["extra_only"], 1);
    assert_eq!(m["counts"]["wrong"], 1);
    assert!(v["by_regime"]["with_deps"].is_object() && v["by_regime"]["no_deps"].is_object());
    let violations = v["violations"].as_array().unwrap();
    assert_eq!(violations.len(), 1);
    assert_eq!(violations[0]["task_id"], "Sample_0");
    assert_eq!(
        violations[0]["violated_edges"],
        serde_json::json!([["count_words", "tokenize"]])
    );
    assert_eq!(v["unscored_tasks"].as_array().unwrap().len(), 6);
    // Human output carries the §4 table.
    classlab()
        .args(["depcheck", "--predictions"])
        .arg(&p)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("with deps")
                .and(predicate::str::contains("count_words->tokenize")),
        );
}

#[test]
fn depcheck_with_annotated_and_file_ground_truth() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "p.json", PREDICTIONS);
    let v = json_of(
        classlab()
            .args(["depcheck", "--json", "--gt", "annotated", "--predictions"])
            .arg(&p),
    );
    assert_eq!(v["ground_truth"], "annotated");
    let gt = write(
        &dir,
        "gt.json",
        r#"{"Sample_0": {"dependencies": {"report": ["top_words", "made_up"]}}}"#,
    );
    let out = classlab()
        .args(["depcheck", "--json", "--predictions"])
        .arg(&p)
        .arg("--gt")
        .arg(&gt)
        .output()
        .unwrap();
    // A truth name the dataset lacks is kept and reported: exit 3, warning on stderr.
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("made_up"));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["truth_unknown_names"][0]["name"], "made_up");
    assert_eq!(v["tasks_without_truth"], serde_json::json!(["Sample_1"]));
}

#[test]
fn depcheck_names_unknown_tasks() {
    let dir = tempfile::tempdir().unwrap();
    // Predictions for no task of the dataset at all are refused (nothing to score).
    let only_unknown = write(
        &dir,
        "unknown.json",
        r#"{"NoSuchTask": {"dependencies": {}, "order": []}}"#,
    );
    classlab()
        .args(["depcheck", "--json", "--predictions"])
        .arg(&only_unknown)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("NoSuchTask"));
    let p = write(
        &dir,
        "p.json",
        r#"{"NoSuchTask": {"dependencies": {}, "order": []},
            "Sample_0": {"dependencies": {}, "order": []}}"#,
    );
    let out = classlab()
        .args(["depcheck", "--json", "--predictions"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("NoSuchTask") && stderr.contains("p.json"),
        "{stderr}"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["unknown_tasks"], serde_json::json!(["NoSuchTask"]));
}

#[test]
fn analyze_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir,
        "a.py",
        "class A:\n    def f(self):\n        return self.g()\n    def g(self):\n        pass\n    class Inner:\n        def h(self):\n            pass\n",
    );
    write(&dir, "broken.py", "class B(:\n");
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    write(
        &dir,
        "sub/c.py",
        "def f():\n    class Local:\n        pass\n",
    );
    let out = classlab()
        .args(["analyze", "--json"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let classes: Vec<&str> = lines.iter().filter_map(|l| l["class"].as_str()).collect();
    assert_eq!(classes, ["A", "A.Inner", "f.Local"]);
    assert_eq!(lines[0]["edges"], serde_json::json!([["f", "g"]]));
    let summary = &lines.last().unwrap()["summary"];
    assert_eq!(summary["files"], 3);
    assert_eq!(summary["classes"], 3);
    assert_eq!(summary["edges"], 1);
    assert!(
        summary["failed_files"][0]["file"]
            .as_str()
            .unwrap()
            .ends_with("broken.py")
    );
    classlab()
        .arg("analyze")
        .arg(dir.path().join("missing"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no such file"));
}

// --- bad input -------------------------------------------------------------------------------

#[test]
fn missing_dataset_file() {
    classlab()
        .args(["tasks", "--dataset", "/no/such/file.json"])
        .assert()
        .code(1)
        .stderr(predicate::str::starts_with(
            "classlab: error: /no/such/file.json: cannot read",
        ));
}

#[test]
fn invalid_json_names_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "bad.json", "[\n  {\"task_id\": \"T\",\n   oops}\n]");
    classlab()
        .args(["tasks", "--dataset"])
        .arg(&p)
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("bad.json:3:").and(predicate::str::contains("invalid JSON")),
        );
}

#[test]
fn task_missing_a_field_is_reported_and_the_rest_load() {
    let dir = tempfile::tempdir().unwrap();
    let good = r#"{"task_id": "T1", "class_name": "A", "solution_code": "class A:\n    def f(self):\n        pass\n", "skeleton": "", "class_description": "", "class_constructor": "", "import_statement": [], "fields": [], "test": "", "test_classes": [], "methods_info": [{"method_name": "f", "method_description": "def f(self):", "test_class": "ATestF", "test_code": "", "solution_code": "", "dependencies": {"Standalone": true, "lib_dependencies": [], "field_dependencies": [], "method_dependencies": []}}]}"#;
    let bad = r#"{"task_id": "T2", "solution_code": "class B:\n    pass\n"}"#;
    let p = write(&dir, "partial.json", &format!("[{good}, {bad}]"));
    let out = classlab()
        .args(["tasks", "--json", "--dataset"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("partial.json")
            && stderr.contains("task T2")
            && stderr.contains("`class_name`"),
        "{stderr}"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 1);
}

#[test]
fn not_a_dataset() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "x.json", r#"{"hello": 1}"#);
    classlab()
        .args(["tasks", "--dataset"])
        .arg(&p)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("x.json: not a dataset"));
    let bin = write(&dir, "bin.json", "");
    std::fs::write(&bin, [0xff, 0xfe, 0x00]).unwrap();
    classlab()
        .args(["tasks", "--dataset"])
        .arg(&bin)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("not UTF-8"));
}

#[test]
fn bad_predictions_files() {
    let dir = tempfile::tempdir().unwrap();
    classlab()
        .args(["depcheck", "--predictions", "/no/such/p.json"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("/no/such/p.json"));
    let p = write(&dir, "p.json", "{\"Sample_0\": [}");
    classlab()
        .args(["depcheck", "--predictions"])
        .arg(&p)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("p.json:1:"));
    let p = write(&dir, "list.json", "[]");
    classlab()
        .args(["depcheck", "--predictions"])
        .arg(&p)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("expected an object"));
}

#[test]
fn usage_errors_exit_2() {
    classlab().args(["depcheck"]).assert().code(2);
    classlab().args(["frobnicate"]).assert().code(2);
}

/// A task whose `methods_info` is malformed: `tasks` and `show` list the methods the TUI lists
/// (the analysis's: the reference's methods), not none.
#[test]
fn malformed_methods_info_lists_the_methods_the_tui_lists() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string("../shared/data/classeval/ClassEval_data.json").unwrap();
    let mut tasks: Vec<Value> = serde_json::from_str(&text).unwrap();
    tasks.truncate(2);
    tasks[0]["methods_info"] = Value::from("not a list");
    let path = write(&dir, "broken.json", &serde_json::to_string(&tasks).unwrap());
    let ds = classlab::dataset::load(Some(&path)).unwrap();
    let tui_methods: Vec<String> = classlab::analysis::analyze_task(&ds.tasks[0]).graph.nodes;
    assert!(!tui_methods.is_empty());
    let out = classlab()
        .args(["tasks", "--json", "--dataset"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "the malformed field is reported"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["methods"], serde_json::json!(tui_methods));
    let out = classlab()
        .args(["show", "ClassEval_0", "--json", "--dataset"])
        .arg(&path)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = v["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, tui_methods);
}

/// Long commands draw a progress bar on a terminal's stderr, and nothing when stderr is not
/// a terminal (tests, pipes): `script` gives the command a terminal.
#[test]
fn progress_bar_on_a_terminal_only() {
    let bin = assert_cmd::cargo::cargo_bin("classlab");
    let cmd = format!(
        "{} lint --json --dataset ../shared/data/classeval/ClassEval_data.json >/dev/null",
        bin.display()
    );
    let out = std::process::Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let tty = String::from_utf8_lossy(&out.stdout);
    assert!(tty.contains("/100 tasks"), "a bar with its count: {tty:?}");
    let piped = classlab()
        .args([
            "lint",
            "--json",
            "--dataset",
            "../shared/data/classeval/ClassEval_data.json",
        ])
        .output()
        .unwrap();
    assert!(
        piped.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&piped.stderr)
    );
}
