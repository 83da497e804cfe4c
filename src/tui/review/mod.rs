//! Helpers of the review queue that touch the outside world (the `$EDITOR` round trip, the
//! store, the sandbox).

pub mod editor;
pub mod persist;
pub mod validate;

use crate::analysis::lint::Finding;
use crate::curate::CurationStore;

/// What the load job reads: the store and every dataset task's findings (same order).
#[derive(Debug, Clone, Default)]
pub struct ReviewData {
    pub store: CurationStore,
    pub findings: Vec<Vec<Finding>>,
    /// Why the store could not be read (the queue then starts from an empty store).
    pub error: Option<String>,
}

/// A decision taken on every task of the filtered queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bulk {
    Approve,
    Reject,
    NeedsWork,
    /// Validate every task of the filtered queue in the background, a few at a time.
    Validate,
}
