//! `classlab rigor` on real data: the JSON shape of issue 23 with ClassEval_8's surviving
//! boundary mutant, an unchanged rerun read from the store, `kill -9` in the middle and a
//! resume, shards merged, and a RealClassEval folder.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use serde_json::Value;

/// Small, fast ClassEval tasks.
const TASKS: &str = "ClassEval_8,ClassEval_18,ClassEval_13,ClassEval_53";

fn rigor(store: &Path, extra: &[&str]) -> Value {
    let out = Command::cargo_bin("classlab")
        .unwrap()
        .arg("--python")
        .arg(common::project_python("classeval"))
        .arg("--dataset")
        .arg(common::classeval_json())
        .args(["--json", "rigor", "--store"])
        .arg(store)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "classlab rigor failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

#[test]
fn classeval_8_json_shape_and_a_rerun_from_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("rigor.db");
    let v = rigor(&store, &["--tasks", "ClassEval_8"]);
    let t = &v["tasks"]["ClassEval_8"];
    for key in [
        "line",
        "branch",
        "branches",
        "uncovered_lines",
        "missing_arcs",
        "mutants",
        "killed",
        "survived",
        "equivalent",
        "timeouts",
        "not_run",
        "score",
    ] {
        assert!(t.get(key).is_some(), "no {key} in {t}");
    }
    assert_eq!(t["line"], 100.0);
    assert_eq!(t["branches"][0], t["branches"][1]);
    let survived = t["survived"].as_array().unwrap();
    let boundary = survived
        .iter()
        .find(|s| s["op"] == "boundary")
        .unwrap_or_else(|| panic!("no surviving boundary mutant: {survived:?}"));
    assert_eq!(boundary["before"], "amount < 0");
    assert_eq!(boundary["after"], "amount <= 0");
    // `withdraw`'s check, not `deposit`'s (line 6): withdraw(0) is never tested.
    assert_eq!(boundary["line"], 12);
    let n = |k: &str| t[k].as_u64().unwrap();
    let score = t["score"].as_f64().unwrap();
    let ran = n("mutants") - n("equivalent") - n("not_run");
    assert!((score - n("killed") as f64 / ran as f64).abs() < 1e-12);
    assert_eq!(n("killed") + survived.len() as u64, ran);
    let s = &v["summary"];
    assert_eq!(
        (s["computed"].as_u64(), s["cached"].as_u64()),
        (Some(1), Some(0))
    );
    assert!(s["operators"].as_array().unwrap().len() >= 15);

    let t0 = Instant::now();
    let again = rigor(&store, &["--tasks", "ClassEval_8"]);
    assert_eq!(
        again["tasks"], v["tasks"],
        "the same result, from the store"
    );
    assert_eq!(again["summary"]["cached"].as_u64(), Some(1));
    assert!(t0.elapsed() < Duration::from_secs(20));
    let fresh = rigor(&store, &["--tasks", "ClassEval_8", "--no-cache"]);
    assert_eq!(fresh["summary"]["computed"].as_u64(), Some(1));
}

fn rows(store: &Path) -> usize {
    let Ok(c) = rusqlite::Connection::open(store) else {
        return 0;
    };
    c.query_row("SELECT count(*) FROM results", [], |r| r.get::<_, i64>(0))
        .map_or(0, |n| n as usize)
}

#[test]
fn kill_9_in_the_middle_then_resume() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("rigor.db");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("classlab"))
        .arg("--python")
        .arg(common::project_python("classeval"))
        .arg("--dataset")
        .arg(common::classeval_json())
        .args([
            "--json", "rigor", "--jobs", "1", "--tasks", TASKS, "--store",
        ])
        .arg(&store)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while rows(&store) == 0 {
        assert!(t0.elapsed() < Duration::from_secs(300), "no result stored");
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before the kill"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let kept = rows(&store);
    assert!((1..4).contains(&kept), "{kept} rows when killed");
    let v = rigor(&store, &["--tasks", TASKS]);
    let s = &v["summary"];
    assert_eq!(s["cached"].as_u64(), Some(kept as u64), "{s}");
    assert_eq!(s["computed"].as_u64(), Some(4 - kept as u64));
    assert_eq!(s["complete"], true);
    assert_eq!(v["tasks"].as_object().unwrap().len(), 4);
    assert_eq!(rows(&store), 4);
}

#[test]
fn shards_merge_into_the_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, all) = (
        dir.path().join("a.db"),
        dir.path().join("b.db"),
        dir.path().join("all.db"),
    );
    let va = rigor(&a, &["--tasks", TASKS, "--shard", "1/2"]);
    let vb = rigor(&b, &["--tasks", TASKS, "--shard", "2/2"]);
    let (na, nb) = (
        va["tasks"].as_object().unwrap().len(),
        vb["tasks"].as_object().unwrap().len(),
    );
    assert_eq!(na + nb, 4, "disjoint shards cover the tasks");
    let out = Command::cargo_bin("classlab")
        .unwrap()
        .args(["--json", "rigor", "merge"])
        .arg(&all)
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = rigor(&all, &["--tasks", TASKS]);
    assert_eq!(v["summary"]["cached"].as_u64(), Some(4));
    for (id, t) in va["tasks"]
        .as_object()
        .unwrap()
        .iter()
        .chain(vb["tasks"].as_object().unwrap())
    {
        assert_eq!(&v["tasks"][id], t, "{id}");
    }
    let bad = Command::cargo_bin("classlab")
        .unwrap()
        .args(["rigor", "merge"])
        .arg(&all)
        .arg(dir.path().join("missing.db"))
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("missing.db"));
}

#[test]
fn a_realclasseval_folder() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("classlab")
        .unwrap()
        .arg("--python")
        .arg(common::project_python("realclasseval"))
        .arg("--dataset")
        .arg(common::shared_data("realclasseval/csn"))
        .args(["--json", "rigor", "--store"])
        .arg(dir.path().join("r.db"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let tasks = v["tasks"].as_object().unwrap();
    assert_eq!(tasks.len(), 12);
    let measured = tasks.values().filter(|t| t["line"].is_number()).count();
    assert!(measured >= 10, "coverage measured on {measured} of 12");
    let scored = tasks.values().filter(|t| t["score"].is_number()).count();
    assert!(scored >= 10, "scored {scored} of 12");
}
