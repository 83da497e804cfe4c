use super::*;
use crate::curate::review::{HistoryEntry, TaskReview};
use crate::curate::{ReviewAction, TaskEdits, act, stamp_now};
use crate::dataset::{self, Format, parse_text};

fn approved(store: &mut CurationStore, task: &Task, edits: TaskEdits) {
    let record = TaskRecord {
        review: TaskReview {
            status: Status::Approved,
            edits,
            history: vec![HistoryEntry {
                who: "ada".into(),
                when: "2026-11-21T12:00:00Z".into(),
                what: "approved".into(),
            }],
            ..TaskReview::default()
        },
        ..TaskRecord::default()
    };
    store.tasks.insert(task.id.clone(), record);
}

#[test]
fn only_approved_tasks_leave_with_their_edits_and_provenance() {
    let sample = dataset::sample();
    let (a, b) = (&sample.tasks[0], &sample.tasks[1]);
    let mut store = CurationStore::default();
    let mut e = TaskEdits::default();
    let method = a.methods[0].name.clone();
    e.set(
        a,
        &format!("methods.{method}.public_tests"),
        "class P:\n    pass\n".into(),
    )
    .unwrap();
    approved(&mut store, a, e);
    let reject = ReviewAction::Reject {
        reason: "no".into(),
    };
    act(&mut store, b, reject, &stamp_now(), &[]).unwrap();
    let out = export(
        &sample,
        &store,
        ExportFormat::Classlab,
        "2026-11-22T00:00:00Z",
    );
    assert_eq!(out.tasks.len(), 1);
    let text = serde_json::to_string(&out.value).unwrap();
    let back = parse_text("export.json", &text).unwrap();
    assert_eq!(back.format, Format::Classlab);
    assert!(back.problems.is_empty(), "{:?}", back.problems);
    assert_eq!(back.tasks.len(), 1);
    let t = &back.tasks[0];
    assert_eq!(
        t.methods[0].public_tests.as_deref(),
        Some("class P:\n    pass\n")
    );
    let p = &t.provenance;
    assert_eq!(p.original_id.as_deref(), Some(a.id.as_str()));
    assert_eq!(
        p.original_digest,
        Some(crate::curate::gates::task_digest(a))
    );
    assert_eq!(p.extra["reviewer"], "ada");
    assert_eq!(p.extra["reviewed"], "2026-11-21T12:00:00Z");
    assert_eq!(
        p.extra["edited_fields"],
        serde_json::json!([format!("methods.{method}.public_tests")])
    );
    assert!(p.extra["findings_resolved"].is_array());
    // Apart from curation's additions, the task is the dataset's.
    let mut plain = t.clone();
    plain.provenance = a.provenance.clone();
    plain.methods[0].public_tests = a.methods[0].public_tests.clone();
    assert_eq!(&plain, a);
}

#[test]
fn classeval_format_has_exactly_classeval_fields() {
    let sample = dataset::sample();
    let mut store = CurationStore::default();
    for t in &sample.tasks {
        approved(&mut store, t, TaskEdits::default());
    }
    let out = export(&sample, &store, ExportFormat::ClassEval, "now");
    let back = parse_text("export.json", &out.value.to_string()).unwrap();
    assert_eq!(back.format, Format::ClassEval);
    assert_eq!(back.tasks.len(), sample.tasks.len());
    let first = &out.value[0];
    let keys: Vec<&str> = first
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "task_id",
            "skeleton",
            "test",
            "solution_code",
            "import_statement",
            "class_description",
            "class_name",
            "test_classes",
            "class_constructor",
            "fields",
            "methods_info"
        ]
    );
    let mkeys: Vec<&str> = first["methods_info"][0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        mkeys,
        [
            "method_name",
            "method_description",
            "test_class",
            "test_code",
            "solution_code",
            "dependencies"
        ]
    );
}

