use std::path::PathBuf;

use super::*;
use crate::model::{Outcome, TestResult};

fn python(dir: &Path) -> PythonInfo {
    PythonInfo {
        executable: PathBuf::from("/usr/bin/python3"),
        version: "3.11.7".into(),
        prefix: PathBuf::from("/usr"),
        base_prefix: PathBuf::from("/usr"),
        exec_prefix: PathBuf::from("/usr"),
        path: vec![dir.to_path_buf()],
        pytest: None,
    }
}

fn result(outcomes: &[Outcome], failure: Option<SuiteFailure>) -> SuiteResult {
    let tests = outcomes
        .iter()
        .enumerate()
        .map(|(i, o)| TestResult::new(format!("T.test_{i}"), *o))
        .collect();
    SuiteResult::new(tests, failure)
}

#[test]
fn only_a_failure_needs_the_reference() {
    let dataset = crate::dataset::load(None).expect("the sample loads");
    let task = &dataset.tasks[0];
    assert!(!needed(
        task,
        &result(&[Outcome::Pass, Outcome::Skip], None)
    ));
    assert!(needed(task, &result(&[Outcome::Pass, Outcome::Fail], None)));
    assert!(needed(task, &result(&[Outcome::NotRun], None)));
    let timeout = Some(SuiteFailure::Timeout { limit_s: 5.0 });
    assert!(needed(task, &result(&[Outcome::Pass], timeout)));
    // Tampering leaves no excuse to look for.
    assert!(!needed(
        task,
        &result(&[Outcome::Tampered, Outcome::Fail], None)
    ));
    // No reference, no evidence.
    let mut bare = task.clone();
    bare.solution = "  ".into();
    assert!(!needed(&bare, &result(&[Outcome::Fail], None)));
}

#[test]
fn runs_are_cached_per_suite_and_interpreter() {
    let root = tempfile::tempdir().unwrap();
    let site = tempfile::tempdir().unwrap();
    let runs = ReferenceRuns::new(root.path(), &python(site.path()));
    let spec = SuiteSpec::unittest_one_module("class A: pass", "import unittest\n");
    let key = runs.key(&spec);
    assert_eq!(key, runs.key(&spec.clone()), "a key is stable");
    let other = SuiteSpec {
        hash_seed: Some(1),
        ..spec.clone()
    };
    assert_ne!(key, runs.key(&other), "another suite, another key");
    assert_eq!(runs.cached(&key), None);
    let r = result(&[Outcome::Pass, Outcome::Fail], None);
    runs.store(&key, "T_0", &r);
    assert_eq!(runs.cached(&key), Some(r.clone()));
    // Another interpreter (or another version) does not see it.
    let mut py = python(site.path());
    py.version = "3.12.1".into();
    let elsewhere = ReferenceRuns::new(root.path(), &py);
    assert_ne!(elsewhere.key(&spec), key);
    // A run cut short is not kept; an import failure is.
    let cut = result(&[Outcome::NotRun], Some(SuiteFailure::Memory));
    runs.store(&runs.key(&other), "T_0", &cut);
    assert_eq!(runs.cached(&runs.key(&other)), None);
    // Nor is one where a test ran out of time (the machine's load as much as the environment).
    let mut slow = result(&[Outcome::Pass, Outcome::Error], None);
    slow.tests[1].exc_type = Some("Timeout".into());
    runs.store(&runs.key(&other), "T_0", &slow);
    assert_eq!(runs.cached(&runs.key(&other)), None);
    // A damaged entry is a miss, and is written again.
    std::fs::write(root.path().join(CACHE_DIR).join(format!("{key}.json")), "{").unwrap();
    assert_eq!(runs.cached(&key), None);
    runs.store(&key, "T_0", &r);
    assert_eq!(runs.cached(&key), Some(r));
}

#[test]
fn installing_a_package_changes_the_interpreters_identity() {
    let root = tempfile::tempdir().unwrap();
    let site = tempfile::tempdir().unwrap();
    let before = ReferenceRuns::new(root.path(), &python(site.path()));
    // Directory times have a second's resolution here: move it back, as an install moves it on.
    let dir = std::fs::File::open(site.path()).unwrap();
    dir.set_modified(UNIX_EPOCH + std::time::Duration::from_secs(1_000_000))
        .unwrap();
    let after = ReferenceRuns::new(root.path(), &python(site.path()));
    let spec = SuiteSpec::unittest_one_module("class A: pass", "import unittest\n");
    assert_ne!(before.key(&spec), after.key(&spec));
}
