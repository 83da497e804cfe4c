//! A task's test detail: every test's outcome and exception, the selected test's message and
//! traceback, and the code that ran with the failing line marked. A suite failure (import
//! error, timeout, crash) is shown first, in a banner.

use std::hash::{Hash, Hasher};

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Widget};

use super::code_pane::{CodeDoc, render_code};
use super::fingerprint::bucket_span;
use super::{pane, truncate};
use crate::forge::counterexample::{self, Counterexample};
use crate::model::{Outcome, SuiteFailure, TestResult};
use crate::session::TaskRun;
use crate::session::attempts::{self, AttemptEvidence};
use crate::tui::evals::{DetailPane, DetailState, TestCause, tests_of};
use crate::tui::shared::Shared;
use crate::tui::theme::Theme;

/// Lines kept of a message or traceback (the rest is summarised).
const MAX_TRACE_LINES: usize = 2000;

pub struct TestDetailView<'a> {
    pub sh: &'a Shared,
}

/// What went wrong with the suite as a whole, one line each.
pub fn banner_lines(run: &TaskRun) -> Vec<String> {
    let Some(result) = &run.private else {
        return Vec::new();
    };
    let mut out = Vec::new();
    match &result.failure {
        Some(SuiteFailure::Import {
            exc_type,
            message,
            line,
            ..
        }) => {
            let at = line.map_or(String::new(), |l| format!(" at line {l}"));
            out.push(format!(
                "✗ The code failed to import{at}: {exc_type}: {} — no test could run",
                first_line(message)
            ));
        }
        Some(SuiteFailure::Timeout { limit_s }) => out.push(format!(
            "⏱ Killed at the {limit_s:.0} s time limit: the tests that had not finished did not run"
        )),
        Some(SuiteFailure::Memory) => {
            out.push("✗ Killed at the memory limit: the remaining tests did not run".into())
        }
        Some(SuiteFailure::Crashed {
            signal,
            exit_code,
            detail,
        }) => {
            let how = match (signal, exit_code) {
                (Some(s), _) => format!("signal {s}"),
                (None, Some(c)) => format!("exit code {c}"),
                _ => "no exit status".into(),
            };
            out.push(format!(
                "✗ The suite crashed ({how}): {}",
                first_line(detail)
            ));
        }
        Some(SuiteFailure::Protocol { detail }) => out.push(format!(
            "✗ Results rejected (protocol violation): {}",
            first_line(detail)
        )),
        Some(SuiteFailure::Tampered { detail }) => out.push(format!(
            "✗ TAMPERED — every verdict of this suite is discarded: {}",
            first_line(detail)
        )),
        None => {}
    }
    let tampered: Vec<&str> = result
        .tests
        .iter()
        .filter(|t| t.outcome == Outcome::Tampered)
        .map(|t| t.id.as_str())
        .collect();
    if !tampered.is_empty() {
        out.push(format!(
            "✗ TAMPERED — the verdict of {} was tampered with: the class counts as failed",
            tampered.join(", ")
        ));
    }
    if !result.leftovers.is_empty() {
        out.push(format!("⚠ left behind: {}", result.leftovers.join(", ")));
    }
    let evidence = attempts::evidence_of(run);
    if !evidence.is_empty() {
        out.push(format!(
            "{ATTEMPT_MARK} the code attempted tampering: {} — its evidence is under the traceback",
            attempts::sign_count(&evidence)
        ));
    }
    out
}

/// How a banner line about tampering attempts begins (styled as tampering).
pub const ATTEMPT_MARK: &str = "⚑ ATTEMPT";

/// The tampering evidence of the selected test, then the suite's (no test named: the host's
/// report, the static indicators, what the harness found), under a heading that says they are
/// evidence, not verdicts.
fn evidence_doc(
    sh: &Shared,
    run: &TaskRun,
    test: Option<&str>,
    width: usize,
    out: &mut Vec<Line<'static>>,
) {
    let theme = sh.theme();
    let evidence = attempts::evidence_of(run);
    let mine: Vec<&AttemptEvidence> = evidence
        .iter()
        .filter(|e| e.test.is_some() && e.test.as_deref() == test)
        .collect();
    let suite: Vec<&AttemptEvidence> = evidence.iter().filter(|e| e.test.is_none()).collect();
    for (heading, items) in [
        (
            "Tampering attempts seen in this test (evidence, not verdicts):",
            mine,
        ),
        (
            "Tampering attempts of the code (evidence, not verdicts):",
            suite,
        ),
    ] {
        if items.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(Line::default());
        }
        wrap_into(out, heading, width, theme.tampered());
        for e in items {
            wrap_into(out, &format!("  {}", e.describe()), width, theme.base());
        }
    }
}

