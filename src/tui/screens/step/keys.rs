//! The default keys of this screen.

use crate::tui::action::Action as A;
use crate::tui::keymap::nav;
use crate::tui::keymap::{Add, Context as C, KeyChord};
use crossterm::event::KeyCode as K;

/// The default keys of this screen (part of the one keymap: `?` and the palette list them).
pub fn add(add: &mut Add) {
    let esc_q = [KeyChord::plain(K::Esc), KeyChord::ch('q')];

    add(
        C::Step,
        &[
            KeyChord::ch('l'),
            KeyChord::plain(K::Right),
            KeyChord::ch(']'),
        ],
        A::NextRound,
        Some("next round (a repair)"),
    );
    add(
        C::Step,
        &[
            KeyChord::ch('h'),
            KeyChord::plain(K::Left),
            KeyChord::ch('['),
        ],
        A::PrevRound,
        Some("previous round"),
    );
    add(
        C::Step,
        &[KeyChord::ch('n'), KeyChord::ch('J')],
        A::NextMethod,
        Some("next method (schedule order)"),
    );
    add(
        C::Step,
        &[KeyChord::ch('p'), KeyChord::ch('K')],
        A::PrevMethod,
        Some("previous method"),
    );
    add(
        C::Step,
        &[KeyChord::ch('z'), KeyChord::plain(K::Enter)],
        A::ToggleFold,
        None,
    );
    add(
        C::Step,
        &[KeyChord::plain(K::Tab)],
        A::NextTab,
        Some("next pane (wide) / next section"),
    );
    add(
        C::Step,
        &[KeyChord::plain(K::BackTab)],
        A::PrevTab,
        Some("previous pane / previous section"),
    );
    nav(add, C::Step, true, true);
    add(
        C::Step,
        &[KeyChord::ch('x')],
        A::CancelRun,
        Some("stop the run (asks first)"),
    );
    add(C::Step, &esc_q, A::Back, Some("back to the run"));
}
