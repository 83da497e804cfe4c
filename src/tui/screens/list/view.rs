//! The start screen: the task table (fuzzy filter, sort) and a preview of the selected task.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Widget, Wrap};

use crate::tui::action::SortColumn;
use crate::tui::shared::Shared;
use crate::tui::widgets::{highlight_matches, layout, pane, truncate};

pub struct TaskListView<'a> {
    pub sh: &'a Shared,
}

impl Widget for &TaskListView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let (table, preview) = layout::list_split(area);
        render_table(self.sh, table, buf);
        if let Some(preview) = preview {
            render_preview(self.sh, preview, buf);
        }
    }
}

fn header_cell(sh: &Shared, column: SortColumn, label: &str, right: bool) -> Cell<'static> {
    let list = &sh.list;
    let text = if list.sort == column {
        format!("{label}{}", if list.reverse { "▼" } else { "▲" })
    } else {
        label.to_string()
    };
    let line = Line::from(text);
    Cell::from(if right { line.right_aligned() } else { line })
}

fn number(n: usize) -> Cell<'static> {
    Cell::from(Line::from(n.to_string()).right_aligned())
}

fn render_table(sh: &Shared, area: Rect, buf: &mut Buffer) {
    let theme = sh.theme();
    let list = &sh.list;
    let rows = &sh.data.rows;
    // Wide enough for a corpus export's whole id (`corpus_` + a u64): a cut id reads as
    // another one.
    let id_width = sh.data.id_chars.clamp(4, 27);
    let mut header = vec![
        header_cell(sh, SortColumn::Id, "id", false),
        header_cell(sh, SortColumn::Class, "class", false),
        header_cell(sh, SortColumn::Methods, "methods", true),
        header_cell(sh, SortColumn::Deps, "deps", true),
        header_cell(sh, SortColumn::Tests, "tests", true),
    ];
    let with_predictions = sh.data.predictions.is_some();
    if with_predictions {
        header.push(Cell::from(Line::from("exact").right_aligned()));
    }
    let header = Row::new(header).style(theme.header());
    // Only the rows on screen are built (the table scrolls within them).
    let page = layout::table_page(area).max(1);
    let first = list.offset.min(list.visible.len());
    let last = (first + page).min(list.visible.len());
    let no_matches: &[Vec<u32>] = &[];
    let matches = list.matches.get(first..last).unwrap_or(no_matches);
    let body: Vec<Row> = list.visible[first..last]
        .iter()
        .zip(matches.iter().chain(std::iter::repeat(&Vec::new())))
        .map(|(&i, matched)| {
            let r = &rows[i];
            let id_chars = u32::try_from(r.id.chars().count()).unwrap_or(u32::MAX);
            let mut cells = vec![
                Cell::from(highlight_matches(
                    &r.id,
                    matched,
                    0,
                    theme.base(),
                    theme.matched(),
                )),
                Cell::from(highlight_matches(
                    &r.class,
                    matched,
                    id_chars + 1,
                    theme.base(),
                    theme.matched(),
                )),
                number(r.methods),
                if r.analysed {
                    number(r.deps)
                } else {
                    Cell::from(Line::styled("…", theme.muted()).right_aligned())
                },
                number(r.tests),
            ];
            if with_predictions {
                cells.push(prediction_cell(sh, i));
            }
            Row::new(cells)
        })
        .collect();
    let mut widths = vec![
        Constraint::Length(u16::try_from(id_width).unwrap_or(27)),
        Constraint::Fill(1),
        Constraint::Length(8),
        Constraint::Length(6),
        Constraint::Length(6),
    ];
    if with_predictions {
        widths.push(Constraint::Length(7));
    }
    let mut title = format!(" Tasks {}/{} ", list.visible.len(), rows.len());
    if let Some(l) = sh.data.loading() {
        title.push_str(&loading_label(l, sh.data.is_loading()));
    }
    if list.pending.is_some() && !sh.data.is_loading() {
        // Every task is in; the list's order is still being made.
        title.push_str("· ordering… ");
    }
    let mut block = pane(sh, title);
    if list.filtering || !list.filter.is_empty() {
        let cursor = if list.filtering { "▏" } else { "" };
        let filter = truncate(&list.filter, usize::from(area.width.saturating_sub(12)));
        block = block.title_bottom(Line::from(vec![
            Span::styled(" / ", theme.accent()),
            Span::styled(format!("{filter}{cursor} "), theme.matched()),
        ]));
    }
    if list.visible.is_empty() {
        let inner = block.inner(area);
        block.render(area, buf);
        let text = if rows.is_empty() && sh.data.is_loading() {
            "Loading the dataset…".to_string()
        } else if rows.is_empty() {
            "The dataset has no tasks.".to_string()
        } else {
            format!("No task matches `{}`.", list.filter)
        };
        Paragraph::new(Line::styled(text, theme.muted()))
            .wrap(Wrap { trim: true })
            .render(inner, buf);
        return;
    }
    let table = Table::new(body, widths).header(header).block(block);
    let selected = list.selected.saturating_sub(first);
    crate::tui::widgets::render_selectable(sh, table, 0, selected, area, buf);
}

