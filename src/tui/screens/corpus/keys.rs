//! Default keys of the corpus browser: the list, its text inputs (filter expression, fuzzy
//! search) and an opened class. Screen-specific keys reuse generic actions with a note.

use crossterm::event::KeyCode as K;

use crate::tui::action::Action as A;
use crate::tui::keymap::{Add, Context, KeyChord, nav_keys};

use super::state::State;

// The keymap contexts of this screen (`CorpusInput` is a text input).
/// The list of classes.
pub const LIST: Context = Context::Corpus;
/// Typing the filter expression or the fuzzy search (a text-input context).
pub const INPUT: Context = Context::CorpusInput;
/// An opened class.
pub const CLASS: Context = Context::CorpusClass;

pub fn add(add: &mut Add) {
    let enter = [KeyChord::plain(K::Enter)];
    let esc_q = [KeyChord::plain(K::Esc), KeyChord::ch('q')];
    let tab = [KeyChord::plain(K::Tab)];
    let backtab = [KeyChord::plain(K::BackTab)];
    let next = [KeyChord::ch(']')];
    let prev = [KeyChord::ch('[')];

    for (keys, action) in nav_keys() {
        add(LIST, &keys, action, None);
    }
    add(
        LIST,
        &enter,
        A::Open,
        Some("open the class (code, skeleton, methods, dependencies)"),
    );
    add(
        LIST,
        &[KeyChord::ch('/')],
        A::StartFilter,
        Some("fuzzy search over class names and paths"),
    );
    add(
        LIST,
        &[KeyChord::ch('f')],
        A::CycleStatusFilter,
        Some("edit the filter expression (CountDeclMethod>=5 and unique …)"),
    );
    add(
        LIST,
        &[KeyChord::ch('s')],
        A::SortNext,
        Some("sort by the next column (shown ones, then every metric)"),
    );
    add(LIST, &[KeyChord::ch('S')], A::SortReverse, None);
    add(
        LIST,
        &[KeyChord::ch('c')],
        A::ToggleMark,
        Some("pin / unpin the sorted column among the shown ones"),
    );
    add(
        LIST,
        &tab,
        A::NextTab,
        Some("next panel: distribution, funnel, duplicates"),
    );
    add(LIST, &backtab, A::PrevTab, Some("previous panel"));
    add(
        LIST,
        &[KeyChord::ch('p')],
        A::TogglePanel,
        Some("show / hide the panel"),
    );
    add(
        LIST,
        &next,
        A::NextTask,
        Some("open the class's next duplicate (exact, then near)"),
    );
    add(
        LIST,
        &prev,
        A::PrevTask,
        Some("open the class's previous duplicate"),
    );
    add(LIST, &esc_q, A::Back, Some("back"));

    add(
        INPUT,
        &enter,
        A::Submit,
        Some("keep it and leave the input"),
    );
    add(
        INPUT,
        &[KeyChord::plain(K::Esc)],
        A::Back,
        Some("restore it and leave the input"),
    );
    add(
        INPUT,
        &[KeyChord::plain(K::Down), KeyChord::ctrl('n')],
        A::Down,
        None,
    );
    add(
        INPUT,
        &[KeyChord::plain(K::Up), KeyChord::ctrl('p')],
        A::Up,
        None,
    );
    add(INPUT, &[KeyChord::plain(K::Backspace)], A::Backspace, None);
    add(INPUT, &[KeyChord::ctrl('u')], A::ClearInput, None);

    add(CLASS, &tab, A::NextTab, Some("next pane"));
    add(CLASS, &backtab, A::PrevTab, Some("previous pane"));
    // Each key its own label: the help lists `1 code pane`, `2 skeleton pane`, ….
    const PANES: [&str; 5] = [
        "code pane",
        "skeleton pane",
        "methods pane",
        "dependencies pane",
        "metrics pane",
    ];
    for (n, label) in (1..=5u8).zip(PANES) {
        add(
            CLASS,
            &[KeyChord::ch(char::from(b'0' + n))],
            A::GoTab(n),
            Some(label),
        );
    }
    for (keys, action) in nav_keys() {
        add(CLASS, &keys, action, None);
    }
    add(
        CLASS,
        &next,
        A::NextTask,
        Some("next duplicate of the class"),
    );
    add(CLASS, &prev, A::PrevTask, Some("previous duplicate"));
    add(
        CLASS,
        &[KeyChord::ch('h'), KeyChord::plain(K::Left)],
        A::Left,
        Some("scroll the code left"),
    );
    add(
        CLASS,
        &[KeyChord::ch('l'), KeyChord::plain(K::Right)],
        A::Right,
        Some("scroll the code right"),
    );
    add(CLASS, &[KeyChord::ch('0')], A::LineStart, None);
    add(CLASS, &esc_q, A::Back, Some("back to the list"));
}

/// The contexts of the screen now, most specific first.
pub fn contexts(st: &State) -> Vec<Context> {
    let own = if st.class.is_some() {
        CLASS
    } else if st.input.is_some() {
        INPUT
    } else {
        LIST
    };
    vec![own, Context::Global]
}

/// Hints for the status line: (context, action, label).
pub fn hints(st: &State) -> Vec<(Context, A, &'static str)> {
    if st.class.is_some() {
        return vec![
            (CLASS, A::NextTab, "pane"),
            (CLASS, A::NextTask, "next duplicate"),
            (CLASS, A::Back, "back"),
        ];
    }
    if st.input.is_some() {
        return vec![
            (INPUT, A::Submit, "keep"),
            (INPUT, A::Back, "cancel"),
            (INPUT, A::Down, "next"),
        ];
    }
    vec![
        (LIST, A::Open, "open"),
        (LIST, A::CycleStatusFilter, "filter"),
        (LIST, A::StartFilter, "search"),
        (LIST, A::SortNext, "sort"),
        (LIST, A::SortReverse, "reverse"),
        (LIST, A::NextTab, "panel"),
        (LIST, A::NextTask, "duplicate"),
        (LIST, A::Back, "back"),
    ]
}
