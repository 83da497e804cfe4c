//! `App::update` for the task view's code panes and Methods table.

use super::action::Action;
use super::app::{App, CodeScroll, Level, Status, Tab, scrolled};
use super::highlight::MAX_LINE;
use super::views::layout;

/// Lines of code shown in the current code pane.
fn code_page(app: &App) -> usize {
    let (_, content) = layout::task_split(app.sh.chrome().body);
    layout::inner_page(content).max(1)
}

fn code_width(app: &App) -> usize {
    let (_, content) = layout::task_split(app.sh.chrome().body);
    usize::from(content.width.saturating_sub(2))
}

pub fn update_code(app: &mut App, tab: Tab, action: Action) {
    let Some(i) = tab.code_index() else { return };
    let (page, width) = (code_page(app), code_width(app));
    let mut scroll = app.task.code[i];
    scroll_code(
        &mut scroll,
        app.sh.code_source(app.task.idx, tab),
        &action,
        page,
        width,
    );
    app.task.code[i] = scroll;
}

/// Apply a navigation action to a code pane showing `page` lines of `width` columns
/// (gutter included) of `source`.
pub fn scroll_code(
    scroll: &mut CodeScroll,
    source: &str,
    action: &Action,
    page: usize,
    width: usize,
) {
    let lines = source.lines().count();
    let longest = source
        .lines()
        .map(|l| l.chars().count().min(MAX_LINE + 1))
        .max()
        .unwrap_or(0);
    let gutter = lines.max(1).to_string().len() + 3;
    let max_left = (longest + gutter).saturating_sub(width.max(1));
    // A jump may have put a line near the end at the top; stay there until scrolled up.
    let max_top = lines
        .saturating_sub(page)
        .max(scroll.top.min(lines.saturating_sub(1)));
    match action {
        Action::Left => scroll.left = scroll.left.saturating_sub(8),
        Action::Right => scroll.left = (scroll.left + 8).min(max_left),
        Action::LineStart => scroll.left = 0,
        Action::Bottom => scroll.top = lines.saturating_sub(page),
        other => scroll.top = scrolled(scroll.top, other, page, max_top),
    }
}

pub fn update_methods(app: &mut App, action: Action) {
    let count = app
        .sh
        .data
        .analysis(app.task.idx)
        .map_or(0, |a| a.graph.nodes.len());
    let (_, content) = layout::task_split(app.sh.chrome().body);
    let (table, _) = layout::methods_split(content);
    let page = layout::table_page(table).max(1);
    match action {
        Action::Open => jump_to_method(app),
        other => {
            let sel = scrolled(
                app.task.method_selected,
                &other,
                page,
                count.saturating_sub(1),
            );
            app.task.method_selected = sel;
            if sel < app.task.method_offset {
                app.task.method_offset = sel;
            } else if sel >= app.task.method_offset + page {
                app.task.method_offset = sel + 1 - page;
            }
        }
    }
}

/// The 0-based line of `def name` in the solution, from the analysed span.
pub fn def_line(app: &App, idx: usize, name: &str) -> Option<usize> {
    let def = app.sh.data.full_analysis(idx)?.method_def(name)?;
    let source = app.sh.code_source(idx, Tab::Solution);
    let start = def.start_line.saturating_sub(1);
    let span = def.end_line.saturating_sub(def.start_line) + 1;
    source
        .lines()
        .enumerate()
        .skip(start)
        .take(span)
        .find(|(_, l)| {
            let t = l.trim_start();
            t.starts_with("def ") || t.starts_with("async def ")
        })
        .map(|(i, _)| i)
        .or(Some(start))
}

fn jump_to_method(app: &mut App) {
    let idx = app.task.idx;
    let Some(name) = app
        .sh
        .data
        .analysis(idx)
        .and_then(|a| a.graph.nodes.get(app.task.method_selected))
        .cloned()
    else {
        return;
    };
    match def_line(app, idx, &name) {
        Some(line) => {
            app.task.tab = Tab::Solution;
            app.task.mark = Some(line);
            app.task.code[1].top = line;
            app.task.code[1].left = 0;
        }
        None => {
            app.sh.status = Some(Status {
                text: format!("`{name}` is not defined in the reference solution"),
                level: Level::Warn,
            });
        }
    }
}

/// Keep code scroll positions valid (after a resize).
pub fn clamp_code(app: &mut App) {
    let page = code_page(app);
    for tab in [Tab::Skeleton, Tab::Solution, Tab::Tests] {
        let lines = app.sh.code_source(app.task.idx, tab).lines().count();
        if let Some(i) = tab.code_index() {
            let top = &mut app.task.code[i].top;
            *top = (*top).min(lines.saturating_sub(page).max(app.task.mark.unwrap_or(0)));
        }
    }
}
