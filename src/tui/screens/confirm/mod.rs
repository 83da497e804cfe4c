//! A question waiting for a yes: stop a run, delete a session.

pub mod keys;
pub mod view;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::evals::Confirm;
use crate::tui::keymap::Context;
use crate::tui::screen::{Nav, Outcome, Screen};
use crate::tui::shared::Shared;

#[derive(Debug, Default)]
pub struct State {
    pub question: Option<Confirm>,
}

impl Screen for State {
    fn contexts(&self, _sh: &Shared) -> Vec<Context> {
        vec![Context::Confirm, Context::Global]
    }

    fn update(&mut self, sh: &mut Shared, action: Action) -> Outcome {
        match action {
            Action::Submit => {
                sh.go(Nav::Back);
                if let Some(c) = self.question.take() {
                    return sh.confirmed(c.yes).into();
                }
            }
            Action::Back | Action::Close => sh.go(Nav::Back),
            _ => {}
        }
        ().into()
    }

    fn render(&self, sh: &Shared, area: Rect, buf: &mut Buffer) {
        if let Some(confirm) = &self.question {
            view::ConfirmView { sh, confirm }.render(area, buf);
        }
    }

    fn hints(&self, _sh: &Shared) -> Vec<(Context, Action, &'static str)> {
        vec![
            (Context::Confirm, Action::Submit, "yes"),
            (Context::Confirm, Action::Back, "no"),
        ]
    }

    fn opened(&mut self, sh: &mut Shared) -> Vec<Effect> {
        self.question = sh.question.take();
        Vec::new()
    }
}
