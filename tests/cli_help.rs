//! Help tells the truth and usage errors exit 2 (issue 21 item 18): `--dataset` names every
//! kind of dataset, `--python` its real default; a global flag a command would ignore is
//! refused; the run flags say their defaults; `eval --tasks` exists; a flag's value that
//! means nothing (`report --format pdf`, `lint --rule Z9`) is a usage error; the corpus commands'
//! help lists the filter's fields and says what every argument is.

use std::path::Path;

use assert_cmd::Command;
use classlab::analysis::metrics::METRIC_NAMES;
use serde_json::Value;

fn classlab() -> Command {
    let mut c = Command::cargo_bin("classlab").unwrap();
    c.env("NO_COLOR", "1");
    c
}

fn help(args: &[&str]) -> String {
    let out = classlab().args(args).arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    // clap wraps long help to the terminal: compare on single spaces.
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn help_names_every_dataset_kind_and_the_real_python_default() {
    let top = help(&[]);
    for want in [
        "RealClassEval-style folder",
        "corpus store",
        "classlab dataset",
        ".python/classeval",
        ".python/realclasseval",
        "`python3` on PATH",
    ] {
        assert!(top.contains(want), "`{want}` missing from --help:\n{top}");
    }
    let run = help(&["run"]);
    for want in [
        "[default: 3;",
        "[default: predicted;",
        "[default: doctest;",
        "Most tokens a model answer may have",
        "Sampling seed",
        "The model's name at the endpoint",
    ] {
        assert!(
            run.contains(want),
            "`{want}` missing from run --help:\n{run}"
        );
    }
    let eval = help(&["eval"]);
    assert!(eval.contains("--tasks <ID,…>"), "{eval}");
}

#[test]
fn a_global_flag_the_command_ignores_is_refused() {
    for (args, flag) in [
        (
            vec![
                "corpus",
                "query",
                "S.db",
                "--dataset",
                "/nonexistent",
                "--python",
                "/nope",
            ],
            "--dataset",
        ),
        (vec!["tasks", "--python", "/nope"], "--python"),
        (vec!["lint", "--sessions", "/tmp/x"], "--sessions"),
        (vec!["--json", "tui"], "--json"),
        (vec!["--theme", "dark", "tasks"], "--theme"),
    ] {
        let out = classlab().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(flag) && err.contains("ignore"),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec!["report", "x", "--format", "pdf"],
        vec!["eval", "--predictions", "x.json", "--format", "pdf"],
        vec!["run", "--strategy", "bogus"],
        vec!["run", "--strategy", "tdd", "--schedule", "sideways"],
        vec!["run", "--strategy", "tdd", "--public-tests", "split:0"],
        vec!["run", "--strategy", "tdd", "--provider", "nobody"],
        vec!["lint", "--rule", "Z9"],
    ] {
        let out = classlab().args(&args).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn eval_tasks_evaluates_only_those_and_refuses_an_unknown_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for t in &classlab::dataset::sample().tasks {
        text += &serde_json::json!({"task_id": t.id, "model": "m", "code": t.solution}).to_string();
        text.push('\n');
    }
    let preds = dir.path().join("p.jsonl");
    std::fs::write(&preds, text).unwrap();
    let run = |tasks: &str| {
        classlab()
            .arg("--sessions")
            .arg(dir.path().join("sessions"))
            .args(["--json", "eval", "--tasks", tasks, "--predictions"])
            .arg(&preds)
            .output()
            .unwrap()
    };
    let out = run("Sample_1,Sample_3");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&String> = v["tasks"].as_object().unwrap().keys().collect();
    assert_eq!(ids, ["Sample_1", "Sample_3"]);
    let out = run("Sample_1,Nope_9");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("Nope_9"), "{err}");
    assert_eq!(
        std::fs::read_dir(Path::new(&dir.path().join("sessions")))
            .unwrap()
            .count(),
        1,
        "no session for the refused one"
    );
}

#[test]
fn query_help_lists_the_filter_fields_and_every_argument_says_what_it_is() {
    let query = help(&["corpus", "query"]);
    for field in METRIC_NAMES.iter().chain(&[
        "n_methods",
        "doc",
        "tokens",
        "qualname",
        "repo",
        "self_contained",
        "near_duplicate",
        "text:",
    ]) {
        assert!(query.contains(field), "`{field}` missing from: {query}");
    }
    assert!(
        query.contains("--limit <N> Print at most this many classes"),
        "{query}"
    );
    let export = help(&["corpus", "export"]);
    for text in [
        "<FILE> The store",
        "[FILTER] Which classes",
        "--out <DIR> The directory to write",
        "--format <FORMAT> realclasseval:",
        "Possible values: - realclasseval:",
        "--limit <N> Export at most this many classes",
        "CountDeclMethod",
    ] {
        assert!(export.contains(text), "`{text}` missing from: {export}");
    }
    let merge = help(&["corpus", "merge"]);
    assert!(
        merge.contains("<OUT> The store to write the merge into"),
        "{merge}"
    );
    assert!(
        merge.contains("<IN>... The shard stores to merge"),
        "{merge}"
    );
}
