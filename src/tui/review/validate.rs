//! Validating one task of the review queue, run by `jobs` on its own thread (and by tests):
//! the task as edited in the store runs in the sandbox exactly as `classlab validate` runs it
//! (`curate::validate`), and the outcome is recorded under the store's lock through the
//! same function (`curate::record_validations`), so a task edited meanwhile is not recorded.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::curate::validate::{self, ValidateOptions};
use crate::curate::{self, edited_task};
use crate::exec::Executor;
use crate::model::Task;

/// What a validation of one task came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Validated {
    pub passed: bool,
    /// Why it did not pass, in a line.
    pub summary: Option<String>,
    /// False when the task was edited while it ran: the outcome was not recorded.
    pub recorded: bool,
    /// The store as it was right after recording (the queue shows it without reading and
    /// linting the whole dataset again); `None` when it could not be read back.
    pub store: Option<crate::tui::delivered::Delivered<crate::curate::store::CurationStore>>,
}

/// Validate task `original` as edited in the store at `path` through `exec` and record the
/// outcome there. `Err` says why it
/// could not run (no sandbox, unreadable store, stopped by `cancel`).
pub fn validate_task(
    exec: &Executor,
    path: &Path,
    original: &Task,
    cancel: &AtomicBool,
) -> Result<Validated, String> {
    let task_id = original.id.as_str();
    let store = curate::store::load(path).map_err(|e| e.to_string())?;
    let edited = edited_task(&store, original);
    let sandbox = exec.sandbox().map_err(|e| format!("no sandbox: {e}"))?;
    let opts = ValidateOptions::default();
    let results = validate::validate(&[&edited], &sandbox, &opts, cancel, &mut |_| {});
    if cancel.load(Ordering::SeqCst) {
        return Err(format!("the validation of {task_id} was stopped"));
    }
    let Some(v) = results.first() else {
        return Err(format!("the validation of {task_id} gave no result"));
    };
    let stale =
        curate::record_validations(path, &[original], std::slice::from_ref(&edited), &results)
            .map_err(|e| format!("not recorded: {e}"))?;
    let record = curate::validation_record(v, String::new());
    Ok(Validated {
        passed: record.passed,
        summary: record.summary,
        recorded: stale.is_empty(),
        store: curate::store::load(path)
            .ok()
            .map(crate::tui::delivered::Delivered::new),
    })
}
