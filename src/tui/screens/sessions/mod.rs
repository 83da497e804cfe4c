//! The evaluation and generation sessions on disk: open, mark, compare, delete.

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

/// The sessions listed, their cursor and marks are [`Shared::ev`]: a live run and the background loading update them.
#[derive(Debug, Default)]
pub struct State;

impl Screen for State {
    fn contexts(&self, sh: &Shared) -> Vec<Context> {
        let _ = sh;
        vec![Context::Sessions, Context::Global]
    }

    fn update(&mut self, sh: &mut Shared, action: Action) -> Outcome {
        sh.update_sessions(action).into()
    }

    fn render(&self, sh: &Shared, area: Rect, buf: &mut Buffer) {
        view::SessionsView { sh }.render(area, buf);
    }

    fn title(&self, sh: &Shared) -> Vec<Span<'static>> {
        let _ = sh;
        vec![Span::raw("evaluation sessions")]
    }

    fn hints(&self, _sh: &Shared) -> Vec<(Context, Action, &'static str)> {
        keys::hints()
    }

    fn clamp(&mut self, sh: &Shared) {
        let _ = sh;
    }
}
