//! `classlab curate`, as a researcher would script it: decisions and refusals, overrides,
//! edits, export loaded back, and the store surviving SIGKILL and concurrent writers.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command as Std, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use classlab::curate::store;
use classlab::curate::{Gate, Status};
use predicates::prelude::*;
use serde_json::Value;

fn classlab(store: &Path) -> Command {
    let mut cmd = Command::cargo_bin("classlab").unwrap();
    cmd.env("NO_COLOR", "1")
        .arg("curate")
        .arg("--store")
        .arg(store);
    cmd
}

fn status_json(store: &Path) -> Value {
    common::ok_json(classlab(store).args(["status", "--json"]).output().unwrap())
}

fn task_row<'a>(status: &'a Value, id: &str) -> &'a Value {
    status["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["task_id"] == id)
        .unwrap()
}

fn store_in(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("s.curation.json")
}

#[test]
fn approve_reject_note_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let s = store_in(&dir);
    classlab(&s)
        .args([
            "reject",
            "Sample_1",
            "Sample_2",
            "--reason",
            "tests are flaky",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("Sample_2: rejected"));
    classlab(&s)
        .args(["needs-work", "Sample_3"])
        .assert()
        .success();
    classlab(&s)
        .args(["note", "Sample_3", "docstring of add says integer"])
        .assert()
        .success();
    let v = status_json(&s);
    assert_eq!(v["counts"]["rejected"], 2);
    assert_eq!(v["counts"]["needs-work"], 1);
    assert_eq!(
        v["counts"]["unreviewed"],
        v["tasks"].as_array().unwrap().len() - 3
    );
    assert_eq!(task_row(&v, "Sample_1")["reason"], "tests are flaky");
    let note = &task_row(&v, "Sample_3")["notes"][0];
    assert_eq!(note["text"], "docstring of add says integer");
    assert!(!note["who"].as_str().unwrap().is_empty());
    // The human view has the counts too.
    classlab(&s).arg("status").assert().success().stdout(
        predicate::str::contains("rejected").and(predicate::str::contains("Sample_3  needs-work")),
    );
}

#[test]
fn approval_is_refused_until_its_gates_pass_or_are_overridden_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let s = store_in(&dir);
    // Never validated: refused, naming the command that would validate it; nothing written.
    classlab(&s)
        .args(["approve", "Sample_0"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("classlab validate"));
    assert_eq!(store::load(&s).unwrap().tasks.len(), 0);
    // An override needs a reason, and without one the whole approval is refused.
    classlab(&s)
        .args(["approve", "Sample_0", "--override", "validation"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("needs a reason"));
    assert_eq!(store::load(&s).unwrap().tasks.len(), 0);
    classlab(&s)
        .args(["approve", "Sample_0", "--override", "no-such-gate"])
        .assert()
        .code(2);
    classlab(&s)
        .args(["approve", "Sample_0", "--override", "validation"])
        .args(["--reason", "reference checked by hand; needs the network"])
        .assert()
        .success()
        .stdout("Sample_0: approved\n");
    let record = &store::load(&s).unwrap().tasks["Sample_0"];
    assert_eq!(record.review.status, Status::Approved);
    let o = &record.review.overrides[&Gate::Validation];
    assert_eq!(o.reason, "reference checked by hand; needs the network");
    let whats: Vec<&str> = record
        .review
        .history
        .iter()
        .map(|h| h.what.as_str())
        .collect();
    assert_eq!(
        whats,
        [
            "override validation: reference checked by hand; needs the network",
            "approved: reference checked by hand; needs the network (gates overridden: validation)"
        ]
    );
    // Removing a method's public tests makes the public-tests gate fail for a new approval.
    let blank = dir.path().join("blank.py");
    std::fs::write(&blank, "\n").unwrap();
    classlab(&s)
        .args(["edit", "Sample_4", "methods.save.public_tests"])
        .arg(&blank)
        .assert()
        .success();
    classlab(&s)
        .args([
            "approve",
            "Sample_4",
            "--override",
            "validation",
            "--reason",
            "r",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "methods without public tests: save",
        ));
}

#[test]
fn a_validation_record_in_the_store_opens_the_validation_gate() {
    let dir = tempfile::tempdir().unwrap();
    let s = store_in(&dir);
    let sample = classlab::dataset::sample();
    let mut locked = store::lock(&s).unwrap();
    for id in ["Sample_0", "Sample_5"] {
        let task = sample.task(id).unwrap();
        let when = "2026-11-21T12:00:00Z".to_string();
        classlab::curate::record_validation(&mut locked.store, task, true, None, when);
    }
    locked.save().unwrap();
    drop(locked);
    classlab(&s)
        .args(["approve", "Sample_0"])
        .assert()
        .success();
    // Sample_5's planted docstring defect is an error finding: validated, still refused.
    classlab(&s)
        .args(["approve", "Sample_5"])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("unexplained error findings: D4")
                .and(predicate::str::contains("validation").not()),
        );
}

