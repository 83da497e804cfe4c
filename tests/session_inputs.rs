//! Sessions keep their inputs honest (issue 11), through the real binary on the bundled
//! sample: `meta.json` keeps the digests of the dataset, the model outputs and the effective
//! configuration, and `--resume` with other inputs is refused naming the difference; a
//! second writer of a session is refused at once while the first holds the session's lock;
//! a `(task_id, sample)` given twice in a predictions file is an input error naming both
//! lines, and no session is created.

mod common;

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::process::{Child, Command as Process, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// A private config directory (no user config: the interpreter is `python3`) and sessions.
struct Env {
    home: tempfile::TempDir,
    sessions: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        Env {
            home: tempfile::tempdir().unwrap(),
            sessions: tempfile::tempdir().unwrap(),
        }
    }

    fn classlab(&self) -> Command {
        let mut cmd = Process::new(env!("CARGO_BIN_EXE_classlab"));
        self.configure(&mut cmd);
        Command::from_std(cmd)
    }

    fn configure(&self, cmd: &mut Process) {
        cmd.env("HOME", self.home.path())
            .env("XDG_CONFIG_HOME", self.home.path().join("config"))
            .env("NO_COLOR", "1")
            .arg("--sessions")
            .arg(self.sessions.path());
    }

    /// A file in the private home.
    fn file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.home.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    fn sessions(&self) -> Vec<PathBuf> {
        std::fs::read_dir(self.sessions.path())
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("meta.json").is_file())
            .collect()
    }

    fn only_session(&self) -> PathBuf {
        let all = self.sessions();
        assert_eq!(all.len(), 1, "{all:?}");
        all.into_iter().next().unwrap()
    }
}

/// JSONL predictions: each sample task's reference solution, with `tweak` applied to the
/// code of `Sample_1` (another "model").
fn predictions(tweak: &str) -> String {
    classlab::dataset::sample()
        .tasks
        .iter()
        .map(|t| {
            let code = match t.id.as_str() {
                "Sample_1" => format!("{}{tweak}", t.solution),
                _ => t.solution.clone(),
            };
            format!("{}\n", json!({"task_id": t.id, "model": "m", "code": code}))
        })
        .collect()
}

fn sha256(path: &Path) -> String {
    Sha256::digest(std::fs::read(path).unwrap())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn id(session: &Path) -> String {
    session.file_name().unwrap().to_string_lossy().into_owned()
}

/// Cut a finished session back to its first `keep` events, as if it had been stopped.
fn cut(session: &Path, keep: usize) {
    let events = session.join("events.jsonl");
    let text = std::fs::read_to_string(&events).unwrap();
    let kept: String = text.lines().take(keep).map(|l| format!("{l}\n")).collect();
    std::fs::write(&events, kept).unwrap();
}

fn meta(session: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(session.join("meta.json")).unwrap()).unwrap()
}

