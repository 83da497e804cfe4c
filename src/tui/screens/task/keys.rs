//! The task view's hints and title.

use ratatui::text::Span;

use super::state::{Tab, TaskState};
use crate::tui::action::Action as A;
use crate::tui::keymap::Context as C;
use crate::tui::shared::Shared;

pub fn hints(st: &TaskState) -> Vec<(C, A, &'static str)> {
    let mut h = vec![
        (C::Task, A::NextTab, "tab"),
        (C::Task, A::NextTask, "next task"),
    ];
    if st.tab == Tab::Methods {
        h.insert(0, (C::Methods, A::Open, "show code"));
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
