//! The task list's hints and title.


use crate::tui::action::Action as A;
use crate::tui::keymap::Context as C;
use crate::tui::keymap::nav_scroll;
use crate::tui::keymap::{Add, KeyChord};
use crate::tui::shared::Shared;
use crossterm::event::KeyCode as K;

pub fn hints(sh: &Shared) -> Vec<(C, A, &'static str)> {
    if sh.list.filtering {
        return vec![
            (C::Filter, A::Submit, "open"),
            (C::Filter, A::Back, "cancel"),
            (C::Filter, A::Down, "next"),
            (C::Filter, A::Up, "previous"),
        ];
    }
    vec![
        (C::List, A::Open, "open"),
        (C::List, A::StartFilter, "filter"),
        (C::List, A::SortNext, "sort"),
        (C::List, A::ShowReview, "review"),
        (C::Global, A::NewRun, "run"),
        (C::Global, A::NewEval, "eval"),
        (C::Global, A::ShowSessions, "sessions"),
        (C::Global, A::ToggleHelp, "help"),
        (C::Global, A::ShowSummary, "summary"),
        (C::List, A::Close, "quit"),
        (C::Global, A::OpenPalette, "commands"),
    ]
}

/// The default keys of this screen (part of the one keymap: `?` and the palette list them).
pub fn add(add: &mut Add) {
    let esc = [KeyChord::plain(K::Esc)];
    let q = [KeyChord::ch('q')];
    let ch = KeyChord::ch;

    nav_scroll(add, C::List, false);
    add(
        C::List,
        &[KeyChord::plain(K::Enter)],
        A::Open,
        Some("open the task"),
    );
    add(C::List, &[KeyChord::ch('/')], A::StartFilter, None);
    add(C::List, &[KeyChord::ch('s')], A::SortNext, None);
    add(C::List, &[KeyChord::ch('S')], A::SortReverse, None);
    add(C::List, &esc, A::Back, Some("clear the filter"));
    add(C::List, &q, A::Close, Some("quit"));
    add(
        C::Filter,
        &[KeyChord::plain(K::Enter)],
        A::Submit,
        Some("open the selected task"),
    );
    add(C::Filter, &esc, A::Back, Some("cancel the filter"));
    add(
        C::Filter,
        &[KeyChord::plain(K::Down), KeyChord::ctrl('n')],
        A::Down,
        None,
    );
    add(
        C::Filter,
        &[KeyChord::plain(K::Up), KeyChord::ctrl('p')],
        A::Up,
        None,
    );
    add(
        C::Filter,
        &[KeyChord::plain(K::Backspace)],
        A::Backspace,
        None,
    );
    add(C::Filter, &[KeyChord::ctrl('u')], A::ClearInput, None);
    add(C::List, &[ch('V')], A::ShowReview, None);
}
