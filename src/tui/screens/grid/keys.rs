//! Default keys of the grid screen (part of the one keymap: the help lists them) and its
//! hints for the status line.

use crossterm::event::KeyCode as K;

use crate::tui::action::Action as A;
use crate::tui::keymap::{Add, Context, KeyChord, nav_keys};

/// The grid's keymap context.
pub const CONTEXT: Context = Context::Grid;
/// While the filter is typed: the task list's filter keys (Enter keeps, Esc clears, ↑/↓).
pub const FILTER: Context = Context::Filter;

pub fn add(add: &mut Add) {
    let c = CONTEXT;
    for (keys, action) in nav_keys() {
        // Space marks a cell here.
        let keys: Vec<KeyChord> = keys
            .into_iter()
            .filter(|k| *k != KeyChord::ch(' '))
            .collect();
        add(c, &keys, action, None);
    }
    add(
        c,
        &[KeyChord::ch('h'), KeyChord::plain(K::Left)],
        A::Left,
        Some("previous session"),
    );
    add(
        c,
        &[KeyChord::ch('l'), KeyChord::plain(K::Right)],
        A::Right,
        Some("next session"),
    );
    add(c, &[KeyChord::ch('0')], A::LineStart, Some("first session"));
    add(
        c,
        &[KeyChord::plain(K::Enter)],
        A::Open,
        Some("mark the cell; on a second cell of its row, open the pair"),
    );
    add(
        c,
        &[KeyChord::ch(' ')],
        A::ToggleMark,
        Some("mark the cell; on a second cell of its row, open the pair"),
    );
    add(
        c,
        &[KeyChord::ch('s')],
        A::SortNext,
        Some("sort by disagreement / task id"),
    );
    add(
        c,
        &[KeyChord::ch('/')],
        A::StartFilter,
        Some("filter the task ids"),
    );
    add(
        c,
        &[KeyChord::ch('f')],
        A::ToggleFailingOnly,
        Some("only the tasks the sessions disagree on"),
    );
    add(
        c,
        &[KeyChord::plain(K::Esc)],
        A::Back,
        Some("drop the mark, then the filter, then back"),
    );
    add(
        c,
        &[KeyChord::ch('q')],
        A::Close,
        Some("back to the comparison"),
    );
}

/// Hints for the status line: (context, action, label).
pub fn hints(st: &super::State) -> Vec<(Context, A, &'static str)> {
    if st.typing {
        return vec![
            (FILTER, A::Submit, "keep"),
            (FILTER, A::Back, "clear"),
            (FILTER, A::Down, "next"),
        ];
    }
    vec![
        (
            CONTEXT,
            A::Open,
            if st.mark.is_some() { "pair" } else { "mark" },
        ),
        (CONTEXT, A::Right, "session"),
        (CONTEXT, A::SortNext, "sort"),
        (CONTEXT, A::StartFilter, "filter"),
        (CONTEXT, A::ToggleFailingOnly, "disagreeing"),
        (Context::Global, A::ToggleHelp, "help"),
        (CONTEXT, A::Back, "back"),
    ]
}