fn kinds(session: &Path) -> Vec<String> {
    std::fs::read_to_string(session.join("events.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["kind"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

/// A finished evaluation of `preds`, cut back to its first three tasks: unfinished.
fn stopped_eval(env: &Env, preds: &Path) -> PathBuf {
    env.classlab()
        .args(["eval", "--jobs", "1", "--predictions"])
        .arg(preds)
        .assert()
        .success();
    let session = env.only_session();
    let events = kinds(&session);
    let third = events
        .iter()
        .enumerate()
        .filter(|(_, k)| *k == "task_finished")
        .nth(2)
        .map(|(i, _)| i)
        .unwrap();
    cut(&session, third + 1);
    session
}

/// The session's event log and meta, to show a refusal changed nothing.
fn snapshot(session: &Path) -> (Vec<u8>, Vec<u8>) {
    (
        std::fs::read(session.join("events.jsonl")).unwrap(),
        std::fs::read(session.join("meta.json")).unwrap(),
    )
}

fn finished_once(session: &Path) {
    let log = classlab::session::SessionLog::open(session).unwrap();
    assert!(log.problems.is_empty(), "{:?}", log.problems);
    let state = classlab::session::EvalState::from_events(&log.events);
    assert!(state.finished && !state.cancelled);
    assert_eq!(state.progress(), (8, 8));
    let finished = log
        .events
        .iter()
        .filter(|e| e.body.kind() == "task_finished")
        .count();
    assert_eq!(finished, 8, "each task finished once");
}

#[test]
fn meta_keeps_the_digest_of_every_input() {
    let env = Env::new();
    let preds = env.file("gpt.jsonl", &predictions(""));
    env.classlab()
        .args(["eval", "--timeout", "4", "--predictions"])
        .arg(&preds)
        .assert()
        .success();
    let m = meta(&env.only_session());
    let inputs = &m["inputs"];
    assert_eq!(
        inputs["outputs"]["path"],
        json!(preds.display().to_string())
    );
    assert_eq!(inputs["outputs"]["sha256"], json!(sha256(&preds)));
    assert_eq!(inputs["dataset"]["sha256"], m["dataset"]["digest"]);
    let config = &inputs["config"]["values"];
    assert_eq!(config["budget_s"], json!(4.0));
    assert_eq!(config["format"], json!("jsonl"));
    assert!(
        config["python"].as_str().unwrap().contains("python"),
        "{config}"
    );
    assert!(config["python_version"].as_str().unwrap().starts_with("3."));
    assert_eq!(inputs["config"]["sha256"].as_str().unwrap().len(), 64);
    assert!(inputs.get("recorded_on_resume").is_none());
}

#[test]
fn resume_with_another_predictions_file_is_refused_and_names_it() {
    let env = Env::new();
    let gpt = env.file("gpt.jsonl", &predictions(""));
    let llama = env.file("llama.jsonl", &predictions("\n# another model\n"));
    let session = stopped_eval(&env, &gpt);
    let before = snapshot(&session);
    env.classlab()
        .args(["eval", "--resume", &id(&session), "--predictions"])
        .arg(&llama)
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("predictions file differs")
                .and(predicate::str::contains(format!(
                    "{} (sha256 {})",
                    gpt.display(),
                    sha256(&gpt)
                )))
                .and(predicate::str::contains(format!(
                    "{} (sha256 {})",
                    llama.display(),
                    sha256(&llama)
                )))
                .and(predicate::str::contains("configuration").not()),
        );
    assert_eq!(
        snapshot(&session),
        before,
        "a refused resume writes nothing"
    );

    // The same file under another name is the same input: accepted.
    let copy = env.file("copy.jsonl", &predictions(""));
    env.classlab()
        .args(["eval", "--resume", &id(&session), "--predictions"])
        .arg(&copy)
        .assert()
        .success();
    finished_once(&session);
}

#[test]
fn resume_with_the_same_inputs_still_works_and_other_settings_are_refused() {
    let env = Env::new();
    let preds = env.file("gpt.jsonl", &predictions(""));
    let session = stopped_eval(&env, &preds);
    let before = snapshot(&session);
    // Another test budget or hash seed would judge the rest differently.
    env.classlab()
        .args(["eval", "--resume", &id(&session), "--timeout", "9"])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("configuration differs (budget_s 5.0 → 9.0)")
                .and(predicate::str::contains("predictions").not()),
        );
    env.classlab()
        .args(["eval", "--resume", &id(&session), "--hash-seed", "7"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("hash_seed 0 → 7"));
    assert_eq!(snapshot(&session), before);
    // The session's own inputs, named again or not: resumed.
    env.classlab()
        .args([
            "eval",
            "--resume",
            &id(&session),
            "--timeout",
            "5",
            "--predictions",
        ])
        .arg(&preds)
        .assert()
        .success()
        .stderr(predicate::str::contains("warning").not());
    finished_once(&session);
    let m = meta(&session);
    assert_eq!(m["inputs"]["outputs"]["sha256"], json!(sha256(&preds)));
}

/// Take the session's lock as a running writer holds it.
fn hold_lock(session: &Path) -> File {
    let lock = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(session.join("lock"))
        .unwrap();
    lock.try_lock().expect("the lock is free");
    lock
}

#[test]
fn a_second_writer_is_refused_at_once_while_the_first_holds_the_lock() {
    let env = Env::new();
    let preds = env.file("gpt.jsonl", &predictions(""));
    let session = stopped_eval(&env, &preds);
    let before = snapshot(&session);
    let held = hold_lock(&session);
    let start = Instant::now();
    env.classlab()
        .args(["eval", "--resume", &id(&session)])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains(format!(
                "session {} is being written by another classlab process",
                id(&session)
            ))
            .and(predicate::str::contains("lock")),
        );
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "refused at once, not after waiting: {:?}",
        start.elapsed()
    );
    assert_eq!(
        snapshot(&session),
        before,
        "the refused writer wrote nothing"
    );
    drop(held);
    env.classlab()
        .args(["eval", "--resume", &id(&session)])
        .assert()
        .success();
    finished_once(&session);
}

