//! Two or more sessions side by side: figures, differing tasks.

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

/// The compared sessions and the cursor are [`Shared::ev`]`.compare` (the task screen across them reads them too).
#[derive(Debug, Default)]
pub struct State;

impl Screen for State {
    fn contexts(&self, sh: &Shared) -> Vec<Context> {
        let _ = sh;
        vec![Context::Compare, Context::Global]
    }

    fn update(&mut self, sh: &mut Shared, action: Action) -> Outcome {
        sh.update_compare(action);
        ().into()
    }

    fn render(&self, sh: &Shared, area: Rect, buf: &mut Buffer) {
        crate::tui::widgets::compare::CompareView { sh }.render(area, buf);
    }

    fn title(&self, sh: &Shared) -> Vec<Span<'static>> {
        crate::tui::evals::compare_title(sh)
    }

    fn hints(&self, sh: &Shared) -> Vec<(Context, Action, &'static str)> {
        let _ = sh;
        vec![
            (Context::Compare, Action::Open, "task in each"),
            (Context::Compare, Action::ShowGrid, "grid"),
            (Context::Global, Action::ToggleHelp, "help"),
            (Context::Compare, Action::Back, "back"),
        ]
    }
}
