//! Screen geometry, shared by rendering and by `App::update` (which needs page sizes and
//! where a click landed). Everything is a pure function of the terminal size.

use ratatui::layout::{Constraint, Layout, Rect};

use crate::tui::evals::DetailPane;
use crate::tui::runs::RunPane;

/// Below this width the task list hides its preview pane.
pub const PREVIEW_MIN_WIDTH: u16 = 100;
/// From this width the Dependencies tab puts the orders and metrics beside the graph.
pub const DEPS_TWO_PANE_WIDTH: u16 = 120;
/// From this width the Methods table shows every column.
pub const METHODS_WIDE_WIDTH: u16 = 100;
/// From this width the summary table has one row per regime (else it is transposed).
pub const SUMMARY_WIDE_WIDTH: u16 = 144;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chrome {
    pub title: Rect,
    pub banner: Option<Rect>,
    pub body: Rect,
    pub status: Rect,
}

pub fn chrome(area: Rect, banner: bool) -> Chrome {
    let [title, banner_area, body, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(u16::from(banner)),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(area);
    Chrome {
        title,
        banner: banner.then_some(banner_area),
        body,
        status,
    }
}

/// The task table and, when wide enough, the preview beside it.
pub fn list_split(body: Rect) -> (Rect, Option<Rect>) {
    if body.width < PREVIEW_MIN_WIDTH {
        return (body, None);
    }
    let [table, preview] =
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(body);
    (table, Some(preview))
}

/// Rows of tasks the table shows (borders and header excluded).
pub fn table_page(table: Rect) -> usize {
    usize::from(table.height.saturating_sub(3))
}

/// The tab bar and the tab's content.
pub fn task_split(body: Rect) -> (Rect, Rect) {
    let [tabs, content] = Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(body);
    (tabs, content)
}

/// Lines inside a bordered pane.
pub fn inner_page(pane: Rect) -> usize {
    usize::from(pane.height.saturating_sub(2))
}

/// The Methods table and the detail pane of the selected method under it.
pub fn methods_split(content: Rect) -> (Rect, Rect) {
    let detail = if content.height >= 30 { 11 } else { 8 }.min(content.height / 2);
    let [table, detail] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(detail)]).areas(content);
    (table, detail)
}

/// The Dependencies tab: one pane, or graph | orders side by side.
pub fn deps_split(content: Rect) -> (Rect, Option<Rect>) {
    if content.width < DEPS_TWO_PANE_WIDTH {
        return (content, None);
    }
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(52), Constraint::Percentage(48)]).areas(content);
    (left, Some(right))
}

/// A centred box for overlays, at most `width`×`height`, inside `area`.
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// The overlay box used by help, problems and the palette.
pub fn overlay(area: Rect) -> Rect {
    let w = (area.width.saturating_sub(4)).clamp(20, 100);
    let h = (area.height.saturating_sub(2)).clamp(5, 40);
    centered(area, w, h)
}

/// From this width the test detail puts the code beside the tests.
pub const DETAIL_WIDE_WIDTH: u16 = 120;
/// From this width the fingerprint panel shows the exception histogram beside the spectrum.
pub const FINGERPRINT_SPLIT_WIDTH: u16 = 76;

/// The sessions table and, when there is room, the selected session's details under it.
pub fn sessions_split(body: Rect) -> (Rect, Option<Rect>) {
    if body.height < 16 {
        return (body, None);
    }
    let h = if body.height >= 30 { 8 } else { 6 };
    let [table, preview] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(h)]).areas(body);
    (table, Some(preview))
}

/// The evaluation screen: header (3 lines), fingerprint panel (when tall enough), task table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EvalAreas {
    pub header: Rect,
    pub fingerprint: Option<Rect>,
    pub tasks: Rect,
}

pub fn eval_split(body: Rect) -> EvalAreas {
    let header_h = 3.min(body.height);
    let rest = body.height - header_h;
    let fp_h = if rest >= 15 {
        (rest * 2 / 5).clamp(9, 16)
    } else {
        0
    };
    let [header, fingerprint, tasks] = Layout::vertical([
        Constraint::Length(header_h),
        Constraint::Length(fp_h),
        Constraint::Min(0),
    ])
    .areas(body);
    EvalAreas {
        header,
        fingerprint: (fp_h > 0).then_some(fingerprint),
        tasks,
    }
}

