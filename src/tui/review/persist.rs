//! The review queue's effects on the store, run by `jobs` off the UI thread (and by tests).

use std::path::Path;

use super::ReviewData;
use crate::curate::{self, CurationStore, ReviewAction};

/// The effects' side, run by `jobs` off the UI thread: read the store and lint every task,
/// with the rigor findings (R1, R2) of the tasks the rigor store at `rigor_store` holds as
/// they are now.
pub fn load(path: &Path, dataset: &crate::dataset::Dataset, rigor_store: &Path) -> ReviewData {
    let (store, mut error) = match curate::store::load(path) {
        Ok(store) => (store, None),
        Err(e) => (CurationStore::default(), Some(e.to_string())),
    };
    let rigor = open_rigor(rigor_store, &mut error);
    let findings = dataset
        .tasks
        .iter()
        .map(|t| {
            let edited = curate::edited_task(&store, t);
            let mut found = crate::analysis::lint::lint_task(&edited);
            found.extend(rigor.findings(&edited));
            found
        })
        .collect();
    ReviewData {
        store,
        findings,
        error,
    }
}

/// The rigor store's findings; an unreadable store is said (once) and gives none.
fn open_rigor(path: &Path, error: &mut Option<String>) -> curate::rigor_gates::StoredRigor {
    curate::rigor_gates::StoredRigor::open(path).unwrap_or_else(|e| {
        error.get_or_insert_with(|| format!("rigor store: {e}"));
        curate::rigor_gates::StoredRigor::none()
    })
}

/// Apply `ops` again on the store as it is on disk, under its lock, and write it: another
/// classlab's decisions in between are kept. The gates count the rigor findings of the rigor
/// store at `rigor_store`.
pub fn save(
    path: &Path,
    dataset: &crate::dataset::Dataset,
    ops: &[(String, ReviewAction)],
    stamp: &curate::Stamp,
    rigor_store: &Path,
) -> Result<CurationStore, String> {
    let rigor = curate::rigor_gates::StoredRigor::open(rigor_store)
        .map_err(|e| format!("rigor store: {e}"))?;
    let mut locked = curate::store::lock(path).map_err(|e| e.to_string())?;
    let (mut refused, index) = (Vec::new(), crate::model::TaskIndex::of(&dataset.tasks));
    for (id, action) in ops {
        let Some(task) = index.get(&dataset.tasks, id) else {
            refused.push(format!("{id}: not in the dataset"));
            continue;
        };
        let found = rigor.findings(&curate::edited_task(&locked.store, task));
        if let Err(e) = curate::act(&mut locked.store, task, action.clone(), stamp, &found) {
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
