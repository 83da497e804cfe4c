//! The Methods tab: one row per target method (params, extracted and annotated dependencies,
//! test class, line span) and the selected method's details underneath.

use std::collections::BTreeSet;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Widget, Wrap};

use super::state::TaskState;
use crate::analysis::TaskAnalysis;
use crate::model::Task;
use crate::tui::shared::Shared;
use crate::tui::widgets::{layout, pane};

pub struct MethodsView<'a> {
    pub sh: &'a Shared,
    pub st: &'a TaskState,
}

/// The dataset's annotation of a method, as a set; `None` when it has none.
pub fn annotated_set(task: &Task, method: &str) -> Option<BTreeSet<String>> {
    task.method(method)?
        .annotated
        .as_ref()
        .map(|a| a.methods.iter().filter(|m| *m != method).cloned().collect())
}

fn join(set: &BTreeSet<String>) -> String {
    if set.is_empty() {
        "—".into()
    } else {
        set.iter().cloned().collect::<Vec<_>>().join(", ")
    }
}

fn params(analysis: &TaskAnalysis, name: &str) -> String {
    analysis
        .method_def(name)
        .map(|d| {
            d.params
                .iter()
                .filter(|p| *p != "self" && *p != "cls")
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_else(|| "?".into())
}

fn lines_of(analysis: &TaskAnalysis, name: &str) -> String {
    analysis.method_def(name).map_or_else(
        || "—".into(),
        |d| format!("{}–{}", d.start_line, d.end_line),
    )
}

impl Widget for &MethodsView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let sh = self.sh;
        let st = self.st;
        let theme = sh.theme();
        let idx = st.idx;
        let (Some(task), Some(analysis)) =
            (sh.data.dataset.tasks.get(idx), sh.data.full_analysis(idx))
        else {
            Paragraph::new(Line::styled("Analysing this task…", theme.muted()))
                .block(pane(sh, " Methods "))
                .render(area, buf);
            return;
        };
        let (table_area, detail_area) = layout::methods_split(area);
        let wide = area.width >= layout::METHODS_WIDE_WIDTH;
        let nodes = &analysis.graph.nodes;
        let mut disagree = 0;
        let rows: Vec<Row> = nodes
            .iter()
            .map(|name| {
                let extracted = analysis.graph.deps_of(name);
                let annotated = annotated_set(task, name);
                let annotated_cell = match &annotated {
                    None => Cell::from(Span::styled("n/a", theme.muted())),
                    Some(a) if a == extracted => Cell::from(join(a)),
                    Some(a) => {
                        disagree += 1;
                        Cell::from(Span::styled(format!("≠ {}", join(a)), theme.warn()))
                    }
                };
                let mut cells = vec![Cell::from(name.clone())];
                if wide {
                    cells.push(Cell::from(params(analysis, name)));
                }
                cells.push(Cell::from(join(extracted)));
                cells.push(annotated_cell);
                if wide {
                    let test_class = task
                        .method(name)
                        .and_then(|m| m.test_class.clone())
                        .unwrap_or_else(|| "—".into());
                    cells.push(Cell::from(test_class));
                }
                cells.push(Cell::from(
                    Line::from(lines_of(analysis, name)).right_aligned(),
                ));
                Row::new(cells)
            })
            .collect();
        let (header, widths): (Vec<&str>, Vec<Constraint>) = if wide {
            (
                vec![
                    "method",
                    "params",
                    "extracted deps",
                    "annotated deps",
                    "test class",
                    "lines",
                ],
                vec![
                    Constraint::Fill(3),
                    Constraint::Fill(3),
                    Constraint::Fill(3),
                    Constraint::Fill(3),
                    Constraint::Fill(4),
                    Constraint::Length(8),
                ],
            )
        } else {
            (
                vec!["method", "extracted deps", "annotated deps", "lines"],
                vec![
                    Constraint::Fill(4),
                    Constraint::Fill(3),
                    Constraint::Fill(3),
                    Constraint::Length(8),
                ],
            )
        };
        let header = Row::new(header.into_iter().map(Cell::from)).style(theme.header());
        let title = format!(" Methods ({}) ", nodes.len());
        let mut block = pane(sh, title);
        if disagree > 0 {
            block = block.title_top(
                Line::styled(
                    format!(" ≠ annotation differs for {disagree} "),
                    theme.warn(),
                )
                .right_aligned(),
            );
        }
        if nodes.is_empty() {
            let inner = block.inner(table_area);
            block.render(table_area, buf);
            Paragraph::new(Line::styled(
                "This task has no target methods.",
                theme.muted(),
            ))
            .render(inner, buf);
            return;
        }
        let table = Table::new(rows, widths).header(header).block(block);
        crate::tui::widgets::render_selectable(
            sh,
            table,
            st.method_offset,
            st.method_selected.min(nodes.len() - 1),
            table_area,
            buf,
        );
        if let Some(name) = nodes.get(st.method_selected) {
            render_detail(sh, task, analysis, name, detail_area, buf);
        }
    }
}

