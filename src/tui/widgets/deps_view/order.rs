//! The Dependencies tab's order and metrics: the true topological order as a numbered list,
//! the predicted order beside it with violating positions marked, and the task's §4 metrics.

use std::collections::BTreeSet;

use ratatui::text::{Line, Span};

use super::{DepsAt, category_style};
use crate::analysis::DepGraph;
use crate::metrics::deps::{Category, TaskScore};
use crate::tui::shared::Shared;
use crate::tui::widgets::{fit_lines, truncate};

/// Widest method name shown in the order and metrics tables.
const MAX_NAME: usize = 34;

fn category_name(c: Category) -> &'static str {
    match c {
        Category::Exact => "exact",
        Category::MissingOnly => "missing-only",
        Category::ExtraOnly => "extra-only",
        Category::Wrong => "wrong",
    }
}

/// The right pane (or the lower half of the single pane).
pub fn doc(sh: &Shared, st: DepsAt, width: usize) -> Vec<Line<'static>> {
    let idx = st.idx;
    let data = &sh.data;
    let Some(graph) = data.truth_graph(idx) else {
        return Vec::new();
    };
    let score = data.task_score(idx);
    let mut lines = match score.and(data.predicted_order(idx)) {
        Some(predicted) => {
            let violated = score.map_or(&[][..], |s| s.violated_edges.as_slice());
            let mut lines = vec![Line::styled(
                "Order (dependencies first)",
                sh.theme().header(),
            )];
            lines.extend(both_orders(
                sh,
                graph,
                violated,
                predicted,
                "predicted",
                width,
            ));
            lines
        }
        None => true_order(sh, graph, score.is_some()),
    };
    if let Some(score) = score {
        lines.push(Line::default());
        lines.extend(metrics_lines(sh, score, width));
    }
    fit_lines(lines, width)
}

fn true_order(sh: &Shared, graph: &DepGraph, scored: bool) -> Vec<Line<'static>> {
    let theme = sh.theme();
    let order = graph.topo_order();
    let mut lines = vec![Line::styled("Order (dependencies first)", theme.header())];
    let digits = order.len().to_string().len();
    for (i, m) in order.iter().enumerate() {
        lines.push(Line::raw(format!("  {:>digits$}. {m}", i + 1)));
    }
    if order.is_empty() {
        lines.push(Line::styled("  (no methods)", theme.muted()));
    }
    if scored {
        lines.push(Line::styled(
            "  The prediction gives no order.",
            theme.muted(),
        ));
    }
    lines
}