/// Code for `Sample_*` that sleeps before defining the class: a slow evaluation.
fn slow_predictions(seconds: f64) -> String {
    classlab::dataset::sample()
        .tasks
        .iter()
        .take(3)
        .map(|t| {
            let code = format!("import time\ntime.sleep({seconds})\n{}", t.solution);
            format!("{}\n", json!({"task_id": t.id, "code": code}))
        })
        .collect()
}

fn wait(child: &mut Child, what: &str, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the first writer ended ({status}) before {what}");
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "waited too long for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn two_writers_at_once_the_second_is_refused_and_nothing_is_torn() {
    let env = Env::new();
    let preds = env.file("slow.jsonl", &slow_predictions(1.5));
    let mut cmd = Process::new(env!("CARGO_BIN_EXE_classlab"));
    env.configure(&mut cmd);
    let mut first = cmd
        .args(["eval", "--jobs", "1", "--json", "--predictions"])
        .arg(&preds)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut session = None;
    wait(&mut first, "its first task", || {
        session = env.sessions().into_iter().next();
        session.as_deref().is_some_and(|s| {
            std::fs::read_to_string(s.join("events.jsonl"))
                .is_ok_and(|t| t.contains("\"task_started\""))
        })
    });
    let session = session.unwrap();
    // While the first evaluates (4.5 s of sleeping), a resume of its session is refused.
    env.classlab()
        .args(["eval", "--resume", &id(&session)])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "is being written by another classlab process",
        ));
    assert!(
        first.try_wait().unwrap().is_none(),
        "the first writer was still running when the second was refused"
    );
    assert!(first.wait().unwrap().success());
    let log = classlab::session::SessionLog::open(&session).unwrap();
    assert!(log.problems.is_empty(), "{:?}", log.problems);
    let seqs: Vec<u64> = log.events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (0..seqs.len() as u64).collect::<Vec<_>>());
    let state = classlab::session::EvalState::from_events(&log.events);
    assert_eq!(state.progress(), (3, 3));
}

#[test]
fn a_killed_writer_leaves_no_lock_behind() {
    let env = Env::new();
    let preds = env.file("slow.jsonl", &slow_predictions(8.0));
    let mut cmd = Process::new(env!("CARGO_BIN_EXE_classlab"));
    env.configure(&mut cmd);
    let mut first = cmd
        .args(["eval", "--jobs", "1", "--timeout", "20", "--predictions"])
        .arg(&preds)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut session = None;
    wait(&mut first, "its first task", || {
        session = env.sessions().into_iter().next();
        session.as_deref().is_some_and(|s| {
            std::fs::read_to_string(s.join("events.jsonl"))
                .is_ok_and(|t| t.contains("\"task_started\""))
        })
    });
    first.kill().unwrap(); // SIGKILL: no chance to clean up
    first.wait().unwrap();
    let session = session.unwrap();
    assert!(session.join("lock").exists(), "the lock file stays");
    // The kernel released the flock with the process: the lock is free.
    drop(hold_lock(&session));
}

#[test]
fn a_repeated_task_and_sample_is_an_input_error_and_no_session_is_made() {
    let env = Env::new();
    let mut text = predictions("");
    text.push_str(&format!(
        "{}\n",
        json!({"task_id": "Sample_3", "sample": 0, "code": "class X: pass"})
    ));
    let preds = env.file("twice.jsonl", &text);
    env.classlab()
        .args(["eval", "--predictions"])
        .arg(&preds)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(preds.display().to_string()).and(
            predicate::str::contains("task `Sample_3` sample 0 on lines 4 and 9"),
        ));
    assert!(env.sessions().is_empty(), "no session for a refused input");
}

