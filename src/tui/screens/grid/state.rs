//! The grid screen's state: the task × session grid of the compared sessions (built once per
//! change of the sessions), the rows shown (filtered and sorted, precomputed), the cursor, the
//! scroll offsets both ways and the marked cell.


use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};

use crate::metrics::fingerprint::Bucket;
use crate::session::attempts;
use crate::stats::grid::{Column, Grid, grid};
use crate::tui::evals::EvalSession;

/// Narrowest cell: the longest bucket label (`NearPerf`).
pub const CELL_WIDTH: usize = 8;
/// Widest cell, when every column fits anyway.
pub const MAX_CELL_WIDTH: usize = 22;
/// Columns between cells.
pub const GAP: usize = 1;

/// How the rows are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sort {
    /// Most disagreed-on rows first (then the most even split; ties in task order).
    #[default]
    Disagreement,
    /// Task ids in natural order (`ClassEval_2` before `ClassEval_10`).
    TaskId,
}

impl Sort {
    pub fn next(self) -> Sort {
        match self {
            Sort::Disagreement => Sort::TaskId,
            Sort::TaskId => Sort::Disagreement,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Sort::Disagreement => "disagreement",
            Sort::TaskId => "task id",
        }
    }
}

pub use crate::tui::shared::Pair;

/// What the grid was built from: the sessions' ids and events applied (rebuilt when it
/// changes, never per frame).
pub type Built = Vec<(String, usize)>;

#[derive(Debug, Clone)]
pub struct State {
    pub grid: Grid,
    /// Full column labels (model and strategy), for the footer.
    pub labels: Vec<String>,
    /// The two header lines of each column: its letter and model, and its strategy.
    pub heads: Vec<(String, String)>,
    /// The longest header line (what a cell would need to show it whole).
    pub head_width: usize,
    /// Width of the task-id column (the longest id, capped).
    pub id_width: usize,
    pub sort: Sort,
    /// Only rows where the sessions disagree.
    pub disagreeing_only: bool,
    /// Fuzzy filter on the task id (nucleo pattern syntax: `'exact`, `^prefix`, `suffix$`).
    pub filter: String,
    /// The filter is being typed.
    pub typing: bool,
    /// Indices into `grid.rows` in display order, after filter and sort.
    pub shown: Vec<usize>,
    /// Selected row (index into `shown`) and column (index into the sessions).
    pub row: usize,
    pub col: usize,
    /// First row and first column on screen.
    pub top: usize,
    pub left: usize,
    /// The cell marked by the first `Enter`: (index into `grid.rows`, column).
    pub mark: Option<(usize, usize)>,
    /// The last pair chosen by the second `Enter` (handed to the paired view through
    /// `Shared::pair`).
    pub open: Option<Pair>,
    pub built: Built,
    /// Per row of `grid.rows`, per session: how the code of the task's first sample attempted
    /// tampering (`3 signs (host 1, static 2)`), `None` with no sign of it.
    pub attempts: Vec<Vec<Option<String>>>,
}

impl Default for State {
    fn default() -> State {
        State {
            grid: Grid {
                columns: Vec::new(),
                rows: Vec::new(),
            },
            labels: Vec::new(),
            heads: Vec::new(),
            head_width: 0,
            id_width: 4,
            sort: Sort::default(),
            disagreeing_only: false,
            filter: String::new(),
            typing: false,
            shown: Vec::new(),
            row: 0,
            col: 0,
            top: 0,
            left: 0,
            mark: None,
            open: None,
            built: Vec::new(),
            attempts: Vec::new(),
        }
    }
}

/// A session's column label: its model (or id) and strategy.
pub fn label(s: &EvalSession) -> String {
    match &s.info.strategy {
        Some(strategy) if !strategy.is_empty() => format!("{} {strategy}", s.info.label()),
        _ => s.info.label().to_string(),
    }
}

/// A column's header lines: `A GPT-4-Turbo` over `holistic`.
pub fn head(i: usize, s: &EvalSession) -> (String, String) {
    let letter = match u8::try_from(i) {
        Ok(n) if n < 26 => char::from(b'A' + n).to_string(),
        _ => (i + 1).to_string(),
    };
    (
        format!("{letter} {}", s.info.label()),
        s.info.strategy.clone().unwrap_or_default(),
    )
}

/// What the grid of `sessions` is built from.
pub fn built_of(sessions: &[EvalSession]) -> Built {
    sessions
        .iter()
        .map(|s| (s.info.id.clone(), s.applied))
        .collect()
}

/// Each session's column: every task's first sample and its bucket (`None`: not finished).
pub fn columns(sessions: &[EvalSession]) -> Vec<Column> {
    sessions
        .iter()
        .map(|s| {
            let cells: Vec<(String, Option<Bucket>)> = s
                .task_rows(false)
                .into_iter()
                .filter(|r| r.sample == 0)
                .map(|r| (r.task_id.to_string(), r.outcome()))
                .collect();
            (label(s), cells)
        })
        .collect()
}

/// The signs of a tampering attempt by the code of `task_id`'s first sample in `s`.
fn attempt_of(s: &EvalSession, task_id: &str) -> Option<String> {
    let run = s.state.run(task_id, 0).filter(|r| attempts::attempted(r))?;
    Some(attempts::sign_count(&attempts::evidence_of(run)))
}

