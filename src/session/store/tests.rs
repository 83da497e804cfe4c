use super::*;

#[test]
fn remove_deletes_a_session_but_not_a_running_one_nor_another_directory() {
    let root = tempfile::tempdir().unwrap();
    let w = SessionWriter::create(root.path(), &meta("20260101-000000-eval-x-0001")).unwrap();
    let dir = w.dir().to_path_buf();
    let err = remove(&dir).unwrap_err();
    assert!(matches!(err, SessionError::Locked { .. }), "{err}");
    assert!(dir.is_dir());
    drop(w);
    remove(&dir).unwrap();
    assert!(!dir.exists());
    let other = root.path().join("not-a-session");
    fs::create_dir(&other).unwrap();
    assert!(
        remove(&other)
            .unwrap_err()
            .to_string()
            .contains("not a session")
    );
    assert!(other.is_dir());
}

/// Appends `bytes` to the session's events file behind its writer's back.
fn append_to_events(dir: &Path, bytes: &[u8]) {
    let mut f = OpenOptions::new()
        .append(true)
        .open(dir.join(EVENTS_FILE))
        .unwrap();
    f.write_all(bytes).unwrap();
}

fn meta(id: &str) -> Meta {
    Meta {
        schema: SCHEMA,
        id: id.into(),
        kind: "eval".into(),
        created: now_rfc3339(),
        tool_version: "test".into(),
        dataset: DatasetRef {
            origin: "x".into(),
            name: "x".into(),
            tasks: 1,
            digest: "0".into(),
        },
        model: None,
        strategy: None,
        source: None,
        harness: None,
        harness_caveat: None,
    }
}

fn started(task: &str) -> EventBody {
    EventBody::TaskStarted {
        task_id: task.into(),
        sample: 0,
    }
}

#[test]
fn write_read_resume_with_a_torn_tail() {
    let root = tempfile::tempdir().unwrap();
    let mut w = SessionWriter::create(root.path(), &meta("s1")).unwrap();
    w.append(started("A")).unwrap();
    w.append(started("B")).unwrap();
    let dir = w.dir().to_path_buf();
    drop(w);
    // A crash in the middle of a write leaves half a line.
    append_to_events(&dir, br#"{"seq":2,"ts":1.0,"kind":"task_sta"#);
    let log = SessionLog::open(&dir).unwrap();
    assert_eq!(log.events.len(), 2);
    assert_eq!(log.problems.len(), 1);
    assert!(
        log.problems[0].contains("torn last line"),
        "{:?}",
        log.problems
    );
    // Resuming cuts the torn line and continues the numbering without a gap.
    let (mut w, log) = SessionWriter::resume(&dir).unwrap();
    assert_eq!(log.events.len(), 2);
    w.append(started("C")).unwrap();
    let log = SessionLog::open(&dir).unwrap();
    assert!(log.problems.is_empty(), "{:?}", log.problems);
    let seqs: Vec<u64> = log.events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [0, 1, 2]);
}

#[test]
fn unknown_kinds_and_garbage_are_reported_not_fatal() {
    let root = tempfile::tempdir().unwrap();
    let mut w = SessionWriter::create(root.path(), &meta("s2")).unwrap();
    w.append(started("A")).unwrap();
    let dir = w.dir().to_path_buf();
    append_to_events(
        &dir,
        b"{\"seq\":1,\"ts\":1.0,\"kind\":\"from_the_future\"}\nnot json\n",
    );
    w.append(started("B")).unwrap();
    let log = SessionLog::open(&dir).unwrap();
    assert_eq!(log.events.len(), 2);
    assert_eq!(log.problems.len(), 2);
    assert!(log.problems[0].contains("from_the_future"));
}

#[test]
fn newer_schema_is_refused_clearly() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("s3");
    fs::create_dir(&dir).unwrap();
    let mut m = serde_json::to_value(meta("s3")).unwrap();
    m["schema"] = 99.into();
    fs::write(dir.join(META_FILE), m.to_string()).unwrap();
    let err = read_meta(&dir).unwrap_err().to_string();
    assert!(
        err.contains("schema 99") && err.contains("meta.json"),
        "{err}"
    );
}

fn inputs(predictions: &str, content: &str, budget: f64) -> Inputs {
    Inputs {
        dataset: InputRecord::file("data.json", "0"),
        outputs: Some(InputRecord::file(
            predictions,
            sha256_hex(content.as_bytes()),
        )),
        config: InputRecord::config(serde_json::json!({"budget_s": budget, "hash_seed": 0})),
        recorded_on_resume: None,
    }
}

#[test]
fn inputs_are_kept_in_meta_and_older_metas_still_read() {
    let root = tempfile::tempdir().unwrap();
    let given = inputs("p.jsonl", "x", 5.0);
    let w = SessionWriter::create_with_inputs(root.path(), &meta("s4"), &given).unwrap();
    let dir = w.dir().to_path_buf();
    drop(w);
    assert_eq!(read_inputs(&dir).unwrap(), Some(given));
    assert_eq!(read_meta(&dir).unwrap(), meta("s4"));
    let raw: Value =
        serde_json::from_str(&fs::read_to_string(dir.join(META_FILE)).unwrap()).unwrap();
    assert_eq!(
        raw["inputs"]["outputs"]["sha256"],
        "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"
    );
    // A session from before digests: no `inputs`, read as none.
    let w = SessionWriter::create(root.path(), &meta("s5")).unwrap();
    assert_eq!(read_inputs(w.dir()).unwrap(), None);
}

