//! The gates' inputs for one task, computed from the edited task, its validation record and
//! the linter, so the review machine itself stays pure.

use serde::Serialize;

use super::review::{Gates, Validation};
use super::store::TaskRecord;
use crate::analysis::lint::{self, Severity};
use crate::model::Task;

/// Hex SHA-256 of a task's canonical JSON (as `dataset::digest` hashes a whole dataset).
pub fn task_digest(task: &Task) -> String {
    use sha2::{Digest, Sha256};
    let bytes = serde_json::to_vec(task).unwrap_or_default();
    Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// One linter finding as curation keeps it: a key stable across edits (lines move, the rule
/// and the method do not), its severity and message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FindingSummary {
    /// `CODE` or `CODE:method`.
    pub key: String,
    pub severity: String,
    pub message: String,
}

/// The linter's findings on a task, one per key.
pub fn findings(task: &Task) -> Vec<FindingSummary> {
    summaries(lint::lint_task(task))
}

/// Findings already linted, one per key.
fn summaries(findings: Vec<lint::Finding>) -> Vec<FindingSummary> {
    let mut out: Vec<FindingSummary> = Vec::new();
    for f in findings {
        let key = match &f.method {
            Some(m) => format!("{}:{m}", f.code),
            None => f.code.to_string(),
        };
        if out.iter().any(|o| o.key == key) {
            continue;
        }
        out.push(FindingSummary {
            key,
            severity: f.severity.as_str().to_string(),
            message: f.message,
        });
    }
    out
}

/// Keys of the error-severity findings: what the findings gate looks at.
pub fn error_findings(task: &Task) -> Vec<String> {
    error_keys(findings(task))
}

fn error_keys(findings: Vec<FindingSummary>) -> Vec<String> {
    findings
        .into_iter()
        .filter(|f| f.severity == Severity::Error.as_str())
        .map(|f| f.key)
        .collect()
}

/// What validation says about `edited` (the task with its edits), from the stored record.
pub fn validation(edited: &Task, record: Option<&TaskRecord>) -> Validation {
    let Some(v) = record.and_then(|r| r.validation.as_ref()) else {
        return Validation::Unknown;
    };
    if v.task_digest != task_digest(edited) {
        Validation::Stale
    } else if v.passed {
        Validation::Passed
    } else {
        Validation::Failed(
            v.summary
                .clone()
                .unwrap_or_else(|| "see `classlab validate`".into()),
        )
    }
}

/// Target methods without public tests (blank text counts as none).
pub fn methods_without_public_tests(task: &Task) -> Vec<String> {
    task.methods
        .iter()
        .filter(|m| {
            m.public_tests
                .as_deref()
                .is_none_or(|t| t.trim().is_empty())
        })
        .map(|m| m.name.clone())
        .collect()
}

/// Finding keys an earlier curation explained, as its export recorded them in the task's
/// provenance (`findings_explained`, in this round's record or an earlier one's).
pub fn explained_in_provenance(task: &Task) -> Vec<String> {
    use super::export::{EARLIER_CURATIONS, FINDINGS_EXPLAINED};
    let extra = &task.provenance.extra;
    let earlier = match extra.get(EARLIER_CURATIONS) {
        Some(serde_json::Value::Array(rounds)) => rounds.iter().collect(),
        _ => Vec::new(),
    };
    let current = serde_json::Value::Object(extra.clone());
    std::iter::once(&current)
        .chain(earlier)
        .filter_map(|round| round.get(FINDINGS_EXPLAINED)?.as_object())
        .flat_map(|explained| explained.keys().cloned())
        .collect()
}

/// All three gates' inputs for the edited task, with its rigor findings (`R1`, `R2`: see
/// [`super::rigor_gates`]). An error finding an earlier curation explained (see
/// [`explained_in_provenance`]) is not unexplained.
pub fn gates(edited: &Task, record: Option<&TaskRecord>, rigor: &[lint::Finding]) -> Gates {
    let mut findings = lint::lint_task(edited);
    findings.extend(rigor.iter().cloned());
    gates_from(edited, validation(edited, record), findings)
}

