//! The sessions screen's hints.

use crate::tui::action::Action as A;
use crate::tui::keymap::Context as C;
use crate::tui::keymap::nav;
use crate::tui::keymap::{Add, KeyChord};
use crossterm::event::KeyCode as K;

pub fn hints() -> Vec<(C, A, &'static str)> {
    vec![
        (C::Sessions, A::Open, "open"),
        (C::Sessions, A::ToggleMark, "mark"),
        (C::Sessions, A::Compare, "compare"),
        (C::Sessions, A::DeleteSession, "delete"),
        (C::Global, A::NewEval, "new"),
        (C::Sessions, A::Reload, "reload"),
        (C::Global, A::ToggleHelp, "help"),
        (C::Sessions, A::Back, "back"),
    ]
}

/// The default keys of this screen (part of the one keymap: `?` and the palette list them).
pub fn add(add: &mut Add) {
    let enter = [KeyChord::plain(K::Enter)];
    let esc_q = [KeyChord::plain(K::Esc), KeyChord::ch('q')];

    nav(add, C::Sessions, false, false);
    add(
        C::Sessions,
        &enter,
        A::Open,
        Some("open the evaluation (replay)"),
    );
    add(C::Sessions, &[KeyChord::ch(' ')], A::ToggleMark, None);
    add(C::Sessions, &[KeyChord::ch('c')], A::Compare, None);
    add(C::Sessions, &[KeyChord::ch('d')], A::DeleteSession, None);
    add(C::Sessions, &[KeyChord::ch('r')], A::Reload, None);
    add(C::Sessions, &[KeyChord::ch('x')], A::CancelRun, None);
    add(C::Sessions, &esc_q, A::Back, Some("back"));
}
