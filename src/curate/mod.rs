//! Curation: review decisions about tasks (approve, reject, needs work, notes, edits, gate
//! overrides), kept in a store beside the dataset, and the export of the approved tasks.
//!
//! The workflow is the pure machine in [`review`]; [`act`] is the one place that feeds it a
//! task's gates and folds its answer into the store, for the TUI and the headless commands.

pub mod changelog;
pub mod edits;
pub mod export;
pub mod gates;
pub mod review;
pub mod rigor_gates;
pub mod store;
pub mod targets;
pub mod validate;

pub use edits::TaskEdits;
pub use review::{Effect, Gate, Gates, Refusal, ReviewAction, Stamp, Status, TaskReview};
pub use store::{CurationStore, TaskRecord, TestCount, ValidationRecord};

use std::path::Path;

use crate::analysis::lint::Finding;
use crate::model::Task;
use validate::TaskValidation;

/// A stamp for now, by the OS user.
pub fn stamp_now() -> Stamp {
    Stamp {
        who: store::current_user(),
        when: crate::session::store::now_rfc3339(),
    }
}

/// The task as the reviewer has made it: the dataset's task with the store's edits.
pub fn edited_task(store: &CurationStore, original: &Task) -> Task {
    match store.tasks.get(&original.id) {
        Some(record) => record.review.edits.apply(original),
        None => original.clone(),
    }
}

/// The gates of a task as it now stands in the store, given its rigor findings as it stands
/// (`rigor_gates::StoredRigor::findings`, or the review queue's).
pub fn task_gates(store: &CurationStore, original: &Task, rigor: &[Finding]) -> Gates {
    gates::gates(
        &edited_task(store, original),
        store.tasks.get(&original.id),
        rigor,
    )
}

/// Keep a validation outcome for `original` as it now stands (with its edits), so the
/// validation gate can pass. An edit later makes the record stale (it names the digest of the
/// task it validated).
pub fn record_validation(
    store: &mut CurationStore,
    original: &Task,
    passed: bool,
    summary: Option<String>,
    when: String,
) {
    let record = ValidationRecord {
        when,
        passed,
        summary,
        ..ValidationRecord::default()
    };
    record_validated(store, original, record);
}

/// Keep `record` (its digest set to the task's as it now stands) as `original`'s validation.
pub fn record_validated(store: &mut CurationStore, original: &Task, record: ValidationRecord) {
    let task_digest = gates::task_digest(&edited_task(store, original));
    let entry = store.tasks.entry(original.id.clone()).or_default();
    entry.validation = Some(ValidationRecord {
        task_digest,
        ..record
    });
}

/// What the store keeps of a validation (its digest is set when recorded): pass or fail and
/// why, the reference's counts, coverage, the findings' keys.
pub fn validation_record(v: &TaskValidation, when: String) -> ValidationRecord {
    let r = &v.reference;
    let count = |c: validate::Count| TestCount {
        passed: c.passed,
        total: c.total,
    };
    let passed = v.passes_twice();
    let mut findings: Vec<String> = v
        .findings
        .iter()
        .map(|f| match &f.method {
            Some(m) => format!("{}:{m}", f.code),
            None => f.code.to_string(),
        })
        .collect();
    findings.sort();
    findings.dedup();
    ValidationRecord {
        when,
        task_digest: String::new(),
        passed,
        summary: (!passed).then(|| failure_line(v)),
        private: Some(count(r.private)),
        public: Some(count(r.public)),
        class_coverage: v.coverage.class,
        method_coverage: v.coverage.methods.clone(),
        findings,
        notes: v.notes.clone(),
    }
}

/// Why a task did not pass, in a line: the counts and the codes of what broke it.
fn failure_line(v: &TaskValidation) -> String {
    let codes: std::collections::BTreeSet<&str> = v
        .findings
        .iter()
        .filter(|f| matches!(f.code, "T11" | "I2"))
        .map(|f| f.code)
        .collect();
    let codes: Vec<&str> = codes.into_iter().collect();
    let r = &v.reference;
    format!(
        "private {}/{}, public {}/{} passed in both runs; runs {}{}",
        r.private.passed,
        r.private.total,
        r.public.passed,
        r.public.total,
        if v.runs_agree { "agree" } else { "differ" },
        if codes.is_empty() {
            String::new()
        } else {
            format!(" ({})", codes.join(", "))
        }
    )
}

