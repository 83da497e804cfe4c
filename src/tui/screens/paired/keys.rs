//! Default keys of the paired view (part of the one keymap: the help lists them) and its
//! hints for the status line.

use crossterm::event::KeyCode as K;

use crate::tui::action::Action as A;
use crate::tui::keymap::{Add, Context, KeyChord, nav_keys};

/// The paired view's keymap context.
pub const CONTEXT: Context = Context::Paired;

pub fn add(add: &mut Add) {
    let c = CONTEXT;
    for (keys, action) in nav_keys() {
        let note = match action {
            A::Down => Some("scroll down (rounds: next method)"),
            A::Up => Some("scroll up (rounds: previous method)"),
            _ => None,
        };
        add(c, &keys, action, note);
    }
    add(
        c,
        &[KeyChord::plain(K::Tab)],
        A::NextTab,
        Some("next pane: diff, failing tests, repair rounds"),
    );
    add(
        c,
        &[KeyChord::plain(K::BackTab)],
        A::PrevTab,
        Some("previous pane"),
    );
    for (n, ch, label) in [
        (1u8, '1', "diff pane"),
        (2, '2', "failing tests pane"),
        (3, '3', "repair rounds pane"),
    ] {
        add(c, &[KeyChord::ch(ch)], A::GoTab(n), Some(label));
    }
    add(
        c,
        &[KeyChord::ch('h'), KeyChord::plain(K::Left)],
        A::Left,
        Some("scroll the code left"),
    );
    add(
        c,
        &[KeyChord::ch('l'), KeyChord::plain(K::Right)],
        A::Right,
        Some("scroll the code right"),
    );
    add(c, &[KeyChord::ch('0')], A::LineStart, None);
    add(c, &[KeyChord::ch(']')], A::NextTask, Some("next change"));
    add(
        c,
        &[KeyChord::ch('[')],
        A::PrevTask,
        Some("previous change"),
    );
    add(
        c,
        &[KeyChord::ch('v')],
        A::TogglePanel,
        Some("side-by-side / unified diff"),
    );
    add(
        c,
        &[KeyChord::plain(K::Esc), KeyChord::ch('q')],
        A::Back,
        Some("back to the grid"),
    );
}

/// Hints for the status line: (context, action, label).
pub fn hints(_st: &super::State) -> Vec<(Context, A, &'static str)> {
    vec![
        (CONTEXT, A::NextTab, "pane"),
        (CONTEXT, A::NextTask, "next change"),
        (CONTEXT, A::TogglePanel, "layout"),
        (Context::Global, A::ToggleHelp, "help"),
        (CONTEXT, A::Back, "back"),
    ]
}
