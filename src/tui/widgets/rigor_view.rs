//! The task view's Rigor tab: the reference with each statement's coverage in the gutter
//! (covered, never run, a branch not taken), every surviving mutant inline under its line as a
//! two-line diff, and a panel with the figures, the tests that run the cursor's line and the
//! survivors. Draws what arrived (`Shared::rigor`); nothing here computes beyond one class.

use std::collections::{BTreeMap, BTreeSet};

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::{fit_lines, pane};
use crate::rigor::{Status, TaskRigor};
use crate::tui::shared::{CodePart, Shared};

/// Where the tab is: the task, the cursor's line (1-based) and the first document row shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RigorAt {
    pub idx: usize,
    pub cursor: usize,
    pub top: usize,
}

/// A row of the document: a line of the reference, or a line of a surviving mutant's diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    Code(usize),
    Before(usize),
    After(usize),
}

/// Surviving mutants by line (indices into the result's mutants).
pub fn survivors_by_line(r: &TaskRigor) -> BTreeMap<usize, Vec<usize>> {
    let mut out: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, m) in r.mutants.iter().enumerate() {
        if m.outcome.status == Status::Survived {
            out.entry(m.diff.line).or_default().push(i);
        }
    }
    out
}

/// The document: every line of the reference, each followed by its survivors' diffs.
pub fn rows(r: Option<&TaskRigor>, lines: usize) -> Vec<Row> {
    let by_line = r.map(survivors_by_line).unwrap_or_default();
    let mut out = Vec::with_capacity(lines);
    for line in 1..=lines {
        out.push(Row::Code(line));
        for &m in by_line.get(&line).into_iter().flatten() {
            out.push(Row::Before(m));
            out.push(Row::After(m));
        }
    }
    out
}

/// The code pane and the panel.
pub fn split(content: Rect) -> (Rect, Rect) {
    if content.width >= 120 {
        let [code, panel] =
            Layout::horizontal([Constraint::Percentage(62), Constraint::Percentage(38)])
                .areas(content);
        return (code, panel);
    }
    let panel = 8.min(content.height / 3);
    let [code, panel] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(panel)]).areas(content);
    (code, panel)
}

pub struct RigorView<'a> {
    pub sh: &'a Shared,
    pub at: RigorAt,
}

/// The line with a mutant applied (`before` occurs once on it by construction).
fn mutated(line: &str, before: &str, after: &str) -> String {
    line.replacen(before, after, 1)
}

impl Widget for &RigorView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let sh = self.sh;
        let (code_area, panel_area) = split(area);
        let result = sh.rigor.results.get(&self.at.idx).map(|r| r.as_ref());
        let source = sh.code_source(self.at.idx, CodePart::Solution);
        let lines: Vec<&str> = source.lines().collect();
        let title = match result {
            Some(_) => " Rigor: coverage and surviving mutants ".to_string(),
            None => " Rigor ".to_string(),
        };
        let block = pane(sh, title);
        let inner = block.inner(code_area);
        block.render(code_area, buf);
        let doc = rows(result, lines.len());
        let theme = sh.theme();
        let cov = result.and_then(|r| r.coverage.as_ref());
        let executed: BTreeSet<usize> = cov
            .map(|c| c.executed_lines.iter().copied().collect())
            .unwrap_or_default();
        let missing: BTreeSet<usize> = cov
            .map(|c| c.uncovered_lines.iter().copied().collect())
            .unwrap_or_default();
        let partial: BTreeSet<usize> = cov
            .map(|c| c.partial_lines.iter().copied().collect())
            .unwrap_or_default();
        let width = usize::from(inner.width);
        let mut out: Vec<Line<'static>> = Vec::new();
        for row in doc.iter().skip(self.at.top).take(usize::from(inner.height)) {
            match *row {
                Row::Code(n) => {
                    let text = lines.get(n - 1).copied().unwrap_or("");
                    let (mark, style) = if partial.contains(&n) {
                        ("◐", theme.warn())
                    } else if missing.contains(&n) {
                        ("✗", theme.error())
                    } else if executed.contains(&n) {
                        ("▌", theme.ok())
                    } else {
                        (" ", theme.muted())
                    };
                    let mut line = Line::from(vec![
                        Span::styled(format!("{n:>4} "), theme.line_number()),
                        Span::styled(mark, style),
                        Span::raw(" "),
                        Span::styled(text.replace('\t', "    "), theme.base()),
                    ]);
                    if n == self.at.cursor {
                        line = line.patch_style(theme.selection());
                    }
                    out.push(line);
                }
                Row::Before(m) | Row::After(m) => {
                    let Some(mr) = result.and_then(|r| r.mutants.get(m)) else {
                        continue;
                    };
                    let text = lines.get(mr.diff.line - 1).copied().unwrap_or("");
                    let (sign, body, style) = if matches!(row, Row::Before(_)) {
                        ("-", text.to_string(), theme.error())
                    } else {
                        (
                            "+",
                            mutated(text, &mr.diff.before, &mr.diff.after),
                            theme.ok(),
                        )
                    };
                    let mut spans = vec![
                        Span::styled(format!("{:>4} ", ""), theme.line_number()),
                        Span::styled(sign, style),
                        Span::raw(" "),
                        Span::styled(body.replace('\t', "    "), style),
                    ];
                    if matches!(row, Row::After(_)) {
                        spans.push(Span::styled(
                            format!("   survives: {}", mr.mutant.op),
                            theme.muted(),
                        ));
                    }
                    out.push(Line::from(spans));
                }
            }
        }
        if doc.is_empty() {
            out.push(Line::styled("(no reference solution)", theme.muted()));
        }
        Paragraph::new(fit_lines(out, width)).render(inner, buf);
        panel(sh, self.at, result, panel_area, buf);
    }
}

