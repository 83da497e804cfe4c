//! One evaluation, live or replayed: its metrics, fingerprint and tasks.

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

/// What it shows and its cursor are [`Shared::ev`] (the live run's events change them).
#[derive(Debug, Default)]
pub struct State;

impl Screen for State {
    fn contexts(&self, sh: &Shared) -> Vec<Context> {
        let _ = sh;
        vec![Context::Eval, Context::Global]
    }

    fn update(&mut self, sh: &mut Shared, action: Action) -> Outcome {
        sh.update_eval(action);
        ().into()
    }

    fn render(&self, sh: &Shared, area: Rect, buf: &mut Buffer) {
        crate::tui::widgets::eval_view::EvalView { sh }.render(area, buf);
    }

    fn title(&self, sh: &Shared) -> Vec<Span<'static>> {
        crate::tui::evals::title(sh)
    }

    fn hints(&self, sh: &Shared) -> Vec<(Context, Action, &'static str)> {
        keys::hints(sh)
    }
}
