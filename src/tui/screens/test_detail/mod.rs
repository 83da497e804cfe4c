//! One task's tests beside the code that ran, the failure and its cause.

pub mod keys;
mod update;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::Widget;

use crate::tui::action::Action;
use crate::tui::keymap::Context;
use crate::tui::screen::{Outcome, Screen};
use crate::tui::shared::Shared;

/// Its panes and scroll are [`Shared::ev`]`.detail` (a live run's events may replace the task shown).
#[derive(Debug, Default)]
pub struct State;

impl Screen for State {
    fn contexts(&self, sh: &Shared) -> Vec<Context> {
        let _ = sh;
        vec![Context::TestDetail, Context::Global]
    }

    fn update(&mut self, sh: &mut Shared, action: Action) -> Outcome {
        sh.update_detail(action);
        ().into()
    }

    fn render(&self, sh: &Shared, area: Rect, buf: &mut Buffer) {
        crate::tui::widgets::test_detail::TestDetailView { sh }.render(area, buf);
    }

    fn title(&self, sh: &Shared) -> Vec<Span<'static>> {
        crate::tui::evals::title(sh)
    }

    fn hints(&self, sh: &Shared) -> Vec<(Context, Action, &'static str)> {
        let _ = sh;
        use Action as A;
        use Context as C;
        vec![
            (C::TestDetail, A::NextTab, "pane"),
            (C::TestDetail, A::Open, "failing line"),
            (C::TestDetail, A::NextTask, "next task"),
            (C::Global, A::ToggleHelp, "help"),
            (C::TestDetail, A::Back, "back"),
        ]
    }
}