/// The spectrum and, when wide enough, the exception histogram beside it.
pub fn fingerprint_split(area: Rect) -> (Rect, Option<Rect>) {
    if area.width < FINGERPRINT_SPLIT_WIDTH {
        return (area, None);
    }
    let spectrum = (area.width * 3 / 5).clamp(54, 120);
    let [left, right] =
        Layout::horizontal([Constraint::Length(spectrum), Constraint::Min(0)]).areas(area);
    (left, Some(right))
}

/// The test detail: title line, failure banner, tests, message + traceback, code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DetailAreas {
    pub title: Rect,
    pub banner: Option<Rect>,
    pub tests: Rect,
    pub trace: Rect,
    pub code: Rect,
}

/// `tests`: how many tests there are (their pane is no taller than needed); the focused pane
/// of trace and code gets more room when they are stacked (narrow).
pub fn detail_split(body: Rect, banner: u16, tests: usize, focus: DetailPane) -> DetailAreas {
    let wanted = u16::try_from(tests.saturating_add(3)).unwrap_or(u16::MAX);
    let banner = banner.min(body.height.saturating_sub(8));
    let [title, banner_area, rest] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(banner),
        Constraint::Min(0),
    ])
    .areas(body);
    let (tests, trace, code) = if body.width >= DETAIL_WIDE_WIDTH {
        let [left, code] =
            Layout::horizontal([Constraint::Percentage(45), Constraint::Percentage(55)])
                .areas(rest);
        let tests_h = wanted.clamp(4, (left.height / 2).max(4));
        let [tests, trace] =
            Layout::vertical([Constraint::Length(tests_h), Constraint::Min(0)]).areas(left);
        (tests, trace, code)
    } else {
        let tests_h = wanted.clamp(4, (rest.height * 2 / 5).max(4));
        let (t, c) = match focus {
            DetailPane::Trace => (3, 2),
            DetailPane::Code => (1, 3),
            DetailPane::Tests => (2, 3),
        };
        let [tests, trace, code] = Layout::vertical([
            Constraint::Length(tests_h),
            Constraint::Fill(t),
            Constraint::Fill(c),
        ])
        .areas(rest);
        (tests, trace, code)
    };
    DetailAreas {
        title,
        banner: (banner > 0).then_some(banner_area),
        tests,
        trace,
        code,
    }
}

/// The comparison: sessions table, fingerprints, differing tasks.
pub fn compare_split(body: Rect, sessions: usize) -> (Rect, Rect, Rect) {
    let n = u16::try_from(sessions).unwrap_or(u16::MAX).min(12);
    let [table, fingerprint, tasks] = Layout::vertical([
        Constraint::Length(n + 3),
        Constraint::Length(2 * n + 4),
        Constraint::Min(5),
    ])
    .areas(body);
    (table, fingerprint, tasks)
}

/// One task across sessions: a summary line per session, then the tests table.
pub fn compare_task_split(body: Rect, sessions: usize) -> (Rect, Rect) {
    let n = u16::try_from(sessions).unwrap_or(u16::MAX).min(12);
    let [summary, table] =
        Layout::vertical([Constraint::Length(n + 2), Constraint::Min(4)]).areas(body);
    (summary, table)
}

/// The row of a bordered table with a header under a click, if any (0 = first row shown).
pub fn table_row_at(table: Rect, column: u16, row: u16) -> Option<usize> {
    let first = table.y + 2;
    (column >= table.x
        && column < table.right()
        && row >= first
        && row < table.bottom().saturating_sub(1))
    .then(|| usize::from(row - first))
}

/// From this height the run screen shows its metrics and fingerprint panel unless toggled off
/// (below it, only when toggled on).
pub const RUN_PANEL_HEIGHT: u16 = 40;
/// From this width the step-through puts the code's side beside the model's.
pub const STEP_WIDE_WIDTH: u16 = 120;

