//! How actions change the grid: moving the cursor and scrolling both ways, the sort, the
//! filter, the disagreeing-only toggle, and `Enter` twice on one row to choose a pair.

use super::state::{GAP, Pair, State, built_of};
use super::view::{LEAD_WIDTH, areas, letter};
use crate::tui::action::Action;
use crate::tui::evals::{Cursor, EvalSession};
use crate::tui::screen::{Nav, Outcome, ScreenId};
use crate::tui::shared::{Level, Shared};

/// The compared sessions (none when no comparison is loaded).
pub fn sessions(sh: &Shared) -> &[EvalSession] {
    sh.ev
        .compare
        .as_ref()
        .map_or(&[], |c| c.sessions.as_slice())
}

/// Build the grid again when the compared sessions changed since it was built.
pub fn sync(st: &mut State, sh: &Shared) {
    let sessions = sessions(sh);
    if st.built != built_of(sessions) {
        st.rebuild(sessions);
    }
}

/// Rows and columns shown, from the terminal size.
pub fn pages(st: &State, sh: &Shared) -> (usize, usize) {
    let a = areas(sh.chrome().body, st);
    (a.rows_page, a.cols_page)
}

pub fn update(st: &mut State, sh: &mut Shared, action: Action) -> Outcome {
    sync(st, sh);
    let (rows, cols) = pages(st, sh);
    let outcome = if st.typing {
        typing(st, action)
    } else {
        browsing(st, sh, action, rows)
    };
    st.keep_visible(rows, cols);
    outcome
}

/// Keys while the filter is typed.
fn typing(st: &mut State, action: Action) -> Outcome {
    match action {
        Action::Input(c) => st.filter.push(c),
        Action::InsertText(text) => st.filter.push_str(text.lines().next().unwrap_or("")),
        Action::Backspace => {
            st.filter.pop();
        }
        Action::ClearInput => st.filter.clear(),
        Action::Submit => {
            st.typing = false;
            return ().into();
        }
        Action::Back => {
            st.typing = false;
            st.filter.clear();
        }
        Action::Down => {
            st.row += 1;
            return ().into();
        }
        Action::Up => {
            st.row = st.row.saturating_sub(1);
            return ().into();
        }
        _ => return Outcome::Ignored,
    }
    st.refresh();
    ().into()
}

fn browsing(st: &mut State, sh: &mut Shared, action: Action, page: usize) -> Outcome {
    let mut cursor = Cursor {
        selected: st.row,
        offset: st.top,
    };
    if cursor.navigate(&action, st.shown.len(), page) {
        st.row = cursor.selected;
        st.top = cursor.offset;
        return ().into();
    }
    match action {
        Action::Left => st.col = st.col.saturating_sub(1),
        Action::Right => st.col += 1,
        Action::LineStart => st.col = 0,
        Action::SortNext | Action::SortReverse => {
            st.sort = st.sort.next();
            st.refresh();
            sh.set_status(Level::Info, format!("sorted by {}", st.sort.name()));
        }
        Action::StartFilter => st.typing = true,
        Action::ToggleFailingOnly => {
            st.disagreeing_only = !st.disagreeing_only;
            st.refresh();
        }
        Action::Open | Action::ToggleMark => choose(st, sh),
        Action::Click { column, row } => return click(st, sh, column, row),
        Action::Back if st.mark.is_some() => st.mark = None,
        Action::Back if !st.filter.is_empty() => {
            st.filter.clear();
            st.refresh();
        }
        Action::Back | Action::Close => sh.go(Nav::Back),
        _ => return Outcome::Ignored,
    }
    ().into()
}

/// `Enter` on a cell: mark it; on the marked cell: unmark it; on another cell of the marked
/// row: that pair is chosen for the paired view; on another row: the mark moves there.
fn choose(st: &mut State, sh: &mut Shared) {
    let Some(&r) = st.shown.get(st.row) else {
        return;
    };
    if st.grid.columns.len() < 2 {
        sh.set_status(Level::Warn, "the paired view needs two compared sessions");
        return;
    }
    let task = st.grid.rows[r].task_id.clone();
    match st.mark {
        Some((mr, mc)) if mr == r && mc == st.col => {
            st.mark = None;
            sh.set_status(Level::Info, "unmarked");
        }
        Some((mr, mc)) if mr == r => {
            let pair = Pair {
                task_id: task.clone(),
                a: mc,
                b: st.col,
            };
            sh.set_status(
                Level::Info,
                format!("{task}: {} beside {}", letter(mc), letter(st.col)),
            );
            st.mark = None;
            st.open = Some(pair.clone());
            sh.pair = Some(pair);
            sh.go(Nav::To(ScreenId::Paired));
        }
        _ => {
            st.mark = Some((r, st.col));
            sh.set_status(
                Level::Info,
                format!(
                    "marked {} {task}: Enter on another cell of this row opens the pair",
                    letter(st.col)
                ),
            );
        }
    }
}

/// A click on a row selects it; on a cell, its column too.
fn click(st: &mut State, sh: &Shared, column: u16, row: u16) -> Outcome {
    let a = areas(sh.chrome().body, st);
    if row < a.rows.y || row >= a.rows.bottom() || column < a.rows.x || column >= a.rows.right() {
        return Outcome::Ignored;
    }
    let k = st.top + usize::from(row - a.rows.y);
    if k >= st.shown.len() {
        return Outcome::Ignored;
    }
    st.row = k;
    let x = usize::from(column - a.rows.x);
    let start = st.id_width + 1 + LEAD_WIDTH;
    if x >= start {
        let j = st.left + (x - start) / (a.cell + GAP);
        if j < st.grid.columns.len() && j < st.left + a.cols_page {
            st.col = j;
        }
    }
    ().into()
}
