//! The review queue's state: the store's decisions, the filters, what is selected, inputs
//! and questions, validations under way.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::analysis::lint::{Part, Severity};
use crate::curate::Status;
use crate::curate::review::Validation;
pub use crate::tui::review::{Bulk, ReviewData};

/// What the small text input is asking for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ask {
    /// The reject reason (for the selected task, or for all filtered when bulk).
    Reject {
        bulk: bool,
    },
    Note,
    /// Why the failing gates may be let pass.
    Override,
    /// A rule code to filter by (empty: any).
    Rule,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    pub ask: Ask,
    pub text: String,
}

#[derive(Debug, Clone, Default)]
pub struct ReviewUi {
    /// Where the decisions live (`classlab tui` passes the store the headless commands use;
    /// `None`: see [`Self::path`]).
    pub store_path: Option<PathBuf>,
    /// The default store's path once resolved: it hashes the whole dataset, which must not
    /// happen again on every decision written (and the store stays the one opened).
    pub resolved_path: std::cell::OnceCell<PathBuf>,
    pub data: Option<ReviewData>,
    pub req: u64,
    pub status_filter: Option<Status>,
    pub severity_filter: Option<Severity>,
    pub rule_filter: String,
    /// Dataset indices shown, in order.
    pub visible: Vec<usize>,
    pub selected: usize,
    pub offset: usize,
    /// What the code pane shows (Tab): 0 skeleton, 1 solution, 2 tests, then of the selected
    /// method 3 its docstring, 4 its test class, 5 its public tests.
    pub part: usize,
    pub input: Option<Input>,
    /// A bulk decision waiting for a yes.
    pub confirm: Option<Bulk>,
    /// A save is under way.
    pub saving: bool,
    /// Tasks whose edit the next save writes: lint and validate them again once it is.
    pub revalidate: Vec<String>,
    /// Show the edited part as a diff against the dataset's text.
    pub diff: bool,
    /// The selected target method (index into the task's methods): its coverage is shown.
    pub method: usize,
    /// Tasks being validated in the background: id → the newest request's number.
    pub validating: BTreeMap<String, u64>,
    /// The last validation request's number.
    pub validate_req: u64,
    /// Tasks waiting for their background validation (`V`): started as others end, at most
    /// [`super::validate::AT_ONCE`] at a time.
    pub validate_queue: std::collections::VecDeque<String>,
    /// The checklist of private tests to promote to public tests.
    pub promote: Option<Promote>,
    /// What validation says about each dataset task as it now stands (refreshed with the
    /// queue).
    pub validation: Vec<Validation>,
}

/// The lint part of each task-level part (findings are marked in these).
pub const PARTS: [Part; 3] = [Part::Skeleton, Part::Solution, Part::Tests];
/// Parts Tab cycles through: three task-level, three of the selected method.
pub const KINDS: usize = 6;

/// The checklist of a method's private tests to promote to public tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Promote {
    pub method: String,
    /// Test method names, in source order.
    pub tests: Vec<String>,
    pub chosen: Vec<bool>,
    pub cursor: usize,
}
