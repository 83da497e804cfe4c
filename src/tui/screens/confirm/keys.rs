//! The default keys of this screen.

use crate::tui::action::Action as A;
use crate::tui::keymap::{Add, Context as C, KeyChord};
use crossterm::event::KeyCode as K;

/// The default keys of this screen (part of the one keymap: `?` and the palette list them).
pub fn add(add: &mut Add) {
    add(
        C::Confirm,
        &[KeyChord::ch('y'), KeyChord::plain(K::Enter)],
        A::Submit,
        Some("yes"),
    );
    add(
        C::Confirm,
        &[
            KeyChord::ch('n'),
            KeyChord::plain(K::Esc),
            KeyChord::ch('q'),
        ],
        A::Back,
        Some("no"),
    );
}