pub fn banner_height(run: &TaskRun) -> u16 {
    u16::try_from(banner_lines(run).len().min(3)).unwrap_or(3)
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

/// Glyph and name of an outcome.
pub fn outcome_label(o: Outcome) -> (&'static str, &'static str) {
    match o {
        Outcome::Pass => ("✓", "pass"),
        Outcome::Fail => ("✗", "fail"),
        Outcome::Error => ("✗", "error"),
        Outcome::Skip => ("–", "skip"),
        Outcome::Xfail => ("✓", "xfail"),
        Outcome::Xpass => ("✗", "xpass"),
        Outcome::NotRun => ("∅", "not run"),
        Outcome::Tampered => ("!", "tampered"),
    }
}

pub fn outcome_style(theme: &Theme, o: Outcome) -> Style {
    match o {
        Outcome::Pass | Outcome::Xfail => theme.ok(),
        Outcome::Skip => theme.muted(),
        Outcome::NotRun => theme.warn(),
        Outcome::Fail | Outcome::Error | Outcome::Xpass => theme.error(),
        Outcome::Tampered => theme.tampered(),
    }
}

/// `text` cut into lines of at most `width` characters.
fn wrap_into(out: &mut Vec<Line<'static>>, text: &str, width: usize, style: Style) {
    let width = width.max(1);
    for line in text.lines() {
        if out.len() >= MAX_TRACE_LINES {
            return;
        }
        let chars: Vec<char> = line.chars().collect();
        if chars.is_empty() {
            out.push(Line::default());
        }
        for chunk in chars.chunks(width) {
            out.push(Line::styled(chunk.iter().collect::<String>(), style));
            if out.len() >= MAX_TRACE_LINES {
                break;
            }
        }
    }
}

/// `cause: method called but not defined (`foo`)`: why a failing test failed, when its
/// exception is one whose cause can be read off the traceback and the code.
pub fn cause_line(cause: &TestCause) -> Option<String> {
    let (cause, name) = cause.as_ref()?;
    Some(match name {
        Some(n) => format!("cause: {} (`{n}`)", cause.as_str()),
        None => format!("cause: {}", cause.as_str()),
    })
}

/// The selected test's message and traceback (or the suite failure's), wrapped to `width`;
/// `cause` is the selected test's classified failure cause (one line under the exception).
pub fn trace_doc(
    sh: &Shared,
    run: &TaskRun,
    selected: usize,
    cause: &TestCause,
    width: usize,
) -> Vec<Line<'static>> {
    let theme = sh.theme();
    let mut out = Vec::new();
    let test = tests_of(run).get(selected);
    if let Some(t) = test {
        // The exception and its message first: that is what a narrow pane must show.
        let (glyph, name) = outcome_label(t.outcome);
        let style = outcome_style(theme, t.outcome);
        // With a counterexample, the message's first line: the block says the rest (and the
        // traceback ends with the whole message).
        let found = counterexample::of_test(t);
        let message = t.message.as_deref().map(|m| match &found {
            Some(_) => first_line(&counterexample::without(m)).to_string(),
            None => m.to_string(),
        });
        let head = match (&t.exc_type, message) {
            (Some(e), Some(m)) => format!("{e}: {m}"),
            (Some(e), None) => e.clone(),
            (None, Some(m)) => format!("{glyph} {name}: {m}"),
            (None, None) if t.outcome == Outcome::NotRun => format!("{glyph} {name}"),
            (None, None) => format!("{glyph} {name} in {:.3} s", t.duration_s),
        };
        wrap_into(&mut out, &head, width, style);
        if let Some(line) = cause_line(cause) {
            wrap_into(&mut out, &line, width, theme.warn());
        }
        if let Some(c) = &found {
            counterexample_lines(sh, c, width, &mut out);
        }
        if let Some(tb) = &t.traceback {
            out.push(Line::default());
            wrap_into(&mut out, &counterexample::without(tb), width, theme.muted());
        }
    }
    let own = test.is_some_and(|t| t.message.is_some() || t.traceback.is_some());
    let failing = test.is_none_or(|t| {
        super::super::evals::is_failing(t.outcome) || t.outcome == Outcome::Tampered
    });
    if !own && failing {
        suite_trace(sh, run, width, &mut out);
    }
    evidence_doc(sh, run, test.map(|t| t.id.as_str()), width, &mut out);
    if out.is_empty() {
        let text = match run.private {
            None => "No result yet.",
            Some(_) => "The suite reported no tests.",
        };
        out.push(Line::styled(text, theme.muted()));
    }
    if out.len() >= MAX_TRACE_LINES {
        out.push(Line::styled("… (cut)", theme.muted()));
    }
    out
}

