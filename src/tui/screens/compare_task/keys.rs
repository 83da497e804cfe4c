//! The default keys of this screen.

use crate::tui::action::Action as A;
use crate::tui::keymap::nav;
use crate::tui::keymap::{Add, Context as C, KeyChord};
use crossterm::event::KeyCode as K;

/// The default keys of this screen (part of the one keymap: `?` and the palette list them).
pub fn add(add: &mut Add) {
    let enter = [KeyChord::plain(K::Enter)];
    let esc_q = [KeyChord::plain(K::Esc), KeyChord::ch('q')];
    let tab = [KeyChord::plain(K::Tab)];
    let left = [KeyChord::ch('h'), KeyChord::plain(K::Left)];
    let right = [KeyChord::ch('l'), KeyChord::plain(K::Right)];

    nav(add, C::CompareTask, true, false);
    add(C::CompareTask, &left, A::Left, Some("previous session"));
    add(C::CompareTask, &right, A::Right, Some("next session"));
    add(C::CompareTask, &tab, A::Right, Some("next session"));
    add(
        C::CompareTask,
        &enter,
        A::Open,
        Some("this session's tests and code"),
    );
    add(
        C::CompareTask,
        &[KeyChord::ch(']')],
        A::NextTask,
        Some("next differing task"),
    );
    add(
        C::CompareTask,
        &[KeyChord::ch('[')],
        A::PrevTask,
        Some("previous differing task"),
    );
    add(
        C::CompareTask,
        &esc_q,
        A::Back,
        Some("back to the comparison"),
    );
}