fn pct(x: Option<f64>) -> String {
    x.map_or("-".into(), |x| format!("{x:.1}%"))
}

fn panel(sh: &Shared, at: RigorAt, result: Option<&TaskRigor>, area: Rect, buf: &mut Buffer) {
    let theme = sh.theme();
    let block = pane(sh, " Figures · tests of the line ");
    let inner = block.inner(area);
    block.render(area, buf);
    let mut out: Vec<Line<'static>> = Vec::new();
    let Some(r) = result else {
        let ui = &sh.rigor;
        let line = if let Some(e) = ui.failed.get(&at.idx) {
            Line::styled(
                format!("not analysed: {e} (Enter: try again)"),
                theme.error(),
            )
        } else if let Some(e) = ui.error.as_ref().filter(|_| !ui.running) {
            Line::styled(format!("rigor unavailable: {e}"), theme.error())
        } else if ui.pending.contains(&at.idx) {
            let done = ui.progress.get(&at.idx).copied().unwrap_or(0);
            Line::styled(
                format!("measuring in the sandbox… {done} mutants decided (shown when done)"),
                theme.muted(),
            )
        } else {
            Line::styled("no rigor yet", theme.muted())
        };
        Paragraph::new(fit_lines(vec![line], usize::from(inner.width))).render(inner, buf);
        return;
    };
    let c = r.counts();
    if let Some(e) = &r.error {
        out.push(Line::styled(format!("not analysed: {e}"), theme.error()));
    }
    if let Some(cov) = &r.coverage {
        out.push(Line::from(vec![
            Span::styled("line ", theme.muted()),
            Span::raw(pct(cov.line)),
            Span::styled(" · branch ", theme.muted()),
            Span::raw(format!(
                "{} ({}/{})",
                pct(cov.branch),
                cov.branches.0,
                cov.branches.1
            )),
        ]));
    } else if let Some(e) = &r.coverage_error {
        out.push(Line::styled(format!("coverage: {e}"), theme.warn()));
    }
    out.push(Line::from(vec![
        Span::styled("mutation score ", theme.muted()),
        Span::styled(
            c.score().map_or("-".into(), |s| format!("{s:.3}")),
            theme.accent(),
        ),
        Span::styled(format!(" · {} mutants", c.mutants), theme.muted()),
    ]));
    out.push(Line::styled(
        format!(
            "{} killed ({} by timeout) · {} survived · {} equivalent · {} not run",
            c.killed, c.timeouts, c.survived, c.equivalent, c.not_run
        ),
        theme.muted(),
    ));
    let tests: Vec<&str> = r
        .coverage
        .as_ref()
        .map(|cov| cov.tests_of(at.cursor).collect())
        .unwrap_or_default();
    let at_import = r
        .coverage
        .as_ref()
        .is_some_and(|cov| cov.import_lines.contains(&at.cursor));
    let head = match (tests.len(), at_import) {
        (0, true) => format!(
            "line {}: run at import only (all tests run its mutants)",
            at.cursor
        ),
        (0, false) => format!("line {}: no test runs it", at.cursor),
        (n, _) => format!("line {}: run by {n} test(s)", at.cursor),
    };
    out.push(Line::styled(head, theme.header()));
    for t in tests {
        out.push(Line::raw(format!("  {t}")));
    }
    let survivors: Vec<String> = r
        .survivors()
        .map(|m| {
            format!(
                "  {:>4}  {}  {} → {}",
                m.diff.line, m.mutant.op, m.diff.before, m.diff.after
            )
        })
        .collect();
    if !survivors.is_empty() {
        out.push(Line::styled(
            format!("survivors ({}, ]/[ to step):", survivors.len()),
            theme.header(),
        ));
        out.extend(survivors.into_iter().map(Line::raw));
    }
    if !r.excluded.is_empty() {
        out.push(Line::styled(
            format!(
                "left out (not passing on the reference): {}",
                r.excluded.len()
            ),
            theme.warn(),
        ));
    }
    Paragraph::new(fit_lines(out, usize::from(inner.width))).render(inner, buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mutated_line_keeps_the_rest() {
        assert_eq!(
            mutated("    if amount < 0:", "amount < 0", "amount <= 0"),
            "    if amount <= 0:"
        );
    }
}
