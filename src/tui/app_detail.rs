//! `App::update` for a task's test detail, the comparison of sessions and one task across
//! the compared sessions.

use super::action::Action;
use super::app::{App, CodeScroll, Screen, scrolled};
use super::app_task::scroll_code;
use super::evals::{
    CompareTask, Cursor, DetailPane, DetailState, EvalSession, Source, is_failing, test_ids,
    tests_of,
};
use super::views::{layout, test_detail};
use crate::model::SuiteFailure;
use crate::session::TaskRun;

impl App {
    /// The session and run the test detail shows.
    pub fn detail_run(&self) -> Option<(&EvalSession, &TaskRun)> {
        let d = self.sh.ev.detail.as_ref()?;
        let session = self.sh.ev.session(d.source)?;
        Some((session, session.state.run(&d.task_id, d.sample)?))
    }

    pub fn detail_areas(&self) -> layout::DetailAreas {
        let pane = self
            .sh
            .ev
            .detail
            .as_ref()
            .map_or(DetailPane::Tests, |d| d.pane);
        let (banner, tests) = self.detail_run().map_or((0, 0), |(_, run)| {
            (test_detail::banner_height(run), tests_of(run).len())
        });
        layout::detail_split(self.sh.chrome().body, banner, tests, pane)
    }

    /// Open the test detail of a task; selects `test` (by id), else the first failing test,
    /// and shows the line it failed at.
    pub(super) fn open_detail(
        &mut self,
        source: Source,
        task_id: String,
        sample: u32,
        back: Screen,
        test: Option<&str>,
    ) {
        let selected = self
            .sh
            .ev
            .session(source)
            .and_then(|s| s.state.run(&task_id, sample))
            .map_or(0, |run| {
                let tests = tests_of(run);
                test.and_then(|id| tests.iter().position(|t| t.id == id))
                    .or_else(|| tests.iter().position(|t| is_failing(t.outcome)))
                    .unwrap_or(0)
            });
        self.sh.ev.detail = Some(DetailState {
            source,
            task_id,
            sample,
            pane: DetailPane::Tests,
            tests: Cursor {
                selected,
                offset: 0,
            },
            trace_scroll: 0,
            code: CodeScroll::default(),
            mark: None,
            back,
            causes: Default::default(),
        });
        self.screen = Screen::TestDetail;
        self.clamp_detail();
        self.jump_to_failure();
    }

    /// The line (0-based) where the selected test failed in the code under test: its own
    /// `code_line`, else the import failure's line.
    fn failure_line(&self) -> Option<usize> {
        let d = self.sh.ev.detail.as_ref()?;
        let (_, run) = self.detail_run()?;
        let test = tests_of(run).get(d.tests.selected);
        let own = test.and_then(|t| t.code_line);
        let import = match run.private.as_ref().and_then(|r| r.failure.as_ref()) {
            Some(SuiteFailure::Import { line, .. }) => *line,
            _ => None,
        };
        let failing = test.is_none_or(|t| is_failing(t.outcome));
        own.or(import.filter(|_| failing))
            .map(|l| l.saturating_sub(1))
    }

    /// Mark the failing line of the selected test and scroll the code to it.
    fn jump_to_failure(&mut self) {
        let line = self.failure_line();
        let page = layout::inner_page(self.detail_areas().code).max(1);
        let total = self
            .detail_run()
            .and_then(|(_, r)| r.code.as_deref())
            .map_or(0, |c| c.lines().count());
        let Some(d) = self.sh.ev.detail.as_mut() else {
            return;
        };
        d.mark = line;
        if let Some(line) = line {
            // The line a third of the way down, the page full when the code allows.
            d.code.top = line
                .saturating_sub(page / 3)
                .min(total.saturating_sub(page));
            d.code.left = 0;
        }
    }

    pub(super) fn update_detail(&mut self, action: Action) {
        let Some(d) = self.sh.ev.detail.as_ref() else {
            self.screen = Screen::Eval;
            return;
        };
        let areas = self.detail_areas();
        let (back, pane) = (d.back, d.pane);
        match action {
            Action::Back | Action::Close => self.screen = back,
            Action::NextTab | Action::PrevTab => {
                if let Some(d) = self.sh.ev.detail.as_mut() {
                    d.pane = if action == Action::NextTab {
                        d.pane.next()
                    } else {
                        d.pane.prev()
                    };
                }
                self.clamp_detail();
            }
            Action::NextTask => self.step_detail_task(1),
            Action::PrevTask => self.step_detail_task(-1),
            Action::Open => self.jump_to_failure(),
            Action::Left | Action::Right | Action::LineStart => self.scroll_detail_code(&action),
            other => match pane {
                DetailPane::Tests => {
                    let len = self.detail_run().map_or(0, |(_, r)| tests_of(r).len());
                    let page = layout::table_page(areas.tests).max(1);
                    let moved = self
                        .sh
                        .ev
                        .detail
                        .as_mut()
                        .is_some_and(|d| d.tests.navigate(&other, len, page));
                    if moved {
                        if let Some(d) = self.sh.ev.detail.as_mut() {
                            d.trace_scroll = 0;
                        }
                        self.jump_to_failure();
                    }
                }
                DetailPane::Trace => {
                    let page = layout::inner_page(areas.trace).max(1);
                    let count = test_detail::trace_line_count(self);
                    if let Some(d) = self.sh.ev.detail.as_mut() {
                        let max = count.saturating_sub(page);
                        d.trace_scroll = scrolled(d.trace_scroll, &other, page, max);
                    }
                }
                DetailPane::Code => self.scroll_detail_code(&other),
            },
        }
    }

