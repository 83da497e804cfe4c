//! Default keys of the generation-run screens (the run, the step-through of a method's rounds,
//! the new-run dialog). Part of the one keymap: the help lists them.

use crossterm::event::KeyCode as K;

use super::action::Action as A;
use super::keymap::{Add, Context as C, KeyChord};
use super::keymap_eval::nav;

pub(super) fn add_defaults(add: &mut Add) {
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

    add(C::NewRun, &enter, A::Submit, Some("start the run"));
    add(
        C::NewRun,
        &[KeyChord::plain(K::Esc)],
        A::Back,
        Some("cancel"),
    );
    add(
        C::NewRun,
        &[
            KeyChord::plain(K::Down),
            KeyChord::plain(K::Tab),
            KeyChord::ctrl('n'),
        ],
        A::Down,
        Some("next field"),
    );
    add(
        C::NewRun,
        &[
            KeyChord::plain(K::Up),
            KeyChord::plain(K::BackTab),
            KeyChord::ctrl('p'),
        ],
        A::Up,
        Some("previous field"),
    );
    add(
        C::NewRun,
        &[KeyChord::plain(K::Right)],
        A::Right,
        Some("next choice / one more (Space too)"),
    );
    add(
        C::NewRun,
        &[KeyChord::plain(K::Left)],
        A::Left,
        Some("previous choice / one less"),
    );
    add(
        C::NewRun,
        &[KeyChord::plain(K::Backspace)],
        A::Backspace,
        None,
    );
    add(C::NewRun, &[KeyChord::ctrl('u')], A::ClearInput, None);
}
