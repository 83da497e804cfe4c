//! The default keys of this screen.

use crate::tui::action::Action as A;
use crate::tui::keymap::{Add, Context as C, KeyChord};
use crossterm::event::KeyCode as K;

/// The default keys of this screen (part of the one keymap: `?` and the palette list them).
pub fn add(add: &mut Add) {
    let enter = [KeyChord::plain(K::Enter)];
    let tab = [KeyChord::plain(K::Tab)];

    add(
        C::NewEval,
        &enter,
        A::Submit,
        Some("evaluate the selected file"),
    );
    add(C::NewEval, &tab, A::Complete, None);
    add(
        C::NewEval,
        &[KeyChord::plain(K::Esc)],
        A::Back,
        Some("cancel"),
    );
    add(
        C::NewEval,
        &[KeyChord::plain(K::Down), KeyChord::ctrl('n')],
        A::Down,
        None,
    );
    add(
        C::NewEval,
        &[KeyChord::plain(K::Up), KeyChord::ctrl('p')],
        A::Up,
        None,
    );
    add(
        C::NewEval,
        &[KeyChord::plain(K::Backspace)],
        A::Backspace,
        None,
    );
    add(C::NewEval, &[KeyChord::ctrl('u')], A::ClearInput, None);
}
