//! The Dependencies tab: the ground-truth graph in layers (callees left of callers, each
//! method with its outgoing edges as an arrow list), cycles, the topological order, the
//! annotation's disagreement; with predictions, every edge marked correct / missing / extra,
//! the predicted order beside the true one with violations marked, and the task's metrics.

pub mod order;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use crate::analysis::DepGraph;
use crate::metrics::deps::{Category, MethodScore, TaskScore};
use crate::tui::shared::Shared;
use crate::tui::theme::{EdgeKind, Theme};
use crate::tui::widgets::{fit_lines, layout, pane, truncate};

/// Which task's graph, scrolled how far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DepsAt {
    pub idx: usize,
    pub deps_scroll: usize,
}

pub struct DepsView<'a> {
    pub sh: &'a Shared,
    pub st: DepsAt,
}

/// Widest column of the layered drawing, and the gap between columns.
const MAX_COLUMN: usize = 36;
const GAP: usize = 3;

/// Lines of the tab's document(s) for a content area (the longer pane when there are two).
pub fn line_count(sh: &Shared, st: DepsAt, content: Rect) -> usize {
    let (left, right) = layout::deps_split(content);
    match right {
        Some(right) => graph_doc(sh, st, inner_width(left))
            .len()
            .max(order::doc(sh, st, inner_width(right)).len()),
        None => single_doc(sh, st, inner_width(left)).len(),
    }
}

fn inner_width(area: Rect) -> usize {
    usize::from(area.width.saturating_sub(2))
}

fn single_doc(sh: &Shared, st: DepsAt, width: usize) -> Vec<Line<'static>> {
    let mut lines = graph_doc(sh, st, width);
    lines.push(Line::default());
    lines.extend(order::doc(sh, st, width));
    lines
}

impl Widget for &DepsView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let sh = self.sh;
        let st = self.st;
        let (left, right) = layout::deps_split(area);
        match right {
            Some(right) => {
                let doc = fit_lines(graph_doc(sh, st, inner_width(left)), inner_width(left));
                scrolled_pane(sh, st, " Dependency graph ", doc, left, buf);
                let doc = order::doc(sh, st, inner_width(right));
                scrolled_pane(sh, st, " Order & metrics ", doc, right, buf);
            }
            None => {
                let doc = fit_lines(single_doc(sh, st, inner_width(left)), inner_width(left));
                scrolled_pane(sh, st, " Dependencies ", doc, left, buf);
            }
        }
    }
}

/// A bordered, scrolled document with its position in the title when it does not fit.
fn scrolled_pane(
    sh: &Shared,
    st: DepsAt,
    title: &str,
    doc: Vec<Line<'static>>,
    area: Rect,
    buf: &mut Buffer,
) {
    let page = layout::inner_page(area);
    let scroll = st.deps_scroll.min(doc.len().saturating_sub(1));
    let mut block = pane(sh, title.to_string());
    if let Some(position) = position_label(scroll, page, doc.len()) {
        block = block.title_top(Line::styled(position, sh.theme().muted()).right_aligned());
    }
    Paragraph::new(doc)
        .block(block)
        .scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0))
        .render(area, buf);
}

/// " 1–20 of 45 ↓ " when a document is taller than its page.
pub fn position_label(scroll: usize, page: usize, total: usize) -> Option<String> {
    if total <= page {
        return None;
    }
    let end = (scroll + page).min(total);
    let arrow = match (scroll > 0, end < total) {
        (true, true) => " ↕",
        (false, true) => " ↓",
        (true, false) => " ↑",
        (false, false) => "",
    };
    Some(format!(" {}–{end} of {total}{arrow} ", scroll + 1))
}

/// One outgoing edge as shown: target and how it compares with the prediction.
struct Edge {
    target: String,
    kind: EdgeKind,
}

fn edge_symbol(kind: EdgeKind) -> &'static str {
    match kind {
        EdgeKind::Plain => "",
        EdgeKind::Correct => "✓",
        EdgeKind::Missing => "✗",
        EdgeKind::Extra => "+",
    }
}

fn edges_of(graph: &DepGraph, score: Option<&MethodScore>, method: &str) -> Vec<Edge> {
    match score {
        Some(s) => {
            let mut edges: Vec<Edge> = s
                .correct
                .iter()
                .map(|t| Edge {
                    target: t.clone(),
                    kind: EdgeKind::Correct,
                })
                .chain(s.missing.iter().map(|t| Edge {
                    target: t.clone(),
                    kind: EdgeKind::Missing,
                }))
                .chain(s.extra.iter().map(|t| Edge {
                    target: t.clone(),
                    kind: EdgeKind::Extra,
                }))
                .collect();
            edges.sort_by(|a, b| a.target.cmp(&b.target));
            edges
        }
        None => graph
            .deps_of(method)
            .iter()
            .map(|t| Edge {
                target: t.clone(),
                kind: EdgeKind::Plain,
            })
            .collect(),
    }
}

