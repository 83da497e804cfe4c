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
pub mod store;
pub mod targets;

pub use edits::TaskEdits;
pub use review::{Effect, Gate, Gates, Refusal, ReviewAction, Stamp, Status, TaskReview};
pub use store::{CurationStore, TaskRecord, ValidationRecord};

use crate::model::Task;

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

/// The gates of a task as it now stands in the store.
pub fn task_gates(store: &CurationStore, original: &Task) -> Gates {
    gates::gates(&edited_task(store, original), store.tasks.get(&original.id))
}

/// Keep a validation outcome for `original` as it now stands (with its edits): what
/// `classlab validate` calls, under the store's lock, so the validation gate can pass. An
/// edit later makes the record stale (it names the digest of the task it validated).
pub fn record_validation(
    store: &mut CurationStore,
    original: &Task,
    passed: bool,
    summary: Option<String>,
    when: String,
) {
    let task_digest = gates::task_digest(&edited_task(store, original));
    let record = store.tasks.entry(original.id.clone()).or_default();
    record.validation = Some(ValidationRecord {
        when,
        task_digest,
        passed,
        summary,
    });
}

/// Take `action` on `original`'s review in `store` (in memory): compute the gates, run the
/// machine, keep the new state. The caller executes the effects (persisting the store).
pub fn act(
    store: &mut CurationStore,
    original: &Task,
    action: ReviewAction,
    stamp: &Stamp,
) -> Result<Vec<Effect>, Refusal> {
    // Edits are kept as a delta against the dataset: an edit undone is no edit.
    let action = match action {
        ReviewAction::Edit { edits } => ReviewAction::Edit {
            edits: edits.pruned(original),
        },
        other => other,
    };
    let gates = task_gates(store, original);
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
        let effects = act(&mut store, task, ReviewAction::Edit { edits: e }, &stamp()).unwrap();
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
        act(&mut store, task, undo, &stamp()).unwrap();
        assert_eq!(store.tasks[&task.id].base_digest, None);
    }

    #[test]
    fn a_recorded_validation_opens_the_gate_until_the_next_edit() {
        use review::Validation;
        let sample = dataset::sample();
        let task = &sample.tasks[0];
        let mut store = CurationStore::default();
        record_validation(&mut store, task, true, None, "now".into());
        assert_eq!(task_gates(&store, task).validation, Validation::Passed);
        let mut e = TaskEdits::default();
        e.set(task, "skeleton", format!("{}\n", task.skeleton))
            .unwrap();
        act(&mut store, task, ReviewAction::Edit { edits: e }, &stamp()).unwrap();
        assert_eq!(task_gates(&store, task).validation, Validation::Stale);
        let why = "test_report_1 failed".to_string();
        record_validation(&mut store, task, false, Some(why.clone()), "later".into());
        let failed = Validation::Failed(why);
        assert_eq!(task_gates(&store, task).validation, failed);
    }

    #[test]
    fn approval_without_validation_is_refused_and_the_store_untouched() {
        let sample = dataset::sample();
        let task = &sample.tasks[0];
        let mut store = CurationStore::default();
        let approve = ReviewAction::Approve { comment: None };
        let err = act(&mut store, task, approve.clone(), &stamp()).unwrap_err();
        assert!(err.to_string().contains("classlab validate"), "{err}");
        assert!(store.tasks.is_empty());
        let blocking = review::blocking(&TaskReview::default(), &task_gates(&store, task));
        for f in blocking {
            let o = ReviewAction::Override {
                gate: f.gate,
                reason: "checked by hand".into(),
            };
            act(&mut store, task, o, &stamp()).unwrap();
        }
        act(&mut store, task, approve, &stamp()).unwrap();
        assert_eq!(store.tasks[&task.id].review.status, Status::Approved);
    }
}
