//! The one way the TUI's state changes: every key, mouse event, resize or command becomes an
//! [`Action`] given to `App::update`, and so does every result of background work (a loaded
//! session, an event of a live evaluation).

use std::path::PathBuf;

use crate::session::Event;

use super::evals::{EvalSession, SessionRow};

pub use super::delivered::Delivered;
pub use super::list::SortColumn;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Quit,
    /// Close the overlay, leave text input, or go back one screen (quits nothing).
    Back,
    /// `q`: back from a task or summary view, quit from the task list.
    Close,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Left,
    Right,
    /// Horizontal scroll back to column 0.
    LineStart,
    Open,
    NextTab,
    PrevTab,
    /// Go to tab 1–6.
    GoTab(u8),
    NextTask,
    PrevTask,
    StartFilter,
    SortNext,
    SortReverse,
    SortBy(SortColumn),
    ShowSummary,
    ToggleHelp,
    OpenPalette,
    ShowProblems,
    CycleTheme,
    SetTheme(String),
    /// Text input (filter, palette).
    Input(char),
    /// Several characters at once: a bracketed paste, or typed characters read in one batch
    /// (see `key::Typing`). A one-line input takes the first line, up to `key::INPUT_CAP`.
    InsertText(String),
    Backspace,
    ClearInput,
    /// Enter in a text input.
    Submit,
    /// Mouse wheel: lines, negative is up.
    Scroll(i16),
    /// Left click at a terminal cell.
    Click {
        column: u16,
        row: u16,
    },
    Resize(u16, u16),

    // Evaluations.
    /// The sessions screen (and a fresh listing of the sessions directory).
    ShowSessions,
    /// Read the sessions directory again.
    Reload,
    /// The dialog that starts an evaluation.
    NewEval,
    /// Mark or unmark the selected session for comparison.
    ToggleMark,
    /// Compare the marked sessions.
    Compare,
    /// Delete the selected session (asks first).
    DeleteSession,
    /// Stop the live evaluation (asks first).
    CancelRun,
    /// Show every task, or only those not perfect.
    ToggleFailingOnly,
    /// Complete the path in a text input with the selected candidate.
    Complete,

    // Generation runs.
    /// The dialog that starts a generation run.
    NewRun,
    /// Show or hide the run's metrics and fingerprint panel.
    TogglePanel,
    /// The step-through view: the next or previous round of the method.
    NextRound,
    PrevRound,
    /// The step-through view: the next or previous method of the task.
    NextMethod,
    PrevMethod,
    /// Fold or unfold the prompt.
    ToggleFold,
    /// The Rigor tab: the next or previous surviving mutant.
    NextMutant,
    PrevMutant,

    // The review queue (curation).
    ShowReview,
    /// The task × session grid of the compared sessions.
    ShowGrid,
    ReviewApprove,
    ReviewReject,
    ReviewNeedsWork,
    ReviewNote,
    ReviewOverride,
    /// The same on every task of the filtered queue (asks first).
    ReviewBulk(super::review::Bulk),
    CycleStatusFilter,
    CycleSeverityFilter,
    /// Edit the selected part of the task in `$EDITOR`.
    ReviewEdit,
    ReviewDiff,
    /// Validate the selected task in the sandbox, in the background.
    ReviewValidate,
    /// Draft public tests of the selected method from its doctests, then edit them.
    ReviewDraftPublic,
    /// Choose private tests of the selected method to promote to public tests.
    ReviewPromote,
    /// The editor came back (the edited text, or why not).
    ReviewEdited {
        task_id: String,
        target: crate::curate::targets::Target,
        result: Result<String, String>,
    },

    // Results of background work (never bound to keys).
    /// The sessions directory was read; `req` is the request this answers.
    SessionsLoaded {
        req: u64,
        root: PathBuf,
        rows: Delivered<Vec<SessionRow>>,
    },
    /// A session was read for the evaluation screen.
    SessionOpened {
        req: u64,
        session: Delivered<EvalSession>,
    },
    /// Sessions were read for a comparison.
    ComparisonLoaded {
        req: u64,
        sessions: Delivered<Vec<EvalSession>>,
    },
    /// A session was deleted (`error`: why it was not).
    SessionDeleted {
        dir: PathBuf,
        error: Option<String>,
    },
    /// A request failed (the message says what and why).
    LoadFailed {
        req: u64,
        message: String,
    },
    /// Candidate predictions files for the new-evaluation dialog.
    PredictionFiles(Vec<String>),
    /// An event of the live evaluation or generation run, as written to its session.
    EvalEvent(Delivered<Event>),
    /// Something the live evaluation wants known (sandbox warnings, input problems).
    EvalNotice(String),
    /// The live evaluation ended: its session directory, or why it could not run.
    EvalEnded {
        dir: Option<PathBuf>,
        error: Option<String>,
    },
    /// Choices for the new-run dialog: endpoint profiles of the config, and generation
    /// sessions replay can answer from (label, directory).
    RunChoices {
        endpoints: Vec<String>,
        replays: Vec<(String, PathBuf)>,
    },
    /// Text a model is streaming for a call of the live run (not an event: the response
    /// event records the whole text).
    RunDelta {
        task_id: String,
        sample: u32,
        call: u32,
        text: String,
    },
    /// The curation store and every task's lint findings, read off the UI thread.
    ReviewLoaded {
        req: u64,
        loaded: Delivered<super::review::ReviewData>,
    },
    /// The store as written after decisions (or why it could not be).
    ReviewSaved {
        store: Option<Delivered<crate::curate::CurationStore>>,
        error: Option<String>,
    },
    /// A task's background validation ended (recorded in the store), or why it could not run;
    /// `req` is the request this answers.
    ReviewValidated {
        req: u64,
        task_id: String,
        result: Result<super::review::validate::Validated, String>,
    },
    /// News of the background rigor job (a task's result, a mutant decided, the end).
    Rigor(Delivered<super::rigor::RigorNews>),
    /// The task list filtered and sorted off the UI thread; `req` is the request this answers
    /// (only the newest is applied).
    TasksFiltered {
        req: u64,
        found: Delivered<super::list::Found>,
    },
}

