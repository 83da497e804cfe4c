//! The task view's hints and title.

use ratatui::text::Span;

use super::state::{Tab, TaskState};
use crate::tui::action::Action as A;
use crate::tui::keymap::Context as C;
use crate::tui::keymap::nav_scroll;
use crate::tui::keymap::{Add, KeyChord};
use crate::tui::shared::Shared;
use crossterm::event::KeyCode as K;

pub fn hints(st: &TaskState) -> Vec<(C, A, &'static str)> {
    let mut h = vec![(C::Task, A::NextTab, "tab")];
    // On the Rigor tab `]` steps through survivors, not tasks.
    if st.tab != Tab::Rigor {
        h.push((C::Task, A::NextTask, "next task"));
    }
    if st.tab == Tab::Methods {
        h.insert(0, (C::Methods, A::Open, "show code"));
    }
    if st.tab == Tab::Rigor {
        h.insert(0, (C::Rigor, A::NextMutant, "next survivor"));
    }
    h.extend([
        (C::Global, A::ToggleHelp, "help"),
        (C::Task, A::Back, "back"),
    ]);
    h
}

pub fn title(st: &TaskState, sh: &Shared) -> Vec<Span<'static>> {
    match sh.data.dataset.tasks.get(st.idx) {
        Some(task) => vec![
            Span::styled(task.id.clone(), sh.theme().accent()),
            Span::raw(format!(" {}", task.class_name)),
        ],
        None => Vec::new(),
    }
}

/// The default keys of this screen (part of the one keymap: `?` and the palette list them).
pub fn add(add: &mut Add) {
    let esc = [KeyChord::plain(K::Esc)];
    let q = [KeyChord::ch('q')];

    add(C::Task, &[KeyChord::plain(K::Tab)], A::NextTab, None);
    add(C::Task, &[KeyChord::plain(K::BackTab)], A::PrevTab, None);
    for n in 1..=6u8 {
        add(
            C::Task,
            &[KeyChord::ch(char::from(b'0' + n))],
            A::GoTab(n),
            None,
        );
    }
    add(C::Task, &[KeyChord::ch(']')], A::NextTask, None);
    add(C::Task, &[KeyChord::ch('[')], A::PrevTask, None);
    add(C::Task, &esc, A::Back, Some("back to the task list"));
    add(C::Task, &q, A::Close, Some("back to the task list"));
    nav_scroll(add, C::Code, true);
    add(
        C::Code,
        &[KeyChord::ch('h'), KeyChord::plain(K::Left)],
        A::Left,
        None,
    );
    add(
        C::Code,
        &[KeyChord::ch('l'), KeyChord::plain(K::Right)],
        A::Right,
        None,
    );
    add(C::Code, &[KeyChord::ch('0')], A::LineStart, None);
    nav_scroll(add, C::Methods, false);
    add(
        C::Methods,
        &[KeyChord::plain(K::Enter)],
        A::Open,
        Some("show the method in Solution"),
    );
    nav_scroll(add, C::Deps, true);
    nav_scroll(add, C::Rigor, false);
    add(
        C::Rigor,
        &[KeyChord::ch(']')],
        A::NextMutant,
        Some("next surviving mutant"),
    );
    add(
        C::Rigor,
        &[KeyChord::ch('[')],
        A::PrevMutant,
        Some("previous surviving mutant"),
    );
    add(
        C::Rigor,
        &[KeyChord::plain(K::Enter)],
        A::Open,
        Some("measure again a task that could not be analysed"),
    );
}
