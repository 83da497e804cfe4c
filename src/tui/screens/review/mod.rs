//! The curation review queue: every task with its lint findings and validation, decisions
//! (approve, reject, needs work, notes), edits in `$EDITOR`, promoted tests.

mod edit;
mod forge_view;
pub mod keys;
pub mod promote_view;
pub mod state;
mod update;
mod validate;
pub mod view;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::Widget;

pub use state::ReviewUi as State;
pub use state::*;
pub use update::counts;

use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::keymap::Context;
use crate::tui::screen::{Outcome, Screen};
use crate::tui::shared::Shared;

impl Screen for ReviewUi {
    fn contexts(&self, _sh: &Shared) -> Vec<Context> {
        if self.input.is_some() {
            vec![Context::ReviewInput, Context::Global]
        } else if self.promote.is_some() {
            vec![Context::ReviewPromote, Context::Global]
        } else if self.confirm.is_some() {
            vec![Context::ReviewConfirm, Context::Global]
        } else {
            vec![Context::Review, Context::Global]
        }
    }

    fn update(&mut self, sh: &mut Shared, action: Action) -> Outcome {
        self.update_review(sh, action).into()
    }

    fn render(&self, sh: &Shared, area: Rect, buf: &mut Buffer) {
        view::ReviewView { sh, st: self }.render(area, buf);
    }

    fn title(&self, sh: &Shared) -> Vec<Span<'static>> {
        vec![
            Span::raw("review queue"),
            Span::styled(format!(" · {}", sh.data.dataset.name), sh.theme().muted()),
        ]
    }

    fn hints(&self, _sh: &Shared) -> Vec<(Context, Action, &'static str)> {
        use Action as A;
        use Context as C;
        if self.input.is_some() {
            vec![
                (C::ReviewInput, A::Submit, "ok"),
                (C::ReviewInput, A::Back, "cancel"),
            ]
        } else if self.promote.is_some() {
            vec![
                (C::ReviewPromote, A::ToggleMark, "choose"),
                (C::ReviewPromote, A::Submit, "promote"),
                (C::ReviewPromote, A::Back, "cancel"),
            ]
        } else if self.confirm.is_some() {
            vec![
                (C::ReviewConfirm, A::Submit, "yes"),
                (C::ReviewConfirm, A::Back, "no"),
            ]
        } else {
            vec![
                (C::Review, A::ReviewApprove, "approve"),
                (C::Review, A::ReviewReject, "reject"),
                (C::Review, A::ReviewNeedsWork, "needs work"),
                (C::Review, A::ReviewNote, "note"),
                (C::Review, A::CycleStatusFilter, "status"),
                (C::Review, A::CycleSeverityFilter, "severity"),
                (C::Global, A::ToggleHelp, "help"),
                (C::Review, A::Back, "back"),
            ]
        }
    }

    fn clamp(&mut self, sh: &Shared) {
        self.clamp_review(sh);
    }
}

/// Background answers for the queue (loaded store, saved decisions, edits, validations).
pub fn background(st: &mut ReviewUi, sh: &mut Shared, action: Action) -> Vec<Effect> {
    st.update_review_background(sh, action)
}