/// Actions a key can be bound to, by the name the config file uses.
const NAMED: &[(&str, Action, &str)] = &[
    ("quit", Action::Quit, "quit classlab"),
    ("back", Action::Back, "back / close"),
    ("close", Action::Close, "back (quit from the task list)"),
    ("up", Action::Up, "move up"),
    ("down", Action::Down, "move down"),
    ("page-up", Action::PageUp, "page up"),
    ("page-down", Action::PageDown, "page down"),
    ("top", Action::Top, "go to the top"),
    ("bottom", Action::Bottom, "go to the bottom"),
    ("left", Action::Left, "scroll left"),
    ("right", Action::Right, "scroll right"),
    ("line-start", Action::LineStart, "scroll to column 1"),
    ("open", Action::Open, "open"),
    ("next-tab", Action::NextTab, "next tab"),
    ("prev-tab", Action::PrevTab, "previous tab"),
    ("tab-1", Action::GoTab(1), "Skeleton tab"),
    ("tab-2", Action::GoTab(2), "Solution tab"),
    ("tab-3", Action::GoTab(3), "Tests tab"),
    ("tab-4", Action::GoTab(4), "Methods tab"),
    ("tab-5", Action::GoTab(5), "Dependencies tab"),
    ("tab-6", Action::GoTab(6), "Rigor tab"),
    ("next-task", Action::NextTask, "next task"),
    ("prev-task", Action::PrevTask, "previous task"),
    ("filter", Action::StartFilter, "fuzzy filter"),
    ("sort", Action::SortNext, "sort by the next column"),
    ("sort-reverse", Action::SortReverse, "reverse the sort"),
    ("sort-id", Action::SortBy(SortColumn::Id), "sort by id"),
    (
        "sort-class",
        Action::SortBy(SortColumn::Class),
        "sort by class",
    ),
    (
        "sort-methods",
        Action::SortBy(SortColumn::Methods),
        "sort by methods",
    ),
    (
        "sort-deps",
        Action::SortBy(SortColumn::Deps),
        "sort by deps",
    ),
    (
        "sort-tests",
        Action::SortBy(SortColumn::Tests),
        "sort by tests",
    ),
    ("summary", Action::ShowSummary, "dataset dependency summary"),
    ("help", Action::ToggleHelp, "this help"),
    ("palette", Action::OpenPalette, "command palette"),
    ("problems", Action::ShowProblems, "list load problems"),
    ("cycle-theme", Action::CycleTheme, "next theme"),
    ("backspace", Action::Backspace, "delete a character"),
    ("clear-input", Action::ClearInput, "clear the input"),
    ("submit", Action::Submit, "accept"),
    ("sessions", Action::ShowSessions, "evaluation sessions"),
    ("reload", Action::Reload, "read the sessions again"),
    ("new-eval", Action::NewEval, "start an evaluation"),
    ("mark", Action::ToggleMark, "mark for comparison"),
    ("compare", Action::Compare, "compare the marked sessions"),
    (
        "delete-session",
        Action::DeleteSession,
        "delete the selected session (asks first)",
    ),
    ("cancel-run", Action::CancelRun, "stop the live evaluation"),
    (
        "failing-only",
        Action::ToggleFailingOnly,
        "all tasks / only imperfect ones",
    ),
    ("complete", Action::Complete, "complete the path"),
    ("new-run", Action::NewRun, "start a generation run"),
    (
        "toggle-panel",
        Action::TogglePanel,
        "show / hide the metrics and fingerprint",
    ),
    ("next-round", Action::NextRound, "next round"),
    ("prev-round", Action::PrevRound, "previous round"),
    ("next-method", Action::NextMethod, "next method"),
    ("next-mutant", Action::NextMutant, "next surviving mutant"),
    (
        "prev-mutant",
        Action::PrevMutant,
        "previous surviving mutant",
    ),
    ("prev-method", Action::PrevMethod, "previous method"),
    (
        "toggle-fold",
        Action::ToggleFold,
        "fold / unfold the prompt",
    ),
    ("review", Action::ShowReview, "review queue (curation)"),
    (
        "grid",
        Action::ShowGrid,
        "the task × session grid of the compared sessions",
    ),
    ("approve", Action::ReviewApprove, "approve the task"),
    (
        "reject",
        Action::ReviewReject,
        "reject the task (asks a reason)",
    ),
    (
        "needs-work",
        Action::ReviewNeedsWork,
        "mark the task as needing work",
    ),
    ("note", Action::ReviewNote, "add a note to the task"),
    (
        "override",
        Action::ReviewOverride,
        "override the failing gates (asks a reason)",
    ),
    (
        "approve-all",
        Action::ReviewBulk(super::review::Bulk::Approve),
        "approve every task of the filtered queue (asks first)",
    ),
    (
        "reject-all",
        Action::ReviewBulk(super::review::Bulk::Reject),
        "reject every task of the filtered queue (asks first)",
    ),
    (
        "needs-work-all",
        Action::ReviewBulk(super::review::Bulk::NeedsWork),
        "mark every task of the filtered queue as needing work (asks first)",
    ),
    (
        "validate-all",
        Action::ReviewBulk(super::review::Bulk::Validate),
        "validate every task of the filtered queue in the background (asks first)",
    ),
    ("edit", Action::ReviewEdit, "edit the shown part in $EDITOR"),
    (
        "diff",
        Action::ReviewDiff,
        "show the shown part's diff against the original",
    ),
    (
        "draft-public-tests",
        Action::ReviewDraftPublic,
        "draft the method's public tests from its doctests, then edit them",
    ),
    (
        "promote-tests",
        Action::ReviewPromote,
        "choose private tests of the method to promote to public tests",
    ),
    (
        "validate",
        Action::ReviewValidate,
        "validate the task in the sandbox (in the background)",
    ),
    (
        "status-filter",
        Action::CycleStatusFilter,
        "filter by the next status",
    ),
    (
        "severity-filter",
        Action::CycleSeverityFilter,
        "filter by the next severity",
    ),
];

