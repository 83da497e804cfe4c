//! The command palette: an input and the commands matching it.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};

use crate::tui::palette::PaletteState;
use crate::tui::shared::Shared;
use crate::tui::widgets::{highlight_matches, pane, truncate};

pub struct PaletteView<'a> {
    pub sh: &'a Shared,
    pub state: &'a PaletteState,
}

impl Widget for &PaletteView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let sh = self.sh;
        let theme = sh.theme();
        let width = area.width.saturating_sub(4).min(60);
        let height = u16::try_from(self.state.items.len() + 4)
            .unwrap_or(u16::MAX)
            .min(area.height.saturating_sub(2))
            .min(16);
        let rect = Rect::new(
            area.x + (area.width - width) / 2,
            area.y + 2.min(area.height),
            width,
            height.max(4),
        );
        let rect = rect.intersection(area);
        Clear.render(rect, buf);
        let block = pane(sh, " Command ").style(theme.base());
        let inner = block.inner(rect);
        block.render(rect, buf);
        let mut lines = vec![Line::from(vec![
            Span::styled(": ", theme.accent()),
            Span::raw(self.state.input.clone()),
            Span::styled("▏", theme.accent()),
        ])];
        let rows = usize::from(inner.height.saturating_sub(1));
        let first = self.state.selected.saturating_sub(rows.saturating_sub(1));
        for (pos, (i, matched)) in self.state.items.iter().enumerate().skip(first).take(rows) {
            let Some(cmd) = sh.commands.get(*i) else {
                continue;
            };
            let label = truncate(&cmd.label, usize::from(inner.width).saturating_sub(2));
            let mut line = highlight_matches(&label, matched, 0, theme.base(), theme.matched());
            line.spans.insert(0, Span::raw("  "));
            if pos == self.state.selected {
                let fill = usize::from(inner.width).saturating_sub(line.width());
                line.spans.push(Span::raw(" ".repeat(fill)));
                line.spans[0] = Span::raw("› ");
                line = line.style(theme.selection());
            }
            lines.push(line);
        }
        if self.state.items.is_empty() {
            lines.push(Line::styled("  no matching command", theme.muted()));
        }
        Paragraph::new(lines).render(inner, buf);
    }
}
