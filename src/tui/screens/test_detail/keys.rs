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
    let backtab = [KeyChord::plain(K::BackTab)];
    let left = [KeyChord::ch('h'), KeyChord::plain(K::Left)];
    let right = [KeyChord::ch('l'), KeyChord::plain(K::Right)];

    add(C::TestDetail, &tab, A::NextTab, Some("next pane"));
    add(C::TestDetail, &backtab, A::PrevTab, Some("previous pane"));
    nav(add, C::TestDetail, true, true);
    add(C::TestDetail, &left, A::Left, Some("scroll the code left"));
    add(
        C::TestDetail,
        &right,
        A::Right,
        Some("scroll the code right"),
    );
    add(C::TestDetail, &[KeyChord::ch('0')], A::LineStart, None);
    add(
        C::TestDetail,
        &enter,
        A::Open,
        Some("show the failing line in the code"),
    );
    add(C::TestDetail, &[KeyChord::ch(']')], A::NextTask, None);
    add(C::TestDetail, &[KeyChord::ch('[')], A::PrevTask, None);
    add(C::TestDetail, &esc_q, A::Back, Some("back"));
}
