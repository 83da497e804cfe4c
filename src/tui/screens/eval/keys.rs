//! The evaluation screen's hints.

use crate::tui::action::Action as A;
use crate::tui::evals::Source;
use crate::tui::keymap::Context as C;
use crate::tui::keymap::nav;
use crate::tui::keymap::{Add, KeyChord};
use crate::tui::shared::Shared;
use crossterm::event::KeyCode as K;

pub fn hints(sh: &Shared) -> Vec<(C, A, &'static str)> {
    let mut h = vec![
        (C::Eval, A::Open, "tests"),
        (C::Eval, A::ToggleFailingOnly, "not perfect"),
    ];
    if sh.ev.running && sh.ev.showing == Some(Source::Live) {
        h.push((C::Eval, A::CancelRun, "stop"));
    }
    h.extend([
        (C::Global, A::ToggleHelp, "help"),
        (C::Eval, A::Back, "back"),
    ]);
    h
}

/// The default keys of this screen (part of the one keymap: `?` and the palette list them).
pub fn add(add: &mut Add) {
    let enter = [KeyChord::plain(K::Enter)];
    let esc_q = [KeyChord::plain(K::Esc), KeyChord::ch('q')];

    nav(add, C::Eval, true, false);
    add(C::Eval, &enter, A::Open, Some("the task's tests and code"));
    add(C::Eval, &[KeyChord::ch('f')], A::ToggleFailingOnly, None);
    add(C::Eval, &[KeyChord::ch('x')], A::CancelRun, None);
    add(C::Eval, &esc_q, A::Back, Some("back"));
}
