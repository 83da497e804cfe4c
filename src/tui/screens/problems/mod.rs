//! The problems layer: load problems and every error since startup, whole.

pub mod keys;
pub mod view;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::keymap::Context;
use crate::tui::screen::{Nav, Outcome, Screen, scrolled};
use crate::tui::shared::{Level, Shared};
use crate::tui::widgets::layout;

#[derive(Debug, Default)]
pub struct State {
    pub scroll: usize,
}

impl Screen for State {
    fn contexts(&self, _sh: &Shared) -> Vec<Context> {
        vec![Context::Problems, Context::Global]
    }

    fn update(&mut self, sh: &mut Shared, action: Action) -> Outcome {
        let page = layout::inner_page(layout::overlay(sh.area())).max(1);
        let max = view::problem_lines(sh, layout::overlay(sh.area()).width)
            .len()
            .saturating_sub(page);
        match action {
            Action::Back | Action::ShowProblems | Action::Close => sh.go(Nav::Back),
            other => self.scroll = scrolled(self.scroll, &other, page, max),
        }
        ().into()
    }

    fn render(&self, sh: &Shared, area: Rect, buf: &mut Buffer) {
        view::ProblemsView {
            sh,
            scroll: self.scroll,
        }
        .render(area, buf);
    }

    fn hints(&self, _sh: &Shared) -> Vec<(Context, Action, &'static str)> {
        vec![
            (Context::Problems, Action::Down, "scroll"),
            (Context::Problems, Action::Back, "close"),
        ]
    }

    fn opened(&mut self, sh: &mut Shared) -> Vec<Effect> {
        self.scroll = 0;
        if sh.problems().is_empty() && sh.errors.is_empty() {
            sh.set_status(Level::Info, "no load problems and no errors");
            sh.go(Nav::Back);
        }
        Vec::new()
    }
}