fn render_detail(
    sh: &Shared,
    task: &Task,
    analysis: &TaskAnalysis,
    name: &str,
    area: Rect,
    buf: &mut Buffer,
) {
    let theme = sh.theme();
    let def = analysis.method_def(name);
    let mut lines = Vec::new();
    match def {
        Some(d) => {
            let decorators: String = d.decorators.iter().map(|x| format!("@{x} ")).collect();
            let signature = d.signature.split_whitespace().collect::<Vec<_>>().join(" ");
            lines.push(Line::from(vec![
                Span::styled(decorators, theme.muted()),
                Span::styled(signature, theme.accent()),
            ]));
        }
        None => lines.push(Line::styled(
            format!("{name}: not defined in the reference solution"),
            theme.warn(),
        )),
    }
    let callers = analysis.graph.callers_of(name);
    let mut deps = vec![
        Span::styled("extracted ", theme.muted()),
        Span::raw(join(analysis.graph.deps_of(name))),
        Span::styled("  annotated ", theme.muted()),
        Span::raw(annotated_set(task, name).map_or_else(|| "n/a".into(), |a| join(&a))),
        Span::styled("  called by ", theme.muted()),
        Span::raw(if callers.is_empty() {
            "—".into()
        } else {
            callers.join(", ")
        }),
    ];
    if analysis.cycles.iter().any(|c| c.iter().any(|m| m == name)) {
        deps.push(Span::styled("  ⟲ in a cycle", theme.warn()));
    }
    lines.push(Line::from(deps));
    let test_class = task.method(name).and_then(|m| m.test_class.clone());
    let tests = test_class
        .as_ref()
        .and_then(|tc| analysis.test_classes.iter().find(|t| &t.name == tc))
        .map(|t| format!(" ({} tests)", t.tests.len()))
        .unwrap_or_default();
    let mut facts = vec![
        Span::styled("test class ", theme.muted()),
        Span::raw(format!(
            "{}{tests}",
            test_class.unwrap_or_else(|| "—".into())
        )),
        Span::styled("  lines ", theme.muted()),
        Span::raw(lines_of(analysis, name)),
    ];
    // The docstring and doctests live in the skeleton (a reference may have none).
    let documented = analysis
        .skeleton
        .class(&task.class_name)
        .and_then(|c| c.method(name))
        .filter(|d| d.docstring.is_some())
        .or(def);
    if let Some(d) = documented {
        facts.push(Span::styled("  doctests ", theme.muted()));
        facts.push(Span::raw(d.doctests.len().to_string()));
    }
    lines.push(Line::from(facts));
    if let Some(doc) = documented.and_then(|d| d.docstring.as_ref()) {
        lines.extend(
            doc.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(|l| Line::styled(l.to_string(), theme.muted())),
        );
    }
    Paragraph::new(lines)
        .block(pane(sh, format!(" {name} ")))
        .wrap(Wrap { trim: true })
        .render(area, buf);
}
