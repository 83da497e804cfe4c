//! Widgets more than one screen draws: code panes, fingerprints, the evaluation and run
//! tables, the layout of the frame, and small helpers (panes, truncation, matches).

pub mod code_pane;
pub mod compare;
pub mod deps_view;
pub mod eval_view;
pub mod fingerprint;
pub mod histogram;
pub mod layout;
pub mod rigor_view;
pub mod run_task;
pub mod run_view;
pub mod step_doc;
pub mod step_text;
pub mod test_detail;

use ratatui::buffer::Buffer;

use super::shared::Shared;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, StatefulWidget, Table, TableState};

/// The file name of a path (for titles).
pub fn short_path(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The dataset's name and totals (the title of the task list and the summary).
pub fn dataset_title(sh: &Shared) -> Vec<Span<'static>> {
    let d = &sh.data;
    vec![
        Span::raw(d.dataset.name.clone()),
        Span::styled(
            format!(
                " · {} tasks · {} methods · {} edges",
                d.len(),
                d.method_total,
                d.edge_total
            ),
            sh.theme().muted(),
        ),
    ]
}

/// The key bound to `action` in `context`, for dialogs' hints.
pub fn key_label(
    sh: &Shared,
    context: crate::tui::keymap::Context,
    action: &crate::tui::action::Action,
) -> String {
    sh.keymap
        .key_for(context, action)
        .map_or_else(|| "?".into(), |k| k.to_string())
}

/// Cut `text` to `width` characters, ending in `…` when cut.
pub fn truncate(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out: String = text.chars().take(width - 1).collect();
    out.push('…');
    out
}

/// Cut lines wider than `width`, ending in `…` (the cut line keeps its first span's style).
pub fn fit_lines(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    lines
        .into_iter()
        .map(|l| {
            if l.width() > width {
                let text: String = l.spans.iter().map(|s| s.content.as_ref()).collect();
                Line::styled(
                    truncate(&text, width),
                    l.spans.first().map(|s| s.style).unwrap_or_default(),
                )
            } else {
                l
            }
        })
        .collect()
}

/// Spans of `text` with the characters at `indices` (char positions, shifted by `offset`)
/// in the matched style.
pub fn highlight_matches(
    text: &str,
    indices: &[u32],
    offset: u32,
    base: Style,
    matched: Style,
) -> Line<'static> {
    if indices.is_empty() {
        return Line::styled(text.to_string(), base);
    }
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut run = String::new();
    let mut run_matched = false;
    for (i, c) in text.chars().enumerate() {
        let is = u32::try_from(i).is_ok_and(|i| indices.binary_search(&(i + offset)).is_ok());
        if is != run_matched && !run.is_empty() {
            spans.push(Span::styled(
                std::mem::take(&mut run),
                if run_matched { matched } else { base },
            ));
        }
        run_matched = is;
        run.push(c);
    }
    if !run.is_empty() {
        spans.push(Span::styled(run, if run_matched { matched } else { base }));
    }
    Line::from(spans)
}

/// A bordered block in the theme's border style with a title.
pub fn pane<'a>(sh: &Shared, title: impl Into<Line<'a>>) -> Block<'a> {
    let theme = sh.theme();
    Block::bordered()
        .border_style(theme.border())
        .title(title.into().style(theme.title()))
}

/// A table with a selected row in the house style (selection bar, `›` marker), its rows from
/// `offset` on.
pub fn render_selectable(
    sh: &Shared,
    table: Table,
    offset: usize,
    selected: usize,
    area: Rect,
    buf: &mut Buffer,
) {
    let table = table
        .column_spacing(1)
        .row_highlight_style(sh.theme().selection())
        .highlight_symbol("› ");
    let mut state = TableState::default()
        .with_offset(offset)
        .with_selected(Some(selected));
    StatefulWidget::render(table, area, buf, &mut state);
}
