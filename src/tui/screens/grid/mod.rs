//! The grid screen: tasks × compared sessions, each cell the task's fingerprint bucket in
//! that session, coloured; sorted by disagreement or task id, filtered, scrolled both ways.
//! `Enter` on two cells of a row chooses the pair the paired view shows.

pub mod keys;
pub mod state;
pub mod update;
pub mod view;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;

pub use state::{Pair, Sort, State};

use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::keymap::Context;
use crate::tui::screen::{Outcome, Screen};
use crate::tui::shared::Shared;

impl Screen for State {
    fn contexts(&self, _sh: &Shared) -> Vec<Context> {
        if self.typing {
            vec![keys::FILTER, Context::Global]
        } else {
            vec![keys::CONTEXT, Context::Global]
        }
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
                "grid · {} tasks × {} sessions",
                self.grid.rows.len(),
                self.grid.columns.len()
            ),
            sh.theme().base(),
        )]
    }

    fn hints(&self, _sh: &Shared) -> Vec<(Context, Action, &'static str)> {
        keys::hints(self)
    }

    fn opened(&mut self, sh: &mut Shared) -> Vec<Effect> {
        self.clamp(sh);
        Vec::new()
    }

    fn clamp(&mut self, sh: &Shared) {
        update::sync(self, sh);
        let (rows, cols) = update::pages(self, sh);
        self.keep_visible(rows, cols);
    }
}
