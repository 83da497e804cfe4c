//! Screen geometry, shared by rendering and by `App::update` (which needs page sizes and
//! where a click landed). Everything is a pure function of the terminal size.

use ratatui::layout::{Constraint, Layout, Rect};

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
