//! The default keys of this screen.

use crate::tui::action::Action as A;
use crate::tui::keymap::{Add, Context as C, KeyChord};
use crossterm::event::KeyCode as K;

/// The default keys of this screen (part of the one keymap: `?` and the palette list them).
pub fn add(add: &mut Add) {
    let enter = [KeyChord::plain(K::Enter)];

    add(C::NewRun, &enter, A::Submit, Some("start the run"));
    add(
        C::NewRun,
        &[KeyChord::plain(K::Esc)],
        A::Back,
        Some("cancel"),
    );
    add(
        C::NewRun,
        &[
            KeyChord::plain(K::Down),
            KeyChord::plain(K::Tab),
            KeyChord::ctrl('n'),
        ],
        A::Down,
        Some("next field"),
    );
    add(
        C::NewRun,
        &[
            KeyChord::plain(K::Up),
            KeyChord::plain(K::BackTab),
            KeyChord::ctrl('p'),
        ],
        A::Up,
        Some("previous field"),
    );
    add(
        C::NewRun,
        &[KeyChord::plain(K::Right)],
        A::Right,
        Some("next choice / one more (Space too)"),
    );
    add(
        C::NewRun,
        &[KeyChord::plain(K::Left)],
        A::Left,
        Some("previous choice / one less"),
    );
    add(
        C::NewRun,
        &[KeyChord::plain(K::Backspace)],
        A::Backspace,
        None,
    );
    add(C::NewRun, &[KeyChord::ctrl('u')], A::ClearInput, None);
}