#[test]
fn the_configuration_digest_ignores_key_order() {
    let a = InputRecord::config(serde_json::json!({"a": 1, "b": {"c": 2, "d": 3}}));
    let b = InputRecord::config(serde_json::json!({"b": {"d": 3, "c": 2}, "a": 1}));
    assert_eq!(a.sha256, b.sha256);
    assert_eq!(a.sha256.len(), 64);
    let c = InputRecord::config(serde_json::json!({"a": 2, "b": {"c": 2, "d": 3}}));
    assert_ne!(a.sha256, c.sha256);
}

#[test]
fn other_inputs_are_named_with_both_digests_and_paths() {
    let old = inputs("gpt.jsonl", "one model", 5.0);
    assert_eq!(
        old.check_same("s", &old.clone(), "predictions file"),
        Ok(())
    );
    // The same content under another name is the same input.
    let moved = inputs("copy/gpt.jsonl", "one model", 5.0);
    assert_eq!(old.check_same("s", &moved, "predictions file"), Ok(()));

    let other = inputs("llama.jsonl", "another model", 5.0);
    let err = old.check_same("s", &other, "predictions file").unwrap_err();
    let (was, now) = (
        &old.outputs.as_ref().unwrap().sha256,
        &other.outputs.as_ref().unwrap().sha256,
    );
    assert!(
        err.contains("predictions file differs")
            && err.contains(&format!("gpt.jsonl (sha256 {was})"))
            && err.contains(&format!("llama.jsonl (sha256 {now})"))
            && !err.contains("configuration"),
        "{err}"
    );

    let slower = inputs("gpt.jsonl", "one model", 10.0);
    let err = old
        .check_same("s", &slower, "predictions file")
        .unwrap_err();
    assert!(
        err.contains("configuration differs (budget_s 5.0 → 10.0)")
            && err.contains(&old.config.sha256)
            && err.contains(&slower.config.sha256)
            && !err.contains("predictions"),
        "{err}"
    );

    let none = Inputs {
        outputs: None,
        ..old.clone()
    };
    let err = old.check_same("s", &none, "predictions file").unwrap_err();
    assert!(
        err.contains("predictions file: started with gpt.jsonl"),
        "{err}"
    );
}

#[test]
fn a_second_writer_is_refused_until_the_first_is_gone() {
    let root = tempfile::tempdir().unwrap();
    let mut w = SessionWriter::create(root.path(), &meta("s6")).unwrap();
    w.append(started("A")).unwrap();
    let dir = w.dir().to_path_buf();
    // Torn tail: a refused resume must not cut it (the writer may be mid-line).
    append_to_events(&dir, b"{\"seq\":1,");
    let before = fs::read(dir.join(EVENTS_FILE)).unwrap();
    for _ in 0..2 {
        let Err(err) = Resumable::open(&dir) else {
            panic!("a second writer got the lock");
        };
        assert!(matches!(err, SessionError::Locked { .. }), "{err}");
        let text = err.to_string();
        assert!(
            text.contains("session s6 is being written by another classlab process")
                && text.contains(&format!("pid {}", std::process::id()))
                && text.contains(LOCK_FILE),
            "{text}"
        );
        assert!(SessionWriter::resume(&dir).is_err());
    }
    assert_eq!(fs::read(dir.join(EVENTS_FILE)).unwrap(), before);
    drop(w);
    let (mut w, log) = SessionWriter::resume(&dir).unwrap();
    assert_eq!(log.events.len(), 1);
    w.append(started("B")).unwrap();
    // Held again by the resumed writer.
    assert!(matches!(
        Resumable::open(&dir),
        Err(SessionError::Locked { .. })
    ));
}

#[test]
fn a_directory_that_is_no_session_gets_no_lock_file() {
    let root = tempfile::tempdir().unwrap();
    let err = Resumable::open(root.path()).err().unwrap().to_string();
    assert!(err.contains(META_FILE), "{err}");
    assert!(!root.path().join(LOCK_FILE).exists());
}

#[test]
fn inputs_recorded_on_resume_keep_every_other_field() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("s7");
    fs::create_dir(&dir).unwrap();
    let mut m = serde_json::to_value(meta("s7")).unwrap();
    m["written_by_someone_else"] = "kept".into();
    fs::write(dir.join(META_FILE), m.to_string()).unwrap();
    fs::write(dir.join(EVENTS_FILE), "").unwrap();
    let mut r = Resumable::open(&dir).unwrap();
    assert_eq!(r.inputs, None);
    let given = Inputs {
        recorded_on_resume: Some(now_rfc3339()),
        ..inputs("p.jsonl", "x", 5.0)
    };
    r.record_inputs(&given).unwrap();
    drop(r);
    assert_eq!(read_inputs(&dir).unwrap(), Some(given));
    let raw: Value =
        serde_json::from_str(&fs::read_to_string(dir.join(META_FILE)).unwrap()).unwrap();
    assert_eq!(raw["written_by_someone_else"], "kept");
    assert_eq!(read_meta(&dir).unwrap(), meta("s7"));
}

#[test]
fn ids_are_unique_and_safe() {
    let a = new_id("eval", "GPT-4 / turbo");
    assert!(a.contains("-eval-GPT-4___turbo-"), "{a}");
    assert!(!a.contains('/'));
}