/// The run screen: header (3 lines), the metrics and fingerprint panel, tasks on the left,
/// the selected task's dependencies and schedule over its methods on the right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunAreas {
    pub header: Rect,
    pub panel: Option<Rect>,
    pub tasks: Rect,
    pub task: Rect,
    pub methods: Rect,
}

/// `panel`: the panel is wanted; `methods`: rows of the methods table (it is no taller than
/// needed); the focused pane of the right side gets the room.
pub fn run_split(body: Rect, panel: bool, methods: usize, focus: RunPane) -> RunAreas {
    let header_h = 3.min(body.height);
    let rest = body.height - header_h;
    let panel_h = if panel && rest >= 14 {
        (rest * 2 / 5).clamp(10, 16)
    } else {
        0
    };
    let [header, panel_area, main] = Layout::vertical([
        Constraint::Length(header_h),
        Constraint::Length(panel_h),
        Constraint::Min(0),
    ])
    .areas(body);
    let left_w = (main.width * 35 / 100).clamp(26.min(main.width), 48);
    let [tasks, right] =
        Layout::horizontal([Constraint::Length(left_w), Constraint::Min(0)]).areas(main);
    // Borders and header take 3 lines; the methods table shows every row it can while the
    // task pane keeps 5 lines, and never fewer than 3 method rows (2 when the task pane has
    // the focus) while the task pane keeps its borders and one line.
    let wanted = u16::try_from(methods.saturating_add(3)).unwrap_or(u16::MAX);
    let methods_h = if focus == RunPane::Task {
        let floor = wanted.min(3 + 2);
        (right.height / 3).max(floor).min(wanted)
    } else {
        let floor = wanted.min(3 + 3).min(right.height.saturating_sub(3));
        wanted.min(right.height.saturating_sub(5)).max(floor)
    };
    let methods_h = methods_h.max(4).min(right.height);
    let [task, methods] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(methods_h)]).areas(right);
    RunAreas {
        header,
        panel: (panel_h > 0).then_some(panel_area),
        tasks,
        task,
        methods,
    }
}

/// The step-through: a title line, the rounds' timeline, and the model's side (prompt,
/// response, reflection) with, when wide, the code's side (tests, patch, code) beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepAreas {
    pub title: Rect,
    pub timeline: Rect,
    pub left: Rect,
    pub right: Option<Rect>,
}

pub fn step_split(body: Rect) -> StepAreas {
    let [title, timeline, rest] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(0),
    ])
    .areas(body);
    if body.width < STEP_WIDE_WIDTH {
        return StepAreas {
            title,
            timeline,
            left: rest,
            right: None,
        };
    }
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(rest);
    StepAreas {
        title,
        timeline,
        left,
        right: Some(right),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of the methods table (borders and header take 3 lines).
    fn method_rows(width: u16, height: u16, panel: bool, methods: usize, focus: RunPane) -> u16 {
        let body = chrome(Rect::new(0, 0, width, height), false).body;
        run_split(body, panel, methods, focus).methods.height - 3
    }

    /// B12: at 80×24 the run screen shows at least 3 methods (2 with the task pane focused),
    /// the metrics panel on or off, and every method when there is room.
    #[test]
    fn the_run_screen_keeps_method_rows_at_80x24() {
        for panel in [false, true] {
            for focus in [RunPane::Tasks, RunPane::Methods] {
                assert!(
                    method_rows(80, 24, panel, 4, focus) >= 3,
                    "{panel} {focus:?}"
                );
            }
            assert!(method_rows(80, 24, panel, 4, RunPane::Task) >= 2, "{panel}");
        }
        assert_eq!(method_rows(80, 24, false, 4, RunPane::Tasks), 4);
        assert_eq!(method_rows(160, 48, true, 9, RunPane::Methods), 9);
        // The task pane keeps 5 lines when the methods are many.
        let body = chrome(Rect::new(0, 0, 80, 24), false).body;
        let a = run_split(body, false, 30, RunPane::Methods);
        assert_eq!(a.task.height, 5);
    }
}