#[test]
fn a_repeated_classeval_task_is_an_input_error_naming_its_lines() {
    let env = Env::new();
    let real = common::shared_data("classeval/model_output/GPT-4-Turbo_class_H_greedy.json");
    let mut items: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(real).unwrap()).unwrap();
    items.truncate(3);
    items.push(items[1].clone());
    let text = serde_json::to_string_pretty(&items).unwrap();
    let starts: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| *l == "  {")
        .map(|(i, _)| i + 1)
        .collect();
    let preds = env.file("GPT-4-Turbo_class_H_greedy.json", &text);
    env.classlab()
        .arg("--dataset")
        .arg(common::classeval_json())
        .args(["eval", "--predictions"])
        .arg(&preds)
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("GPT-4-Turbo_class_H_greedy.json: duplicate").and(
                predicate::str::contains(format!(
                    "task `ClassEval_1` sample 0 on lines {} and {}",
                    starts[1], starts[3]
                )),
            ),
        );
    assert!(env.sessions().is_empty());
}

#[test]
fn a_session_from_before_digests_resumes_with_a_warning_and_is_checked_from_then_on() {
    let env = Env::new();
    let gpt = env.file("gpt.jsonl", &predictions(""));
    let session = stopped_eval(&env, &gpt);
    // As older classlab wrote it: no `inputs`.
    let mut m = meta(&session);
    m.as_object_mut().unwrap().remove("inputs");
    std::fs::write(session.join("meta.json"), m.to_string()).unwrap();
    // Its predictions path is all it names: another file is refused.
    let llama = env.file("llama.jsonl", &predictions("\n# another model\n"));
    env.classlab()
        .args(["eval", "--resume", &id(&session), "--predictions"])
        .arg(&llama)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("llama.jsonl").and(predicate::str::contains("gpt.jsonl")));
    env.classlab()
        .args(["eval", "--resume", &id(&session)])
        .assert()
        .success()
        .stderr(predicate::str::contains(format!(
            "warning: session {} predates input digests",
            id(&session)
        )));
    finished_once(&session);
    let m = meta(&session);
    assert_eq!(m["inputs"]["outputs"]["sha256"], json!(sha256(&gpt)));
    assert!(m["inputs"]["recorded_on_resume"].is_string());
    // The session says so itself.
    assert!(
        std::fs::read_to_string(session.join("events.jsonl"))
            .unwrap()
            .contains("predates input digests")
    );
    // From now on the digests are checked: the same path with other content is refused.
    std::fs::write(&gpt, predictions("\n# changed\n")).unwrap();
    cut(&session, 12);
    env.classlab()
        .args(["eval", "--resume", &id(&session)])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("predictions file differs"));
}

/// A generation run with the reference provider (no model needed) on two tasks.
fn reference_run(env: &Env) -> PathBuf {
    env.classlab()
        .args([
            "run",
            "--strategy",
            "holistic",
            "--provider",
            "reference",
            "--tasks",
            "Sample_0,Sample_1",
            "--jobs",
            "1",
        ])
        .assert()
        .success();
    let session = env.only_session();
    let first_done = kinds(&session)
        .iter()
        .position(|k| k == "task_finished")
        .unwrap();
    cut(&session, first_done + 1);
    session
}

#[test]
fn a_generation_run_resumes_only_with_its_own_configuration_and_one_writer() {
    let env = Env::new();
    let session = reference_run(&env);
    let before = snapshot(&session);
    env.classlab()
        .args(["run", "--resume", &id(&session), "--max-repairs", "1"])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("configuration differs (max_repairs 3 → 1)")
                .and(predicate::str::contains("sha256")),
        );
    env.classlab()
        .args(["run", "--resume", &id(&session), "--tasks", "Sample_0"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "tasks [\"Sample_0\",\"Sample_1\"] → [\"Sample_0\"]",
        ));
    let held = hold_lock(&session);
    env.classlab()
        .args(["run", "--resume", &id(&session)])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "is being written by another classlab process",
        ));
    assert_eq!(snapshot(&session), before);
    drop(held);
    env.classlab()
        .args(["run", "--resume", &id(&session)])
        .assert()
        .success();
    let log = classlab::session::SessionLog::open(&session).unwrap();
    let state = classlab::session::EvalState::from_events(&log.events);
    assert!(state.finished && !state.cancelled);
    assert_eq!(state.progress(), (2, 2));
}
