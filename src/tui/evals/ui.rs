//! Where the evaluation screens are: selections, the detail's panes, the comparison, the
//! dialog, questions.

use std::path::PathBuf;

use super::{EvalSession, SessionRow, test_differs, test_ids};
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::nav::ScreenId;
use crate::tui::screen::scrolled;
use crate::tui::widgets::code_pane::CodeScroll;

/// A selection in a list of rows and the first row shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cursor {
    pub selected: usize,
    pub offset: usize,
}

impl Cursor {
    /// Apply a navigation action to a list of `len` rows showing `page`; false when the
    /// action is not a move.
    pub fn navigate(&mut self, action: &Action, len: usize, page: usize) -> bool {
        if !matches!(
            action,
            Action::Up
                | Action::Down
                | Action::PageUp
                | Action::PageDown
                | Action::Top
                | Action::Bottom
                | Action::Scroll(_)
        ) {
            return false;
        }
        self.selected = scrolled(self.selected, action, page, len.saturating_sub(1));
        self.keep_visible(len, page);
        true
    }

    /// Clamp to `len` rows and scroll so the selection is among the `page` shown.
    pub fn keep_visible(&mut self, len: usize, page: usize) {
        let page = page.max(1);
        self.selected = self.selected.min(len.saturating_sub(1));
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + page {
            self.offset = self.selected + 1 - page;
        }
        self.offset = self.offset.min(len.saturating_sub(page));
    }
}

/// What the selected row of the sessions screen is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionPick {
    /// The evaluation running now (pinned first while it runs).
    Live,
    Row(usize),
}

/// Which evaluation a screen shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Live,
    Opened,
    /// The n-th session of the comparison.
    Compared(usize),
}

/// The panes of the test detail, in `Tab` order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DetailPane {
    Tests,
    Trace,
    Code,
}

impl DetailPane {
    pub fn next(self) -> DetailPane {
        match self {
            DetailPane::Tests => DetailPane::Trace,
            DetailPane::Trace => DetailPane::Code,
            DetailPane::Code => DetailPane::Tests,
        }
    }
    pub fn prev(self) -> DetailPane {
        self.next().next()
    }
}

/// One task's tests beside the code that ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetailState {
    pub source: Source,
    pub task_id: String,
    pub sample: u32,
    pub pane: DetailPane,
    pub tests: Cursor,
    pub trace_scroll: usize,
    pub code: CodeScroll,
    /// The line of the code to highlight (0-based): where the selected test failed.
    pub mark: Option<usize>,
    /// Where Esc goes.
    pub back: ScreenId,
    /// The failure cause of each test, computed once when the detail is first drawn and
    /// again only when the session changes (keyed by its events applied), not per frame.
    pub causes: DetailCauses,
}

/// A test's failure cause and the name it is about.
pub type TestCause = Option<(crate::metrics::causes::Cause, Option<String>)>;

/// The detail's causes, with the count of the session's events they were computed at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DetailCauses(std::cell::RefCell<Option<(usize, Vec<TestCause>)>>);

impl DetailCauses {
    /// The cause of test `index` of `run`, recomputed only when `applied` changed.
    pub fn get(&self, applied: usize, run: &crate::session::TaskRun, index: usize) -> TestCause {
        let mut cache = self.0.borrow_mut();
        if cache.as_ref().is_none_or(|(at, _)| *at != applied) {
            *cache = Some((applied, super::test_causes(run)));
        }
        cache
            .as_ref()
            .and_then(|(_, causes)| causes.get(index).cloned().flatten())
    }
}

/// The task being compared across sessions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompareTask {
    pub task_id: String,
    /// The session whose detail Enter opens.
    pub column: usize,
    pub rows: Cursor,
}

#[derive(Debug, Clone, Default)]
pub struct CompareState {
    pub sessions: Vec<EvalSession>,
    /// The sessions on the tasks they all finished: the figures shown side by side.
    pub comparison: crate::pipeline::eval::compare::Comparison,
    /// The compared tasks whose outcome differs, in natural order.
    pub differing: Vec<String>,
    pub cursor: Cursor,
    pub task: Option<CompareTask>,
}

