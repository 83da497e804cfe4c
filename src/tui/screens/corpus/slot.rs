//! The corpus browser's place among the screens: empty until a store is opened.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::{Paragraph, Widget};

use super::{State, keys};
use crate::tui::action::Action;
use crate::tui::keymap::Context;
use crate::tui::screen::{Nav, Outcome, Screen};
use crate::tui::shared::Shared;

#[derive(Default)]
pub struct Slot(pub Option<State>);

impl Screen for Slot {
    fn contexts(&self, sh: &Shared) -> Vec<Context> {
        match &self.0 {
            Some(st) => st.contexts(sh),
            None => vec![Context::Corpus, Context::Global],
        }
    }

    fn update(&mut self, sh: &mut Shared, action: Action) -> Outcome {
        match &mut self.0 {
            Some(st) => st.update(sh, action),
            None => {
                if matches!(action, Action::Back | Action::Close) {
                    sh.go(Nav::Back);
                }
                ().into()
            }
        }
    }

    fn render(&self, sh: &Shared, area: Rect, buf: &mut Buffer) {
        match &self.0 {
            Some(st) => st.render(sh, area, buf),
            None => Paragraph::new("no corpus store is open (classlab --dataset STORE.db)")
                .render(area, buf),
        }
    }

    fn title(&self, sh: &Shared) -> Vec<Span<'static>> {
        self.0.as_ref().map(|st| st.title(sh)).unwrap_or_default()
    }

    fn hints(&self, _sh: &Shared) -> Vec<(Context, Action, &'static str)> {
        self.0.as_ref().map(keys::hints).unwrap_or_default()
    }

    fn clamp(&mut self, sh: &Shared) {
        if let Some(st) = &mut self.0 {
            st.clamp(sh);
        }
    }

    fn poll(&mut self, sh: &mut Shared) -> bool {
        self.0.as_mut().is_some_and(|st| st.poll(sh))
    }

    fn busy(&self) -> bool {
        self.0.as_ref().is_some_and(|st| st.busy())
    }
}