/// Record validation outcomes in the store at `path`, under its lock (what `classlab validate`
/// and the review queue do). `originals[i]` is the dataset's task, `validated[i]` the text that
/// ran; a task edited meanwhile is not recorded (the record would vouch for text that did not
/// run): its id is returned.
pub fn record_validations(
    path: &Path,
    originals: &[&Task],
    validated: &[Task],
    results: &[TaskValidation],
) -> Result<Vec<String>, store::StoreError> {
    let mut locked = store::lock(path)?;
    let when = crate::session::store::now_rfc3339();
    let mut stale = Vec::new();
    let positions = crate::model::TaskIndex::from_ids(originals.iter().map(|t| t.id.as_str()));
    for v in results {
        let Some(i) = positions.position(&v.task_id) else {
            continue;
        };
        let (Some(original), Some(ran)) = (originals.get(i).copied(), validated.get(i)) else {
            continue;
        };
        if edited_task(&locked.store, original) != *ran {
            stale.push(v.task_id.clone());
            continue;
        }
        let record = validation_record(v, when.clone());
        record_validated(&mut locked.store, original, record);
    }
    locked.save()?;
    Ok(stale)
}

/// Take `action` on `original`'s review in `store` (in memory): compute the gates (with the
/// task's rigor findings as it stands), run the machine, keep the new state. The caller
/// executes the effects (persisting the store).
pub fn act(
    store: &mut CurationStore,
    original: &Task,
    action: ReviewAction,
    stamp: &Stamp,
    rigor: &[Finding],
) -> Result<Vec<Effect>, Refusal> {
    // Edits are kept as a delta against the dataset: an edit undone is no edit.
    let action = match action {
        ReviewAction::Edit { edits } => ReviewAction::Edit {
            edits: edits.pruned(original),
        },
        other => other,
    };
    let gates = task_gates(store, original, rigor);
    let record = store.tasks.get(&original.id).cloned().unwrap_or_default();
    let (review, effects) = review::decide(&record.review, action, &gates, stamp)?;
    let base_digest = match (&record.base_digest, review.edits.is_empty()) {
        (_, true) => None,
        (Some(base), false) => Some(base.clone()),
        (None, false) => Some(gates::task_digest(original)),
    };
    store.tasks.insert(
        original.id.clone(),
        TaskRecord {
            review,
            base_digest,
            ..record
        },
    );
    Ok(effects)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset;

    fn stamp() -> Stamp {
        Stamp {
            who: "ada".into(),
            when: "2026-11-21T12:00:00Z".into(),
        }
    }

    /// Edit `task` (the gates do not matter to an edit).
    fn edit(store: &mut CurationStore, task: &Task, edits: TaskEdits) -> Vec<Effect> {
        act(store, task, ReviewAction::Edit { edits }, &stamp(), &[]).unwrap()
    }

    #[test]
    fn act_keeps_edits_as_a_delta_and_remembers_the_base() {
        let sample = dataset::sample();
        let task = &sample.tasks[0];
        let mut store = CurationStore::default();
        let mut e = TaskEdits::default();
        e.set(task, "skeleton", format!("{}\n# cleaned\n", task.skeleton))
            .unwrap();
        e.set(task, "class_description", task.description.clone())
            .unwrap();
        let effects = edit(&mut store, task, e);
        assert_eq!(effects, [Effect::Persist, Effect::Revalidate]);
        let record = &store.tasks[&task.id];
        assert_eq!(
            record.review.edits.fields().len(),
            1,
            "the unchanged field is dropped"
        );
        assert_eq!(record.base_digest, Some(gates::task_digest(task)));
        assert!(edited_task(&store, task).skeleton.ends_with("# cleaned\n"));
        // Undoing the edit empties the delta and forgets the base.
        let undo = ReviewAction::Edit {
            edits: TaskEdits::default(),
        };
        act(&mut store, task, undo, &stamp(), &[]).unwrap();
        assert_eq!(store.tasks[&task.id].base_digest, None);
    }

    #[test]
    fn a_recorded_validation_opens_the_gate_until_the_next_edit() {
        use review::Validation;
        let sample = dataset::sample();
        let task = &sample.tasks[0];
        let mut store = CurationStore::default();
        record_validation(&mut store, task, true, None, "now".into());
        assert_eq!(task_gates(&store, task, &[]).validation, Validation::Passed);
        let mut e = TaskEdits::default();
        e.set(task, "skeleton", format!("{}\n", task.skeleton))
            .unwrap();
        edit(&mut store, task, e);
        assert_eq!(task_gates(&store, task, &[]).validation, Validation::Stale);
        let why = "test_report_1 failed".to_string();
        record_validation(&mut store, task, false, Some(why.clone()), "later".into());
        let failed = Validation::Failed(why);
        assert_eq!(task_gates(&store, task, &[]).validation, failed);
    }

    #[test]
    fn a_validation_keeps_counts_coverage_and_finding_keys() {
        use crate::curate::validate::{Count, CoverageOut, Finding, Part, Reference, Severity};
        let sample = dataset::sample();
        let task = &sample.tasks[0];
        let finding = |code: &'static str, method: Option<&str>| Finding {
            task_id: task.id.clone(),
            code,
            severity: Severity::Warning,
            method: method.map(String::from),
            part: Part::Tests,
            line: None,
            message: String::new(),
            fix: None,
        };
        let v = TaskValidation {
            task_id: task.id.clone(),
            reference: Reference {
                private: Count {
                    passed: 3,
                    total: 4,
                },
                public: Count {
                    passed: 2,
                    total: 2,
                },
            },
            runs_agree: true,
            findings: vec![
                finding("T9", Some("pop")),
                finding("I2", None),
                finding("T9", Some("pop")),
            ],
            coverage: CoverageOut {
                class: Some(87.5),
                branch: Some(75.0),
                methods: [("pop".to_string(), Some(100.0))].into(),
                private_methods: Default::default(),
            },
            no_public_tests: Vec::new(),
            notes: vec!["tracing unavailable".into()],
            suite_time_s: 0.0,
        };
        let record = validation_record(&v, "now".into());
        assert!(!record.passed);
        assert_eq!(
            record.summary.as_deref(),
            Some("private 3/4, public 2/2 passed in both runs; runs agree (I2)")
        );
        assert_eq!(
            record.private,
            Some(TestCount {
                passed: 3,
                total: 4
            })
        );
        assert_eq!(record.findings, ["I2", "T9:pop"]);
        assert_eq!(record.class_coverage, Some(87.5));
        let mut store = CurationStore::default();
        record_validated(&mut store, task, record.clone());
        let kept = store.tasks[&task.id].validation.clone().unwrap();
        assert_eq!(kept.task_digest, gates::task_digest(task));
        assert_eq!(kept.method_coverage, record.method_coverage);
    }

    #[test]
    fn approval_without_validation_is_refused_and_the_store_untouched() {
        let sample = dataset::sample();
        let task = &sample.tasks[0];
        let mut store = CurationStore::default();
        let approve = ReviewAction::Approve { comment: None };
        let err = act(&mut store, task, approve.clone(), &stamp(), &[]).unwrap_err();
        assert!(err.to_string().contains("classlab validate"), "{err}");
        assert!(store.tasks.is_empty());
        let blocking = review::blocking(&TaskReview::default(), &task_gates(&store, task, &[]));
        for f in blocking {
            let o = ReviewAction::Override {
                gate: f.gate,
                reason: "checked by hand".into(),
            };
            act(&mut store, task, o, &stamp(), &[]).unwrap();
        }
        act(&mut store, task, approve, &stamp(), &[]).unwrap();
        assert_eq!(store.tasks[&task.id].review.status, Status::Approved);
    }
}
