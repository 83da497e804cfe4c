//! The review queue's effects on the store, run by `jobs` off the UI thread (and by tests).

use std::path::Path;

use super::ReviewData;
use crate::curate::{self, CurationStore, ReviewAction};

/// The effects' side, run by `jobs` off the UI thread: read the store and lint every task.
pub fn load(path: &Path, dataset: &crate::dataset::Dataset) -> ReviewData {
    let (store, error) = match curate::store::load(path) {
        Ok(store) => (store, None),
        Err(e) => (CurationStore::default(), Some(e.to_string())),
    };
    // The rigor gates (R1, R2) of the tasks `classlab rigor` has measured as they are now.
    let rigor_path = crate::rigor::store::default_path();
    let rigor = rigor_path
        .exists()
        .then(|| crate::rigor::Store::open(&rigor_path).ok())
        .flatten();
    let gates = crate::config::current().rigor;
    let findings = dataset
        .tasks
        .iter()
        .map(|t| {
            let edited = curate::edited_task(&store, t);
            let mut found = crate::analysis::lint::lint_task(&edited);
            if let Some(r) = rigor.as_ref().and_then(|s| {
                let digest =
                    crate::rigor::plan::subject_digest(&crate::rigor::Subject::of_task(&edited));
                s.latest(&edited.id, &digest).ok().flatten()
            }) {
                found.extend(curate::rigor_gates::findings(&edited, &r, &gates));
            }
            found
        })
        .collect();
    ReviewData {
        store,
        findings,
        error,
    }
}

/// Apply `ops` again on the store as it is on disk, under its lock, and write it: another
/// classlab's decisions in between are kept.
pub fn save(
    path: &Path,
    dataset: &crate::dataset::Dataset,
    ops: &[(String, ReviewAction)],
    stamp: &curate::Stamp,
) -> Result<CurationStore, String> {
    let mut locked = curate::store::lock(path).map_err(|e| e.to_string())?;
    let (mut refused, index) = (Vec::new(), crate::model::TaskIndex::of(&dataset.tasks));
    for (id, action) in ops {
        let Some(task) = index.get(&dataset.tasks, id) else {
            refused.push(format!("{id}: not in the dataset"));
            continue;
        };
        if let Err(e) = curate::act(&mut locked.store, task, action.clone(), stamp) {
            refused.push(format!("{id}: {e}"));
        }
    }
    locked.save().map_err(|e| e.to_string())?;
    if refused.is_empty() {
        Ok(locked.store.clone())
    } else {
        Err(refused.join(" · "))
    }
}
