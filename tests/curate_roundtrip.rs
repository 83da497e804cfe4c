//! The curation round trip on real ClassEval tasks, through the CLI as a researcher would
//! script it: lint and validate the originals, edit (public tests for every method; a docstring
//! fix), re-validate, approve without overrides, reject and set aside others, export, load the
//! export with a fresh store and check that every exported task passes its gates; then export to
//! ClassEval's shape and evaluate the reference solutions before and after the round trip.

mod common;

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use classlab::curate::gates::task_digest;
use classlab::model::Task;
use classlab::pipeline::public_tests::{PublicTestsMode, public_tests};
use serde_json::{Value, json};

/// Approved after their edits, in dataset order. ClassEval_37's `rail_fence_cipher` documents
/// `:param plaintext` for a parameter `plain_text` (D4, an error): fixed by an edit.
const APPROVED: [&str; 5] = [
    "ClassEval_6",
    "ClassEval_9",
    "ClassEval_32",
    "ClassEval_37",
    "ClassEval_70",
];
const FIXED: &str = "ClassEval_37";
const FIXED_METHOD: &str = "rail_fence_cipher";
/// A skeleton with a curly-quoted docstring (S6): set aside as needing work.
const NEEDS_WORK: &str = "ClassEval_46";
/// Its `test_classes` lists a name with a leading space (T7): rejected.
const REJECTED: &str = "ClassEval_97";
/// Validated, never decided: not exported.
const UNREVIEWED: &str = "ClassEval_11";

fn all_ids() -> Vec<&'static str> {
    let mut ids = APPROVED.to_vec();
    ids.extend([NEEDS_WORK, REJECTED, UNREVIEWED]);
    ids
}

fn classlab() -> Command {
    let mut cmd = Command::cargo_bin("classlab").unwrap();
    cmd.env("NO_COLOR", "1");
    cmd
}

/// `classlab --json ARGS…`: must exit 0; its JSON output.
fn json_of<I, S>(args: I) -> Value
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    common::ok_json(classlab().arg("--json").args(args).output().unwrap())
}

/// `classlab --dataset D curate --store S ARGS…`.
fn curate(dataset: &Path, store: &Path) -> Command {
    let mut cmd = classlab();
    cmd.arg("--dataset")
        .arg(dataset)
        .args(["curate", "--store"])
        .arg(store);
    cmd
}

fn status(dataset: &Path, store: &Path) -> Value {
    common::ok_json(
        curate(dataset, store)
            .args(["status", "--json"])
            .output()
            .unwrap(),
    )
}

fn row<'a>(v: &'a Value, id: &str) -> &'a Value {
    v["tasks"]
        .as_array()
        .and_then(|ts| ts.iter().find(|t| t["task_id"] == id))
        .unwrap_or_else(|| panic!("no task {id} in {v:#}"))
}

/// `classlab --dataset D validate --json --store S --tasks IDS`.
fn validate(dataset: &Path, store: &Path, ids: &[&str]) -> Value {
    json_of([
        OsStr::new("--dataset"),
        dataset.as_os_str(),
        OsStr::new("validate"),
        OsStr::new("--store"),
        store.as_os_str(),
        OsStr::new("--tasks"),
        OsStr::new(&ids.join(",")),
    ])
}

/// Error-severity lint findings per task, as `CODE:method` (or `CODE`).
fn lint_errors(dataset: &Path, ids: &[&str]) -> BTreeMap<String, Vec<String>> {
    let v = json_of([
        OsStr::new("--dataset"),
        dataset.as_os_str(),
        OsStr::new("lint"),
        OsStr::new("--tasks"),
        OsStr::new(&ids.join(",")),
    ]);
    let mut out: BTreeMap<String, Vec<String>> =
        ids.iter().map(|id| (id.to_string(), Vec::new())).collect();
    for f in v.as_array().expect("a list of findings") {
        if f["severity"] != "error" {
            continue;
        }
        let key = match f["method"].as_str() {
            Some(m) => format!("{}:{m}", f["code"].as_str().unwrap()),
            None => f["code"].as_str().unwrap().to_string(),
        };
        out.entry(f["task_id"].as_str().unwrap().to_string())
            .or_default()
            .push(key);
    }
    out
}

