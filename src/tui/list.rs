//! The task list's state: fuzzy filter (nucleo-matcher over "id class"), sort, selection.
//! Filtering and sorting are proportional to the rows: a short list is done at once, a long
//! one by a [`FilterWorker`] off the UI thread, where the newest request wins.

use std::cmp::Ordering;

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};

use super::data::TaskRow;
pub use super::list_worker::FilterWorker;

/// A column of the task list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortColumn {
    #[default]
    Id,
    Class,
    Methods,
    Deps,
    Tests,
}

impl SortColumn {
    pub const ALL: [SortColumn; 5] = [
        SortColumn::Id,
        SortColumn::Class,
        SortColumn::Methods,
        SortColumn::Deps,
        SortColumn::Tests,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SortColumn::Id => "id",
            SortColumn::Class => "class",
            SortColumn::Methods => "methods",
            SortColumn::Deps => "deps",
            SortColumn::Tests => "tests",
        }
    }

    pub fn from_name(name: &str) -> Option<SortColumn> {
        SortColumn::ALL.into_iter().find(|c| c.name() == name)
    }

    pub fn next(self) -> SortColumn {
        let i = SortColumn::ALL.iter().position(|c| *c == self).unwrap_or(0);
        SortColumn::ALL[(i + 1) % SortColumn::ALL.len()]
    }
}

/// Lists up to this long are filtered and sorted on the UI thread, at once.
pub const INLINE_ROWS: usize = 2000;

#[derive(Debug, Clone)]
pub struct ListState {
    pub filter: String,
    /// Typing into the filter.
    pub filtering: bool,
    pub sort: SortColumn,
    pub reverse: bool,
    /// Task indices shown, in display order.
    pub visible: Vec<usize>,
    /// For each visible row, the matched character positions in `"<id> <class>"`.
    pub matches: Vec<Vec<u32>>,
    /// Index into `visible`.
    pub selected: usize,
    /// First visible row on screen.
    pub offset: usize,
    /// Longer lists are filtered and sorted in the background ([`INLINE_ROWS`]).
    pub inline_rows: usize,
    /// The newest background request not answered yet, and whether its answer selects the
    /// best match.
    pub pending: Option<(u64, bool)>,
    /// How many times the rows were filtered or asked to be (also numbers the requests).
    pub filter_runs: u64,
    /// `Enter` came while a request was pending: open the best match of its answer, not the
    /// row an older answer had selected.
    pub open_on_answer: bool,
    /// `G` came while the list was not in its final order (loading, or an answer pending):
    /// every answer until another move selects the last row, so `G` reaches the last task.
    pub bottom_on_answer: bool,
}

impl Default for ListState {
    fn default() -> Self {
        ListState {
            filter: String::new(),
            filtering: false,
            sort: SortColumn::default(),
            reverse: false,
            visible: Vec::new(),
            matches: Vec::new(),
            selected: 0,
            offset: 0,
            inline_rows: INLINE_ROWS,
            pending: None,
            filter_runs: 0,
            open_on_answer: false,
            bottom_on_answer: false,
        }
    }
}

/// What the list shows: the filter and the sort.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListQuery {
    pub filter: String,
    pub sort: SortColumn,
    pub reverse: bool,
}

/// The rows a query found, in display order: (task index, score, matched positions).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    pub rows: Vec<(usize, u32, Vec<u32>)>,
    /// The task whose id (or else class name) is the filter itself, ignoring case: the match
    /// to select whatever the sort order.
    pub exact: Option<usize>,
}

pub use crate::model::natural_cmp;

/// The list's order by `column`: ties by id (naturally), then by position.
pub fn compare(rows: &[TaskRow], column: SortColumn, a: usize, b: usize) -> Ordering {
    let (x, y) = (&rows[a], &rows[b]);
    let primary = match column {
        SortColumn::Id => natural_cmp(&x.id, &y.id),
        SortColumn::Class => x.class.to_lowercase().cmp(&y.class.to_lowercase()),
        SortColumn::Methods => x.methods.cmp(&y.methods),
        SortColumn::Deps => x.deps.cmp(&y.deps),
        SortColumn::Tests => x.tests.cmp(&y.tests),
    };
    primary
        .then_with(|| natural_cmp(&x.id, &y.id))
        .then(a.cmp(&b))
}

