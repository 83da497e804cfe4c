//! Overlays besides help: the load-problems list and the command palette.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};

use crate::tui::shared::Shared;
use crate::tui::widgets::{layout, pane};

pub struct ProblemsView<'a> {
    pub sh: &'a Shared,
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
pub fn problem_lines(sh: &Shared, width: u16) -> Vec<Line<'static>> {
    let theme = sh.theme();
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
    for p in sh.problems() {
        item(&mut lines, p, theme.warn());
    }
    if !sh.errors.is_empty() {
        if !lines.is_empty() {
            lines.push(Line::default());
        }
        lines.push(Line::styled("Errors since startup", theme.header()));
        for e in &sh.errors {
            item(&mut lines, e, theme.error());
        }
    }
    lines
}

impl Widget for &ProblemsView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let sh = self.sh;
        let theme = sh.theme();
        let rect = layout::overlay(area);
        Clear.render(rect, buf);
        let lines = problem_lines(sh, rect.width);
        let (problems, errors) = (sh.problems().len(), sh.errors.len());
        let title = match (problems, errors) {
            (p, 0) => format!(" {p} problem(s) — everything else loaded "),
            (0, e) => format!(" {e} error(s) since startup "),
            (p, e) => format!(" {p} load problem(s) · {e} error(s) since startup "),
        };
        let page = usize::from(rect.height.saturating_sub(2));
        let mut block = pane(sh, title).style(theme.base());
        if let Some(pos) =
            crate::tui::widgets::deps_view::position_label(self.scroll, page, lines.len())
        {
            block = block.title_bottom(Line::styled(pos, theme.muted()).right_aligned());
        }
        Paragraph::new(lines)
            .block(block)
            .scroll((u16::try_from(self.scroll).unwrap_or(u16::MAX), 0))
            .render(rect, buf);
    }
}
