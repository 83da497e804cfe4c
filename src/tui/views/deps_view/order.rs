//! The Dependencies tab's order and metrics: the true topological order as a numbered list,
//! the predicted order beside it with violating positions marked, and the task's §4 metrics.

use std::collections::BTreeMap;

use ratatui::text::{Line, Span};

use super::category_style;
use crate::metrics::deps::{Category, TaskScore};
use crate::tui::app::App;
use crate::tui::views::{fit_lines, truncate};

fn category_name(c: Category) -> &'static str {
    match c {
        Category::Exact => "exact",
        Category::MissingOnly => "missing-only",
        Category::ExtraOnly => "extra-only",
        Category::Wrong => "wrong",
    }
}

/// The right pane (or the lower half of the single pane).
pub fn doc(app: &App, width: usize) -> Vec<Line<'static>> {
    let theme = app.theme();
    let idx = app.task.idx;
    let data = &app.data;
    let Some(graph) = data.truth_graphs.get(idx).and_then(Option::as_ref) else {
        return Vec::new();
    };
    let truth_order = graph.topo_order();
    let score = data.task_score(idx);
    let predicted = score.and(data.predicted_order(idx));
    let mut lines = Vec::new();
    let Some(predicted) = predicted else {
        lines.push(Line::styled("Order (dependencies first)", theme.header()));
        let digits = truth_order.len().to_string().len();
        for (i, m) in truth_order.iter().enumerate() {
            lines.push(Line::raw(truncate(
                &format!("  {:>digits$}. {m}", i + 1),
                width,
            )));
        }
        if truth_order.is_empty() {
            lines.push(Line::styled("  (no methods)", theme.muted()));
        }
        if score.is_some() {
            lines.push(Line::styled(
                "  The prediction gives no order.",
                theme.muted(),
            ));
        }
        if let Some(score) = score {
            lines.push(Line::default());
            lines.extend(metrics_lines(app, score, width));
        }
        return lines;
    };
    // Violated edge [A, B]: A depends on B but B is placed after A (or absent): mark A.
    let mut needs: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for [a, b] in score
        .map(|s| s.violated_edges.as_slice())
        .unwrap_or_default()
    {
        needs.entry(a.as_str()).or_default().push(b.as_str());
    }
    let rows = truth_order.len().max(predicted.len());
    let digits = rows.to_string().len();
    lines.push(Line::styled("Order (dependencies first)", theme.header()));
    let name_width = truth_order
        .iter()
        .chain(predicted)
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 24);
    lines.push(Line::from(vec![
        Span::styled(format!("{:>w$}  ", "#", w = digits + 1), theme.muted()),
        Span::styled(format!("{:<name_width$}", "true"), theme.muted()),
        Span::raw("  "),
        Span::styled("predicted", theme.muted()),
    ]));
    for i in 0..rows {
        let t = truth_order
            .get(i)
            .map_or(String::new(), |s| truncate(s, name_width));
        let mut spans = vec![
            Span::styled(format!("{:>w$}. ", i + 1, w = digits + 1), theme.muted()),
            Span::raw(format!("{t:<name_width$}")),
            Span::raw("  "),
        ];
        if let Some(p) = predicted.get(i) {
            let known = graph.nodes.contains(p);
            match needs.get(p.as_str()) {
                Some(missing) => {
                    spans.push(Span::styled(
                        format!("{} !", truncate(p, name_width)),
                        theme.error(),
                    ));
                    spans.push(Span::styled(
                        format!(" needs {}", missing.join(", ")),
                        theme.muted(),
                    ));
                }
                None if !known => spans.push(Span::styled(format!("{p} ?"), theme.warn())),
                None => spans.push(Span::raw(truncate(p, name_width))),
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
            truncate(
                &format!("  not in the predicted order: {}", absent.join(", ")),
                width,
            ),
            theme.warn(),
        ));
    }
    let note = if needs.is_empty() {
        Line::styled(
            "  ✓ the predicted order respects every true edge",
            theme.ok(),
        )
    } else {
        Line::styled("  ! placed before a method it depends on", theme.muted())
    };
    lines.push(note);
    if let Some(score) = score {
        lines.push(Line::default());
        lines.extend(metrics_lines(app, score, width));
    }
    lines
}

fn metrics_lines(app: &App, score: &TaskScore, width: usize) -> Vec<Line<'static>> {
    let theme = app.theme();
    let m = &score.metrics;
    let c = &m.counts;
    let mut lines = vec![
        Line::styled(
            format!("Task metrics (vs {})", app.data.truth.label()),
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
    ];
    let violated: Vec<String> = score
        .violated_edges
        .iter()
        .map(|[a, b]| format!("{a} → {b}"))
        .collect();
    if violated.is_empty() {
        lines.push(Line::styled("  no order violations", theme.ok()));
    } else {
        lines.push(Line::styled(
            format!("  violated edges: {}", violated.join(", ")),
            theme.error(),
        ));
    }
    lines.push(Line::default());
    let name_width = score
        .methods
        .iter()
        .map(|m| m.method.chars().count())
        .max()
        .unwrap_or(6)
        .clamp(6, 24);
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
    fit_lines(lines, width)
}