/// Every validated task's reference passed all its tests twice with agreeing runs; the public
/// tests ran (`public_tests`) or there were none.
fn assert_validated(v: &Value, ids: &[&str], public_tests: bool) {
    assert_eq!(v["complete"], true, "{v:#}");
    for id in ids {
        let t = row(v, id);
        let r = &t["reference"];
        assert_eq!(t["runs_agree"], true, "{id}: {t:#}");
        assert!(r["private"]["total"].as_u64() > Some(0), "{id}: {r}");
        assert_eq!(r["private"]["passed"], r["private"]["total"], "{id}: {r}");
        assert_eq!(r["public"]["passed"], r["public"]["total"], "{id}: {r}");
        if public_tests {
            assert!(r["public"]["total"].as_u64() > Some(0), "{id}: {r}");
            assert_eq!(t["no_public_tests"], json!([]), "{id}");
        } else {
            assert_eq!(r["public"]["total"], 0, "{id}: {r}");
        }
    }
}

/// A method's public tests as a curator would start them: the first two tests of its private
/// test class (product code: `split:2`), renamed `<TestClass>Public`.
fn public_tests_of(task: &Task, method: &str) -> String {
    let p = public_tests(task, method, PublicTestsMode::Split(2))
        .unwrap_or_else(|| panic!("{}.{method}: no private tests to split", task.id));
    assert_eq!(p.test_names.len(), 2, "{}.{method}", task.id);
    let (from, to) = (
        format!("class {}(", p.class_name),
        format!("class {}Public(", p.class_name),
    );
    assert!(p.code.contains(&from), "{}", p.code);
    p.code.replacen(&from, &to, 1)
}

/// The docstring fix of `rail_fence_cipher`: name its parameters as the signature does.
fn fix_rail_fence_doc(text: &str) -> String {
    let at = text.find("def rail_fence_cipher").expect("the method");
    let (head, tail) = text.split_at(at);
    let wrong = ":param plaintext: The plaintext to encrypt, str.";
    assert!(tail.contains(wrong), "{tail}");
    let right = ":param plain_text: The plaintext to encrypt, str.\n        \
                 :param rails: The number of rails, int.";
    format!("{head}{}", tail.replacen(wrong, right, 1))
}

