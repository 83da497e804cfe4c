//! The sessions screen's hints.

use crate::tui::action::Action as A;
use crate::tui::keymap::Context as C;

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