/// A node of the drawing: its lines (each a list of spans) within `width` characters.
fn node_block(
    theme: &Theme,
    name: &str,
    in_cycle: bool,
    edges: &[Edge],
    width: usize,
) -> Vec<Vec<Span<'static>>> {
    let marker = if in_cycle { " ⟲" } else { "" };
    let label = truncate(name, width.saturating_sub(marker.chars().count()).max(1));
    let mut lines = vec![vec![
        Span::styled(label, theme.accent()),
        Span::styled(marker, theme.warn()),
    ]];
    let mut current = vec![Span::raw("→ ")];
    let mut used = 2;
    for (i, edge) in edges.iter().enumerate() {
        let sep = if i + 1 < edges.len() { "," } else { "" };
        let item = format!("{}{}{sep}", edge_symbol(edge.kind), edge.target);
        let item = truncate(&item, width.saturating_sub(2).max(1));
        let len = item.chars().count();
        if i > 0 {
            if used + 1 + len > width {
                lines.push(std::mem::replace(&mut current, vec![Span::raw("  ")]));
                used = 2;
            } else {
                current.push(Span::raw(" "));
                used += 1;
            }
        }
        used += len;
        current.push(Span::styled(item, theme.edge(edge.kind)));
    }
    if !edges.is_empty() {
        lines.push(current);
    }
    lines
}

fn span_width(spans: &[Span]) -> usize {
    spans.iter().map(|s| s.content.chars().count()).sum()
}

/// The layered drawing: layers as columns, packed into bands that fit `width`.
pub(crate) fn layer_lines(
    sh: &Shared,
    graph: &DepGraph,
    score: Option<&TaskScore>,
    width: usize,
) -> Vec<Line<'static>> {
    let theme = sh.theme();
    let layers = graph.layers();
    let cycles = graph.cycles();
    let in_cycle = |n: &str| cycles.iter().any(|c| c.iter().any(|m| m == n));
    let method_score = |n: &str| score.and_then(|s| s.methods.iter().find(|m| m.method == n));
    // A column is as wide as its longest name or "→ " + its longest edge item.
    let widths: Vec<usize> = layers
        .iter()
        .map(|layer| {
            layer
                .iter()
                .map(|n| {
                    let name = n.chars().count() + if in_cycle(n) { 2 } else { 0 };
                    let edge = edges_of(graph, method_score(n), n)
                        .iter()
                        .map(|e| e.target.chars().count() + 4)
                        .max()
                        .unwrap_or(0);
                    name.max(edge)
                })
                .max()
                .unwrap_or(0)
                .clamp(8, MAX_COLUMN)
                .min(width.max(4))
        })
        .collect();
    let mut out = Vec::new();
    let mut start = 0;
    while start < layers.len() {
        let mut end = start + 1;
        let mut used = widths[start];
        while end < layers.len() && used + GAP + widths[end] <= width {
            used += GAP + widths[end];
            end += 1;
        }
        let blocks: Vec<Vec<Vec<Span<'static>>>> = (start..end)
            .map(|l| {
                let mut col = Vec::new();
                for (k, name) in layers[l].iter().enumerate() {
                    if k > 0 {
                        col.push(Vec::new());
                    }
                    let edges = edges_of(graph, method_score(name), name);
                    col.extend(node_block(theme, name, in_cycle(name), &edges, widths[l]));
                }
                col
            })
            .collect();
        let mut header: Vec<Span<'static>> = Vec::new();
        for (k, l) in (start..end).enumerate() {
            let label = truncate(&format!("layer {l}"), widths[l]);
            let pad = widths[l] - label.chars().count() + if k + 1 < end - start { GAP } else { 0 };
            header.push(Span::styled(label, theme.header()));
            header.push(Span::raw(" ".repeat(pad)));
        }
        out.push(Line::from(header));
        let rows = blocks.iter().map(Vec::len).max().unwrap_or(0);
        for r in 0..rows {
            let mut spans = Vec::new();
            for (k, col) in blocks.iter().enumerate() {
                let cell = col.get(r).cloned().unwrap_or_default();
                let pad = widths[start + k].saturating_sub(span_width(&cell));
                spans.extend(cell);
                if k + 1 < blocks.len() {
                    spans.push(Span::raw(" ".repeat(pad + GAP)));
                }
            }
            out.push(Line::from(spans));
        }
        start = end;
        if start < layers.len() {
            out.push(Line::default());
        }
    }
    out
}