/// Every ClassEval task, unchanged, comes out exactly as ClassEval wrote it.
#[test]
fn unchanged_classeval_tasks_come_out_byte_for_byte() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/classeval/ClassEval_data.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("skipped: {} is missing", path.display());
        return;
    };
    let original: Value = serde_json::from_str(&text).unwrap();
    let ds = parse_text("ClassEval_data.json", &text).unwrap();
    assert_eq!(ds.tasks.len(), 100);
    for (task, want) in ds.tasks.iter().zip(original.as_array().unwrap()) {
        assert_eq!(
            &task_value(task, ExportFormat::ClassEval),
            want,
            "{}",
            task.id
        );
    }
}

#[test]
fn stale_bases_warn_and_unknown_tasks_are_named() {
    let sample = dataset::sample();
    let mut store = CurationStore::default();
    approved(&mut store, &sample.tasks[0], TaskEdits::default());
    if let Some(r) = store.tasks.get_mut(&sample.tasks[0].id) {
        r.base_digest = Some("0".repeat(64));
    }
    let ghost = Task {
        id: "Ghost_1".into(),
        ..Task::default()
    };
    approved(&mut store, &ghost, TaskEdits::default());
    let out = export(&sample, &store, ExportFormat::Classlab, "now");
    assert_eq!(out.tasks.len(), 1);
    assert!(
        out.warnings[0].contains("changed since it was edited"),
        "{:?}",
        out.warnings
    );
    assert_eq!(out.skipped[0].0, "Ghost_1");
    let log = crate::curate::changelog::changelog(&sample, &store, &out, "now");
    assert!(log.contains("Ghost_1: approved but not exported"), "{log}");
}

/// A curated export curated again: the task still names the original it came from (id and
/// digest), and the first round's record is kept beside the second's.
#[test]
fn a_curated_export_curated_again_keeps_its_origin_and_earlier_rounds() {
    let sample = dataset::sample();
    let a = &sample.tasks[0];
    let mut store = CurationStore::default();
    let mut e = TaskEdits::default();
    e.set(a, "skeleton", format!("{}\n# first round\n", a.skeleton))
        .unwrap();
    approved(&mut store, a, e);
    let first = export(&sample, &store, ExportFormat::Classlab, "t1");
    let first = parse_text("first.json", &first.value.to_string()).unwrap();
    let mut rounds = vec![first.clone()];
    // Two more rounds: one without edits, one with.
    for (i, edit) in [false, true].into_iter().enumerate() {
        let ds = rounds.last().unwrap();
        let t = &ds.tasks[0];
        let mut store = CurationStore::default();
        let mut e = TaskEdits::default();
        if edit {
            e.set(t, "class_description", "Cleaned.".into()).unwrap();
        }
        approved(&mut store, t, e);
        let out = export(ds, &store, ExportFormat::Classlab, "t");
        rounds.push(parse_text(&format!("round{i}.json"), &out.value.to_string()).unwrap());
    }
    let digest = crate::curate::gates::task_digest(a);
    for ds in &rounds {
        let p = &ds.tasks[0].provenance;
        assert_eq!(p.source, a.provenance.source);
        assert_eq!(p.original_id.as_deref(), Some(a.id.as_str()));
        assert_eq!(p.original_digest.as_deref(), Some(digest.as_str()));
    }
    let last = &rounds[2].tasks[0];
    assert_eq!(last.description, "Cleaned.");
    assert!(last.skeleton.ends_with("# first round\n"));
    let p = &last.provenance.extra;
    assert_eq!(p["edited_fields"], serde_json::json!(["class_description"]));
    let earlier = p[EARLIER_CURATIONS].as_array().unwrap();
    assert_eq!(earlier.len(), 2, "{earlier:?}");
    assert_eq!(earlier[0]["edited_fields"], serde_json::json!(["skeleton"]));
    assert_eq!(earlier[0]["reviewer"], "ada");
    assert_eq!(earlier[1]["edited_fields"], serde_json::json!([]));
    assert!(earlier[1].get(EARLIER_CURATIONS).is_none());
}

