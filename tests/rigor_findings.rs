//! Rigor where findings are made, through the real sandbox on the bundled sample: `classlab
//! rigor` fills the store, then `report --by mutation_score|branch_coverage` slices a session
//! by it and `eval --only-killing-tests` re-scores the session against only the tests that
//! kill a mutant; a task without stored rigor is left out and named, and without a store both
//! say what to run.

mod common;

use std::path::Path;

use common::classlab;
use serde_json::Value;

/// `classlab` with its data directory (the rigor store) under `data`.
fn cmd(sessions: &Path, data: &Path) -> assert_cmd::Command {
    let mut c = classlab(sessions);
    c.env("XDG_DATA_HOME", data);
    c
}

/// `classlab` for `rigor`, which keeps its store under `data` and reads no session (so takes
/// no --sessions).
fn rigor_cmd(data: &Path) -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("classlab").unwrap();
    c.env("NO_COLOR", "1").env("XDG_DATA_HOME", data);
    c
}

#[test]
fn report_and_eval_read_the_rigor_store() {
    let dir = tempfile::tempdir().unwrap();
    let (sessions, data) = (dir.path().join("sessions"), dir.path().join("data"));
    let python = common::project_python("classeval");

    // A session over three tasks: two references and a wrong class.
    let ds = classlab::dataset::sample();
    let mut preds = String::new();
    for t in ds.tasks.iter().take(3) {
        let line = serde_json::json!({"task_id": t.id, "model": "m", "strategy": "holistic", "code": t.solution});
        preds.push_str(&line.to_string());
        preds.push('\n');
    }
    let preds_path = dir.path().join("preds.jsonl");
    std::fs::write(&preds_path, preds).unwrap();
    let v = common::ok_json(
        cmd(&sessions, &data)
            .arg("--python")
            .arg(&python)
            .args(["eval", "--json", "--predictions"])
            .arg(&preds_path)
            .output()
            .unwrap(),
    );
    let session = v["session"].as_str().unwrap().to_string();
    let (a, b, c) = (&ds.tasks[0].id, &ds.tasks[1].id, &ds.tasks[2].id);

    // Nothing stored yet: both commands say what to run.
    let out = cmd(&sessions, &data)
        .args(["report", "--by", "mutation_score"])
        .arg(&session)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("classlab rigor"), "{err}");

    // Rigor of two of the three tasks.
    let r = common::ok_json(
        rigor_cmd(&data)
            .arg("--python")
            .arg(&python)
            .args(["--json", "rigor", "--tasks"])
            .arg(format!("{a},{b}"))
            .output()
            .unwrap(),
    );
    for id in [a, b] {
        assert!(r["tasks"][id]["killed"].as_u64() > Some(0), "{id}: {r:#}");
    }

    for by in ["mutation_score", "branch_coverage"] {
        let v = common::ok_json(
            cmd(&sessions, &data)
                .args(["report", "--json", "--by", by, "--bins", "2"])
                .arg(&session)
                .output()
                .unwrap(),
        );
        let s = &v["slices"][0];
        assert_eq!(s["property"], by);
        let binned: u64 = s["bins"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["tasks"].as_u64().unwrap())
            .sum();
        // The third task has no stored rigor: missing, not guessed.
        assert_eq!(binned + s["missing"].as_u64().unwrap(), 3, "{s:#}");
        assert!(s["missing"].as_u64() >= Some(1), "{s:#}");
    }

    let v = common::ok_json(
        cmd(&sessions, &data)
            .arg("--python")
            .arg(&python)
            .args(["eval", "--json", "--only-killing-tests", "--resume"])
            .arg(&session)
            .output()
            .unwrap(),
    );
    let kept = &v["only_killing_tests"];
    assert_eq!(kept["tasks"], 2, "{kept}");
    assert_eq!(kept["left_out"], serde_json::json!([c]), "{kept}");
    let (k, total) = (
        kept["tests_kept"].as_u64().unwrap(),
        kept["tests_total"].as_u64().unwrap(),
    );
    assert!(0 < k && k <= total, "{kept}");
    let tasks = v["tasks"].as_object().unwrap();
    assert!(tasks.contains_key(a.as_str()) && !tasks.contains_key(c.as_str()));
    // References pass every test, the killing ones too.
    assert_eq!(v["metrics"]["class_success"], 1.0, "{v:#}");
    // The session on disk is unchanged: resumed without the flag, all three tasks are there.
    let plain: Value = common::ok_json(
        cmd(&sessions, &data)
            .arg("--python")
            .arg(&python)
            .args(["eval", "--json", "--resume"])
            .arg(&session)
            .output()
            .unwrap(),
    );
    assert!(plain["tasks"].get(c.as_str()).is_some(), "{plain:#}");
    assert!(plain.get("only_killing_tests").is_none());

    // The same store elsewhere, named with --store: read from there, the default is empty.
    let moved = dir.path().join("elsewhere.db");
    std::fs::rename(data.join("classlab").join("rigor.db"), &moved).unwrap();
    let empty = dir.path().join("empty-data");
    let out = cmd(&sessions, &empty)
        .args(["report", "--json", "--by", "mutation_score"])
        .arg(&session)
        .output()
        .unwrap();
    assert!(!out.status.success(), "the default store is empty");
    let v = common::ok_json(
        cmd(&sessions, &empty)
            .args([
                "report",
                "--json",
                "--by",
                "mutation_score",
                "--bins",
                "2",
                "--store",
            ])
            .arg(&moved)
            .arg(&session)
            .output()
            .unwrap(),
    );
    assert_eq!(v["slices"][0]["missing"], 1, "{v:#}");
    let v = common::ok_json(
        cmd(&sessions, &empty)
            .arg("--python")
            .arg(&python)
            .args(["eval", "--json", "--only-killing-tests", "--store"])
            .arg(&moved)
            .arg("--resume")
            .arg(&session)
            .output()
            .unwrap(),
    );
    assert_eq!(v["only_killing_tests"]["tasks"], 2, "{v:#}");
}
