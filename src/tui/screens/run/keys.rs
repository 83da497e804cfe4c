//! The default keys of this screen.

use crate::tui::action::Action as A;
use crate::tui::keymap::nav;
use crate::tui::keymap::{Add, Context as C, KeyChord};
use crossterm::event::KeyCode as K;

/// The default keys of this screen (part of the one keymap: `?` and the palette list them).
pub fn add(add: &mut Add) {
    let enter = [KeyChord::plain(K::Enter)];
    let esc_q = [KeyChord::plain(K::Esc), KeyChord::ch('q')];

    nav(add, C::Run, true, false);
    add(
        C::Run,
        &[KeyChord::plain(K::Tab)],
        A::NextTab,
        Some("next pane"),
    );
    add(
        C::Run,
        &[KeyChord::plain(K::BackTab)],
        A::PrevTab,
        Some("previous pane"),
    );
    add(
        C::Run,
        &enter,
        A::Open,
        Some("a task: its methods · a method: step through its rounds"),
    );
    add(C::Run, &[KeyChord::ch('m')], A::TogglePanel, None);
    add(
        C::Run,
        &[KeyChord::ch('x')],
        A::CancelRun,
        Some("stop the run (asks first)"),
    );
    add(C::Run, &esc_q, A::Back, Some("back"));
    // Ctrl-C stops a live run (asking first) instead of quitting; `q` still leaves.
    add(
        C::RunLive,
        &[KeyChord::ch('c'), KeyChord::ctrl('c')],
        A::CancelRun,
        Some("stop the run (asks first)"),
    );
}
