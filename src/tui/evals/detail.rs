//! `App::update` for a task's test detail, the comparison of sessions and one task across
//! the compared sessions.

use crate::session::TaskRun;
use crate::tui::evals::{
    Cursor, DetailPane, DetailState, EvalSession, Source, is_failing, tests_of,
};
use crate::tui::screen::{Nav, ScreenId};
use crate::tui::shared::Shared;
use crate::tui::widgets::code_pane::CodeScroll;
use crate::tui::widgets::{layout, test_detail};

impl Shared {
    /// The session and run the test detail shows.
    pub fn detail_run(&self) -> Option<(&EvalSession, &TaskRun)> {
        let d = self.ev.detail.as_ref()?;
        let session = self.ev.session(d.source)?;
        Some((session, session.state.run(&d.task_id, d.sample)?))
    }

    pub fn detail_areas(&self) -> layout::DetailAreas {
        let pane = self
            .ev
            .detail
            .as_ref()
            .map_or(DetailPane::Tests, |d| d.pane);
        let (banner, tests) = self.detail_run().map_or((0, 0), |(_, run)| {
            (test_detail::banner_height(run), tests_of(run).len())
        });
        layout::detail_split(self.chrome().body, banner, tests, pane)
    }

    /// Open the test detail of a task; selects `test` (by id), else the first failing test,
    /// and shows the line it failed at.
    pub fn open_detail(
        &mut self,
        source: Source,
        task_id: String,
        sample: u32,
        back: ScreenId,
        test: Option<&str>,
    ) {
        let selected = self
            .ev
            .session(source)
            .and_then(|s| s.state.run(&task_id, sample))
            .map_or(0, |run| {
                let tests = tests_of(run);
                test.and_then(|id| tests.iter().position(|t| t.id == id))
                    .or_else(|| tests.iter().position(|t| is_failing(t.outcome)))
                    .unwrap_or(0)
            });
        self.ev.detail = Some(DetailState {
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
        self.go(Nav::To(ScreenId::TestDetail));
        self.clamp_detail();
        self.jump_to_failure();
    }

    /// Keep the detail's positions valid.
    pub fn clamp_detail(&mut self) {
        let areas = self.detail_areas();
        let len = self.detail_run().map_or(0, |(_, r)| tests_of(r).len());
        if let Some(d) = self.ev.detail.as_mut() {
            d.tests
                .keep_visible(len, layout::table_page(areas.tests).max(1));
        }
        let page = self.compare_page();
        if let Some(c) = self.ev.compare.as_mut() {
            c.cursor.keep_visible(c.differing.len(), page);
        }
    }

    pub fn compare_page(&self) -> usize {
        let n = self.ev.compare.as_ref().map_or(0, |c| c.sessions.len());
        layout::table_page(layout::compare_split(self.chrome().body, n).2).max(1)
    }

    pub fn compare_task_page(&self) -> usize {
        let n = self.ev.compare.as_ref().map_or(0, |c| c.sessions.len());
        layout::table_page(layout::compare_task_split(self.chrome().body, n).1).max(1)
    }
}

/// `pos + delta` within `0..len` (no wrap), or the first row when nothing is selected.
pub fn step(pos: Option<usize>, delta: isize, len: usize) -> Option<usize> {
    if len == 0 {
        return None;
    }
    let next = match pos {
        Some(p) => p.saturating_add_signed(delta).min(len - 1),
        None => 0,
    };
    (pos != Some(next)).then_some(next)
}
