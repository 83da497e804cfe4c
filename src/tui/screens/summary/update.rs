//! Scrolling the summary.

use super::State;
use super::view;
use crate::tui::action::Action;
use crate::tui::screen::{Nav, scrolled};
use crate::tui::shared::Shared;
use crate::tui::widgets::layout;

pub fn update(st: &mut State, sh: &mut Shared, action: Action) {
    match action {
        Action::Back | Action::Close => sh.go(Nav::Back),
        other => {
            let content = sh.chrome().body;
            let page = layout::inner_page(content).max(1);
            let max = view::line_count(sh, content.width).saturating_sub(page);
            st.scroll = scrolled(st.scroll, &other, page, max);
        }
    }
}