/// Filter and sort `rows` for `query` (the part proportional to the data).
pub fn find(rows: &[TaskRow], query: &ListQuery) -> Found {
    let mut found: Vec<(usize, u32, Vec<u32>)> = if query.filter.trim().is_empty() {
        (0..rows.len()).map(|i| (i, 0, Vec::new())).collect()
    } else {
        let pattern = Pattern::parse(&query.filter, CaseMatching::Smart, Normalization::Smart);
        let mut matcher = Matcher::new(Config::DEFAULT);
        let mut buf = Vec::new();
        rows.iter()
            .enumerate()
            .filter_map(|(i, row)| {
                let hay = format!("{} {}", row.id, row.class);
                let mut indices = Vec::new();
                let score =
                    pattern.indices(Utf32Str::new(&hay, &mut buf), &mut matcher, &mut indices)?;
                indices.sort_unstable();
                indices.dedup();
                Some((i, score, indices))
            })
            .collect()
    };
    found.sort_by(|(a, _, _), (b, _, _)| {
        let ord = compare(rows, query.sort, *a, *b);
        if query.reverse { ord.reverse() } else { ord }
    });
    let needle = query.filter.trim();
    let exact = (!needle.is_empty())
        .then(|| {
            let is = |s: &str| s.eq_ignore_ascii_case(needle);
            (rows.iter().position(|r| is(&r.id))).or_else(|| rows.iter().position(|r| is(&r.class)))
        })
        .flatten();
    Found { rows: found, exact }
}

impl ListState {
    pub fn new(rows: &[TaskRow]) -> ListState {
        let mut s = ListState::default();
        s.refresh(rows);
        s
    }

    /// The selected task index, if any row is shown.
    pub fn selected_task(&self) -> Option<usize> {
        self.visible.get(self.selected).copied()
    }

    pub fn query(&self) -> ListQuery {
        ListQuery {
            filter: self.filter.clone(),
            sort: self.sort,
            reverse: self.reverse,
        }
    }

    /// Recompute the visible rows after a sort change, keeping the selected task selected when
    /// it is still shown.
    pub fn refresh(&mut self, rows: &[TaskRow]) {
        self.refresh_with(rows, false);
    }

    /// Recompute the visible rows after a filter change: the best match gets selected (the
    /// table keeps its column order).
    pub fn refilter(&mut self, rows: &[TaskRow]) {
        self.refresh_with(rows, true);
    }

    fn refresh_with(&mut self, rows: &[TaskRow], select_best: bool) {
        self.filter_runs += 1;
        let found = find(rows, &self.query());
        self.apply(found, select_best);
    }

    /// After a filter (`select_best`) or sort change: recompute at once when the list is
    /// short (true: done), else make a new request for the background worker (false), kept in
    /// `pending` until its answer comes to [`ListState::receive`]; the query is the state's
    /// own ([`ListState::query`]).
    pub fn request(&mut self, rows: &[TaskRow], select_best: bool) -> bool {
        if rows.len() <= self.inline_rows {
            self.refresh_with(rows, select_best);
            return true;
        }
        self.filter_runs += 1;
        let req = self.filter_runs;
        let best = select_best || self.pending.is_some_and(|(_, best)| best);
        self.pending = Some((req, best));
        false
    }

    /// A background answer: shown when it answers the newest request (then `Some`, with
    /// whether the best match was selected), ignored otherwise.
    pub fn receive(&mut self, req: u64, found: Found) -> Option<bool> {
        match self.pending {
            Some((newest, best)) if newest == req => {
                self.pending = None;
                self.apply(found, best);
                Some(best)
            }
            _ => None,
        }
    }

    /// Show what a query found: the best match selected, or the selected task kept when it
    /// is still shown.
    pub fn apply(&mut self, found: Found, select_best: bool) {
        let keep = self.selected_task();
        let exact = found.exact;
        let found = found.rows;
        // A row whose id is the filter itself, else the first row with the highest score
        // (`/ClassEval_5` picks ClassEval_5, not ClassEval_51 sorted above it).
        let exact = exact.and_then(|t| found.iter().position(|(i, _, _)| *i == t));
        let best = exact.unwrap_or_else(|| {
            found
                .iter()
                .enumerate()
                .max_by(|(i, x), (j, y)| x.1.cmp(&y.1).then(j.cmp(i)))
                .map_or(0, |(pos, _)| pos)
        });
        self.visible = found.iter().map(|(i, _, _)| *i).collect();
        self.matches = found.into_iter().map(|(_, _, m)| m).collect();
        self.selected = if self.bottom_on_answer {
            self.visible.len().saturating_sub(1)
        } else if select_best && !self.filter.trim().is_empty() {
            best
        } else {
            keep.and_then(|t| self.visible.iter().position(|&v| v == t))
                .unwrap_or(0)
        };
    }

    /// Move the selection by `delta` rows, clamped, and keep it on screen.
    pub fn move_by(&mut self, delta: isize, page: usize) {
        if self.visible.is_empty() {
            self.selected = 0;
            self.offset = 0;
            return;
        }
        let last = self.visible.len() - 1;
        self.selected = self.selected.saturating_add_signed(delta).min(last);
        self.scroll_into_view(page);
    }

    pub fn select(&mut self, row: usize, page: usize) {
        self.selected = row.min(self.visible.len().saturating_sub(1));
        self.scroll_into_view(page);
    }

