//! The help layer: every binding of the screen under it, from the keymap.

pub mod keys;
pub mod view;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::keymap::Context;
use crate::tui::screen::{Nav, Outcome, Screen, scrolled};
use crate::tui::shared::Shared;
use crate::tui::widgets::layout;

pub use view::lines;

#[derive(Debug, Default)]
pub struct State {
    pub scroll: usize,
    /// The contexts of the screen under the help (set by the app when it opens).
    pub contexts: Vec<Context>,
}

impl Screen for State {
    fn contexts(&self, _sh: &Shared) -> Vec<Context> {
        vec![Context::Help, Context::Global]
    }

    fn update(&mut self, sh: &mut Shared, action: Action) -> Outcome {
        let page = layout::inner_page(layout::overlay(sh.area())).max(1);
        let max = view::line_count(sh, &self.contexts).saturating_sub(page);
        match action {
            Action::Back | Action::ToggleHelp | Action::Close => sh.go(Nav::Back),
            other => self.scroll = scrolled(self.scroll, &other, page, max),
        }
        ().into()
    }

    fn render(&self, sh: &Shared, area: Rect, buf: &mut Buffer) {
        view::HelpView {
            sh,
            scroll: self.scroll,
            contexts: &self.contexts,
        }
        .render(area, buf);
    }

    fn hints(&self, _sh: &Shared) -> Vec<(Context, Action, &'static str)> {
        vec![
            (Context::Help, Action::Down, "scroll"),
            (Context::Help, Action::Back, "close"),
        ]
    }

    fn opened(&mut self, _sh: &mut Shared) -> Vec<Effect> {
        self.scroll = 0;
        Vec::new()
    }
}
