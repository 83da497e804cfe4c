//! The paired view: one task in two of the compared sessions (the pair chosen on the grid):
//! the two generated classes as a diff, each side's failing tests, and for generation runs
//! each method's repair rounds side by side.

pub mod keys;
pub mod state;
pub mod update;
pub mod view;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;

pub use state::{DiffMode, Pane, State};

/// The paired view's state under the name the brief gives it.
pub type PairedState = State;

use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::keymap::Context;
use crate::tui::screen::{Outcome, Screen};
use crate::tui::shared::Shared;

impl Screen for State {
    fn contexts(&self, _sh: &Shared) -> Vec<Context> {
        vec![keys::CONTEXT, Context::Global]
    }

    fn update(&mut self, sh: &mut Shared, action: Action) -> Outcome {
        update::update(self, sh, action)
    }

    fn render(&self, sh: &Shared, area: Rect, buf: &mut Buffer) {
        view::render(self, sh, area, buf);
    }

    fn title(&self, sh: &Shared) -> Vec<Span<'static>> {
        vec![Span::styled(
            format!(
                "{} · {} {} vs {} {}",
                self.task_id,
                self.sides[0].letter,
                self.sides[0].label,
                self.sides[1].letter,
                self.sides[1].label
            ),
            sh.theme().base(),
        )]
    }

    fn hints(&self, _sh: &Shared) -> Vec<(Context, Action, &'static str)> {
        keys::hints(self)
    }

    fn opened(&mut self, sh: &mut Shared) -> Vec<Effect> {
        if let Some(p) = sh.pair.take() {
            *self = State::new(update::sessions(sh), p.task_id, p.a, p.b);
        }
        self.clamp(sh);
        Vec::new()
    }

    fn clamp(&mut self, sh: &Shared) {
        update::sync(self, sh);
        update::clamp(self, sh);
    }
}