/// A forged test's counterexample (docs/forge.md): the calls, the one that differs marked,
/// what the reference did there and what this class did.
fn counterexample_lines(
    sh: &Shared,
    c: &Counterexample,
    width: usize,
    out: &mut Vec<Line<'static>>,
) {
    let theme = sh.theme();
    wrap_into(
        out,
        &format!("Counterexample: {}", c.headline),
        width,
        theme.header(),
    );
    for (k, call) in c.calls.iter().enumerate() {
        let last = k + 1 == c.calls.len();
        let style = if last { theme.error() } else { Style::new() };
        let mark = if last { '>' } else { ' ' };
        wrap_into(out, &format!("{mark}{:>3}  {call}", k + 1), width, style);
    }
    wrap_into(
        out,
        &format!("      expected: {}", c.expected),
        width,
        theme.ok(),
    );
    wrap_into(
        out,
        &format!("      actual:   {}", c.actual),
        width,
        theme.error(),
    );
}

/// What the suite as a whole left to read: the import traceback, captured stderr.
fn suite_trace(sh: &Shared, run: &TaskRun, width: usize, out: &mut Vec<Line<'static>>) {
    let theme = sh.theme();
    let Some(result) = &run.private else {
        return;
    };
    if let Some(SuiteFailure::Import {
        exc_type,
        message,
        traceback,
        ..
    }) = &result.failure
    {
        if !out.is_empty() {
            out.push(Line::default());
        }
        wrap_into(
            out,
            &format!("The code failed to import — {exc_type}: {message}"),
            width,
            theme.error(),
        );
        if let Some(tb) = traceback {
            out.push(Line::default());
            wrap_into(out, tb, width, theme.muted());
        }
    }
    if let Some(SuiteFailure::Tampered { detail }) = &result.failure {
        if !out.is_empty() {
            out.push(Line::default());
        }
        wrap_into(
            out,
            &format!(
                "The harness found this run tampered with — {detail}\nNo verdict of the suite stands: every test counts as failed."
            ),
            width,
            theme.tampered(),
        );
    }
    if !result.stderr.trim().is_empty()
        && !matches!(result.failure, Some(SuiteFailure::Import { .. }))
    {
        out.push(Line::default());
        out.push(Line::styled("stderr (end):", theme.header()));
        let lines: Vec<&str> = result.stderr.lines().collect();
        let tail = lines[lines.len().saturating_sub(40)..].join("\n");
        wrap_into(out, &tail, width, theme.muted());
    }
}

pub fn trace_line_count(sh: &Shared) -> usize {
    let (Some(d), Some((session, run))) = (sh.ev.detail.as_ref(), sh.detail_run()) else {
        return 0;
    };
    let width = usize::from(sh.detail_areas().trace.width.saturating_sub(2));
    let cause = d.causes.get(session.applied, run, d.tests.selected);
    trace_doc(sh, run, d.tests.selected, &cause, width).len()
}

/// A cache key for highlighting a piece of code (pane 9: evaluated code).
fn code_key(code: &str) -> (usize, u8) {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    code.hash(&mut h);
    (h.finish() as usize, 9)
}

fn focused_pane<'a>(sh: &Shared, title: String, focused: bool) -> ratatui::widgets::Block<'a> {
    let block = pane(sh, title);
    if focused {
        block.border_style(sh.theme().accent())
    } else {
        block
    }
}

/// A test id that fits `width`: whole, or its end after `…`.
pub fn fit_id(id: &str, width: usize) -> String {
    let n = id.chars().count();
    if n <= width || width < 2 {
        return id.to_string();
    }
    let tail: String = id.chars().skip(n - (width - 1)).collect();
    format!("…{tail}")
}

