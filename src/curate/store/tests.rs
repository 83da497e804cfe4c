use super::*;
use crate::curate::review::{HistoryEntry, Status};

fn record(status: Status) -> TaskRecord {
    TaskRecord {
        review: TaskReview {
            status,
            history: vec![HistoryEntry {
                who: "ada".into(),
                when: "2026-11-21T12:00:00Z".into(),
                what: status.to_string(),
            }],
            ..TaskReview::default()
        },
        ..TaskRecord::default()
    }
}

#[test]
fn a_missing_store_is_empty_and_a_saved_one_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/d.json.curation.json");
    assert_eq!(load(&path).unwrap(), CurationStore::default());
    let mut locked = lock(&path).unwrap();
    locked
        .store
        .tasks
        .insert("T1".into(), record(Status::Approved));
    locked.save().unwrap();
    drop(locked);
    let back = load(&path).unwrap();
    assert_eq!(back.tasks["T1"].review.status, Status::Approved);
    assert_eq!(back.review("nope").status, Status::Unreviewed);
    // No temp file is left behind; the lock file stays (it is only a lock).
    let mut names: Vec<String> = fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["d.json.curation.json", "d.json.curation.json.lock"]);
}

#[test]
fn the_file_format_is_stable() {
    let mut store = CurationStore::default();
    store.tasks.insert("T1".into(), record(Status::Rejected));
    let json = serde_json::to_value(&store).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "format": "classlab-curation",
            "schema": 1,
            "tasks": {"T1": {"status": "rejected", "history": [
                {"who": "ada", "when": "2026-11-21T12:00:00Z", "what": "rejected"}
            ]}}
        })
    );
}

#[test]
fn bad_files_are_refused_with_where_and_why() {
    let p = Path::new("s.json");
    let cases = [
        (
            "{\n  \"format\": \"classlab-curation\",\n  \"schema\": 1,\n  \"tasks\": {,}\n}",
            "s.json:4:",
        ),
        (
            r#"{"format":"classlab-curation","schema":7,"tasks":{}}"#,
            "schema 7 is newer",
        ),
        (r#"{"format":"other","schema":1}"#, "not a curation store"),
        (r#"{"format":"classlab-curation"}"#, "`schema`"),
        (
            r#"{"format":"classlab-curation","schema":1,"tasks":{"T":{"status":"maybe"}}}"#,
            "s.json:1:",
        ),
        ("[1, 2]", "s.json:1:"),
        ("", "s.json:1:"),
    ];
    for (text, want) in cases {
        let err = parse(p, text).unwrap_err().to_string();
        assert!(err.contains(want), "{text:?}: {err}");
    }
}

#[test]
fn non_utf8_is_refused_not_panicked_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    fs::write(&path, b"{\xff}").unwrap();
    assert!(load(&path).unwrap_err().to_string().contains("UTF-8"));
}

#[test]
fn store_paths() {
    let dir = tempfile::tempdir().unwrap();
    let p = |s: Option<&str>, d: Option<&Path>| {
        default_path(
            s.map(Path::new),
            d,
            "0123456789abcdef0123",
            Some(Path::new("/sess")),
        )
    };
    let data = dir.path().join("d.json");
    assert_eq!(p(Some("x.json"), Some(&data)), PathBuf::from("x.json"));
    // Nothing is ever put beside a dataset: the store goes to the data directory, by digest.
    let fresh = p(None, Some(&data));
    assert!(!fresh.starts_with(dir.path()), "{}", fresh.display());
    assert!(
        fresh.ends_with("curation/d.json-0123456789abcdef.curation.json"),
        "{}",
        fresh.display()
    );
    // A store an older classlab started beside the dataset is still the one used.
    fs::write(dir.path().join("d.json.curation.json"), "{}").unwrap();
    assert_eq!(
        p(None, Some(&data)),
        dir.path().join("d.json.curation.json")
    );
    assert_eq!(
        beside_dataset(Path::new("data/rce/")),
        PathBuf::from("data/rce.curation.json")
    );
    assert_eq!(p(None, None), PathBuf::from("/sess/sample.curation.json"));
    assert_eq!(
        lock_path(Path::new("a/s.json")),
        PathBuf::from("a/s.json.lock")
    );
}

#[test]
fn concurrent_writers_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let path = path.clone();
            std::thread::spawn(move || {
                for i in 0..25 {
                    let mut locked = lock(&path).unwrap();
                    locked
                        .store
                        .tasks
                        .insert(format!("T{t}_{i}"), record(Status::NeedsWork));
                    locked.save().unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(load(&path).unwrap().tasks.len(), 100);
}

#[test]
fn the_user_has_a_name() {
    assert!(!current_user().trim().is_empty());
    assert!(passwd_name().is_none_or(|n| !n.is_empty()));
}

#[test]
fn a_validation_recorded_before_counts_and_coverage_were_kept_still_reads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.curation.json");
    let old = r#"{"format": "classlab-curation", "schema": 1, "tasks": {"T1": {
        "status": "unreviewed", "history": [],
        "validation": {"when": "2026-11-20T09:00:00Z", "task_digest": "abc", "passed": false,
                       "summary": "private 3/4 passed in both runs"}}}}"#;
    fs::write(&path, old).unwrap();
    let v = load(&path).unwrap().tasks["T1"].validation.clone().unwrap();
    assert_eq!(
        v,
        ValidationRecord {
            when: "2026-11-20T09:00:00Z".into(),
            task_digest: "abc".into(),
            passed: false,
            summary: Some("private 3/4 passed in both runs".into()),
            ..ValidationRecord::default()
        }
    );
    // A full record reads back as written; the new fields stay out of the file when empty.
    let full = ValidationRecord {
        private: Some(TestCount {
            passed: 4,
            total: 4,
        }),
        public: Some(TestCount {
            passed: 2,
            total: 3,
        }),
        class_coverage: Some(93.5),
        method_coverage: [("pop".to_string(), Some(100.0)), ("push".into(), None)].into(),
        findings: vec!["I2".into(), "T9:pop".into()],
        notes: vec!["coverage.py is not importable".into()],
        ..v.clone()
    };
    let json = serde_json::to_string(&full).unwrap();
    assert_eq!(
        serde_json::from_str::<ValidationRecord>(&json).unwrap(),
        full
    );
    let short = serde_json::to_value(&v).unwrap();
    let keys: Vec<&String> = short.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["when", "task_digest", "passed", "summary"]);
}
