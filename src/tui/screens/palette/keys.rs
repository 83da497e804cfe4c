//! The default keys of this screen.

use crate::tui::action::Action as A;
use crate::tui::keymap::{Add, Context as C, KeyChord};
use crossterm::event::KeyCode as K;

/// The default keys of this screen (part of the one keymap: `?` and the palette list them).
pub fn add(add: &mut Add) {
    let esc = [KeyChord::plain(K::Esc)];

    add(
        C::Palette,
        &[KeyChord::plain(K::Enter)],
        A::Submit,
        Some("run the command"),
    );
    add(C::Palette, &esc, A::Back, Some("close the palette"));
    add(
        C::Palette,
        &[KeyChord::plain(K::Down), KeyChord::ctrl('n')],
        A::Down,
        None,
    );
    add(
        C::Palette,
        &[KeyChord::plain(K::Up), KeyChord::ctrl('p')],
        A::Up,
        None,
    );
    add(
        C::Palette,
        &[KeyChord::plain(K::Backspace)],
        A::Backspace,
        None,
    );
    add(C::Palette, &[KeyChord::ctrl('u')], A::ClearInput, None);
}
