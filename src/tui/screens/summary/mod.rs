//! The dependency summary of the whole dataset (and of the predictions, when loaded).

pub mod keys;
mod update;
pub mod view;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::Widget;

use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::keymap::Context;
use crate::tui::screen::{Outcome, Screen};
use crate::tui::shared::Shared;

/// Above this many tasks, opening the summary does not start measuring rigor.
const RIGOR_TASKS_MAX: usize = 5000;

#[derive(Debug, Default)]
pub struct State {
    pub scroll: usize,
}

impl Screen for State {
    fn contexts(&self, _sh: &Shared) -> Vec<Context> {
        vec![Context::Summary, Context::Global]
    }

    fn update(&mut self, sh: &mut Shared, action: Action) -> Outcome {
        update::update(self, sh, action);
        ().into()
    }

    fn render(&self, sh: &Shared, area: Rect, buf: &mut Buffer) {
        view::SummaryView {
            sh,
            scroll: self.scroll,
        }
        .render(area, buf);
    }

    fn title(&self, sh: &Shared) -> Vec<Span<'static>> {
        crate::tui::widgets::dataset_title(sh)
    }

    fn hints(&self, _sh: &Shared) -> Vec<(Context, Action, &'static str)> {
        vec![
            (Context::Summary, Action::Down, "scroll"),
            (Context::Global, Action::ToggleHelp, "help"),
            (Context::Summary, Action::Back, "back"),
        ]
    }

    fn opened(&mut self, sh: &mut Shared) -> Vec<Effect> {
        self.scroll = 0;
        // The rigor histograms: every task's, from the store or computed in the background
        // (a dataset of corpus size is left to `classlab rigor`).
        let n = sh.data.dataset.tasks.len();
        if n > RIGOR_TASKS_MAX {
            return Vec::new();
        }
        let all: Vec<usize> = (0..n).collect();
        sh.rigor.want(&all).into_iter().collect()
    }
}
