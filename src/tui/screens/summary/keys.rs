//! The default keys of this screen.

use crate::tui::action::Action as A;
use crate::tui::keymap::nav_scroll;
use crate::tui::keymap::{Add, Context as C, KeyChord};
use crossterm::event::KeyCode as K;

/// The default keys of this screen (part of the one keymap: `?` and the palette list them).
pub fn add(add: &mut Add) {
    let esc = [KeyChord::plain(K::Esc)];
    let q = [KeyChord::ch('q')];

    nav_scroll(add, C::Summary, true);
    add(C::Summary, &esc, A::Back, Some("back"));
    add(C::Summary, &q, A::Close, Some("back"));
}
