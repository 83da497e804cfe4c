//! The task view: tabs, code panes, the Methods table, stepping through the list's tasks.

use super::state::{Tab, TaskState};
use super::view as task_view;
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::screen::{Nav, scrolled};
use crate::tui::shared::{CodePart, Level, Shared, Status};
use crate::tui::widgets::code_pane::scroll_code;
use crate::tui::widgets::layout;

/// Lines of code shown in the current code pane.
fn code_page(sh: &Shared) -> usize {
    let (_, content) = layout::task_split(sh.chrome().body);
    layout::inner_page(content).max(1)
}

fn code_width(sh: &Shared) -> usize {
    let (_, content) = layout::task_split(sh.chrome().body);
    usize::from(content.width.saturating_sub(2))
}

pub fn update_code(st: &mut TaskState, sh: &mut Shared, tab: Tab, action: Action) {
    let Some(i) = tab.code_index() else { return };
    let (page, width) = (code_page(sh), code_width(sh));
    let mut scroll = st.code[i];
    scroll_code(
        &mut scroll,
        sh.code_source(st.idx, tab.code_part().unwrap_or(CodePart::Skeleton)),
        &action,
        page,
        width,
    );
    st.code[i] = scroll;
}

pub fn update_methods(st: &mut TaskState, sh: &mut Shared, action: Action) {
    let count = sh.data.analysis(st.idx).map_or(0, |a| a.graph.nodes.len());
    let (_, content) = layout::task_split(sh.chrome().body);
    let (table, _) = layout::methods_split(content);
    let page = layout::table_page(table).max(1);
    match action {
        Action::Open => jump_to_method(st, sh),
        other => {
            let sel = scrolled(st.method_selected, &other, page, count.saturating_sub(1));
            st.method_selected = sel;
            if sel < st.method_offset {
                st.method_offset = sel;
            } else if sel >= st.method_offset + page {
                st.method_offset = sel + 1 - page;
            }
        }
    }
}

/// The 0-based line of `def name` in the solution, from the analysed span.
pub fn def_line(sh: &Shared, idx: usize, name: &str) -> Option<usize> {
    let def = sh.data.full_analysis(idx)?.method_def(name)?;
    let source = sh.code_source(idx, CodePart::Solution);
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

fn jump_to_method(st: &mut TaskState, sh: &mut Shared) {
    let idx = st.idx;
    let Some(name) = sh
        .data
        .analysis(idx)
        .and_then(|a| a.graph.nodes.get(st.method_selected))
        .cloned()
    else {
        return;
    };
    match def_line(sh, idx, &name) {
        Some(line) => {
            st.tab = Tab::Solution;
            st.mark = Some(line);
            st.code[1].top = line;
            st.code[1].left = 0;
        }
        None => {
            sh.status = Some(Status {
                text: format!("`{name}` is not defined in the reference solution"),
                level: Level::Warn,
            });
        }
    }
}

/// Keep code scroll positions valid (after a resize).
pub fn clamp_code(st: &mut TaskState, sh: &Shared) {
    let page = code_page(sh);
    for tab in [Tab::Skeleton, Tab::Solution, Tab::Tests] {
        let lines = sh
            .code_source(st.idx, tab.code_part().unwrap_or(CodePart::Skeleton))
            .lines()
            .count();
        if let Some(i) = tab.code_index() {
            let top = &mut st.code[i].top;
            *top = (*top).min(lines.saturating_sub(page).max(st.mark.unwrap_or(0)));
        }
    }
}

pub fn update_task(st: &mut TaskState, sh: &mut Shared, action: Action) -> Vec<Effect> {
    let tabs = Tab::ALL.len();
    match action {
        Action::Back | Action::Close => sh.go(Nav::Back),
        Action::NextTab => st.tab = Tab::ALL[(st.tab.index() + 1) % tabs],
        Action::PrevTab => st.tab = Tab::ALL[(st.tab.index() + tabs - 1) % tabs],
        Action::GoTab(n) if (1..=tabs).contains(&usize::from(n)) => {
            st.tab = Tab::ALL[usize::from(n - 1)]
        }
        Action::NextTask => step_task(st, sh, 1),
        Action::PrevTask => step_task(st, sh, -1),
        Action::Click { column, row } => click_tabs(st, sh, column, row),
        other if st.tab == Tab::Rigor => return super::rigor::update(st, sh, other),
        other => match st.tab {
            Tab::Methods => update_methods(st, sh, other),
            Tab::Deps => {
                let (_, content) = layout::task_split(sh.chrome().body);
                let page = layout::inner_page(content).max(1);
                let max = task_view::deps_line_count(st, sh, content).saturating_sub(page);
                st.deps_scroll = scrolled(st.deps_scroll, &other, page, max);
            }
            tab => update_code(st, sh, tab, other),
        },
    }
    // The Rigor tab asks for the task's rigor (from the store, or computed) when shown.
    if st.tab == Tab::Rigor {
        return sh.rigor.want(&[st.idx]).into_iter().collect();
    }
    Vec::new()
}

fn step_task(st: &mut TaskState, sh: &mut Shared, delta: isize) {
    let page = sh.list_page();
    if sh.list.visible.is_empty() {
        return;
    }
    sh.list.move_by(delta, page);
    if let Some(idx) = sh.list.selected_task() {
        let tab = st.tab;
        *st = TaskState::new(idx);
        sh.open_task = idx;
        st.tab = tab;
    }
}

fn click_tabs(st: &mut TaskState, sh: &Shared, column: u16, row: u16) {
    let (tabs, _) = layout::task_split(sh.chrome().body);
    if row != tabs.y {
        return;
    }
    if let Some(tab) = task_view::tab_at(column.saturating_sub(tabs.x)) {
        st.tab = tab;
    }
}