/// The gates of the edited task from what is already known of it: its validation state and
/// its lint findings (the review queue keeps both, so drawing it lints nothing).
pub fn gates_from(edited: &Task, validation: Validation, findings: Vec<lint::Finding>) -> Gates {
    let explained = explained_in_provenance(edited);
    Gates {
        validation,
        methods_without_public_tests: methods_without_public_tests(edited),
        error_findings: error_keys(summaries(findings))
            .into_iter()
            .filter(|key| !explained.contains(key))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curate::store::ValidationRecord;
    use crate::dataset;

    fn with_validation(task: &Task, passed: bool) -> TaskRecord {
        TaskRecord {
            validation: Some(ValidationRecord {
                when: "2026-11-21T12:00:00Z".into(),
                task_digest: task_digest(task),
                passed,
                summary: (!passed).then(|| "test_x failed".into()),
                ..ValidationRecord::default()
            }),
            ..TaskRecord::default()
        }
    }

    #[test]
    fn validation_follows_the_record_and_the_edits() {
        let sample = dataset::sample();
        let task = &sample.tasks[0];
        assert_eq!(validation(task, None), Validation::Unknown);
        assert_eq!(
            validation(task, Some(&TaskRecord::default())),
            Validation::Unknown
        );
        assert_eq!(
            validation(task, Some(&with_validation(task, true))),
            Validation::Passed
        );
        assert_eq!(
            validation(task, Some(&with_validation(task, false))),
            Validation::Failed("test_x failed".into())
        );
        let mut edited = task.clone();
        edited.skeleton.push_str("\n# edited\n");
        assert_eq!(
            validation(&edited, Some(&with_validation(task, true))),
            Validation::Stale
        );
    }

    #[test]
    fn public_tests_gate_reads_the_edited_methods() {
        let sample = dataset::sample();
        let mut task = sample.tasks[0].clone();
        assert!(methods_without_public_tests(&task).is_empty());
        task.methods[1].public_tests = Some(" \n".into());
        task.methods[2].public_tests = None;
        let names = [task.methods[1].name.clone(), task.methods[2].name.clone()];
        assert_eq!(methods_without_public_tests(&task), names);
    }

    #[test]
    fn digests_are_stable_and_tell_tasks_apart() {
        let sample = dataset::sample();
        let (a, b) = (&sample.tasks[0], &sample.tasks[1]);
        assert_eq!(task_digest(a), task_digest(&a.clone()));
        assert_ne!(task_digest(a), task_digest(b));
        assert_eq!(task_digest(a).len(), 64);
    }

    #[test]
    fn findings_explained_in_provenance_do_not_block() {
        let sample = dataset::sample();
        let mut task = sample
            .tasks
            .iter()
            .find(|t| t.id == "Sample_5")
            .unwrap()
            .clone();
        let errors = error_findings(&task);
        assert!(!errors.is_empty(), "the planted task has error findings");
        assert_eq!(gates(&task, None, &[]).error_findings, errors);
        let first = errors[0].clone();
        let why = serde_json::json!({ first.clone(): "checked by hand" });
        // In an earlier round's record …
        task.provenance.extra.insert(
            "earlier_curations".into(),
            serde_json::json!([{ "findings_explained": why }]),
        );
        let left: Vec<String> = errors.iter().filter(|k| **k != first).cloned().collect();
        assert_eq!(gates(&task, None, &[]).error_findings, left);
        // … or this round's.
        task.provenance.extra.clear();
        task.provenance
            .extra
            .insert("findings_explained".into(), why);
        assert_eq!(gates(&task, None, &[]).error_findings, left);
    }

    #[test]
    fn finding_keys_are_unique_per_task() {
        for task in &dataset::sample().tasks {
            let f = findings(task);
            let mut keys: Vec<&str> = f.iter().map(|f| f.key.as_str()).collect();
            keys.sort();
            keys.dedup();
            assert_eq!(keys.len(), f.len(), "{}", task.id);
        }
    }
}
