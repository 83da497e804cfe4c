//! The new-evaluation dialog: choose a predictions file to evaluate against the dataset.

pub mod keys;
pub mod view;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::evals::NewEvalState;
use crate::tui::keymap::Context;
use crate::tui::screen::{Nav, Outcome, Screen};
use crate::tui::shared::{Level, Shared};

pub type State = NewEvalState;

impl Screen for NewEvalState {
    fn contexts(&self, _sh: &Shared) -> Vec<Context> {
        vec![Context::NewEval, Context::Global]
    }

    fn update(&mut self, sh: &mut Shared, action: Action) -> Outcome {
        let d = self;
        let count = d.candidates().len();
        match action {
            Action::Back | Action::Close => sh.go(Nav::Back),
            Action::Input(c) => {
                d.input.push(c);
                d.selected = 0;
            }
            Action::Backspace => {
                d.input.pop();
                d.selected = 0;
            }
            Action::ClearInput => {
                d.input.clear();
                d.selected = 0;
            }
            Action::Up => d.selected = d.selected.saturating_sub(1),
            Action::Down => d.selected = (d.selected + 1).min(count.saturating_sub(1)),
            Action::Complete => {
                if let Some(c) = d.chosen() {
                    d.input = c;
                    d.selected = 0;
                }
            }
            Action::Submit => match d.chosen() {
                Some(path) => {
                    sh.go(Nav::Back);
                    return sh.start_eval(path).into();
                }
                None => sh.set_status(Level::Warn, "type the path of a predictions file"),
            },
            _ => {}
        }
        ().into()
    }

    fn render(&self, sh: &Shared, area: Rect, buf: &mut Buffer) {
        view::NewEvalView { sh, state: self }.render(area, buf);
    }

    fn hints(&self, _sh: &Shared) -> Vec<(Context, Action, &'static str)> {
        vec![
            (Context::NewEval, Action::Submit, "evaluate"),
            (Context::NewEval, Action::Complete, "complete"),
            (Context::NewEval, Action::Back, "cancel"),
        ]
    }

    fn opened(&mut self, _sh: &mut Shared) -> Vec<Effect> {
        *self = NewEvalState {
            loading: true,
            ..NewEvalState::default()
        };
        vec![Effect::ListPredictionFiles]
    }
}

/// The predictions files found for the dialog arrived.
pub fn files_found(d: &mut NewEvalState, files: Vec<String>) {
    d.files = files;
    d.loading = false;
    d.selected = 0;
}
