//! One method's rounds of a generation run: prompts, answers, tests, repairs.

pub mod keys;
mod update;
pub mod view;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::Widget;

use crate::tui::action::Action;
use crate::tui::keymap::Context;
use crate::tui::screen::{Outcome, Screen};
use crate::tui::shared::Shared;

/// The method shown is [`Shared::runs`]`.step`.
#[derive(Debug, Default)]
pub struct State;

impl Screen for State {
    fn contexts(&self, sh: &Shared) -> Vec<Context> {
        sh.run_contexts()
    }

    fn update(&mut self, sh: &mut Shared, action: Action) -> Outcome {
        sh.update_step(action);
        ().into()
    }

    fn render(&self, sh: &Shared, area: Rect, buf: &mut Buffer) {
        view::StepView { sh }.render(area, buf);
    }

    fn title(&self, sh: &Shared) -> Vec<Span<'static>> {
        crate::tui::runs::title(sh)
    }

    fn hints(&self, sh: &Shared) -> Vec<(Context, Action, &'static str)> {
        let _ = sh;
        use Action as A;
        use Context as C;
        vec![
            (C::Step, A::NextRound, "round"),
            (C::Step, A::NextMethod, "method"),
            (C::Step, A::ToggleFold, "prompt"),
            (C::Step, A::NextTab, "section"),
            (C::Global, A::ToggleHelp, "help"),
            (C::Step, A::Back, "back"),
        ]
    }
}
