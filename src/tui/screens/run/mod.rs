//! A generation run, live or replayed: tasks, their methods, metrics and fingerprint.

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

/// The run shown and its cursors are [`Shared::runs`] (its events arrive while other screens are shown).
#[derive(Debug, Default)]
pub struct State;

impl Screen for State {
    fn contexts(&self, sh: &Shared) -> Vec<Context> {
        sh.run_contexts()
    }

    fn update(&mut self, sh: &mut Shared, action: Action) -> Outcome {
        sh.update_run(action).into()
    }

    fn render(&self, sh: &Shared, area: Rect, buf: &mut Buffer) {
        crate::tui::widgets::run_view::RunView { sh }.render(area, buf);
    }

    fn title(&self, sh: &Shared) -> Vec<Span<'static>> {
        crate::tui::runs::title(sh)
    }

    fn hints(&self, sh: &Shared) -> Vec<(Context, Action, &'static str)> {
        use Action as A;
        use Context as C;
        let mut h = vec![
            (C::Run, A::Open, "open"),
            (C::Run, A::NextTab, "pane"),
            (C::Run, A::TogglePanel, "metrics"),
        ];
        if sh.run_is_live() {
            h.push((C::RunLive, A::CancelRun, "stop"));
        }
        h.extend([
            (C::Global, A::ToggleHelp, "help"),
            (C::Run, A::Back, "back"),
        ]);
        h
    }
}
