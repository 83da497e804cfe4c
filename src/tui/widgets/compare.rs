//! Sessions side by side: headline metrics, fingerprints together (classes per outcome bucket
//! with a glyph for the share of the session's classes, failing tests per exception kind), the
//! tasks whose outcome differs, and one task's tests across the sessions.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Widget};

use super::eval_view::failure_brief;
use super::fingerprint::{
    bucket_span, count_style, exc_code, exc_label, medium_label, share_glyph, short_label,
};
use super::test_detail::{fit_id, outcome_label, outcome_style};
use super::{fit_lines, layout, pane, truncate};
use crate::metrics::fingerprint::{Bucket, ExcKind};
use crate::session::EvalState;
use crate::session::reduce::FingerprintView;
use crate::tui::evals::{CompareState, EvalSession, test_differs, test_ids};
use crate::tui::shared::Shared;

pub struct CompareView<'a> {
    pub sh: &'a Shared,
}

pub struct CompareTaskView<'a> {
    pub sh: &'a Shared,
}

fn pct(x: Option<f64>) -> String {
    // A rate over nothing (no task, no test class) is not 0 %.
    x.map_or_else(|| "n/a".into(), |x| format!("{:.1}", 100.0 * x))
}

/// `1 GPT-4-Turbo`: a session's number and name, cut to `width`.
fn session_name(i: usize, s: &EvalSession, width: usize) -> String {
    truncate(&format!("{} {}", i + 1, s.info.label()), width)
}

fn render_sessions(sh: &Shared, c: &CompareState, area: Rect, buf: &mut Buffer) {
    let theme = sh.theme();
    let wide = area.width >= 110;
    let mut header: Vec<Cell> = ["#", "model", "strategy"].map(Cell::from).to_vec();
    if wide {
        header.push(Cell::from("dataset"));
    }
    header.push(Cell::from(Line::from("done").right_aligned()));
    header.push(Cell::from("status"));
    for h in ["class%", "c.part%", "fun%", "f.part%"] {
        header.push(Cell::from(Line::from(h).right_aligned()));
    }
    let rows: Vec<Row> = c
        .sessions
        .iter()
        .enumerate()
        .map(|(i, s)| {
            // Each session's own progress; the figures over the tasks all finished.
            let (done, total) = s.state.progress();
            let m = c
                .comparison
                .states
                .get(i)
                .map_or_else(|| s.state.metrics(), |r| r.metrics());
            let mut cells = vec![
                Cell::from((i + 1).to_string()),
                Cell::from(s.info.label().to_string()),
                Cell::from(s.info.strategy.clone().unwrap_or_else(|| "—".into())),
            ];
            if wide {
                cells.push(Cell::from(s.info.dataset.clone()));
            }
            cells.push(Cell::from(
                Line::from(format!("{done}/{total}")).right_aligned(),
            ));
            cells.push(Cell::from(s.status().label()));
            for v in [
                m.class_success,
                m.class_partial_success,
                m.fun_success,
                m.fun_partial_success,
            ] {
                cells.push(Cell::from(Line::from(pct(v)).right_aligned()));
            }
            Row::new(cells)
        })
        .collect();
    let mut widths = vec![
        Constraint::Length(1),
        Constraint::Fill(2),
        Constraint::Length(if wide { 13 } else { 9 }),
    ];
    if wide {
        widths.push(Constraint::Fill(1));
    }
    widths.extend([
        Constraint::Length(7),
        Constraint::Length(10),
        Constraint::Length(6),
        Constraint::Length(7),
        Constraint::Length(6),
        Constraint::Length(7),
    ]);
    let table = Table::new(rows, widths)
        .header(Row::new(header).style(theme.header()))
        .block(pane(sh, format!(" {} ", scope(c))))
        .column_spacing(1);
    Widget::render(table, area, buf);
}

/// `Compared on the 33 tasks both finished (67 of #2's left out) · ClassEval %`.
pub fn scope(c: &CompareState) -> String {
    let names: Vec<String> = (1..=c.sessions.len()).map(|i| format!("#{i}")).collect();
    format!("Compared {} · ClassEval %", c.comparison.scope(&names))
}

/// Kinds failing in any session, most frequent overall first.
fn exception_kinds(fps: &[FingerprintView]) -> Vec<ExcKind> {
    let mut kinds: Vec<(ExcKind, usize)> = ExcKind::ALL
        .iter()
        .map(|k| (*k, fps.iter().map(|f| f.exceptions.get(*k)).sum()))
        .filter(|(_, n)| *n > 0)
        .collect();
    kinds.sort_by_key(|k| std::cmp::Reverse(k.1));
    kinds.into_iter().map(|(k, _)| k).collect()
}

