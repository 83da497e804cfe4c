//! Overlays besides help: the load-problems list and the command palette.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};

use super::{highlight_matches, layout, pane, truncate};
use crate::tui::app::App;
use crate::tui::palette::PaletteState;

pub struct ProblemsView<'a> {
    pub app: &'a App,
    pub scroll: usize,
}

/// `text` broken into lines of at most `width` characters, at spaces where it can.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out = Vec::new();
    for para in text.split('\n') {
        let mut line = String::new();
        for word in para.split(' ') {
            let (n, w) = (line.chars().count(), word.chars().count());
            if n > 0 && n + 1 + w > width {
                out.push(std::mem::take(&mut line));
            } else if n > 0 {
                line.push(' ');
            }
            let mut rest: Vec<char> = word.chars().collect();
            while line.is_empty() && rest.len() > width {
                out.push(rest.drain(..width).collect());
            }
            line.extend(rest);
        }
        out.push(line);
    }
    out
}

/// The load problems, then every error raised since startup, each whole (wrapped to `width`).
pub fn problem_lines(app: &App, width: u16) -> Vec<Line<'static>> {
    let theme = app.sh.theme();
    let width = usize::from(width.saturating_sub(2)).max(3);
    let mut lines = Vec::new();
    let item = |lines: &mut Vec<Line<'static>>, text: &str, style| {
        for (i, part) in wrap(text, width - 2).into_iter().enumerate() {
            let bullet = if i == 0 { "• " } else { "  " };
            lines.push(Line::from(vec![
                Span::styled(bullet, style),
                Span::raw(part),
            ]));
        }
    };
    for p in app.sh.problems() {
        item(&mut lines, p, theme.warn());
    }
    if !app.sh.errors.is_empty() {
        if !lines.is_empty() {
            lines.push(Line::default());
        }
        lines.push(Line::styled("Errors since startup", theme.header()));
        for e in &app.sh.errors {
            item(&mut lines, e, theme.error());
        }
    }
    lines
}

impl Widget for &ProblemsView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.app;
        let theme = app.sh.theme();
        let rect = layout::overlay(area);
        Clear.render(rect, buf);
        let lines = problem_lines(app, rect.width);
        let (problems, errors) = (app.sh.problems().len(), app.sh.errors.len());
        let title = match (problems, errors) {
            (p, 0) => format!(" {p} problem(s) — everything else loaded "),
            (0, e) => format!(" {e} error(s) since startup "),
            (p, e) => format!(" {p} load problem(s) · {e} error(s) since startup "),
        };
        let page = usize::from(rect.height.saturating_sub(2));
        let mut block = pane(app, title).style(theme.base());
        if let Some(pos) = super::deps_view::position_label(self.scroll, page, lines.len()) {
            block = block.title_bottom(Line::styled(pos, theme.muted()).right_aligned());
        }
        Paragraph::new(lines)
            .block(block)
            .scroll((u16::try_from(self.scroll).unwrap_or(u16::MAX), 0))
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
        let theme = app.sh.theme();
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
            let Some(cmd) = app.sh.commands.get(*i) else {
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
