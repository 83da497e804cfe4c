//! A question waiting for a yes.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Widget, Wrap};

use crate::tui::evals::Confirm;
use crate::tui::keymap::Context;
use crate::tui::shared::Shared;
use crate::tui::widgets::{key_label as key, layout, pane};

pub struct ConfirmView<'a> {
    pub sh: &'a Shared,
    pub confirm: &'a Confirm,
}

impl Widget for &ConfirmView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        use crate::tui::action::Action as A;
        let sh = self.sh;
        let theme = sh.theme();
        let rect = layout::centered(area, 64.min(area.width.saturating_sub(2)), 7);
        Clear.render(rect, buf);
        let block = pane(sh, " Are you sure? ").style(theme.base());
        let lines = vec![
            Line::raw(self.confirm.text.clone()),
            Line::default(),
            Line::styled(
                format!(
                    "{} yes · {} no",
                    key(sh, Context::Confirm, &A::Submit),
                    key(sh, Context::Confirm, &A::Back)
                ),
                theme.accent(),
            ),
        ];
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: true })
            .render(rect, buf);
    }
}
