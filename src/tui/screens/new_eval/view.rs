//! Dialogs: choosing a predictions file to evaluate, and yes/no questions.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget, Wrap};

use crate::tui::evals::NewEvalState;
use crate::tui::keymap::Context;
use crate::tui::shared::Shared;
use crate::tui::widgets::key_label as key;
use crate::tui::widgets::{layout, pane, truncate};

pub struct NewEvalView<'a> {
    pub sh: &'a Shared,
    pub state: &'a NewEvalState,
}

/// A key of `context` for `action`, for hints.
impl Widget for &NewEvalView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        use crate::tui::action::Action as A;
        let sh = self.sh;
        let theme = sh.theme();
        let d = self.state;
        let rect = layout::centered(area, 90.min(area.width.saturating_sub(2)), 18);
        Clear.render(rect, buf);
        let block = pane(sh, " New evaluation ").style(theme.base());
        let inner = block.inner(rect);
        block.render(rect, buf);
        let width = usize::from(inner.width);
        let ds = &sh.data.dataset;
        let mut lines = vec![
            Line::from(vec![
                Span::styled("dataset ", theme.muted()),
                Span::raw(truncate(
                    &format!("{} ({} tasks)", ds.name, ds.tasks.len()),
                    width.saturating_sub(8),
                )),
            ]),
            Line::from(vec![
                Span::styled("file    ", theme.muted()),
                Span::raw(truncate(&d.input, width.saturating_sub(9))),
                Span::styled("▏", theme.accent()),
            ]),
            Line::styled(
                format!(
                    "{} evaluate · {} complete · {}/{} choose · {} cancel",
                    key(sh, Context::NewEval, &A::Submit),
                    key(sh, Context::NewEval, &A::Complete),
                    key(sh, Context::NewEval, &A::Up),
                    key(sh, Context::NewEval, &A::Down),
                    key(sh, Context::NewEval, &A::Back),
                ),
                theme.muted(),
            ),
            Line::default(),
        ];
        let candidates = d.candidates();
        let rows = usize::from(inner.height).saturating_sub(lines.len());
        let first = d.selected.saturating_sub(rows.saturating_sub(1));
        for (i, c) in candidates.iter().enumerate().skip(first).take(rows) {
            let typed =
                i + 1 == candidates.len() && !d.input.trim().is_empty() && !d.files.contains(c);
            let text = if typed {
                format!("{c}  (the path typed)")
            } else {
                c.clone()
            };
            let mut line = Line::from(vec![
                Span::raw(if i == d.selected { "› " } else { "  " }),
                Span::raw(truncate(&text, width.saturating_sub(2))),
            ]);
            if i == d.selected {
                let fill = width.saturating_sub(line.width());
                line.spans.push(Span::raw(" ".repeat(fill)));
                line = line.style(theme.selection());
            }
            lines.push(line);
        }
        if candidates.is_empty() {
            lines.push(Line::styled(
                if d.loading {
                    "  looking for *.json, *.jsonl, *.csv files…"
                } else {
                    "  no *.json, *.jsonl or *.csv file found here or in \
                     ../shared/data/classeval/model_output/ — type a path"
                },
                theme.muted(),
            ));
        }
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .render(inner, buf);
    }
}
