//! Export: the approved tasks with their edits applied, as a classlab dataset (with public
//! tests and provenance) or in exactly ClassEval's shape, plus what the changelog needs.

use serde_json::{Map, Value, json};

use super::gates::{FindingSummary, findings, task_digest};
use super::review::{Gate, Status};
use super::store::{CurationStore, TaskRecord};
use crate::dataset::{Dataset, FORMAT_TAG, FORMAT_VERSION};
use crate::model::{Task, TestLayout};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// Our format: ClassEval's fields plus `public_tests` per method and `provenance`.
    Classlab,
    /// ClassEval's own shape: a list of tasks with its field names and nothing more.
    ClassEval,
}

/// One exported task and what happened to it.
#[derive(Debug, Clone)]
pub struct ExportedTask {
    pub original: Task,
    pub edited: Task,
    pub record: TaskRecord,
    /// Who approved it, and when (RFC 3339).
    pub reviewer: String,
    pub reviewed: String,
    /// Findings of the original that the edited task no longer has.
    pub resolved: Vec<FindingSummary>,
}

#[derive(Debug, Clone)]
pub struct Export {
    /// The file's content.
    pub value: Value,
    pub tasks: Vec<ExportedTask>,
    /// Approved tasks left out, and why.
    pub skipped: Vec<(String, String)>,
    /// Things to tell the user that did not stop the export.
    pub warnings: Vec<String>,
}

/// Build the export of every approved task of `dataset`, in dataset order.
pub fn export(dataset: &Dataset, store: &CurationStore, format: ExportFormat, now: &str) -> Export {
    let mut tasks = Vec::new();
    let mut skipped = Vec::new();
    let mut warnings = Vec::new();
    let index = crate::model::TaskIndex::of(&dataset.tasks);
    for (id, record) in &store.tasks {
        if record.review.status == Status::Approved && !index.contains(id) {
            skipped.push((id.clone(), format!("not in the dataset {}", dataset.origin)));
        }
    }
    for original in &dataset.tasks {
        let Some(record) = store.tasks.get(&original.id) else {
            continue;
        };
        if record.review.status != Status::Approved {
            continue;
        }
        if original.test_layout != TestLayout::Concatenated {
            // Both formats run the tests concatenated with the code; a separate test file
            // (RealClassEval) has no place in them.
            skipped.push((
                original.id.clone(),
                "its tests are a separate module, which neither format can express".into(),
            ));
            continue;
        }
        if let Some(base) = &record.base_digest
            && *base != task_digest(original)
        {
            warnings.push(format!(
                "{}: the dataset's task changed since it was edited; the edits were applied to the new version",
                original.id
            ));
        }
        let edited = record.review.edits.apply(original);
        let apart = descriptions_apart(original, &edited);
        if !apart.is_empty() {
            warnings.push(format!(
                "{}: after the edits the skeleton no longer holds the method_description of {} \
                 (edit both: `skeleton` and `methods.<name>.method_description`)",
                original.id,
                apart.join(", ")
            ));
        }
        let after: Vec<String> = findings(&edited).into_iter().map(|f| f.key).collect();
        let resolved = findings(original)
            .into_iter()
            .filter(|f| !after.contains(&f.key))
            .collect();
        let (reviewer, reviewed) = approval(record);
        tasks.push(ExportedTask {
            original: original.clone(),
            edited,
            record: record.clone(),
            reviewer,
            reviewed,
            resolved,
        });
    }
    let items: Vec<Value> = tasks.iter().map(|t| exported_value(t, format)).collect();
    let value = match format {
        ExportFormat::ClassEval => Value::Array(items),
        ExportFormat::Classlab => json!({
            "format": FORMAT_TAG,
            "version": FORMAT_VERSION,
            "name": format!("{} (curated)", dataset.name),
            "description": format!(
                "{} approved tasks of {}, curated with classlab {}; exported {now}",
                tasks.len(),
                dataset.origin,
                env!("CARGO_PKG_VERSION")
            ),
            "tasks": items,
        }),
    };
    Export {
        value,
        tasks,
        skipped,
        warnings,
    }
}

/// Methods whose `method_description` (signature and docstring, a copy of the skeleton's) the
/// edited skeleton no longer contains, though the original's did: an edit changed one copy
/// and not the other, and the exported task would tell the model two things.
pub fn descriptions_apart(original: &Task, edited: &Task) -> Vec<String> {
    let holds = |task: &Task, description: &str| {
        let d = description.trim();
        d.is_empty() || task.skeleton.contains(d)
    };
    edited
        .methods
        .iter()
        .filter(|m| {
            original
                .method(&m.name)
                .is_some_and(|o| holds(original, &o.description))
                && !holds(edited, &m.description)
        })
        .map(|m| m.name.clone())
        .collect()
}

/// The last approval in the history: (who, when).
fn approval(record: &TaskRecord) -> (String, String) {
    record
        .review
        .history
        .iter()
        .rev()
        .find(|h| h.what.starts_with("approved"))
        .map(|h| (h.who.clone(), h.when.clone()))
        .unwrap_or_default()
}