impl State {
    /// The grid of the compared sessions (none: an empty grid).
    pub fn new(sessions: &[EvalSession]) -> State {
        let mut s = State::default();
        s.rebuild(sessions);
        s
    }

    /// Build the grid again from `sessions`, keeping the sort, filter and (by task id) the
    /// selected row where it still exists.
    pub fn rebuild(&mut self, sessions: &[EvalSession]) {
        let selected = self.selected_task().map(str::to_string);
        let cols = columns(sessions);
        self.labels = cols.iter().map(|c| c.0.clone()).collect();
        self.heads = sessions
            .iter()
            .enumerate()
            .map(|(i, s)| head(i, s))
            .collect();
        self.head_width = self
            .heads
            .iter()
            .map(|(a, b)| a.chars().count().max(b.chars().count()))
            .max()
            .unwrap_or(0);
        self.grid = grid(&cols);
        self.attempts = self
            .grid
            .rows
            .iter()
            .map(|row| {
                sessions
                    .iter()
                    .map(|s| attempt_of(s, &row.task_id))
                    .collect()
            })
            .collect();
        self.id_width = self
            .grid
            .rows
            .iter()
            .map(|r| r.task_id.chars().count())
            .max()
            .unwrap_or(0)
            .clamp(4, 24);
        self.built = built_of(sessions);
        self.mark = None;
        self.refresh();
        if let Some(id) = selected
            && let Some(i) = self
                .shown
                .iter()
                .position(|&r| self.grid.rows[r].task_id == id)
        {
            self.row = i;
        }
        self.col = self.col.min(self.grid.columns.len().saturating_sub(1));
    }

    /// Filter and sort the rows again (after the filter, the sort or the toggle changed).
    pub fn refresh(&mut self) {
        let selected = self.shown.get(self.row).copied();
        let mut shown: Vec<usize> = (0..self.grid.rows.len())
            .filter(|&i| !self.disagreeing_only || self.grid.rows[i].disagreement > 0)
            .collect();
        let needle = self.filter.trim();
        if !needle.is_empty() {
            let pattern = Pattern::parse(needle, CaseMatching::Ignore, Normalization::Smart);
            let mut matcher = Matcher::new(Config::DEFAULT);
            let mut buf = Vec::new();
            shown.retain(|&i| {
                let id = &self.grid.rows[i].task_id;
                pattern
                    .score(Utf32Str::new(id, &mut buf), &mut matcher)
                    .is_some()
            });
        }
        let rows = &self.grid.rows;
        match self.sort {
            Sort::Disagreement => {
                shown.sort_by_key(|&i| std::cmp::Reverse((rows[i].disagreement, rows[i].split)))
            }
            Sort::TaskId => shown.sort_by(|&a, &b| natural_cmp(&rows[a].task_id, &rows[b].task_id)),
        }
        self.shown = shown;
        self.row = selected
            .and_then(|r| self.shown.iter().position(|&i| i == r))
            .unwrap_or(0);
    }

    /// The grid row under the cursor.
    pub fn selected_row(&self) -> Option<&crate::stats::grid::GridRow> {
        self.grid.rows.get(*self.shown.get(self.row)?)
    }

    pub fn selected_task(&self) -> Option<&str> {
        self.selected_row().map(|r| r.task_id.as_str())
    }

    /// The bucket of the selected cell (`None` also when the session did not finish it).
    pub fn selected_cell(&self) -> Option<Bucket> {
        self.selected_row()?.cells.get(self.col).copied().flatten()
    }

    /// How the selected cell's code attempted tampering, if it did.
    pub fn selected_attempt(&self) -> Option<&str> {
        let r = *self.shown.get(self.row)?;
        self.attempts.get(r)?.get(self.col)?.as_deref()
    }

    /// Keep the cursor inside the rows and columns and on screen, `rows` rows and `cols`
    /// columns shown.
    pub fn keep_visible(&mut self, rows: usize, cols: usize) {
        let (rows, cols) = (rows.max(1), cols.max(1));
        let n = self.shown.len();
        let m = self.grid.columns.len();
        self.row = self.row.min(n.saturating_sub(1));
        self.col = self.col.min(m.saturating_sub(1));
        if self.row < self.top {
            self.top = self.row;
        } else if self.row >= self.top + rows {
            self.top = self.row + 1 - rows;
        }
        self.top = self.top.min(n.saturating_sub(rows));
        if self.col < self.left {
            self.left = self.col;
        } else if self.col >= self.left + cols {
            self.left = self.col + 1 - cols;
        }
        self.left = self.left.min(m.saturating_sub(cols));
    }
}

pub use crate::model::natural_cmp;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_order() {
        let mut ids = vec![
            "ClassEval_10",
            "ClassEval_2",
            "ClassEval_1",
            "A",
            "ClassEval_02x",
        ];
        ids.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            ids,
            [
                "A",
                "ClassEval_1",
                "ClassEval_2",
                "ClassEval_02x",
                "ClassEval_10"
            ]
        );
    }
}
