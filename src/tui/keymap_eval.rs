//! Default keys of the evaluation screens (sessions, evaluation, task tests, comparison, the
//! new-evaluation dialog and questions). Part of the one keymap: the help lists them.

use crossterm::event::KeyCode as K;

use super::action::Action as A;
use super::keymap::{Add, Context as C, KeyChord, nav_keys};

/// Navigation keys for a view; `space_pages`: Space is Page Down (else it is free).
pub(super) fn nav(add: &mut Add, c: C, space_pages: bool, scroll_note: bool) {
    for (keys, action) in nav_keys() {
        let keys: Vec<KeyChord> = keys
            .into_iter()
            .filter(|k| space_pages || *k != KeyChord::ch(' '))
            .collect();
        let note = match action {
            A::Down if scroll_note => Some("down / scroll down"),
            A::Up if scroll_note => Some("up / scroll up"),
            _ => None,
        };
        add(c, &keys, action, note);
    }
}

pub(super) fn add_defaults(add: &mut Add) {
    let enter = [KeyChord::plain(K::Enter)];
    let esc_q = [KeyChord::plain(K::Esc), KeyChord::ch('q')];
    let tab = [KeyChord::plain(K::Tab)];
    let backtab = [KeyChord::plain(K::BackTab)];
    let left = [KeyChord::ch('h'), KeyChord::plain(K::Left)];
    let right = [KeyChord::ch('l'), KeyChord::plain(K::Right)];

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
    add(C::Sessions, &esc_q, A::Back, Some("back to the task list"));

    nav(add, C::Eval, true, false);
    add(C::Eval, &enter, A::Open, Some("the task's tests and code"));
    add(C::Eval, &[KeyChord::ch('f')], A::ToggleFailingOnly, None);
    add(C::Eval, &[KeyChord::ch('x')], A::CancelRun, None);
    add(C::Eval, &esc_q, A::Back, Some("back"));

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

    add(
        C::Compare,
        &[KeyChord::ch('m')],
        A::ShowGrid,
        Some("the task × session grid"),
    );
    nav(add, C::Compare, true, false);
    add(
        C::Compare,
        &enter,
        A::Open,
        Some("the task in every session"),
    );
    add(C::Compare, &esc_q, A::Back, Some("back to the sessions"));

    nav(add, C::CompareTask, true, false);
    add(C::CompareTask, &left, A::Left, Some("previous session"));
    add(C::CompareTask, &right, A::Right, Some("next session"));
    add(C::CompareTask, &tab, A::Right, Some("next session"));
    add(
        C::CompareTask,
        &enter,
        A::Open,
        Some("this session's tests and code"),
    );
    add(
        C::CompareTask,
        &[KeyChord::ch(']')],
        A::NextTask,
        Some("next differing task"),
    );
    add(
        C::CompareTask,
        &[KeyChord::ch('[')],
        A::PrevTask,
        Some("previous differing task"),
    );
    add(
        C::CompareTask,
        &esc_q,
        A::Back,
        Some("back to the comparison"),
    );

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

    add(
        C::Confirm,
        &[KeyChord::ch('y'), KeyChord::plain(K::Enter)],
        A::Submit,
        Some("yes"),
    );
    add(
        C::Confirm,
        &[
            KeyChord::ch('n'),
            KeyChord::plain(K::Esc),
            KeyChord::ch('q'),
        ],
        A::Back,
        Some("no"),
    );
}