fn exported_value(t: &ExportedTask, format: ExportFormat) -> Value {
    let mut value = task_value(&t.edited, format);
    if format == ExportFormat::Classlab
        && let Value::Object(obj) = &mut value
    {
        obj.insert("provenance".into(), provenance(t));
    }
    value
}

/// The provenance keys one curation writes (besides the origin); when a curated export is
/// curated again, the earlier round's move to [`EARLIER_CURATIONS`].
const CURATION_KEYS: [&str; 6] = [
    "reviewer",
    "reviewed",
    "findings_resolved",
    "edited_fields",
    "gates_overridden",
    FINDINGS_EXPLAINED,
];
/// Provenance key: error findings a reviewer explained (finding key → reason), which the
/// findings gate then counts as explained wherever the task is curated next.
pub const FINDINGS_EXPLAINED: &str = "findings_explained";
/// Provenance key: the curation rounds before this one, oldest first.
pub const EARLIER_CURATIONS: &str = "earlier_curations";

/// Provenance of an exported task: where it came from and what curation did to it. A task
/// that already traces back to an original (it was exported by an earlier curation) keeps
/// that original's id and digest, and the earlier round's record.
fn provenance(t: &ExportedTask) -> Value {
    let p = &t.original.provenance;
    let mut out = Map::new();
    out.insert("source".into(), json!(p.source));
    let original_id = p
        .original_id
        .clone()
        .unwrap_or_else(|| t.original.id.clone());
    out.insert("original_id".into(), json!(original_id));
    let original_digest = p
        .original_digest
        .clone()
        .unwrap_or_else(|| task_digest(&t.original));
    out.insert("original_digest".into(), json!(original_digest));
    let mut extra = p.extra.clone();
    let earlier: Map<String, Value> = CURATION_KEYS
        .iter()
        .filter_map(|k| extra.remove(*k).map(|v| (k.to_string(), v)))
        .collect();
    if !earlier.is_empty() {
        let mut rounds = match extra.remove(EARLIER_CURATIONS) {
            Some(Value::Array(rounds)) => rounds,
            Some(other) => vec![other],
            None => Vec::new(),
        };
        rounds.push(Value::Object(earlier));
        extra.insert(EARLIER_CURATIONS.into(), Value::Array(rounds));
    }
    for (k, v) in extra {
        out.insert(k, v);
    }
    out.insert("reviewer".into(), json!(t.reviewer));
    out.insert("reviewed".into(), json!(t.reviewed));
    let resolved: Vec<&str> = t.resolved.iter().map(|f| f.key.as_str()).collect();
    out.insert("findings_resolved".into(), json!(resolved));
    let edited: Vec<String> = t
        .record
        .review
        .edits
        .fields()
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    out.insert("edited_fields".into(), json!(edited));
    let overrides: Map<String, Value> = t
        .record
        .review
        .overrides
        .iter()
        .map(|(g, o)| (g.to_string(), json!(o.reason)))
        .collect();
    if !overrides.is_empty() {
        out.insert("gates_overridden".into(), Value::Object(overrides));
    }
    if let Some(o) = t.record.review.overrides.get(&Gate::Findings) {
        let explained: Map<String, Value> = o
            .covers
            .iter()
            .map(|key| (key.clone(), json!(o.reason)))
            .collect();
        if !explained.is_empty() {
            out.insert(FINDINGS_EXPLAINED.into(), Value::Object(explained));
        }
    }
    Value::Object(out)
}

/// A task as a JSON object with ClassEval's field names, in ClassEval's order; the classlab
/// format adds `public_tests` per method (provenance is added by the caller).
pub fn task_value(task: &Task, format: ExportFormat) -> Value {
    let methods: Vec<Value> = task
        .methods
        .iter()
        .map(|m| {
            let mut obj = Map::new();
            obj.insert("method_name".into(), json!(m.name));
            obj.insert("method_description".into(), json!(m.description));
            obj.insert("test_class".into(), json!(m.test_class));
            obj.insert("test_code".into(), json!(m.test_code));
            obj.insert("solution_code".into(), json!(m.solution));
            if let Some(d) = &m.annotated {
                obj.insert(
                    "dependencies".into(),
                    json!({
                        "Standalone": d.standalone,
                        "lib_dependencies": d.lib,
                        "field_dependencies": d.fields,
                        "method_dependencies": d.methods,
                    }),
                );
            }
            if format == ExportFormat::Classlab {
                obj.insert("public_tests".into(), json!(m.public_tests));
            }
            Value::Object(obj)
        })
        .collect();
    let mut obj = Map::new();
    obj.insert("task_id".into(), json!(task.id));
    obj.insert("skeleton".into(), json!(task.skeleton));
    obj.insert("test".into(), json!(task.test_module));
    obj.insert("solution_code".into(), json!(task.solution));
    obj.insert("import_statement".into(), json!(task.imports));
    obj.insert("class_description".into(), json!(task.description));
    obj.insert("class_name".into(), json!(task.class_name));
    obj.insert("test_classes".into(), json!(task.test_classes));
    obj.insert("class_constructor".into(), json!(task.constructor));
    obj.insert("fields".into(), json!(task.fields));
    obj.insert("methods_info".into(), Value::Array(methods));
    Value::Object(obj)
}

#[cfg(test)]
mod tests;