/// What the background is doing: reading the file (how far), then analysing the tasks.
fn loading_label(l: &crate::tui::data::Loading, reading: bool) -> String {
    if reading {
        return match (l.read * 100).checked_div(l.total) {
            Some(pct) => format!("· loading {pct}% "),
            None => "· loading… ".into(),
        };
    }
    if l.analysed < l.tasks() {
        return format!("· analysed {}/{} ", l.analysed, l.tasks());
    }
    String::new()
}

/// With predictions: exact methods / methods, `!` when the order violates a true edge.
fn prediction_cell(sh: &Shared, idx: usize) -> Cell<'static> {
    let theme = sh.theme();
    let Some(score) = sh.data.task_score(idx) else {
        return Cell::from(Line::styled("— ", theme.muted()).right_aligned());
    };
    let m = &score.metrics;
    let violated = !score.violated_edges.is_empty();
    let text = format!(
        "{}/{}{}",
        m.counts.exact,
        m.methods,
        if violated { "!" } else { " " }
    );
    let style = if violated || m.counts.exact < m.methods {
        theme.warn()
    } else {
        theme.ok()
    };
    Cell::from(Line::styled(text, style).right_aligned())
}

/// The class docstring as readable text: quotes and indentation removed, lines joined.
pub fn clean_description(text: &str) -> String {
    let trimmed = text.trim().trim_matches('"').trim_matches('\'').trim();
    let mut out = String::new();
    for para in trimmed.split("\n\n") {
        let joined = para
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        if joined.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&joined);
    }
    out
}

fn render_preview(sh: &Shared, area: Rect, buf: &mut Buffer) {
    let theme = sh.theme();
    let block = pane(sh, " Preview ");
    let Some(idx) = sh.list.selected_task() else {
        block.render(area, buf);
        return;
    };
    let Some(task) = sh.data.dataset.tasks.get(idx) else {
        block.render(area, buf);
        return;
    };
    let mut lines = vec![
        Line::from(vec![
            Span::styled(task.class_name.clone(), theme.accent()),
            Span::styled(format!("  {}", task.id), theme.muted()),
        ]),
        Line::default(),
    ];
    let description = clean_description(&task.description);
    if !description.is_empty() {
        lines.extend(description.lines().map(|l| Line::from(l.to_string())));
        lines.push(Line::default());
    }
    if let Some(score) = sh.data.task_score(idx) {
        let c = &score.metrics.counts;
        lines.push(Line::styled("Prediction", theme.header()));
        lines.push(Line::raw(format!(
            "  exact {} · missing-only {} · extra-only {} · wrong {}",
            c.exact, c.missing_only, c.extra_only, c.wrong
        )));
        let v = score.violated_edges.len();
        lines.push(if v == 0 {
            Line::styled("  order respects every true edge", theme.ok())
        } else {
            Line::styled(format!("  order violates {v} true edge(s)"), theme.warn())
        });
        lines.push(Line::default());
    } else if sh.data.predictions.is_some() {
        lines.push(Line::styled("No prediction for this task.", theme.muted()));
        lines.push(Line::default());
    }
    let Some(analysis) = sh.data.analysis(idx) else {
        lines.push(Line::styled("Analysing this task…", theme.muted()));
        return Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false })
            .render(area, buf);
    };
    let nodes = &analysis.graph.nodes;
    lines.push(Line::styled(
        format!("Methods ({})", nodes.len()),
        theme.header(),
    ));
    let width = nodes
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .min(32);
    for name in nodes {
        let deps = analysis.graph.deps_of(name);
        let count = match deps.len() {
            0 => Span::styled("—".to_string(), theme.muted()),
            1 => Span::raw("1 dep".to_string()),
            n => Span::raw(format!("{n} deps")),
        };
        lines.push(Line::from(vec![
            Span::raw(format!("  {:<width$}  ", truncate(name, width))),
            count,
        ]));
    }
    if !analysis.cycles.is_empty() {
        lines.push(Line::styled(
            format!("  {} cycle(s)", analysis.cycles.len()),
            theme.warn(),
        ));
    }
    lines.push(Line::default());
    lines.push(Line::styled(
        format!("Test classes ({})", analysis.test_classes.len()),
        theme.header(),
    ));
    let width = analysis
        .test_classes
        .iter()
        .map(|t| t.name.chars().count())
        .max()
        .unwrap_or(0)
        .min(40);
    for tc in &analysis.test_classes {
        let n = tc.tests.len();
        lines.push(Line::from(vec![
            Span::raw(format!("  {:<width$}", truncate(&tc.name, width))),
            Span::styled(
                format!("  {n} test{}", if n == 1 { "" } else { "s" }),
                theme.muted(),
            ),
        ]));
    }
    for note in &analysis.notes {
        lines.push(Line::styled(format!("! {note}"), theme.warn()));
    }
    Paragraph::new(lines)
        .block(block)
        .wrap(Wrap { trim: false })
        .render(area, buf);
}