/// The fingerprints as two small tables, one row per session.
/// `states` are the sessions' folds the figures come from (restricted to the compared tasks).
pub fn fingerprint_lines(
    sh: &Shared,
    sessions: &[EvalSession],
    states: &[EvalState],
    width: usize,
) -> Vec<Line<'static>> {
    let theme = sh.theme();
    let fps: Vec<FingerprintView> = sessions
        .iter()
        .enumerate()
        .map(|(i, s)| states.get(i).unwrap_or(&s.state).fingerprint())
        .collect();
    let name_w = if width >= 120 { 16 } else { 3 };
    let name = |i: usize, s: &EvalSession| {
        if name_w > 3 {
            session_name(i, s, name_w - 1)
        } else {
            format!("#{}", i + 1)
        }
    };
    let cell = if width >= name_w + 10 * 9 + 3 { 9 } else { 5 };
    let label = |b: Bucket| {
        if cell >= 9 {
            medium_label(b)
        } else {
            short_label(b)
        }
    };
    let mut head = vec![Span::styled(format!("{:<name_w$}", ""), theme.header())];
    for b in Bucket::ALL {
        if b == Bucket::Timeout {
            head.push(Span::styled(" │", theme.muted()));
        }
        head.push(Span::styled(
            format!("{:>cell$}", label(b)),
            theme.bucket(b),
        ));
    }
    let mut lines = vec![Line::from(head)];
    for (i, (s, fp)) in sessions.iter().zip(&fps).enumerate() {
        let total = fp.spectrum.total().max(1) as f64;
        let mut row = vec![Span::styled(
            format!("{:<name_w$}", name(i, s)),
            theme.accent(),
        )];
        for b in Bucket::ALL {
            if b == Bucket::Timeout {
                row.push(Span::styled(" │", theme.muted()));
            }
            let n = fp.spectrum.get(b);
            let glyph = share_glyph(n as f64 / total);
            row.push(Span::styled(
                format!("{:>w$}{glyph}", n, w = cell - 1),
                count_style(sh, n, theme.bucket(b)),
            ));
        }
        lines.push(Line::from(row));
    }
    let kinds = exception_kinds(&fps);
    let ecell = if width >= 120 { 13 } else { 8 };
    let fit = width.saturating_sub(name_w + 4) / ecell;
    let mut head = vec![Span::styled(format!("{:<name_w$}", ""), theme.header())];
    for k in kinds.iter().take(fit) {
        let label = if ecell >= 13 {
            exc_label(*k, true)
        } else {
            exc_code(*k).to_string()
        };
        head.push(Span::styled(format!("{label:>ecell$}"), theme.muted()));
    }
    if kinds.len() > fit {
        head.push(Span::styled(
            format!(" +{}", kinds.len() - fit),
            theme.muted(),
        ));
    }
    if kinds.is_empty() {
        head.push(Span::styled("no failing tests", theme.muted()));
    }
    lines.push(Line::from(head));
    for (i, (s, fp)) in sessions.iter().zip(&fps).enumerate() {
        let mut row = vec![Span::styled(
            format!("{:<name_w$}", name(i, s)),
            theme.accent(),
        )];
        for k in kinds.iter().take(fit) {
            let n = fp.exceptions.get(*k);
            row.push(Span::styled(
                format!("{n:>ecell$}"),
                count_style(sh, n, theme.base()),
            ));
        }
        lines.push(Line::from(row));
    }
    fit_lines(lines, width)
}

fn render_differing(sh: &Shared, c: &CompareState, area: Rect, buf: &mut Buffer) {
    let theme = sh.theme();
    let title = format!(
        " Tasks whose outcome differs · {} of the {} compared ",
        c.differing.len(),
        c.comparison.rows.len()
    );
    let block = pane(sh, title);
    if c.differing.is_empty() {
        let inner = block.inner(area);
        block.render(area, buf);
        let text = if c.comparison.rows.is_empty() {
            "No task was finished by every session: nothing to compare."
        } else {
            "Every compared task has the same outcome in every session."
        };
        Paragraph::new(Line::styled(text, theme.muted())).render(inner, buf);
        return;
    }
    let n = c.sessions.len().max(1);
    let id_w = c
        .differing
        .iter()
        .map(|t| t.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 24);
    let col_w = usize::from(area.width.saturating_sub(4)).saturating_sub(id_w + 2) / n;
    let mut header = vec![Cell::from("task")];
    header.extend(
        c.sessions
            .iter()
            .enumerate()
            .map(|(i, s)| Cell::from(session_name(i, s, col_w.saturating_sub(1)))),
    );
    let rows: Vec<Row> = c
        .differing
        .iter()
        .map(|task| {
            let mut cells = vec![Cell::from(task.clone())];
            for s in &c.sessions {
                let run = s.state.run(task, 0);
                let summary = run.and_then(|r| r.summary.as_ref());
                let mut spans = vec![bucket_span(sh, summary.and_then(|s| s.outcome), 10)];
                if let Some(sum) = summary {
                    spans.push(Span::styled(
                        format!(" {}/{}", sum.passed, sum.judged),
                        theme.muted(),
                    ));
                }
                cells.push(Cell::from(Line::from(spans)));
            }
            Row::new(cells)
        })
        .collect();
    let mut widths = vec![Constraint::Length(u16::try_from(id_w).unwrap_or(24))];
    widths.extend(std::iter::repeat_n(Constraint::Fill(1), n));
    let table = Table::new(rows, widths)
        .header(Row::new(header).style(theme.header()))
        .block(block);
    super::render_selectable(sh, table, c.cursor.offset, c.cursor.selected, area, buf);
}