/// The left pane: summary line, legend, layers, cycles, annotation disagreement.
fn graph_doc(sh: &Shared, st: DepsAt, width: usize) -> Vec<Line<'static>> {
    let theme = sh.theme();
    let idx = st.idx;
    let data = &sh.data;
    let mut lines = vec![Line::from(vec![
        Span::styled("Ground truth: ", theme.muted()),
        Span::raw(data.truth_label()),
    ])];
    if !data.is_analysed(idx) {
        lines.push(Line::styled(
            "Waiting for the dependency analysis…",
            theme.muted(),
        ));
        return lines;
    }
    let Some(graph) = data.truth_graph(idx) else {
        lines.push(Line::styled(
            "The ground-truth file has no entry for this task.",
            theme.warn(),
        ));
        return lines;
    };
    let cycles = graph.cycles();
    let mut facts = vec![Span::raw(format!(
        "{} methods · {} edges · ",
        graph.nodes.len(),
        graph.edge_count()
    ))];
    if cycles.is_empty() {
        facts.push(Span::styled("no cycles", theme.muted()));
    } else {
        let list: Vec<String> = cycles.iter().map(|c| c.join(" ⇄ ")).collect();
        facts.push(Span::styled(
            format!("⟲ cycles: {}", list.join("; ")),
            theme.warn(),
        ));
    }
    lines.push(Line::from(facts));
    let score = data.task_score(idx);
    if data.predictions.is_some() {
        lines.push(legend(theme));
        if score.is_none() {
            lines.push(Line::styled(
                "No prediction for this task: edges unmarked.",
                theme.warn(),
            ));
        }
    }
    lines.push(Line::default());
    if graph.nodes.is_empty() {
        lines.push(Line::styled("No target methods.", theme.muted()));
    } else {
        lines.push(Line::styled(
            "Layers: every method sits right of the methods it depends on (→).",
            theme.muted(),
        ));
        lines.push(Line::default());
        lines.extend(layer_lines(sh, graph, score, width.max(10)));
    }
    lines.push(Line::default());
    lines.extend(annotation_lines(sh, st, width));
    lines
}

pub(crate) fn legend(theme: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled("Edges: ", theme.muted()),
        Span::styled("✓ correct", theme.edge(EdgeKind::Correct)),
        Span::raw("  "),
        Span::styled("✗ missing", theme.edge(EdgeKind::Missing)),
        Span::styled(" (not predicted)", theme.muted()),
        Span::raw("  "),
        Span::styled("+ extra", theme.edge(EdgeKind::Extra)),
        Span::styled(" (not true)", theme.muted()),
    ])
}

/// Extracted vs annotated, per method that differs.
fn annotation_lines(sh: &Shared, st: DepsAt, width: usize) -> Vec<Line<'static>> {
    let theme = sh.theme();
    let idx = st.idx;
    let mut lines = vec![Line::styled("Extracted vs annotated", theme.header())];
    let Some(analysis) = sh.data.analysis(idx) else {
        return lines;
    };
    if analysis.annotated.is_none() {
        lines.push(Line::styled(
            "  The dataset has no dependency annotation for this task.",
            theme.muted(),
        ));
        return lines;
    }
    let Some(score) = sh.data.agreement_score(idx) else {
        return lines;
    };
    let differing: Vec<&MethodScore> = score
        .methods
        .iter()
        .filter(|m| m.category != Category::Exact)
        .collect();
    let agree = score.methods.len() - differing.len();
    let style = if differing.is_empty() {
        theme.ok()
    } else {
        theme.warn()
    };
    lines.push(Line::styled(
        format!("  agree on {agree} of {} methods", score.methods.len()),
        style,
    ));
    for m in differing {
        // Here the "truth" is the annotation and the "prediction" the extracted graph.
        lines.push(Line::styled(
            truncate(&format!("  ≠ {}", m.method), width),
            theme.warn(),
        ));
        if !m.extra.is_empty() {
            let text = format!("      code calls {} (not annotated)", m.extra.join(", "));
            lines.push(Line::raw(truncate(&text, width)));
        }
        if !m.missing.is_empty() {
            let text = format!("      annotated {} (not called)", m.missing.join(", "));
            lines.push(Line::raw(truncate(&text, width)));
        }
    }
    for (method, name) in &analysis.annotated_unknown {
        lines.push(Line::styled(
            truncate(
                &format!("  ? {method}: annotation names `{name}`, not a target method"),
                width,
            ),
            theme.muted(),
        ));
    }
    lines
}

/// Style for a category name in the metrics.
pub fn category_style(theme: &Theme, category: Category) -> Style {
    match category {
        Category::Exact => theme.ok(),
        Category::MissingOnly => theme.edge(EdgeKind::Missing),
        Category::ExtraOnly => theme.edge(EdgeKind::Extra),
        Category::Wrong => theme.error(),
    }
}