/// JSONL predictions: each task's `solution_code`, as a "reference" model's answer.
fn reference_predictions(path: &Path, tasks: &[&Value]) {
    let mut text = String::new();
    for t in tasks {
        let line = json!({"task_id": t["task_id"], "model": "reference",
                          "strategy": "holistic", "code": t["solution_code"]});
        text.push_str(&line.to_string());
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

fn entries_by_id(raw: &Value) -> BTreeMap<String, Value> {
    raw.as_array()
        .expect("a ClassEval list")
        .iter()
        .map(|t| (t["task_id"].as_str().unwrap().to_string(), t.clone()))
        .collect()
}

#[test]
fn approve_edit_export_reload_validate_and_evaluate() {
    let dir = tempfile::tempdir().unwrap();
    // The tasks' entries exactly as ClassEval has them, in its order (a smaller file keeps
    // every command that lints the whole dataset quick).
    let ids = all_ids();
    let full: Value =
        serde_json::from_str(&std::fs::read_to_string(common::classeval_json()).unwrap()).unwrap();
    let subset: Vec<&Value> = full
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| ids.iter().any(|id| t["task_id"] == *id))
        .collect();
    assert_eq!(subset.len(), ids.len());
    let ds_path = dir.path().join("classeval_subset.json");
    std::fs::write(&ds_path, serde_json::to_string(&subset).unwrap()).unwrap();
    let ds = ds_path.as_path();
    let original = classlab::dataset::load_path(ds).unwrap();
    assert!(original.problems.is_empty(), "{:?}", original.problems);
    let task = |id: &str| original.task(id).unwrap();
    let store = dir.path().join("classeval.curation.json");

    // 1. The originals: what lint flags, and every reference passes its private tests twice.
    let errors = lint_errors(ds, &ids);
    assert_eq!(errors[FIXED], [format!("D4:{FIXED_METHOD}")], "{errors:?}");
    assert_eq!(errors[NEEDS_WORK], ["S6"], "{errors:?}");
    assert_eq!(errors[REJECTED], ["T7"], "{errors:?}");
    for id in APPROVED.iter().chain([&UNREVIEWED]) {
        if *id != FIXED {
            assert!(errors[*id].is_empty(), "{id}: {errors:?}");
        }
    }
    let v = validate(ds, &store, &ids);
    assert_validated(&v, &ids, false);
    let s = status(ds, &store);
    for id in &ids {
        let gates = &row(&s, id)["gates"];
        assert_eq!(gates["validation"], "passed", "{id}: {gates:#}");
        let names = task(id).method_names();
        assert_eq!(gates["methods_without_public_tests"], json!(names), "{id}");
    }
    // ClassEval has no public tests: approval is refused, and nothing is decided.
    curate(ds, &store)
        .args(["approve", APPROVED[0]])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("methods without public tests"));
    assert_eq!(
        row(&status(ds, &store), APPROVED[0])["status"],
        "unreviewed"
    );

    // 2. Edits: public tests for every method of the tasks to approve; the docstring fix of
    // ClassEval_37 in its skeleton, which the edit carries to its method description.
    let mut written: BTreeMap<(String, String), String> = BTreeMap::new();
    for id in APPROVED {
        for m in &task(id).methods {
            let text = public_tests_of(task(id), &m.name);
            let file = dir.path().join(format!("{id}.{}.py", m.name));
            std::fs::write(&file, &text).unwrap();
            curate(ds, &store)
                .args(["edit", id, &format!("methods.{}.public_tests", m.name)])
                .arg(&file)
                .assert()
                .success();
            written.insert((id.to_string(), m.name.clone()), text);
        }
    }
    let fixed = task(FIXED);
    let skeleton = fix_rail_fence_doc(&fixed.skeleton);
    let description = fix_rail_fence_doc(&fixed.method(FIXED_METHOD).unwrap().description);
    let edit_file = |name: &str, text: &str| -> PathBuf {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    curate(ds, &store)
        .args(["edit", FIXED, "skeleton"])
        .arg(edit_file("skeleton.py", &skeleton))
        .assert()
        .success();
    // The skeleton's docstring was carried to the method description: setting the
    // description to the same fix changes nothing more.
    curate(ds, &store)
        .args([
            "edit",
            FIXED,
            &format!("methods.{FIXED_METHOD}.method_description"),
        ])
        .arg(edit_file("description.py", &description))
        .assert()
        .failure()
        .stderr(predicates::str::contains("the edit changes nothing"));
    // The edit fixed the finding; the edited tasks must be validated again before approval.
    let s = status(ds, &store);
    for id in APPROVED {
        let gates = &row(&s, id)["gates"];
        assert_eq!(gates["validation"], "stale", "{id}: {gates:#}");
        assert_eq!(gates["methods_without_public_tests"], json!([]), "{id}");
        assert_eq!(gates["error_findings"], json!([]), "{id}");
    }
    curate(ds, &store)
        .args(["approve", APPROVED[1]])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("validation"));

    // 3. Re-validate the edited tasks (their public tests run now), approve with no override;
    // set the others aside.
    let v = validate(ds, &store, &APPROVED);
    assert_validated(&v, &APPROVED, true);
    let s = status(ds, &store);
    for id in APPROVED {
        assert_eq!(row(&s, id)["gates"]["blocking"], json!([]), "{id}");
    }
    let mut approve = curate(ds, &store);
    approve.arg("approve").args(APPROVED);
    let want: String = APPROVED
        .iter()
        .map(|id| format!("{id}: approved\n"))
        .collect();
    approve.assert().success().stdout(want);
    curate(ds, &store)
        .args(["needs-work", NEEDS_WORK, "--reason", "curly quotes"])
        .assert()
        .success();
    curate(ds, &store)
        .args(["approve", NEEDS_WORK])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("unexplained error findings: S6"));
    curate(ds, &store)
        .args(["reject", REJECTED, "--reason", "test_classes off"])
        .assert()
        .success();
    curate(ds, &store)
        .args([
            "note",
            APPROVED[0],
            "public tests split from the private ones",
        ])
        .assert()
        .success();
    let s = status(ds, &store);
    for id in APPROVED {
        assert_eq!(row(&s, id)["status"], "approved", "{id}");
        assert_eq!(row(&s, id)["overrides"], json!({}), "{id}");
    }
    assert_eq!(row(&s, NEEDS_WORK)["status"], "needs-work");
    assert_eq!(row(&s, REJECTED)["status"], "rejected");
    assert_eq!(row(&s, UNREVIEWED)["status"], "unreviewed");

    // 4. Export in both formats.
    let ours = dir.path().join("curated.json");
    let theirs = dir.path().join("curated_classeval.json");
    let log = dir.path().join("CHANGES.md");
    let out = json_of([
        OsStr::new("--dataset"),
        ds.as_os_str(),
        OsStr::new("curate"),
        OsStr::new("--store"),
        store.as_os_str(),
        OsStr::new("export"),
        OsStr::new("--out"),
        ours.as_os_str(),
        OsStr::new("--changelog"),
        log.as_os_str(),
    ]);
    assert_eq!(out["tasks"], json!(APPROVED), "{out:#}");
    assert_eq!(out["skipped"], json!([]), "{out:#}");
    // Skeleton and method description were fixed alike: nothing to warn about.
    assert_eq!(out["warnings"], json!([]), "{out:#}");
    curate(ds, &store)
        .args(["export", "--format", "classeval", "--out"])
        .arg(&theirs)
        .assert()
        .success();

    // 5. The classlab export loads back, through the CLI and the library, with every edit,
    // the public tests and the provenance.
    let listed = json_of([
        OsStr::new("--dataset"),
        ours.as_os_str(),
        OsStr::new("tasks"),
    ]);
    let listed: Vec<&str> = listed
        .as_array()
        .expect("a list of tasks")
        .iter()
        .map(|t| t["task_id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, APPROVED);
    let shown = json_of([
        OsStr::new("--dataset"),
        ours.as_os_str(),
        OsStr::new("show"),
        OsStr::new(FIXED),
    ]);
    let methods = shown["methods"].as_array().expect("methods");
    assert_eq!(methods.len(), fixed.methods.len(), "{shown:#}");
    assert!(
        methods.iter().all(|m| m["has_public_tests"] == true),
        "{shown:#}"
    );
    let exported = classlab::dataset::load_path(&ours).unwrap();
    assert!(exported.problems.is_empty(), "{:?}", exported.problems);
    let edited_fields = |id: &str| -> Vec<String> {
        let mut fields = Vec::new();
        if id == FIXED {
            fields.push("skeleton".to_string());
        }
        // Task fields first, then methods by name.
        let mut names = task(id).method_names();
        names.sort();
        for m in names {
            if id == FIXED && m == FIXED_METHOD {
                fields.push(format!("methods.{m}.method_description"));
            }
            fields.push(format!("methods.{m}.public_tests"));
        }
        fields
    };
    for t in &exported.tasks {
        let id = t.id.as_str();
        let before = task(id);
        let mut want = before.clone();
        for m in &mut want.methods {
            m.public_tests = Some(written[&(id.to_string(), m.name.clone())].clone());
            if id == FIXED && m.name == FIXED_METHOD {
                m.description = description.clone();
            }
        }
        if id == FIXED {
            want.skeleton = skeleton.clone();
        }
        let mut got = t.clone();
        got.provenance = before.provenance.clone();
        assert_eq!(got, want, "{id}");
        let p = &t.provenance;
        assert_eq!(p.source, before.provenance.source, "{id}");
        assert_eq!(p.original_id.as_deref(), Some(id));
        assert_eq!(p.original_digest, Some(task_digest(before)), "{id}");
        assert_eq!(p.extra["edited_fields"], json!(edited_fields(id)), "{id}");
        assert!(!p.extra["reviewer"].as_str().unwrap_or("").is_empty());
        assert!(p.extra.get("gates_overridden").is_none(), "{id}: {p:?}");
        let resolved = &p.extra["findings_resolved"];
        let fix = json!(format!("D4:{FIXED_METHOD}"));
        assert_eq!(
            resolved.as_array().unwrap().contains(&fix),
            id == FIXED,
            "{id}: {resolved}"
        );
    }
    let log = std::fs::read_to_string(&log).unwrap();
    for want in [
        format!("## {FIXED} (EncryptionUtils)"),
        "+        :param plain_text: The plaintext to encrypt, str.".to_string(),
        format!("{REJECTED}: rejected: test_classes off"),
    ] {
        assert!(log.contains(&want), "{want} missing from:\n{log}");
    }

    // 6. The export, with a fresh store: clean for lint, validated, every gate passes, and
    // the approval needs no override.
    let fresh = dir.path().join("curated.curation.json");
    let errors = lint_errors(&ours, &APPROVED);
    assert!(errors.values().all(Vec::is_empty), "{errors:?}");
    let v = validate(&ours, &fresh, &APPROVED);
    assert_validated(&v, &APPROVED, true);
    let s = status(&ours, &fresh);
    for id in APPROVED {
        let r = row(&s, id);
        assert_eq!(r["status"], "unreviewed", "{id}");
        assert_eq!(r["gates"]["validation"], "passed", "{id}");
        assert_eq!(r["gates"]["blocking"], json!([]), "{id}: {r:#}");
    }
    let mut approve = curate(&ours, &fresh);
    approve.arg("approve").args(APPROVED);
    approve.assert().success();
    // Exported again, the tasks are the same and still trace back to ClassEval's.
    let again = dir.path().join("curated_again.json");
    curate(&ours, &fresh)
        .args(["export", "--out"])
        .arg(&again)
        .assert()
        .success();
    // And in ClassEval's shape, the same file as the first curation's.
    let theirs_again = dir.path().join("curated_again_classeval.json");
    curate(&ours, &fresh)
        .args(["export", "--format", "classeval", "--out"])
        .arg(&theirs_again)
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(&theirs_again).unwrap(),
        std::fs::read_to_string(&theirs).unwrap()
    );
    let again = classlab::dataset::load_path(&again).unwrap();
    assert_eq!(again.tasks.len(), APPROVED.len());
    for (a, b) in again.tasks.iter().zip(&exported.tasks) {
        let mut a_plain = a.clone();
        a_plain.provenance = b.provenance.clone();
        assert_eq!(&a_plain, b);
        let before = task(&a.id);
        assert_eq!(a.provenance.original_id.as_deref(), Some(a.id.as_str()));
        assert_eq!(
            a.provenance.original_digest,
            Some(task_digest(before)),
            "{}",
            a.id
        );
        // This round edited nothing; the first round's record is kept.
        let (now, first) = (&a.provenance.extra, &b.provenance.extra);
        assert_eq!(now["edited_fields"], json!([]), "{}", a.id);
        let earlier = &now["earlier_curations"];
        assert_eq!(earlier.as_array().map(Vec::len), Some(1), "{}", a.id);
        for key in ["edited_fields", "findings_resolved", "reviewer", "reviewed"] {
            assert_eq!(earlier[0][key], first[key], "{}: {key}", a.id);
        }
    }

    // 7. ClassEval's shape: the unchanged tasks are ClassEval's entries as they were; the
    // fixed task differs only in the fixed docstring.
    let raw_original = entries_by_id(&full);
    let raw_export: Value =
        serde_json::from_str(&std::fs::read_to_string(&theirs).unwrap()).unwrap();
    let ids_out: Vec<&str> = raw_export
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["task_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids_out, APPROVED);
    let raw_export = entries_by_id(&raw_export);
    for id in APPROVED {
        let mut want = raw_original[id].clone();
        if id == FIXED {
            want["skeleton"] = json!(skeleton);
            let methods = want["methods_info"].as_array_mut().unwrap();
            let m = methods
                .iter_mut()
                .find(|m| m["method_name"] == FIXED_METHOD)
                .unwrap();
            m["method_description"] = json!(description);
        }
        assert_eq!(raw_export[id], want, "{id}");
    }

    // 8. The reference solutions evaluated on ClassEval and on the export: the same outcome for
    // every test. (The fix touched a docstring only, so the fixed task's results agree too.)
    let before_preds = dir.path().join("before.jsonl");
    let after_preds = dir.path().join("after.jsonl");
    let before: Vec<&Value> = APPROVED.iter().map(|id| &raw_original[*id]).collect();
    let after: Vec<&Value> = APPROVED.iter().map(|id| &raw_export[*id]).collect();
    reference_predictions(&before_preds, &before);
    reference_predictions(&after_preds, &after);
    let e_before = common::eval_json(None, ds, &before_preds);
    let e_after = common::eval_json(None, &theirs, &after_preds);
    for id in APPROVED {
        let (b, a) = (&e_before["tasks"][id], &e_after["tasks"][id]);
        assert!(b["outcome"].is_string(), "{id}: {b:#}");
        assert!(
            b["tests"].as_array().is_some_and(|t| !t.is_empty()),
            "{id}: {b:#}"
        );
        assert_eq!(a, b, "{id}");
    }
    let evaluated =
        |e: &Value| -> Vec<String> { e["tasks"].as_object().unwrap().keys().cloned().collect() };
    assert_eq!(evaluated(&e_before), evaluated(&e_after));
    assert_eq!(e_after["metrics"], e_before["metrics"]);
    assert_eq!(e_after["fingerprint"], e_before["fingerprint"]);
}
