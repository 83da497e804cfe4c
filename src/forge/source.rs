//! What forge reads: a dataset (only each task's reference and skeleton), or a corpus store.
//! A store's selection (its query FILTER) becomes tasks through `corpus export`'s classlab
//! format — each class as its executable closure (`corpus::closure::module_for`): the module
//! it needs, its skeleton in that module — written to `OUT/source/dataset.json`, so the input
//! of a forge stays on record. A class whose closure is not self-contained (a third-party
//! package, a project-internal import outside it, …) is dropped with the closure's reason; one
//! that no module of its own can hold is left out of the export, and counted.

use std::collections::BTreeMap;
use std::path::Path;

use crate::corpus::export::{ExportFormat, export};
use crate::corpus::filter::Filter;
use crate::corpus::query::Store;
use crate::model::Task;

/// The classes to forge, with those dropped before forging.
pub struct Source {
    pub name: String,
    pub tasks: Vec<Task>,
    /// Task id → (funnel reason, detail) for tasks dropped without forging.
    pub predropped: BTreeMap<String, (String, String)>,
    /// Selected classes no module of their own can hold (not in `tasks`), by reason.
    pub left_out: BTreeMap<String, u64>,
    /// Problems the dataset loader reported.
    pub problems: Vec<crate::dataset::Problem>,
}

/// The funnel reason of a class dropped for its closure: `closure: third-party: numpy`.
pub fn closure_reason(reason: &str) -> String {
    format!("closure: {reason}")
}

/// The selection `filter` (the corpus query language) of the store at `path`.
pub fn from_store(path: &Path, filter: Option<&str>, out: &Path) -> anyhow::Result<Source> {
    let store = Store::open(path)?;
    let filter = Filter::parse(filter.unwrap_or(""))?;
    let dir = out.join("source");
    let summary = export(&store, &filter, None, &dir, ExportFormat::Classlab, true)?;
    let ds = crate::dataset::load(Some(&dir.join(crate::dataset::DATASET_JSON)))?;
    let mut predropped = BTreeMap::new();
    for t in &ds.tasks {
        if t.provenance.extra.get("self_contained") != Some(&serde_json::Value::Bool(false)) {
            continue;
        }
        let reasons: Vec<&str> = t
            .provenance
            .extra
            .get("not_self_contained_because")
            .and_then(|v| v.as_array())
            .map(|a| a.iter().filter_map(|r| r.as_str()).collect())
            .unwrap_or_default();
        let first = reasons.first().copied().unwrap_or("not self-contained");
        predropped.insert(
            t.id.clone(),
            (
                closure_reason(first),
                format!("the closure needs: {}", reasons.join("; ")),
            ),
        );
    }
    Ok(Source {
        name: format!("forged corpus selection of {}", path.display()),
        tasks: ds.tasks,
        predropped,
        left_out: summary.left_out,
        problems: ds.problems,
    })
}