/// The true order and the predicted one (a generation schedule, under the column `label`)
/// side by side; a position that comes before one of its method's true dependencies is marked
/// `!`, and every violated edge listed.
pub(crate) fn both_orders(
    sh: &Shared,
    graph: &DepGraph,
    violated: &[[String; 2]],
    predicted: &[String],
    label: &str,
    width: usize,
) -> Vec<Line<'static>> {
    let theme = sh.theme();
    let truth = graph.topo_order();
    let marked: BTreeSet<&str> = violated.iter().map(|[a, _]| a.as_str()).collect();
    let rows = truth.len().max(predicted.len());
    let digits = rows.to_string().len();
    // Two name columns must fit beside the numbers.
    let room = width.saturating_sub(digits + 8) / 2;
    let name_width = truth
        .iter()
        .chain(predicted)
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, MAX_NAME)
        .min(room.max(4));
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("{:>w$}  ", "#", w = digits + 1), theme.muted()),
        Span::styled(format!("{:<name_width$}", "true"), theme.muted()),
        Span::styled(format!("  {label}"), theme.muted()),
    ])];
    for i in 0..rows {
        let t = truth
            .get(i)
            .map_or(String::new(), |s| truncate(s, name_width));
        let mut spans = vec![
            Span::styled(format!("{:>w$}. ", i + 1, w = digits + 1), theme.muted()),
            Span::raw(format!("{t:<name_width$}  ")),
        ];
        if let Some(p) = predicted.get(i) {
            let shown = truncate(p, name_width);
            if marked.contains(p.as_str()) {
                spans.push(Span::styled(format!("{shown} !"), theme.error()));
            } else if !graph.nodes.contains(p) {
                spans.push(Span::styled(format!("{shown} ?"), theme.warn()));
            } else {
                spans.push(Span::raw(shown));
            }
        }
        lines.push(Line::from(spans));
    }
    let absent: Vec<&str> = graph
        .nodes
        .iter()
        .filter(|n| !predicted.contains(n))
        .map(String::as_str)
        .collect();
    if !absent.is_empty() {
        lines.push(Line::styled(
            format!("  not in the {label} order: {}", absent.join(", ")),
            theme.warn(),
        ));
    }
    if predicted.iter().any(|p| !graph.nodes.contains(p)) {
        lines.push(Line::styled("  ? not a target method", theme.muted()));
    }
    if violated.is_empty() {
        lines.push(Line::styled(
            format!("  ✓ the {label} order respects every true edge"),
            theme.ok(),
        ));
    } else {
        lines.push(Line::styled(
            format!(
                "  ! generated before a dependency ({} violated edge{}):",
                violated.len(),
                if violated.len() == 1 { "" } else { "s" }
            ),
            theme.error(),
        ));
        for [a, b] in violated {
            let how = if predicted.contains(b) {
                "comes later"
            } else {
                "not in the order"
            };
            lines.push(Line::from(vec![
                Span::raw(format!("    {a} → {b}")),
                Span::styled(format!("  ({how})"), theme.muted()),
            ]));
        }
    }
    lines
}

fn metrics_lines(sh: &Shared, score: &TaskScore, width: usize) -> Vec<Line<'static>> {
    let theme = sh.theme();
    let m = &score.metrics;
    let c = &m.counts;
    let mut lines = vec![
        Line::styled(
            format!("Task metrics (vs {})", sh.data.truth.label()),
            theme.header(),
        ),
        Line::from(vec![
            Span::styled(
                format!("  exact {}", c.exact),
                category_style(theme, Category::Exact),
            ),
            Span::raw(" · "),
            Span::styled(
                format!("missing-only {}", c.missing_only),
                category_style(theme, Category::MissingOnly),
            ),
            Span::raw(" · "),
            Span::styled(
                format!("extra-only {}", c.extra_only),
                category_style(theme, Category::ExtraOnly),
            ),
            Span::raw(" · "),
            Span::styled(
                format!("wrong {}", c.wrong),
                category_style(theme, Category::Wrong),
            ),
        ]),
        Line::raw(format!(
            "  macro P {:.2} R {:.2} F1 {:.2}",
            m.macro_avg.precision, m.macro_avg.recall, m.macro_avg.f1
        )),
        Line::raw(format!(
            "  micro P {:.2} R {:.2} F1 {:.2}  (edge-level)",
            m.micro.precision, m.micro.recall, m.micro.f1
        )),
        Line::raw(format!(
            "  edges: {} true · {} predicted · {} correct",
            m.edges_truth, m.edges_predicted, m.edges_correct
        )),
        Line::default(),
    ];
    let name_width = score
        .methods
        .iter()
        .map(|m| m.method.chars().count())
        .max()
        .unwrap_or(6)
        .clamp(6, MAX_NAME)
        .min(width.saturating_sub(32).max(6));
    lines.push(Line::styled(
        format!(
            "  {:<name_width$}  {:<12}  {:>4} {:>4} {:>4}",
            "method", "category", "P", "R", "F1"
        ),
        theme.header(),
    ));
    for ms in &score.methods {
        lines.push(Line::from(vec![
            Span::raw(format!(
                "  {:<name_width$}  ",
                truncate(&ms.method, name_width)
            )),
            Span::styled(
                format!("{:<12}", category_name(ms.category)),
                category_style(theme, ms.category),
            ),
            Span::raw(format!(
                "  {:>4.2} {:>4.2} {:>4.2}",
                ms.precision, ms.recall, ms.f1
            )),
        ]));
    }
    lines
}