    /// Adjust `offset` so the selected row is among the `page` rows shown.
    pub fn scroll_into_view(&mut self, page: usize) {
        let page = page.max(1);
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + page {
            self.offset = self.selected + 1 - page;
        }
        let max_offset = self.visible.len().saturating_sub(page);
        self.offset = self.offset.min(max_offset);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::action::Action;

    fn rows() -> Vec<TaskRow> {
        [
            ("T_10", "Zeta", 3, 1),
            ("T_2", "alpha", 5, 0),
            ("T_1", "Beta", 1, 4),
        ]
        .into_iter()
        .map(|(id, class, methods, deps)| TaskRow {
            id: id.into(),
            class: class.into(),
            methods,
            deps,
            tests: methods * 2,
            analysed: true,
        })
        .collect()
    }

    #[test]
    fn natural_order() {
        assert_eq!(natural_cmp("T_2", "T_10"), Ordering::Less);
        assert_eq!(natural_cmp("T_02", "T_2"), Ordering::Equal);
        assert_eq!(natural_cmp("a", "ab"), Ordering::Less);
    }

    #[test]
    fn sorts_and_reverses() {
        let rows = rows();
        let mut s = ListState::new(&rows);
        assert_eq!(s.visible, [2, 1, 0]);
        s.sort = SortColumn::Class;
        s.refresh(&rows);
        assert_eq!(s.visible, [1, 2, 0]);
        s.sort = SortColumn::Deps;
        s.reverse = true;
        s.refresh(&rows);
        assert_eq!(s.visible, [2, 0, 1]);
    }

    #[test]
    fn filter_keeps_selection_and_reports_matches() {
        let rows = rows();
        let mut s = ListState::new(&rows);
        s.select(2, 10); // T_10 Zeta
        s.filter = "zt".into();
        s.refilter(&rows);
        assert_eq!(s.visible, [0]);
        assert_eq!(s.selected_task(), Some(0));
        assert_eq!(s.matches[0], [5, 7]); // "T_10 Zeta": Z at 5, t at 7
        s.filter = "qqq".into();
        s.refilter(&rows);
        assert!(s.visible.is_empty());
        assert_eq!(s.selected_task(), None);
        s.move_by(1, 10);
        assert_eq!(s.selected, 0);
    }

    #[test]
    fn filtering_selects_the_best_match_in_column_order() {
        let rows: Vec<TaskRow> = [("T_1", "RomanNumeralConverter"), ("T_2", "RateLimiter")]
            .into_iter()
            .map(|(id, class)| TaskRow {
                id: id.into(),
                class: class.into(),
                methods: 0,
                deps: 0,
                tests: 0,
                analysed: true,
            })
            .collect();
        let mut s = ListState::new(&rows);
        s.filter = "rate".into();
        s.refilter(&rows);
        assert_eq!(s.visible, [0, 1]);
        assert_eq!(s.selected_task(), Some(1));
    }

    #[test]
    fn scrolling_keeps_selection_visible() {
        let rows: Vec<TaskRow> = (0..50)
            .map(|i| TaskRow {
                id: format!("T_{i}"),
                class: "C".into(),
                methods: 0,
                deps: 0,
                tests: 0,
                analysed: true,
            })
            .collect();
        let mut s = ListState::new(&rows);
        s.move_by(30, 10);
        assert_eq!((s.selected, s.offset), (30, 21));
        s.move_by(-25, 10);
        assert_eq!((s.selected, s.offset), (5, 5));
        s.move_by(1000, 10);
        assert_eq!((s.selected, s.offset), (49, 40));
    }

    #[test]
    fn long_lists_are_filtered_in_the_background_and_the_newest_answer_wins() {
        let rows = rows();
        let mut s = ListState::new(&rows);
        s.inline_rows = 2;
        s.select(2, 10); // T_10 Zeta
        s.filter = "z".into();
        assert!(!s.request(&rows, true));
        let (old, _) = s.pending.unwrap();
        s.filter = "zt".into();
        assert!(!s.request(&rows, true));
        let ((req, _), query) = (s.pending.unwrap(), s.query());
        assert!(req > old);
        assert_eq!(s.visible, [2, 1, 0], "nothing changes before the answer");
        let worker = FilterWorker::spawn(rows.clone()).unwrap();
        worker.request(req, query.clone());
        let answer = loop {
            if let Some(a) = worker.try_recv() {
                break a;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        let Action::TasksFiltered { req: got, found } = answer else {
            panic!("{answer:?}")
        };
        assert_eq!(got, req);
        assert_eq!(*found.0, find(&rows, &query));
        // An older answer is ignored, the newest one is shown.
        assert_eq!(s.receive(old, Found::default()), None);
        assert_eq!(s.receive(req, found.take()), Some(true));
        assert_eq!(s.visible, [0]);
        assert_eq!(s.matches[0], [5, 7]);
        assert_eq!(s.pending, None);
    }
}