impl CompareTask {
    /// `task_id` across the sessions, the first test whose outcome differs selected.
    pub fn new(sessions: &[EvalSession], task_id: String, column: usize, page: usize) -> Self {
        let ids = test_ids(sessions, &task_id);
        let selected = ids
            .iter()
            .position(|id| test_differs(sessions, &task_id, id))
            .unwrap_or(0);
        let mut rows = Cursor {
            selected,
            offset: 0,
        };
        rows.keep_visible(ids.len(), page);
        CompareTask {
            task_id,
            column,
            rows,
        }
    }
}

impl CompareState {
    pub fn new(sessions: Vec<EvalSession>) -> CompareState {
        let states: Vec<&crate::session::EvalState> = sessions.iter().map(|s| &s.state).collect();
        let comparison = crate::pipeline::eval::compare::compare(&states);
        CompareState {
            differing: comparison.differing().map(|r| r.task_id.clone()).collect(),
            comparison,
            sessions,
            ..CompareState::default()
        }
    }
}

/// The sessions screen.
#[derive(Debug, Clone, Default)]
pub struct SessionsState {
    pub root: Option<PathBuf>,
    pub rows: Vec<SessionRow>,
    pub cursor: Cursor,
    /// Marked for comparison, by directory (stable across reloads).
    pub marked: Vec<PathBuf>,
    pub loading: bool,
    /// Reading the directory failed.
    pub error: Option<String>,
}

/// The new-evaluation dialog: a path typed or picked from the files found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewEvalState {
    pub input: String,
    /// Predictions files found (display paths), in order.
    pub files: Vec<String>,
    pub selected: usize,
    /// The listing of files is under way.
    pub loading: bool,
}

impl NewEvalState {
    /// What Enter may start: the listed files containing the typed text, then the typed
    /// text itself as a path (when it names no listed file).
    pub fn candidates(&self) -> Vec<String> {
        let typed = self.input.trim();
        let needle = typed.to_lowercase();
        let mut out: Vec<String> = self
            .files
            .iter()
            .filter(|f| f.to_lowercase().contains(&needle))
            .cloned()
            .collect();
        if !typed.is_empty() && !self.files.iter().any(|f| f == typed) {
            out.push(typed.to_string());
        }
        out
    }

    pub fn chosen(&self) -> Option<String> {
        self.candidates().into_iter().nth(self.selected)
    }
}

/// A question that needs a yes before an effect is carried out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirm {
    pub text: String,
    pub yes: Effect,
}

/// Everything the evaluation screens keep.
#[derive(Debug, Clone, Default)]
pub struct EvalUi {
    pub sessions: SessionsState,
    /// The evaluation running now (and kept after it ends, until another starts).
    pub live: Option<EvalSession>,
    /// The session opened from the list.
    pub opened: Option<EvalSession>,
    /// What the evaluation screen shows.
    pub showing: Option<Source>,
    pub tasks: Cursor,
    pub imperfect_only: bool,
    /// Where Esc from the evaluation screen goes.
    pub eval_back: Option<ScreenId>,
    pub detail: Option<DetailState>,
    pub compare: Option<CompareState>,
    /// Request numbers: every request gets a new one; only the newest listing and the
    /// newest open/compare are used when they arrive.
    pub request: u64,
    pub list_request: u64,
    pub open_request: u64,
    /// A run is executing (its thread has not ended).
    pub running: bool,
    /// Wall-clock seconds, set by the app loop while a run is live (0: never set); the
    /// elapsed time of a live run counts from `live_since` by it, from the first second.
    pub clock: f64,
    pub live_since: Option<f64>,
    /// Its cancellation was asked for.
    pub stopping: bool,
}

impl EvalUi {
    pub fn session(&self, source: Source) -> Option<&EvalSession> {
        match source {
            Source::Live => self.live.as_ref(),
            Source::Opened => self.opened.as_ref(),
            Source::Compared(i) => self.compare.as_ref()?.sessions.get(i),
        }
    }

    /// The evaluation on the evaluation screen.
    pub fn shown(&self) -> Option<&EvalSession> {
        self.session(self.showing?)
    }

    /// A fresh request number (newest wins).
    pub fn next_request(&mut self) -> u64 {
        self.request += 1;
        self.request
    }
}
