//! The command palette: type to find a command, Enter runs it.

pub mod keys;
pub mod view;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::keymap::Context;
use crate::tui::palette::PaletteState;
use crate::tui::screen::{Nav, Outcome, Screen};
use crate::tui::shared::Shared;

pub type State = PaletteState;

impl Screen for PaletteState {
    fn contexts(&self, _sh: &Shared) -> Vec<Context> {
        vec![Context::Palette, Context::Global]
    }

    fn update(&mut self, sh: &mut Shared, action: Action) -> Outcome {
        let p = self;
        match action {
            Action::Back => sh.go(Nav::Back),
            Action::Input(c) => sh.then(Action::InsertText(c.to_string())),
            Action::Backspace => {
                p.input.pop();
                p.refresh(&sh.commands);
            }
            Action::ClearInput => {
                p.input.clear();
                p.refresh(&sh.commands);
            }
            Action::Up => p.selected = p.selected.saturating_sub(1),
            Action::Down => p.selected = (p.selected + 1).min(p.items.len().saturating_sub(1)),
            Action::Submit => {
                let chosen = p.chosen(&sh.commands).map(|c| c.action.clone());
                sh.go(Nav::Back);
                if let Some(action) = chosen {
                    sh.then(action);
                }
            }
            _ => {}
        }
        ().into()
    }

    fn render(&self, sh: &Shared, area: Rect, buf: &mut Buffer) {
        view::PaletteView { sh, state: self }.render(area, buf);
    }

    fn hints(&self, _sh: &Shared) -> Vec<(Context, Action, &'static str)> {
        vec![
            (Context::Palette, Action::Submit, "run"),
            (Context::Palette, Action::Down, "next"),
            (Context::Palette, Action::Up, "previous"),
            (Context::Palette, Action::Back, "close"),
        ]
    }

    fn opened(&mut self, sh: &mut Shared) -> Vec<Effect> {
        *self = PaletteState::new(&sh.commands);
        Vec::new()
    }
}