impl Action {
    /// A result of background work: it changes what is shown, never what the user was doing
    /// (the status line stays).
    pub fn is_background(&self) -> bool {
        matches!(
            self,
            Action::SessionsLoaded { .. }
                | Action::SessionOpened { .. }
                | Action::ComparisonLoaded { .. }
                | Action::SessionDeleted { .. }
                | Action::LoadFailed { .. }
                | Action::PredictionFiles(_)
                | Action::EvalEvent(_)
                | Action::EvalNotice(_)
                | Action::EvalEnded { .. }
                | Action::RunChoices { .. }
                | Action::RunDelta { .. }
                | Action::ReviewLoaded { .. }
                | Action::ReviewSaved { .. }
                | Action::ReviewEdited { .. }
                | Action::ReviewValidated { .. }
                | Action::TasksFiltered { .. }
                | Action::Rigor(_)
        )
    }

    /// The action a config file names, e.g. `"down"`, `"tab-3"`.
    pub fn from_name(name: &str) -> Option<Action> {
        NAMED
            .iter()
            .find(|(n, _, _)| *n == name)
            .map(|(_, a, _)| a.clone())
    }

    /// The config name of a bindable action.
    pub fn name(&self) -> Option<&'static str> {
        NAMED.iter().find(|(_, a, _)| a == self).map(|(n, _, _)| *n)
    }

    /// What the action does, for the help overlay.
    pub fn describe(&self) -> String {
        match self {
            Action::SetTheme(t) => format!("theme {t}"),
            Action::Input(_) | Action::InsertText(_) => "type".into(),
            Action::Scroll(_) => "scroll".into(),
            Action::Click { .. } => "click".into(),
            Action::Resize(..) => "resize".into(),
            a if a.is_background() => "background result".into(),
            other => NAMED
                .iter()
                .find(|(_, a, _)| a == other)
                .map(|(_, _, d)| d.to_string())
                .unwrap_or_default(),
        }
    }

    /// Every name a config file may use.
    pub fn names() -> impl Iterator<Item = &'static str> {
        NAMED.iter().map(|(n, _, _)| *n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in Action::names() {
            let action = Action::from_name(name).unwrap();
            assert_eq!(action.name(), Some(name));
            assert!(!action.describe().is_empty(), "{name}");
        }
        assert_eq!(Action::from_name("fly"), None);
    }

    #[test]
    fn sort_columns_cycle() {
        let mut c = SortColumn::Id;
        for _ in 0..SortColumn::ALL.len() {
            c = c.next();
        }
        assert_eq!(c, SortColumn::Id);
        assert_eq!(SortColumn::from_name("deps"), Some(SortColumn::Deps));
    }
}