    fn scroll_detail_code(&mut self, action: &Action) {
        let code = self.detail_areas().code;
        let (page, width) = (
            layout::inner_page(code).max(1),
            usize::from(code.width.saturating_sub(2)),
        );
        let Some((_, run)) = self.detail_run() else {
            return;
        };
        let source = run.code.clone().unwrap_or_default();
        if let Some(d) = self.sh.ev.detail.as_mut() {
            scroll_code(&mut d.code, &source, action, page, width);
        }
    }

    /// The next or previous task of the list the detail was opened from.
    fn step_detail_task(&mut self, delta: isize) {
        let Some(d) = self.sh.ev.detail.as_ref() else {
            return;
        };
        let (source, back, task, sample) = (d.source, d.back, d.task_id.clone(), d.sample);
        let target = match source {
            Source::Compared(_) => {
                let Some(c) = self.sh.ev.compare.as_ref() else {
                    return;
                };
                let pos = c.differing.iter().position(|t| *t == task);
                let next = step(pos, delta, c.differing.len());
                next.map(|i| (c.differing[i].clone(), 0, i))
            }
            Source::Live | Source::Opened => {
                let Some(s) = self.sh.ev.session(source) else {
                    return;
                };
                let rows = s.task_rows(self.sh.ev.imperfect_only);
                let pos = rows
                    .iter()
                    .position(|r| r.task_id == task && r.sample == sample);
                let next = step(pos, delta, rows.len());
                next.map(|i| (rows[i].task_id.to_string(), rows[i].sample, i))
            }
        };
        let Some((task, sample, index)) = target else {
            return;
        };
        // The list behind follows, so Esc lands on this task.
        match source {
            Source::Compared(_) => {
                if let Some(c) = self.sh.ev.compare.as_mut() {
                    c.cursor.selected = index;
                    if let Some(t) = c.task.as_mut() {
                        t.task_id = task.clone();
                        t.rows = Cursor::default();
                    }
                }
            }
            _ => self.sh.ev.tasks.selected = index,
        }
        let pane = self.sh.ev.detail.as_ref().map(|d| d.pane);
        self.open_detail(source, task, sample, back, None);
        if let (Some(d), Some(pane)) = (self.sh.ev.detail.as_mut(), pane) {
            d.pane = pane;
        }
        self.clamp_eval();
    }

    /// Keep the detail's positions valid.
    pub(super) fn clamp_detail(&mut self) {
        let areas = self.detail_areas();
        let len = self.detail_run().map_or(0, |(_, r)| tests_of(r).len());
        if let Some(d) = self.sh.ev.detail.as_mut() {
            d.tests
                .keep_visible(len, layout::table_page(areas.tests).max(1));
        }
        let page = self.compare_page();
        if let Some(c) = self.sh.ev.compare.as_mut() {
            c.cursor.keep_visible(c.differing.len(), page);
        }
    }

    pub fn compare_page(&self) -> usize {
        let n = self.sh.ev.compare.as_ref().map_or(0, |c| c.sessions.len());
        layout::table_page(layout::compare_split(self.sh.chrome().body, n).2).max(1)
    }

    pub(super) fn update_compare(&mut self, action: Action) {
        let page = self.compare_page();
        let task_page = self.compare_task_page();
        let Some(c) = self.sh.ev.compare.as_mut() else {
            self.screen = Screen::Sessions;
            return;
        };
        match action {
            Action::Back | Action::Close => self.screen = Screen::Sessions,
            Action::Open => {
                if let Some(task_id) = c.differing.get(c.cursor.selected).cloned() {
                    c.task = Some(CompareTask::new(&c.sessions, task_id, 0, task_page));
                    self.screen = Screen::CompareTask;
                }
            }
            other => {
                c.cursor.navigate(&other, c.differing.len(), page);
            }
        }
    }

    pub fn compare_task_page(&self) -> usize {
        let n = self.sh.ev.compare.as_ref().map_or(0, |c| c.sessions.len());
        layout::table_page(layout::compare_task_split(self.sh.chrome().body, n).1).max(1)
    }

    pub(super) fn update_compare_task(&mut self, action: Action) {
        let page = self.compare_task_page();
        let Some(c) = self.sh.ev.compare.as_mut() else {
            self.screen = Screen::Sessions;
            return;
        };
        let Some(task) = c.task.as_mut() else {
            self.screen = Screen::Compare;
            return;
        };
        let ids = test_ids(&c.sessions, &task.task_id);
        let columns = c.sessions.len();
        match action {
            Action::Back | Action::Close => self.screen = Screen::Compare,
            Action::Left => task.column = task.column.saturating_sub(1),
            Action::Right => task.column = (task.column + 1).min(columns.saturating_sub(1)),
            Action::NextTask | Action::PrevTask => {
                let delta = if action == Action::NextTask { 1 } else { -1 };
                let pos = c.differing.iter().position(|t| *t == task.task_id);
                if let Some(i) = step(pos, delta, c.differing.len()) {
                    *task =
                        CompareTask::new(&c.sessions, c.differing[i].clone(), task.column, page);
                    c.cursor.selected = i;
                }
            }
            Action::Open => {
                let (column, task_id) = (task.column, task.task_id.clone());
                let test = ids.get(task.rows.selected).cloned();
                self.open_detail(
                    Source::Compared(column),
                    task_id,
                    0,
                    Screen::CompareTask,
                    test.as_deref(),
                );
            }
            other => {
                task.rows.navigate(&other, ids.len(), page);
            }
        }
    }
}

/// `pos + delta` within `0..len` (no wrap), or the first row when nothing is selected.
fn step(pos: Option<usize>, delta: isize, len: usize) -> Option<usize> {
    if len == 0 {
        return None;
    }
    let next = match pos {
        Some(p) => p.saturating_add_signed(delta).min(len - 1),
        None => 0,
    };
    (pos != Some(next)).then_some(next)
}