#[test]
fn unknown_tasks_and_broken_stores_are_errors_that_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let s = store_in(&dir);
    classlab(&s)
        .args(["reject", "Sample_0", "Nope_9", "--reason", "x"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("Nope_9"));
    assert!(store::load(&s).unwrap().tasks.is_empty());
    std::fs::write(
        &s,
        "{\n  \"format\": \"classlab-curation\",\n  \"schema\": 1,\n  oops\n}",
    )
    .unwrap();
    classlab(&s)
        .args(["note", "Sample_0", "hello"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("s.curation.json:4:3"));
    std::fs::write(
        &s,
        r#"{"format":"classlab-curation","schema":2,"tasks":{}}"#,
    )
    .unwrap();
    classlab(&s)
        .arg("status")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("schema 2 is newer"));
}

/// B11: without `--store`, curating a dataset writes nothing beside it: the store (and its
/// lock) go to classlab's data directory, keyed by the dataset's digest, and the command says
/// where; a store an older classlab started beside the dataset is still used.
#[test]
fn the_store_lives_in_the_data_directory_and_the_command_says_where() {
    let dir = tempfile::tempdir().unwrap();
    let shared = dir.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    let data_home = dir.path().join("data");
    let dataset = shared.join("bench.json");
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/sample/sample.json");
    std::fs::copy(&sample, &dataset).unwrap();
    let curate = |args: &[&str]| {
        let mut cmd = Command::cargo_bin("classlab").unwrap();
        cmd.env("XDG_DATA_HOME", &data_home)
            .arg("curate")
            .args(args)
            .arg("--dataset")
            .arg(&dataset);
        cmd.output().unwrap()
    };
    let out = curate(&["note", "Sample_0", "kept apart"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let names: Vec<String> = std::fs::read_dir(&shared)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["bench.json"], "nothing beside the dataset");
    let digest = classlab::dataset::digest(&classlab::dataset::load_path(&dataset).unwrap());
    let store_file = data_home
        .join("classlab/curation")
        .join(format!("bench.json-{}.curation.json", &digest[..16]));
    assert_eq!(
        store::load(&store_file).unwrap().tasks["Sample_0"]
            .review
            .notes[0]
            .text,
        "kept apart"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&store_file.display().to_string()),
        "says where: {stderr}"
    );
    // `status` names the same store.
    let out = curate(&["status"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains(&store_file.display().to_string()));
    // An older classlab's store beside the dataset keeps being the one used.
    let beside = shared.join("bench.json.curation.json");
    std::fs::copy(&store_file, &beside).unwrap();
    let out = curate(&["note", "Sample_1", "old place"]);
    assert!(out.status.success());
    assert_eq!(
        store::load(&beside).unwrap().tasks["Sample_1"].review.notes[0].text,
        "old place"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains(&beside.display().to_string()));
}

#[test]
fn export_loads_back_in_both_formats_with_edits_and_provenance() {
    let dir = tempfile::tempdir().unwrap();
    let s = store_in(&dir);
    let original = classlab::dataset::sample();
    let skeleton = dir.path().join("skeleton.py");
    // A skeleton that lost its methods: the linter's error findings block the approval.
    std::fs::write(&skeleton, "class Duration:\n    \"\"\"Cleaned.\"\"\"\n").unwrap();
    classlab(&s)
        .args(["edit", "Sample_3", "skeleton"])
        .arg(&skeleton)
        .assert()
        .success();
    classlab(&s)
        .args([
            "approve",
            "Sample_3",
            "--override",
            "validation",
            "--reason",
            "hand-checked",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("unexplained error findings: S4:"));
    let cleaned = format!(
        "{}\n# cleaned\n",
        original.task("Sample_3").unwrap().skeleton
    );
    std::fs::write(&skeleton, &cleaned).unwrap();
    classlab(&s)
        .args(["edit", "Sample_3", "skeleton"])
        .arg(&skeleton)
        .assert()
        .success();
    for id in ["Sample_0", "Sample_3"] {
        classlab(&s)
            .args([
                "approve",
                id,
                "--override",
                "validation",
                "--reason",
                "hand-checked",
            ])
            .assert()
            .success();
    }
    classlab(&s)
        .args(["reject", "Sample_5", "--reason", "ambiguous spec"])
        .assert()
        .success();
    let (ours, theirs, log) = (
        dir.path().join("clean.json"),
        dir.path().join("clean_classeval.json"),
        dir.path().join("CHANGES.md"),
    );
    classlab(&s)
        .args(["export", "--out"])
        .arg(&ours)
        .arg("--changelog")
        .arg(&log)
        .assert()
        .success()
        .stdout(predicate::str::contains("2 approved task(s)"));
    classlab(&s)
        .args(["export", "--format", "classeval", "--out"])
        .arg(&theirs)
        .assert()
        .success();
    for (path, format) in [
        (&ours, classlab::dataset::Format::Classlab),
        (&theirs, classlab::dataset::Format::ClassEval),
    ] {
        let ds = classlab::dataset::load_path(path).unwrap();
        assert_eq!(ds.format, format);
        assert!(ds.problems.is_empty(), "{:?}", ds.problems);
        let ids: Vec<&str> = ds.tasks.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["Sample_0", "Sample_3"]);
        assert_eq!(ds.tasks[1].skeleton, cleaned);
        let unchanged = original.task("Sample_0").unwrap();
        assert_eq!(ds.tasks[0].solution, unchanged.solution);
        assert_eq!(ds.tasks[0].test_module, unchanged.test_module);
    }
    let ds = classlab::dataset::load_path(&ours).unwrap();
    let p = &ds.tasks[1].provenance;
    assert_eq!(p.original_id.as_deref(), Some("Sample_3"));
    let digest = classlab::curate::gates::task_digest(original.task("Sample_3").unwrap());
    assert_eq!(p.original_digest.as_deref(), Some(digest.as_str()));
    assert_eq!(p.extra["edited_fields"], serde_json::json!(["skeleton"]));
    assert_eq!(p.extra["gates_overridden"]["validation"], "hand-checked");
    assert!(!p.extra["reviewer"].as_str().unwrap().is_empty());
    assert!(p.extra["reviewed"].as_str().unwrap().starts_with("20"));
    // ClassEval's own shape carries public tests nowhere; ours keeps them per method.
    assert!(ds.tasks[0].methods.iter().all(|m| m.public_tests.is_some()));
    let raw: Value = serde_json::from_str(&std::fs::read_to_string(&theirs).unwrap()).unwrap();
    assert!(raw[0]["methods_info"][0].get("public_tests").is_none());
    let log = std::fs::read_to_string(&log).unwrap();
    for want in [
        "## Sample_3 (Duration)",
        "### `skeleton`",
        "+# cleaned",
        "Sample_5: rejected: ambiguous spec",
    ] {
        assert!(log.contains(want), "{want} missing from:\n{log}");
    }
}

/// Notes acknowledged (exit 0) by `classlab curate note`, written while we SIGKILL writers at
/// random moments: the store must always load and keep every acknowledged note.
#[test]
fn sigkill_at_any_moment_loses_no_acknowledged_decision() {
    let dir = tempfile::tempdir().unwrap();
    let s = store_in(&dir);
    // write_atomic's temp file: present after a kill only when the kill hit a write.
    let tmp = s.with_extension("tmp");
    let bin = assert_cmd::cargo::cargo_bin("classlab");
    let note = |i: usize| {
        Std::new(&bin)
            .args(["curate", "--store"])
            .arg(&s)
            .args(["note", &format!("Sample_{}", i % 8), &format!("note {i}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    // A big store makes each write long, so many kills land in the middle of one.
    let mut locked = store::lock(&s).unwrap();
    let review = classlab::curate::TaskReview {
        notes: vec![classlab::curate::review::Note {
            who: "test".into(),
            when: "2026-11-21T12:00:00Z".into(),
            text: "ballast ".repeat(150_000),
        }],
        ..Default::default()
    };
    let record = classlab::curate::TaskRecord {
        review,
        ..Default::default()
    };
    locked.store.tasks.insert("Sample_7".into(), record);
    locked.save().unwrap();
    drop(locked);
    // How long one note takes (the slowest of three), so kills land anywhere in a writer's life.
    let span = (0..3)
        .map(|_| {
            let start = Instant::now();
            assert!(note(0).wait().unwrap().success());
            start.elapsed().as_micros() as u64
        })
        .max()
        .unwrap_or(0)
        .max(1000);
    let mut acked: BTreeSet<String> = BTreeSet::from(["note 0".to_string()]);
    let (mut killed, mut mid_write, mut late) = (0, 0, 0);
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut i = 1;
    while (i < 60 || killed < 10) && Instant::now() < deadline {
        let mut child = note(i);
        match i % 4 {
            // One writer in four is left to finish, so there is always something acknowledged.
            0 => {}
            // One killed at any moment of its life.
            1 => {
                std::thread::sleep(Duration::from_micros(fastrand::u64(0..span)));
                let _ = child.kill();
            }
            // The others killed while they write: soon after their temp file appears.
            _ => {
                let start = Instant::now();
                while !tmp.exists()
                    && child.try_wait().unwrap().is_none()
                    && start.elapsed() < Duration::from_secs(10)
                {
                    std::thread::sleep(Duration::from_micros(20));
                }
                std::thread::sleep(Duration::from_micros(fastrand::u64(0..3000)));
                let _ = child.kill();
            }
        }
        let status = child.wait().unwrap();
        let loaded = store::load(&s).unwrap_or_else(|e| panic!("after writer {i}: {e}"));
        let notes: BTreeSet<String> = loaded
            .tasks
            .values()
            .flat_map(|r| r.review.notes.iter().map(|n| n.text.clone()))
            .collect();
        if status.success() {
            acked.insert(format!("note {i}"));
        } else {
            killed += 1;
            if tmp.exists() {
                mid_write += 1;
                std::fs::remove_file(&tmp).unwrap();
            }
            // Killed after its rename: the write was whole, only the acknowledgement was lost.
            late += usize::from(notes.contains(&format!("note {i}")));
        }
        let lost: Vec<&String> = acked.difference(&notes).collect();
        assert!(lost.is_empty(), "after writer {i}: lost {lost:?}");
        i += 1;
    }
    assert!(killed >= 10, "only {killed} of {i} writers were killed");
    assert!(
        mid_write >= 3,
        "only {mid_write} of {i} writers were killed while writing"
    );
    eprintln!(
        "{i} writers: {killed} killed ({mid_write} while writing, {late} after), {} acknowledged",
        acked.len()
    );
}

#[test]
fn two_processes_deciding_at_once_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let s = store_in(&dir);
    let run = |tasks: [&'static str; 4], tag: &'static str| {
        let s = s.clone();
        std::thread::spawn(move || {
            for id in tasks {
                classlab(&s)
                    .args(["approve", id, "--override", "validation"])
                    .args(["--override", "findings", "--reason", tag])
                    .assert()
                    .success();
                for n in 0..4 {
                    classlab(&s)
                        .args(["note", id, &format!("{tag} {n}")])
                        .assert()
                        .success();
                }
            }
        })
    };
    let a = run(["Sample_0", "Sample_1", "Sample_2", "Sample_3"], "a");
    let b = run(["Sample_4", "Sample_5", "Sample_6", "Sample_7"], "b");
    a.join().unwrap();
    b.join().unwrap();
    let loaded = store::load(&s).unwrap();
    assert_eq!(loaded.tasks.len(), 8);
    for (id, record) in &loaded.tasks {
        assert_eq!(record.review.status, Status::Approved, "{id}");
        assert_eq!(record.review.notes.len(), 4, "{id}");
        // An approval, its overrides (findings only where the task has some), four notes.
        let overrides = record.review.overrides.len();
        assert_eq!(record.review.history.len(), 5 + overrides, "{id}");
    }
}

#[test]
fn edit_carries_a_docstring_everywhere_and_draft_prints_public_tests_to_set() {
    let dir = tempfile::tempdir().unwrap();
    let s = store_in(&dir);
    let doc = dir.path().join("doc.txt");
    std::fs::write(
        &doc,
        "Add quantity units of sku; the new quantity.\n:param sku: str\n:param quantity: int\n:return: int\n",
    )
    .unwrap();
    classlab(&s)
        .args(["edit", "Sample_1", "methods.add_item.docstring"])
        .arg(&doc)
        .assert()
        .success();
    let stored = store::load(&s).unwrap();
    let edits = &stored.tasks["Sample_1"].review.edits;
    let skeleton = edits.skeleton.as_deref().unwrap();
    assert!(skeleton.contains("Add quantity units of sku; the new quantity."));
    let description = edits.methods["add_item"].description.as_deref().unwrap();
    assert!(description.contains(":return: int"), "{description}");
    assert!(description.starts_with("def add_item("), "{description}");

    // Drafts come from the task as edited: the doctest is gone, so none is drafted.
    classlab(&s)
        .args(["draft", "Sample_1", "add_item"])
        .assert()
        .failure()
        .stderr(
            predicate::str::contains("no doctest").and(predicate::str::contains("test_add_item_1")),
        );
    classlab(&s)
        .args(["draft", "Sample_1", "nope"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("no method `nope`"));
    // Promoted private tests, set as the method's public tests.
    let out = classlab(&s)
        .args(["draft", "Sample_1", "total", "--promote", "test_total_1"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let draft = String::from_utf8(out.stdout).unwrap();
    assert!(draft.contains("def test_total_1") && !draft.contains("def test_total_2"));
    let file = dir.path().join("public.py");
    std::fs::write(&file, &draft).unwrap();
    classlab(&s)
        .args(["edit", "Sample_1", "methods.total.public_tests"])
        .arg(&file)
        .assert()
        .success();
    let stored = store::load(&s).unwrap();
    let public = &stored.tasks["Sample_1"].review.edits.methods["total"].public_tests;
    assert_eq!(public.as_deref(), Some(draft.as_str()));
    // The doctest draft of another method is real Python that the edit accepts.
    let out = classlab(&s)
        .args(["draft", "Sample_1", "line_total"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let draft = String::from_utf8(out.stdout).unwrap();
    assert!(draft.contains("class ShoppingCartTestLineTotalDoctest(unittest.TestCase)"));
}
