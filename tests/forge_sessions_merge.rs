//! `eval --shard K/N` and `sessions merge OUT IN...` on the bundled sample through the real
//! sandbox: the shards are disjoint and cover every task, their merge has the metrics of one
//! unsharded evaluation, and bad merges (a task twice, an unfinished shard, another outputs
//! file) are refused before anything is written.

mod common;

use std::path::{Path, PathBuf};

use common::classlab;
use serde_json::Value;

fn references(dir: &Path, name: &str, skip: usize) -> PathBuf {
    let ds = classlab::dataset::sample();
    let mut text = String::new();
    for t in ds.tasks.iter().skip(skip) {
        let line = serde_json::json!({"task_id": t.id, "model": "reference", "strategy": "holistic", "code": t.solution});
        text.push_str(&line.to_string());
        text.push('\n');
    }
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn eval(dir: &Path, preds: &Path, shard: Option<&str>) -> Value {
    let mut cmd = classlab(dir);
    cmd.args(["eval", "--json", "--predictions"]).arg(preds);
    if let Some(s) = shard {
        cmd.args(["--shard", s]);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn task_ids(v: &Value) -> Vec<String> {
    v["tasks"].as_object().unwrap().keys().cloned().collect()
}

#[test]
fn shards_cover_every_task_once_and_merge_into_one_evaluation() {
    let dir = tempfile::tempdir().unwrap();
    let preds = references(dir.path(), "preds.jsonl", 0);
    let whole = eval(dir.path(), &preds, None);
    let a = eval(dir.path(), &preds, Some("1/2"));
    let b = eval(dir.path(), &preds, Some("2/2"));
    let (ta, tb) = (task_ids(&a), task_ids(&b));
    assert!(
        ta.iter().all(|t| !tb.contains(t)),
        "disjoint: {ta:?} {tb:?}"
    );
    let mut both: Vec<String> = ta.iter().chain(&tb).cloned().collect();
    both.sort();
    assert_eq!(both, task_ids(&whole));

    let out_dir = dir.path().join("merged");
    let out = classlab(dir.path())
        .args(["sessions", "merge", "--json"])
        .arg(&out_dir)
        .args([
            a["session"].as_str().unwrap(),
            b["session"].as_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fp = classlab(dir.path())
        .args(["fingerprint", "--json"])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(
        fp.status.success(),
        "{}",
        String::from_utf8_lossy(&fp.stderr)
    );
    let merged: Value = serde_json::from_slice(&fp.stdout).unwrap();
    let merged = merged["sessions"][0].clone();
    assert_eq!(merged["metrics"], whole["metrics"]);

    // The same shard twice: a task in two inputs.
    let again = classlab(dir.path())
        .args(["sessions", "merge"])
        .arg(dir.path().join("twice"))
        .args([
            a["session"].as_str().unwrap(),
            a["session"].as_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("is in both"));
    assert!(!dir.path().join("twice").exists(), "nothing written");

    // A shard of another outputs file.
    let other = references(dir.path(), "other.jsonl", 1);
    let c = eval(dir.path(), &other, Some("2/2"));
    let bad = classlab(dir.path())
        .args(["sessions", "merge"])
        .arg(dir.path().join("mixed"))
        .args([
            a["session"].as_str().unwrap(),
            c["session"].as_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("other inputs"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
}