impl Widget for &CompareView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let sh = self.sh;
        let Some(c) = sh.ev.compare.as_ref() else {
            return;
        };
        let (table, fingerprint, tasks) = layout::compare_split(area, c.sessions.len());
        render_sessions(sh, c, table, buf);
        let width = usize::from(fingerprint.width.saturating_sub(2));
        let title = if width >= 100 {
            " Fingerprints: classes per outcome bucket (▁▂▃▄▅▆▇█ share of the session's classes), then failing tests per exception "
        } else {
            " Fingerprints: classes per outcome, failing tests per exception "
        };
        let block = pane(sh, title);
        Paragraph::new(fingerprint_lines(
            sh,
            &c.sessions,
            &c.comparison.states,
            width,
        ))
        .block(block)
        .render(fingerprint, buf);
        render_differing(sh, c, tasks, buf);
    }
}

impl Widget for &CompareTaskView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let sh = self.sh;
        let theme = sh.theme();
        let Some((c, task)) = sh
            .ev
            .compare
            .as_ref()
            .and_then(|c| Some((c, c.task.as_ref()?)))
        else {
            return;
        };
        let (summary, table) = layout::compare_task_split(area, c.sessions.len());
        let width = usize::from(summary.width.saturating_sub(2));
        let lines: Vec<Line> = c
            .sessions
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let run = s.state.run(&task.task_id, 0);
                let sum = run.and_then(|r| r.summary.as_ref());
                let chosen = i == task.column;
                let name_style = if chosen {
                    theme.accent().patch(theme.selection())
                } else {
                    theme.accent()
                };
                let mut spans = vec![
                    Span::styled(if chosen { "› " } else { "  " }, theme.accent()),
                    Span::styled(session_name(i, s, 24), name_style),
                    Span::raw("  "),
                    bucket_span(sh, sum.and_then(|s| s.outcome), 10),
                ];
                match sum {
                    Some(sum) => {
                        spans.push(Span::raw(format!(" {}/{} passed", sum.passed, sum.judged)))
                    }
                    None => spans.push(Span::styled(" not evaluated", theme.muted())),
                }
                if let Some(f) = run
                    .and_then(|r| r.private.as_ref())
                    .and_then(|r| r.failure.as_ref())
                {
                    spans.push(Span::styled(
                        format!("  {}", failure_brief(f)),
                        theme.error(),
                    ));
                }
                Line::from(spans)
            })
            .collect();
        Paragraph::new(fit_lines(lines, width))
            .block(pane(sh, format!(" {} in each session ", task.task_id)))
            .render(summary, buf);

        let ids = test_ids(&c.sessions, &task.task_id);
        let n = c.sessions.len().max(1);
        let mut header = vec![Cell::from("test")];
        for (i, s) in c.sessions.iter().enumerate() {
            let style = if i == task.column {
                theme.header().patch(theme.selection())
            } else {
                theme.header()
            };
            header.push(Cell::from(Span::styled(session_name(i, s, 20), style)));
        }
        let id_w = usize::from(table.width.saturating_sub(4)) * 2 / (n + 2);
        let rows: Vec<Row> = ids
            .iter()
            .map(|id| {
                let differs = test_differs(&c.sessions, &task.task_id, id);
                let mark = if differs { "≠ " } else { "  " };
                let mut cells = vec![Cell::from(Line::from(vec![
                    Span::styled(mark, theme.matched()),
                    Span::raw(fit_id(id, id_w.saturating_sub(3))),
                ]))];
                for s in &c.sessions {
                    let t = s.state.run(&task.task_id, 0).and_then(|r| r.test(id));
                    cells.push(match t {
                        Some(t) => {
                            let (glyph, name) = outcome_label(t.outcome);
                            let what = t.exc_type.as_deref().unwrap_or(name);
                            Cell::from(Span::styled(
                                format!("{glyph} {what}"),
                                outcome_style(theme, t.outcome),
                            ))
                        }
                        None => Cell::from(Span::styled("—", theme.muted())),
                    });
                }
                Row::new(cells)
            })
            .collect();
        let mut widths = vec![Constraint::Fill(2)];
        widths.extend(std::iter::repeat_n(Constraint::Fill(1), n));
        let differing = ids
            .iter()
            .filter(|id| test_differs(&c.sessions, &task.task_id, id))
            .count();
        let block = pane(
            sh,
            format!(" Tests · {} · ≠ {differing} differ ", ids.len()),
        );
        if rows.is_empty() {
            let inner = block.inner(table);
            block.render(table, buf);
            Paragraph::new(Line::styled(
                "No session ran tests for this task.",
                theme.muted(),
            ))
            .render(inner, buf);
            return;
        }
        let widget = Table::new(rows, widths)
            .header(Row::new(header))
            .block(block);
        super::render_selectable(sh, widget, task.rows.offset, task.rows.selected, table, buf);
    }
}
