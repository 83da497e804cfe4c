//! The default keys of this screen.

use crate::tui::action::Action as A;
use crate::tui::keymap::{Add, Context as C, KeyChord};
use crossterm::event::KeyCode as K;

/// The default keys of this screen (part of the one keymap: `?` and the palette list them).
pub fn add(add: &mut Add) {
    let down = [KeyChord::ch('j'), KeyChord::plain(K::Down)];
    let up = [KeyChord::ch('k'), KeyChord::plain(K::Up)];

    add(
        C::Help,
        &[
            KeyChord::plain(K::Esc),
            KeyChord::ch('?'),
            KeyChord::ch('q'),
        ],
        A::Back,
        Some("close the help"),
    );
    add(C::Help, &down, A::Down, Some("scroll down"));
    add(C::Help, &up, A::Up, Some("scroll up"));
}
