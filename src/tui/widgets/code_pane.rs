//! A code pane: line numbers, syntax highlighting of the visible lines only, vertical and
//! horizontal scrolling, and a marked line (the method jumped to from the Methods tab).

use crate::tui::highlight::MAX_LINE;
use crate::tui::shared::Shared;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::pane;
use crate::tui::highlight::StyledLine;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CodeScroll {
    pub top: usize,
    pub left: usize,
}

/// Drop the first `skip` characters of a styled line and keep at most `width`.
pub fn window(line: StyledLine, skip: usize, width: usize) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    let (mut skipped, mut taken) = (0, 0);
    for (style, text) in line {
        if taken >= width {
            break;
        }
        let len = text.chars().count();
        if skipped + len <= skip {
            skipped += len;
            continue;
        }
        let from = skip.saturating_sub(skipped);
        skipped = skip;
        let piece: String = text.chars().skip(from).take(width - taken).collect();
        taken += piece.chars().count();
        spans.push(Span::styled(piece, style));
    }
    spans
}

/// A document for [`render_code`]: any source with its scroll position and marked line.
pub struct CodeDoc<'a> {
    /// Highlight-cache key: (document id, pane).
    pub key: (usize, u8),
    pub source: &'a str,
    pub title: String,
    pub scroll: CodeScroll,
    /// A 0-based line to highlight.
    pub mark: Option<usize>,
    /// Keys act on this pane (its border is drawn in the accent colour).
    pub focused: bool,
}

/// Draw a code document: line numbers, highlighting of the visible lines only, the marked
/// line, and where the view is (lines shown, horizontal scroll).
pub fn render_code(sh: &Shared, doc: &CodeDoc, area: Rect, buf: &mut Buffer) {
    let theme = sh.theme();
    let scroll = doc.scroll;
    let source = doc.source;
    let total = source.lines().count();
    let height = usize::from(area.height.saturating_sub(2));
    let top = scroll.top.min(total.saturating_sub(1));
    let end = (top + height).min(total);
    let position = if total == 0 {
        " empty ".to_string()
    } else {
        format!(" {}–{} of {} ", top + 1, end, total)
    };
    let digits = total.to_string().len();
    let code_width = usize::from(area.width.saturating_sub(2)).saturating_sub(digits + 2);
    let cut = source
        .lines()
        .skip(top)
        .take(end - top)
        .any(|l| l.chars().count() > scroll.left + code_width);
    let mut block = pane(sh, doc.title.clone())
        .title_top(Line::styled(position, theme.muted()).right_aligned());
    if doc.focused {
        block = block.border_style(theme.accent());
    }
    let horizontal = match (scroll.left > 0, cut) {
        (false, false) => None,
        (false, true) => Some(" more → ".to_string()),
        (true, false) => Some(format!(" ← col {} ", scroll.left + 1)),
        (true, true) => Some(format!(" ← col {} · more → ", scroll.left + 1)),
    };
    if let Some(text) = horizontal {
        block = block.title_bottom(Line::styled(text, theme.muted()).right_aligned());
    }
    let inner = block.inner(area);
    block.render(area, buf);
    if total == 0 {
        Paragraph::new(Line::styled("(no code)", theme.muted())).render(inner, buf);
        return;
    }
    let syntax = theme.has_color().then_some(theme.syntax.as_str());
    let styled = sh
        .highlight
        .borrow_mut()
        .lines(doc.key, source, syntax, top, end);
    let lines: Vec<Line> = styled
        .into_iter()
        .enumerate()
        .map(|(row, line)| {
            let number = top + row;
            let marked = doc.mark == Some(number);
            let gutter_style = if marked {
                theme.accent()
            } else {
                theme.line_number()
            };
            let marker = if marked { "▶" } else { " " };
            let mut spans = vec![Span::styled(
                format!("{:>digits$}{marker} ", number + 1),
                gutter_style,
            )];
            spans.extend(window(line, scroll.left, code_width));
            let mut line = Line::from(spans);
            if marked {
                let fill = usize::from(inner.width).saturating_sub(line.width());
                line.spans.push(Span::raw(" ".repeat(fill)));
                line = line.style(theme.selection());
            }
            line
        })
        .collect();
    Paragraph::new(lines).render(inner, buf);
}

/// Apply a navigation action to a code pane showing `page` lines of `width` columns
/// (gutter included) of `source`.
pub fn scroll_code(
    scroll: &mut CodeScroll,
    source: &str,
    action: &crate::tui::action::Action,
    page: usize,
    width: usize,
) {
    let lines = source.lines().count();
    let longest = source
        .lines()
        .map(|l| l.chars().count().min(MAX_LINE + 1))
        .max()
        .unwrap_or(0);
    let gutter = lines.max(1).to_string().len() + 3;
    let max_left = (longest + gutter).saturating_sub(width.max(1));
    // A jump may have put a line near the end at the top; stay there until scrolled up.
    let max_top = lines
        .saturating_sub(page)
        .max(scroll.top.min(lines.saturating_sub(1)));
    match action {
        crate::tui::action::Action::Left => scroll.left = scroll.left.saturating_sub(8),
        crate::tui::action::Action::Right => scroll.left = (scroll.left + 8).min(max_left),
        crate::tui::action::Action::LineStart => scroll.left = 0,
        crate::tui::action::Action::Bottom => scroll.top = lines.saturating_sub(page),
        other => scroll.top = crate::tui::screen::scrolled(scroll.top, other, page, max_top),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Style;

    #[test]
    fn window_skips_and_cuts_across_spans() {
        let line = vec![
            (Style::new(), "abc".to_string()),
            (Style::new(), "defg".to_string()),
        ];
        let text = |s: Vec<Span>| s.iter().map(|s| s.content.to_string()).collect::<String>();
        assert_eq!(text(window(line.clone(), 0, 100)), "abcdefg");
        assert_eq!(text(window(line.clone(), 2, 3)), "cde");
        assert_eq!(text(window(line.clone(), 3, 10)), "defg");
        assert_eq!(text(window(line, 10, 10)), "");
    }
}
