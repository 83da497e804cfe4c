//! A code pane: line numbers, syntax highlighting of the visible lines only, vertical and
//! horizontal scrolling, and a marked line (the method jumped to from the Methods tab).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::pane;
use crate::tui::app::{App, CodeScroll, Tab};
use crate::tui::highlight::StyledLine;

pub struct CodePane<'a> {
    pub app: &'a App,
    pub tab: Tab,
}

/// Drop the first `skip` characters of a styled line and keep at most `width`.
pub(crate) fn window(line: StyledLine, skip: usize, width: usize) -> Vec<Span<'static>> {
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

impl Widget for &CodePane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.app;
        let idx = app.task.idx;
        let Some(i) = self.tab.code_index() else {
            return;
        };
        let mut title = format!(" {} ", self.tab.title());
        if self.tab == Tab::Skeleton && app.sh.data.dataset.tasks[idx].skeleton.trim().is_empty() {
            title = " Skeleton (generated from the reference: the dataset has none) ".into();
        }
        let doc = CodeDoc {
            key: (idx, i as u8),
            source: app.sh.code_source(idx, self.tab),
            title,
            scroll: app.task.code[i],
            mark: if self.tab == Tab::Solution {
                app.task.mark
            } else {
                None
            },
            focused: false,
        };
        render_code(app, &doc, area, buf);
    }
}

/// Draw a code document: line numbers, highlighting of the visible lines only, the marked
/// line, and where the view is (lines shown, horizontal scroll).
pub fn render_code(app: &App, doc: &CodeDoc, area: Rect, buf: &mut Buffer) {
    let theme = app.sh.theme();
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
    let mut block = pane(app, doc.title.clone())
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
    let styled = app
        .sh
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
