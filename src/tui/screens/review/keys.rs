//! The default keys of this screen.

use crate::tui::action::Action as A;
use crate::tui::keymap::nav;
use crate::tui::keymap::{Add, Context as C, KeyChord};
use crate::tui::review::Bulk;
use crossterm::event::KeyCode as K;

/// The default keys of this screen (part of the one keymap: `?` and the palette list them).
pub fn add(add: &mut Add) {
    let ch = KeyChord::ch;

    nav(add, C::Review, false, false);
    add(
        C::Review,
        &[KeyChord::plain(K::Tab)],
        A::NextTab,
        Some("next part (the task's, then the method's docstring and tests)"),
    );
    add(
        C::Review,
        &[KeyChord::plain(K::BackTab)],
        A::PrevTab,
        Some("previous part"),
    );
    add(
        C::Review,
        &[ch(']')],
        A::NextMethod,
        Some("next method (its coverage, docstring, tests)"),
    );
    add(
        C::Review,
        &[ch('[')],
        A::PrevMethod,
        Some("previous method"),
    );
    add(
        C::Review,
        &[ch('a')],
        A::ReviewApprove,
        Some("approve (refused while a gate fails)"),
    );
    add(C::Review, &[ch('r')], A::ReviewReject, None);
    add(C::Review, &[ch('w')], A::ReviewNeedsWork, None);
    add(C::Review, &[ch('n')], A::ReviewNote, None);
    add(C::Review, &[ch('o')], A::ReviewOverride, None);
    add(C::Review, &[ch('A')], A::ReviewBulk(Bulk::Approve), None);
    add(C::Review, &[ch('R')], A::ReviewBulk(Bulk::Reject), None);
    add(C::Review, &[ch('W')], A::ReviewBulk(Bulk::NeedsWork), None);
    add(C::Review, &[ch('e')], A::ReviewEdit, None);
    add(C::Review, &[ch('v')], A::ReviewValidate, None);
    add(C::Review, &[ch('V')], A::ReviewBulk(Bulk::Validate), None);
    add(C::Review, &[ch('p')], A::ReviewDraftPublic, None);
    add(C::Review, &[ch('P')], A::ReviewPromote, None);
    add(
        C::Review,
        &[ch('m')],
        A::ReviewDraftKill,
        Some("draft a test that kills a surviving mutant (rigor), then edit it"),
    );
    add(C::Review, &[ch('d')], A::ReviewDiff, None);
    add(C::Review, &[ch('s')], A::CycleStatusFilter, None);
    add(C::Review, &[ch('f')], A::CycleSeverityFilter, None);
    add(
        C::Review,
        &[ch('/')],
        A::StartFilter,
        Some("filter by rule code (empty: any)"),
    );
    add(
        C::Review,
        &[KeyChord::plain(K::Esc), ch('q')],
        A::Back,
        Some("back to the task list"),
    );
    add(
        C::ReviewInput,
        &[KeyChord::plain(K::Enter)],
        A::Submit,
        None,
    );
    add(
        C::ReviewInput,
        &[KeyChord::plain(K::Esc)],
        A::Back,
        Some("cancel"),
    );
    add(
        C::ReviewInput,
        &[KeyChord::plain(K::Backspace)],
        A::Backspace,
        None,
    );
    add(C::ReviewInput, &[KeyChord::ctrl('u')], A::ClearInput, None);
    nav(add, C::ReviewPromote, false, false);
    add(
        C::ReviewPromote,
        &[ch(' '), ch('x')],
        A::ToggleMark,
        Some("choose / drop the test"),
    );
    add(
        C::ReviewPromote,
        &[KeyChord::plain(K::Enter)],
        A::Submit,
        Some("promote the chosen tests, then edit them"),
    );
    add(
        C::ReviewPromote,
        &[KeyChord::plain(K::Esc), ch('q')],
        A::Back,
        Some("cancel"),
    );
    add(
        C::ReviewConfirm,
        &[ch('y'), KeyChord::plain(K::Enter)],
        A::Submit,
        Some("yes, do it"),
    );
    add(
        C::ReviewConfirm,
        &[ch('n'), KeyChord::plain(K::Esc)],
        A::Back,
        Some("no"),
    );
}
