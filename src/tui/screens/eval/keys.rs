//! The evaluation screen's hints.

use crate::tui::action::Action as A;
use crate::tui::evals::Source;
use crate::tui::keymap::Context as C;
use crate::tui::shared::Shared;

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
