//! How actions change the paired view: panes, scrolling (the code both ways), jumping from
//! change to change, and the diff's layout.

use super::state::{DiffMode, Pane, State};
use super::view::{areas, content_len, rounds_split};
use crate::tui::action::Action;
use crate::tui::evals::{Cursor, EvalSession};
use crate::tui::screen::{Nav, Outcome};
use crate::tui::shared::Shared;

/// Columns the code moves per Left/Right.
const STEP: usize = 8;

/// The compared sessions (none when no comparison is loaded).
pub fn sessions(sh: &Shared) -> &[EvalSession] {
    sh.ev
        .compare
        .as_ref()
        .map_or(&[], |c| c.sessions.as_slice())
}

/// Compute the view again when the compared sessions changed since it was built.
pub fn sync(st: &mut State, sh: &Shared) {
    let sessions = sessions(sh);
    let now: Vec<(String, usize)> = sessions
        .iter()
        .map(|s| (s.info.id.clone(), s.applied))
        .collect();
    if now != st.built {
        st.rebuild(sessions);
    }
}

/// (lines of the shown pane, lines on screen, body width).
pub fn extent(st: &State, sh: &Shared) -> (usize, usize, u16) {
    let body = sh.chrome().body;
    let a = areas(body);
    (
        content_len(st, st.pane, a.inner.width, body.width),
        a.page,
        body.width,
    )
}

/// Keep every scroll inside its pane's content.
pub fn clamp(st: &mut State, sh: &Shared) {
    let (len, mut page, _) = extent(st, sh);
    if st.pane == Pane::Rounds {
        let (_, _, shown) = rounds_split(areas(sh.chrome().body).inner, len);
        page = shown;
        st.method = st.method.min(len.saturating_sub(1));
        let at = &mut st.scroll[Pane::Rounds.index()];
        if st.method < *at {
            *at = st.method;
        } else if st.method >= *at + page {
            *at = st.method + 1 - page;
        }
    }
    let i = st.pane.index();
    st.scroll[i] = st.scroll[i].min(len.saturating_sub(page));
}

pub fn update(st: &mut State, sh: &mut Shared, action: Action) -> Outcome {
    sync(st, sh);
    let (len, page, width) = extent(st, sh);
    let i = st.pane.index();
    if st.pane == Pane::Rounds {
        // The rounds pane moves a selected method (its code is shown below).
        let inner = areas(sh.chrome().body).inner;
        let (_, _, shown) = rounds_split(inner, st.rounds.len());
        let mut cursor = Cursor {
            selected: st.method,
            offset: st.scroll[i],
        };
        if cursor.navigate(&action, st.rounds.len(), shown) {
            st.method = cursor.selected;
            st.scroll[i] = cursor.offset;
            return ().into();
        }
    }
    // Scrolling moves the first line shown (there is no selection).
    let mut cursor = Cursor {
        selected: st.scroll[i],
        offset: 0,
    };
    let max = len.saturating_sub(page);
    if cursor.navigate(&action, max + 1, 1) {
        st.scroll[i] = cursor.selected.min(max);
        return ().into();
    }
    let panes = st.panes();
    let at = panes.iter().position(|p| *p == st.pane).unwrap_or(0);
    match action {
        Action::NextTab => st.pane = panes[(at + 1) % panes.len()],
        Action::PrevTab => st.pane = panes[(at + panes.len() - 1) % panes.len()],
        Action::GoTab(n) => {
            if let Some(p) = panes.get(usize::from(n).saturating_sub(1)) {
                st.pane = *p;
            }
        }
        Action::Left => st.left = st.left.saturating_sub(STEP),
        Action::Right => st.left += STEP,
        Action::LineStart => st.left = 0,
        Action::TogglePanel => {
            st.mode = Some(match st.mode(width) {
                DiffMode::SideBySide => DiffMode::Unified,
                DiffMode::Unified => DiffMode::SideBySide,
            });
            st.pane = Pane::Diff;
            st.scroll[0] = 0;
        }
        Action::NextTask | Action::PrevTask => {
            st.pane = Pane::Diff;
            let unified = st.mode(width) == DiffMode::Unified;
            let starts = st.changes.iter().map(|&(s, u)| if unified { u } else { s });
            let now = st.scroll[0];
            // A change a third of the way down the page.
            let lead = page / 3;
            let target = if action == Action::NextTask {
                starts.clone().find(|&s| s.saturating_sub(lead) > now)
            } else {
                starts.clone().rev().find(|&s| s.saturating_sub(lead) < now)
            };
            if let Some(s) = target {
                st.scroll[0] = s.saturating_sub(lead);
            }
        }
        Action::Back | Action::Close => sh.go(Nav::Back),
        _ => return Outcome::Ignored,
    }
    clamp(st, sh);
    ().into()
}
