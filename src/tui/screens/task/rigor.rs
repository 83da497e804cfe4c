//! The Rigor tab's keys: the cursor moves line by line through the reference (the rows of
//! mutant diffs are skipped), `]`/`[` jump between lines with surviving mutants, Enter asks
//! again for a task that could not be analysed.

use super::state::TaskState;
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::shared::{CodePart, Shared};
use crate::tui::widgets::layout;
use crate::tui::widgets::rigor_view::{self, Row};

/// Rows the code pane shows.
fn page(sh: &Shared) -> usize {
    let (_, content) = layout::task_split(sh.chrome().body);
    let (code, _) = rigor_view::split(content);
    layout::inner_page(code).max(1)
}

pub fn update(st: &mut TaskState, sh: &mut Shared, action: Action) -> Vec<Effect> {
    let lines = sh.code_source(st.idx, CodePart::Solution).lines().count().max(1);
    let result = sh.rigor.results.get(&st.idx).cloned();
    let page = page(sh);
    let cursor = st.rigor_cursor.clamp(1, lines);
    let survivors: Vec<usize> = result
        .as_deref()
        .map(|r| rigor_view::survivors_by_line(r).into_keys().collect())
        .unwrap_or_default();
    st.rigor_cursor = match action {
        Action::Up => cursor.saturating_sub(1).max(1),
        Action::Down => (cursor + 1).min(lines),
        Action::PageUp => cursor.saturating_sub(page).max(1),
        Action::PageDown => (cursor + page).min(lines),
        Action::Top => 1,
        Action::Bottom => lines,
        Action::Scroll(n) => cursor.saturating_add_signed(isize::from(n)).clamp(1, lines),
        Action::NextMutant => survivors.iter().copied().find(|&l| l > cursor).unwrap_or(cursor),
        Action::PrevMutant => survivors.iter().rev().copied().find(|&l| l < cursor).unwrap_or(cursor),
        Action::Open => return sh.rigor.retry(st.idx).into_iter().collect(),
        _ => cursor,
    };
    // Keep the cursor's line, and the diffs under it, in view.
    let rows = rigor_view::rows(result.as_deref(), lines);
    let at = rows.iter().position(|r| *r == Row::Code(st.rigor_cursor)).unwrap_or(0);
    let below = rows[at + 1..]
        .iter()
        .take_while(|r| !matches!(r, Row::Code(_)))
        .count();
    if at < st.rigor_top {
        st.rigor_top = at;
    } else if at + below >= st.rigor_top + page {
        st.rigor_top = (at + below + 1).saturating_sub(page).min(at);
    }
    sh.rigor.want(&[st.idx]).into_iter().collect()
}
