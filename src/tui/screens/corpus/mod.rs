//! The corpus browser (`classlab --dataset FILE` on a corpus store): a virtualised list of the
//! store's classes with chosen metric columns, sorted by any column, narrowed by the filter
//! expression of `corpus query` and by a fuzzy search (both run on the screen's worker thread,
//! their rows streaming in), a panel with the distribution of the sorted metric over the
//! filtered set, the funnel, or the selected class's duplicate clusters, and Enter opening the
//! class (code, skeleton, methods, dependencies, metrics) read on demand.
//!
//! Opened with [`State::open`]; keys in [`keys`].

pub mod bins;
pub mod keys;
mod rows;
mod slot;
pub mod state;
pub mod update;
pub mod view;
mod worker;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;

use crate::tui::action::Action;
use crate::tui::keymap::Context;
use crate::tui::screen::{Outcome, Screen};
use crate::tui::shared::Shared;

pub use slot::Slot;
pub use state::State;

impl Screen for State {
    fn contexts(&self, _sh: &Shared) -> Vec<Context> {
        keys::contexts(self)
    }

    fn update(&mut self, sh: &mut Shared, action: Action) -> Outcome {
        update::update(self, sh, action)
    }

    fn render(&self, sh: &Shared, area: Rect, buf: &mut Buffer) {
        view::render(self, sh, area, buf);
    }

    fn title(&self, sh: &Shared) -> Vec<Span<'static>> {
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut spans = vec![Span::styled(format!("corpus {name}"), sh.theme().title())];
        if let Some(c) = &self.class
            && let Some(d) = &c.detail
        {
            spans.push(Span::raw(format!(" │ {}", d.qualname)));
        }
        spans
    }

    fn clamp(&mut self, sh: &Shared) {
        update::clamp(self, sh);
    }

    fn poll(&mut self, sh: &mut Shared) -> bool {
        update::poll(self, sh)
    }

    fn busy(&self) -> bool {
        self.waiting()
    }
}
