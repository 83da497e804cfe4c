//! The task list: every task of the dataset with its counts, filtered and sorted.

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

/// The list's filter, order and selection are [`Shared::list`]: the task view and the
/// run dialog follow them too.
#[derive(Debug, Default)]
pub struct State;

impl Screen for State {
    fn contexts(&self, sh: &Shared) -> Vec<Context> {
        if sh.list.filtering {
            vec![Context::Filter, Context::Global]
        } else {
            vec![Context::List, Context::Global]
        }
    }

    fn update(&mut self, sh: &mut Shared, action: Action) -> Outcome {
        sh.update_list(action).into()
    }

    fn render(&self, sh: &Shared, area: Rect, buf: &mut Buffer) {
        view::TaskListView { sh }.render(area, buf);
    }

    fn title(&self, sh: &Shared) -> Vec<Span<'static>> {
        crate::tui::widgets::dataset_title(sh)
    }

    fn hints(&self, sh: &Shared) -> Vec<(Context, Action, &'static str)> {
        keys::hints(sh)
    }
}
