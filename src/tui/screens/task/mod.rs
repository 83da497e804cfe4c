//! One task: its skeleton, solution and tests, its methods, its dependency graph.

pub mod keys;
pub mod methods;
mod rigor;
pub mod state;
mod update;
pub mod view;

pub use state::{Tab, TaskState as State};

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::Widget;

use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::keymap::Context;
use crate::tui::screen::{Outcome, Screen};
use crate::tui::shared::Shared;

impl Screen for State {
    fn contexts(&self, _sh: &Shared) -> Vec<Context> {
        let tab = match self.tab {
            Tab::Methods => Context::Methods,
            Tab::Deps => Context::Deps,
            Tab::Rigor => Context::Rigor,
            _ => Context::Code,
        };
        vec![tab, Context::Task, Context::Global]
    }

    fn update(&mut self, sh: &mut Shared, action: Action) -> Outcome {
        update::update_task(self, sh, action).into()
    }

    fn render(&self, sh: &Shared, area: Rect, buf: &mut Buffer) {
        view::TaskView { sh, st: self }.render(area, buf);
    }

    fn title(&self, sh: &Shared) -> Vec<Span<'static>> {
        keys::title(self, sh)
    }

    fn position(&self, sh: &Shared) -> Option<String> {
        // The open task is the list's selected row (opening and stepping keep it so).
        let selected = sh.list.selected_task() == Some(self.idx);
        Some(if selected {
            format!("task {}/{} ", sh.list.selected + 1, sh.list.visible.len())
        } else {
            String::new()
        })
    }

    fn hints(&self, _sh: &Shared) -> Vec<(Context, Action, &'static str)> {
        keys::hints(self)
    }

    fn opened(&mut self, sh: &mut Shared) -> Vec<Effect> {
        *self = State::new(sh.open_task);
        Vec::new()
    }

    fn clamp(&mut self, sh: &Shared) {
        update::clamp_code(self, sh);
    }
}
