//! One task across the compared sessions, test by test.

pub mod keys;
mod update;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::Widget;

use crate::tui::action::Action;
use crate::tui::keymap::Context;
use crate::tui::screen::{Outcome, Screen};
use crate::tui::shared::Shared;

/// The task shown is [`Shared::ev`]`.compare.task`.
#[derive(Debug, Default)]
pub struct State;

impl Screen for State {
    fn contexts(&self, sh: &Shared) -> Vec<Context> {
        let _ = sh;
        vec![Context::CompareTask, Context::Global]
    }

    fn update(&mut self, sh: &mut Shared, action: Action) -> Outcome {
        sh.update_compare_task(action);
        ().into()
    }

    fn render(&self, sh: &Shared, area: Rect, buf: &mut Buffer) {
        crate::tui::widgets::compare::CompareTaskView { sh }.render(area, buf);
    }

    fn title(&self, sh: &Shared) -> Vec<Span<'static>> {
        crate::tui::evals::compare_title(sh)
    }

    fn hints(&self, sh: &Shared) -> Vec<(Context, Action, &'static str)> {
        let _ = sh;
        use Action as A;
        use Context as C;
        vec![
            (C::CompareTask, A::Right, "session"),
            (C::CompareTask, A::Open, "its tests"),
            (C::CompareTask, A::NextTask, "next task"),
            (C::Global, A::ToggleHelp, "help"),
            (C::CompareTask, A::Back, "back"),
        ]
    }
}