/// An edit of the skeleton's docstring without the same edit of the method's description (or
/// the reverse) leaves two versions of the method in the task: the export says so.
#[test]
fn a_skeleton_edited_apart_from_its_method_descriptions_is_warned_about() {
    let sample = dataset::sample();
    let a = &sample.tasks[0];
    let m = &a.methods[0];
    let first_line = m.description.lines().next().unwrap();
    let renamed = first_line.replace(&m.name, &format!("{}_v2", m.name));
    assert_ne!(renamed, first_line);
    let skeleton = a.skeleton.replacen(first_line, &renamed, 1);
    let description = m.description.replacen(first_line, &renamed, 1);
    let path = format!("methods.{}.method_description", m.name);
    let run = |edits: &[(&str, &str)]| {
        let mut store = CurationStore::default();
        let mut e = TaskEdits::default();
        for (field, text) in edits {
            e.set(a, field, text.to_string()).unwrap();
        }
        approved(&mut store, a, e);
        export(&sample, &store, ExportFormat::Classlab, "now").warnings
    };
    assert!(run(&[]).is_empty());
    for edits in [
        vec![("skeleton", skeleton.as_str())],
        vec![(path.as_str(), description.as_str())],
    ] {
        let warnings = run(&edits);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].starts_with(&format!("{}: ", a.id))
                && warnings[0].contains(&format!("method_description of {}", m.name)),
            "{warnings:?}"
        );
    }
    let both = run(&[("skeleton", &skeleton), (&path, &description)]);
    assert!(both.is_empty(), "{both:?}");
}

/// ClassEval's own descriptions that its skeletons do not hold (two: ClassEval_0's
/// `is_start_with`, ClassEval_5's `interpret`) are not the curator's doing.
#[test]
fn classeval_descriptions_apart_already_are_not_blamed_on_edits() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/classeval/ClassEval_data.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("skipped: {} is missing", path.display());
        return;
    };
    let ds = parse_text("ClassEval_data.json", &text).unwrap();
    let mut apart = Vec::new();
    for t in &ds.tasks {
        for m in &t.methods {
            if !t.skeleton.contains(m.description.trim()) {
                apart.push(format!("{}.{}", t.id, m.name));
            }
        }
        assert!(descriptions_apart(t, t).is_empty(), "{}", t.id);
    }
    assert_eq!(
        apart,
        ["ClassEval_0.is_start_with", "ClassEval_5.interpret"]
    );
}

#[test]
fn an_explained_finding_stays_explained_when_the_export_is_curated_again() {
    use crate::curate::gates::{error_findings, gates};
    use crate::curate::review::Override;
    let sample = dataset::sample();
    let task = sample.tasks.iter().find(|t| t.id == "Sample_5").unwrap();
    let errors = error_findings(task);
    assert!(!errors.is_empty());
    let mut store = CurationStore::default();
    approved(&mut store, task, TaskEdits::default());
    let o = Override {
        reason: "the docstring's name is deliberate".into(),
        who: "ada".into(),
        when: "2026-11-21T12:00:00Z".into(),
        covers: errors.clone(),
    };
    let review = &mut store.tasks.get_mut(&task.id).unwrap().review;
    review.overrides.insert(Gate::Findings, o);
    let text = |ds: &Dataset, store: &CurationStore| {
        let out = export(ds, store, ExportFormat::Classlab, "2026-11-22T00:00:00Z");
        serde_json::to_string(&out.value).unwrap()
    };
    let once = parse_text("once.json", &text(&sample, &store)).unwrap();
    let t = &once.tasks[0];
    assert_eq!(error_findings(t), errors, "the findings are still there");
    assert!(
        gates(t, None, &[]).error_findings.is_empty(),
        "but explained"
    );
    // Curated again with no override of its own: the explanation moves to the earlier
    // round's record and still counts.
    let mut again = CurationStore::default();
    approved(&mut again, t, TaskEdits::default());
    let twice = parse_text("twice.json", &text(&once, &again)).unwrap();
    let t = &twice.tasks[0];
    assert!(t.provenance.extra.get(FINDINGS_EXPLAINED).is_none());
    assert!(gates(t, None, &[]).error_findings.is_empty());
}
