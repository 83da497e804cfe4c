//! A task's tests beside the code that ran: panes, the failing line, the next task.

use crate::tui::evals::{Cursor, DetailPane, Source, is_failing, tests_of};
use crate::tui::action::Action;
use crate::tui::screen::{Nav, ScreenId};
use crate::tui::shared::Shared;
use crate::tui::widgets::layout;

use crate::model::SuiteFailure;
use crate::tui::evals::detail::step;
use crate::tui::screen::scrolled;
use crate::tui::widgets::code_pane::scroll_code;
use crate::tui::widgets::test_detail;

impl Shared {
    /// The line (0-based) where the selected test failed in the code under test: its own
    /// `code_line`, else the import failure's line.
    pub fn failure_line(&self) -> Option<usize> {
        let d = self.ev.detail.as_ref()?;
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
    pub fn jump_to_failure(&mut self) {
        let line = self.failure_line();
        let page = layout::inner_page(self.detail_areas().code).max(1);
        let total = self
            .detail_run()
            .and_then(|(_, r)| r.code.as_deref())
            .map_or(0, |c| c.lines().count());
        let Some(d) = self.ev.detail.as_mut() else {
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

    pub fn update_detail(&mut self, action: Action) {
        let Some(d) = self.ev.detail.as_ref() else {
            self.go(Nav::To(ScreenId::Eval));
            return;
        };
        let areas = self.detail_areas();
        let (back, pane) = (d.back, d.pane);
        match action {
            Action::Back | Action::Close => self.go(Nav::To(back)),
            Action::NextTab | Action::PrevTab => {
                if let Some(d) = self.ev.detail.as_mut() {
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
                        .ev
                        .detail
                        .as_mut()
                        .is_some_and(|d| d.tests.navigate(&other, len, page));
                    if moved {
                        if let Some(d) = self.ev.detail.as_mut() {
                            d.trace_scroll = 0;
                        }
                        self.jump_to_failure();
                    }
                }
                DetailPane::Trace => {
                    let page = layout::inner_page(areas.trace).max(1);
                    let count = test_detail::trace_line_count(self);
                    if let Some(d) = self.ev.detail.as_mut() {
                        let max = count.saturating_sub(page);
                        d.trace_scroll = scrolled(d.trace_scroll, &other, page, max);
                    }
                }
                DetailPane::Code => self.scroll_detail_code(&other),
            },
        }
    }

    pub fn scroll_detail_code(&mut self, action: &Action) {
        let code = self.detail_areas().code;
        let (page, width) = (
            layout::inner_page(code).max(1),
            usize::from(code.width.saturating_sub(2)),
        );
        let Some((_, run)) = self.detail_run() else {
            return;
        };
        let source = run.code.clone().unwrap_or_default();
        if let Some(d) = self.ev.detail.as_mut() {
            scroll_code(&mut d.code, &source, action, page, width);
        }
    }

    /// The next or previous task of the list the detail was opened from.
    pub fn step_detail_task(&mut self, delta: isize) {
        let Some(d) = self.ev.detail.as_ref() else {
            return;
        };
        let (source, back, task, sample) = (d.source, d.back, d.task_id.clone(), d.sample);
        let target = match source {
            Source::Compared(_) => {
                let Some(c) = self.ev.compare.as_ref() else {
                    return;
                };
                let pos = c.differing.iter().position(|t| *t == task);
                let next = step(pos, delta, c.differing.len());
                next.map(|i| (c.differing[i].clone(), 0, i))
            }
            Source::Live | Source::Opened => {
                let Some(s) = self.ev.session(source) else {
                    return;
                };
                let rows = s.task_rows(self.ev.imperfect_only);
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
                if let Some(c) = self.ev.compare.as_mut() {
                    c.cursor.selected = index;
                    if let Some(t) = c.task.as_mut() {
                        t.task_id = task.clone();
                        t.rows = Cursor::default();
                    }
                }
            }
            _ => self.ev.tasks.selected = index,
        }
        let pane = self.ev.detail.as_ref().map(|d| d.pane);
        self.open_detail(source, task, sample, back, None);
        if let (Some(d), Some(pane)) = (self.ev.detail.as_mut(), pane) {
            d.pane = pane;
        }
        self.clamp_eval();
    }
}