fn render_tests(sh: &Shared, d: &DetailState, run: &TaskRun, area: Rect, buf: &mut Buffer) {
    let theme = sh.theme();
    let tests = tests_of(run);
    let passed = tests
        .iter()
        .filter(|t| matches!(t.outcome, Outcome::Pass | Outcome::Xfail))
        .count();
    let tampered = run
        .private
        .as_ref()
        .is_some_and(crate::metrics::fingerprint::is_tampered);
    let title = if tampered {
        // What the tests reported does not count: the class failed.
        format!(" Tests · {} · tampered: no verdict stands ", tests.len())
    } else {
        format!(" Tests · {passed}/{} passed ", tests.len())
    };
    let block = focused_pane(sh, title, d.pane == DetailPane::Tests);
    if tests.is_empty() {
        let inner = block.inner(area);
        block.render(area, buf);
        let text = if run.private.is_some() {
            "No test results."
        } else {
            "Not evaluated yet."
        };
        Paragraph::new(Line::styled(text, theme.muted())).render(inner, buf);
        return;
    }
    let exc_w: u16 = if area.width >= 70 { 20 } else { 13 };
    // `tampered` needs a column one wider than the other outcome names.
    let outcome_w: u16 = if tests.iter().any(|t| t.outcome == Outcome::Tampered) {
        8
    } else {
        7
    };
    let id_w = usize::from(area.width.saturating_sub(2 + 2 + outcome_w + 1 + exc_w + 3));
    let rows: Vec<Row> = tests
        .iter()
        .map(|t: &TestResult| {
            let (glyph, name) = outcome_label(t.outcome);
            let style = outcome_style(theme, t.outcome);
            Row::new(vec![
                Cell::from(Span::styled(glyph, style)),
                Cell::from(Span::styled(name, style)),
                Cell::from(fit_id(&t.id, id_w)),
                Cell::from(Span::styled(
                    t.exc_type.clone().unwrap_or_default(),
                    theme.muted(),
                )),
            ])
        })
        .collect();
    let header = Row::new(vec!["", "outcome", "test", "exception"]).style(theme.header());
    let table = Table::new(
        rows,
        [
            Constraint::Length(1),
            Constraint::Length(outcome_w),
            Constraint::Fill(1),
            Constraint::Length(exc_w),
        ],
    )
    .header(header)
    .block(block);
    super::render_selectable(sh, table, d.tests.offset, d.tests.selected, area, buf);
}

impl Widget for &TestDetailView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let sh = self.sh;
        let theme = sh.theme();
        let (Some(d), Some((session, run))) = (sh.ev.detail.as_ref(), sh.detail_run()) else {
            Paragraph::new(Line::styled(
                "This task is not in the session.",
                theme.muted(),
            ))
            .render(area, buf);
            return;
        };
        let areas = sh.detail_areas();
        let mut title = vec![Span::styled(format!(" {}", d.task_id), theme.accent())];
        if session.multi_sample() {
            title.push(Span::raw(format!(" sample {}", d.sample)));
        }
        if let Some(s) = &run.summary {
            title.push(Span::raw(" · "));
            title.push(bucket_span(sh, s.outcome, 0));
            title.push(Span::raw(format!(" · {}/{} passed", s.passed, s.judged)));
        }
        title.push(Span::styled(
            format!(" · {} ({})", session.info.label(), session.status().label()),
            theme.muted(),
        ));
        let width = usize::from(areas.title.width);
        Paragraph::new(super::fit_lines(vec![Line::from(title)], width)).render(areas.title, buf);
        if let Some(rect) = areas.banner {
            let lines: Vec<Line> = banner_lines(run)
                .into_iter()
                .map(|l| {
                    let style = if l.starts_with("✗ TAMPERED") || l.starts_with(ATTEMPT_MARK) {
                        theme.tampered()
                    } else {
                        theme.error()
                    };
                    Line::styled(truncate(&format!(" {l}"), width), style)
                })
                .collect();
            Paragraph::new(lines).render(rect, buf);
        }
        render_tests(sh, d, run, areas.tests, buf);

        let trace_w = usize::from(areas.trace.width.saturating_sub(2));
        let cause = d.causes.get(session.applied, run, d.tests.selected);
        let doc = trace_doc(sh, run, d.tests.selected, &cause, trace_w);
        let scroll = d.trace_scroll.min(doc.len().saturating_sub(1));
        let mut block = focused_pane(
            sh,
            " Message and traceback ".into(),
            d.pane == DetailPane::Trace,
        );
        if let Some(pos) = super::deps_view::position_label(
            scroll,
            super::layout::inner_page(areas.trace),
            doc.len(),
        ) {
            block = block.title_top(Line::styled(pos, theme.muted()).right_aligned());
        }
        Paragraph::new(doc)
            .block(block)
            .scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0))
            .render(areas.trace, buf);

        let code = run.code.as_deref().unwrap_or("");
        let title = match d.mark {
            Some(l) => format!(" Code that ran · failed at line {} ", l + 1),
            None => " Code that ran ".to_string(),
        };
        render_code(
            sh,
            &CodeDoc {
                key: code_key(code),
                source: code,
                title,
                scroll: d.code,
                mark: d.mark,
                focused: d.pane == DetailPane::Code,
            },
            areas.code,
            buf,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_fit_from_the_end() {
        assert_eq!(fit_id("A.test_x", 20), "A.test_x");
        assert_eq!(fit_id("LongClassName.test_x", 10), "…me.test_x");
    }

    #[test]
    fn wrapping_caps_lines() {
        let mut out = Vec::new();
        wrap_into(&mut out, &"x".repeat(25), 10, Style::new());
        assert_eq!(out.len(), 3);
        let mut out = Vec::new();
        wrap_into(
            &mut out,
            &"y\n".repeat(MAX_TRACE_LINES * 2),
            10,
            Style::new(),
        );
        assert_eq!(out.len(), MAX_TRACE_LINES);
    }
}
