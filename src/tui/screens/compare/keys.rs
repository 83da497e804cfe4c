//! The default keys of this screen.

use crate::tui::action::Action as A;
use crate::tui::keymap::nav;
use crate::tui::keymap::{Add, Context as C, KeyChord};
use crossterm::event::KeyCode as K;

/// The default keys of this screen (part of the one keymap: `?` and the palette list them).
pub fn add(add: &mut Add) {
    let enter = [KeyChord::plain(K::Enter)];
    let esc_q = [KeyChord::plain(K::Esc), KeyChord::ch('q')];

    add(
        C::Compare,
        &[KeyChord::ch('m')],
        A::ShowGrid,
        Some("the task × session grid"),
    );
    nav(add, C::Compare, true, false);
    add(
        C::Compare,
        &enter,
        A::Open,
        Some("the task in every session"),
    );
    add(C::Compare, &esc_q, A::Back, Some("back to the sessions"));
}
