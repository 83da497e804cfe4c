//! Overlays besides help: the load-problems list and the command palette.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget, Wrap};

use super::{highlight_matches, layout, pane, truncate};
use crate::tui::app::App;
use crate::tui::palette::PaletteState;

pub struct ProblemsView<'a> {
    pub app: &'a App,
    pub scroll: usize,
}

impl Widget for &ProblemsView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.app;
        let theme = app.theme();
        let rect = layout::overlay(area);
        Clear.render(rect, buf);
        let problems = app.problems();
        let lines: Vec<Line> = problems
            .iter()
            .skip(self.scroll)
            .map(|p| {
                Line::from(vec![
                    Span::styled("• ", theme.warn()),
                    Span::raw(p.to_string()),
                ])
            })
            .collect();
        let title = format!(" {} problem(s) — everything else loaded ", problems.len());
        Paragraph::new(lines)
            .block(pane(app, title).style(theme.base()))
            .wrap(Wrap { trim: false })
            .render(rect, buf);
    }
}

pub struct PaletteView<'a> {
    pub app: &'a App,
    pub state: &'a PaletteState,
}

impl Widget for &PaletteView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.app;
        let theme = app.theme();
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
        let block = pane(app, " Command ").style(theme.base());
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
            let Some(cmd) = app.commands.get(*i) else {
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
