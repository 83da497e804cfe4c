//! The evaluation screen, the same live and replayed: header (run, progress, time), the
//! ClassEval metrics so far, the fingerprint panel, and one row per task.

use std::collections::BTreeMap;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, LineGauge, Paragraph, Row, Table, Widget, Wrap};

use super::fingerprint::{self, bucket_span, exc_label, ranked};
use super::{layout, pane, truncate};
use crate::metrics::fingerprint as fingerprint_rules;
use crate::metrics::functional::FunctionalMetrics;
use crate::model::SuiteFailure;
use crate::session::attempts;
use crate::session::{Status, TaskRun};
use crate::stats::outcomes::Interval;
use crate::tui::evals::{EvalSession, RunStatus, TaskRef, duration};
use crate::tui::shared::Shared;

pub struct EvalView<'a> {
    pub sh: &'a Shared,
}

impl Widget for &EvalView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let sh = self.sh;
        let Some(session) = sh.ev.shown() else {
            Paragraph::new(Line::styled("No evaluation open.", sh.theme().muted()))
                .render(area, buf);
            return;
        };
        let areas = layout::eval_split(area);
        render_header(sh, session, areas.header, buf);
        if let Some(rect) = areas.fingerprint {
            fingerprint::render_panel(sh, &session.state.fingerprint(), rect, buf);
        }
        render_tasks(sh, session, areas.tasks, buf);
    }
}

fn pct(x: Option<f64>) -> String {
    // A rate over nothing (no task, no test class) is not 0 %.
    x.map_or_else(|| "n/a".into(), |x| format!("{:.1}%", 100.0 * x))
}

/// `[29–48]`: a 95 % interval in whole percents.
fn ci(i: &Interval) -> String {
    let (lo, hi) = i.ci95;
    format!("[{:.0}–{:.0}]", 100.0 * lo, 100.0 * hi)
}

/// The four ClassEval metrics over the tasks finished so far, each with its 95 % interval
/// (Wilson for the class-level ones, clustered by task for the test-class-level ones) when
/// `intervals` are given and the line has room: partial ones shortened to `partial` beside
/// their strict one, then `class`/`fun`, and the intervals dropped last.
pub fn metrics_line(
    sh: &Shared,
    m: &FunctionalMetrics,
    intervals: Option<&BTreeMap<&'static str, Interval>>,
    width: usize,
) -> Line<'static> {
    let theme = sh.theme();
    let values = [
        m.class_success,
        m.class_partial_success,
        m.fun_success,
        m.fun_partial_success,
    ];
    let full = [
        "class_success",
        "class_partial_success",
        "fun_success",
        "fun_partial_success",
    ];
    let brackets: [Option<String>; 4] = full.map(|k| intervals.and_then(|map| map.get(k)).map(ci));
    let short = ["class_success", "partial", "fun_success", "partial"];
    let compact = ["class", "partial", "fun", "partial"];
    let len = |labels: &[&str; 4], with_ci: bool| -> usize {
        1 + labels
            .iter()
            .zip(values)
            .zip(&brackets)
            .map(|((n, v), b)| {
                let b = b
                    .as_ref()
                    .filter(|_| with_ci)
                    .map_or(0, |b| b.chars().count() + 1);
                n.len() + pct(v).len() + 3 + b
            })
            .sum::<usize>()
    };
    let has_ci = brackets.iter().any(Option::is_some);
    let tiers = [
        (full, true),
        (short, true),
        (compact, true),
        (full, false),
        (short, false),
    ];
    let (labels, with_ci) = tiers
        .into_iter()
        .filter(|(_, c)| has_ci || !c)
        .find(|(l, c)| len(l, *c) < width)
        .unwrap_or((short, false));
    let mut spans = vec![Span::raw(" ")];
    for (i, ((label, value), bracket)) in labels.iter().zip(values).zip(&brackets).enumerate() {
        if i > 0 {
            spans.push(Span::styled(
                if i == 2 { " │ " } else { "  " },
                theme.muted(),
            ));
        }
        spans.push(Span::styled(format!("{label} "), theme.muted()));
        spans.push(Span::styled(pct(value), theme.accent()));
        if let Some(b) = bracket.as_ref().filter(|_| with_ci) {
            spans.push(Span::styled(format!(" {b}"), theme.muted()));
        }
    }
    Line::from(spans)
}

fn render_header(sh: &Shared, s: &EvalSession, area: Rect, buf: &mut Buffer) {
    let theme = sh.theme();
    let width = usize::from(area.width);
    let info = &s.info;
    let mut title = vec![
        Span::styled(format!(" {}", info.label()), theme.accent()),
        Span::raw(format!(
            " · {} · {}",
            info.strategy.as_deref().unwrap_or("—"),
            info.dataset
        )),
    ];
    let which = match (&info.dir, &info.source) {
        (None, Some(source)) => super::short_path(source).to_string(),
        _ => info.id.clone(),
    };
    if info.model.is_some() {
        title.push(Span::styled(format!(" · {which}"), theme.muted()));
    }
    let title = super::fit_lines(vec![Line::from(title)], width);
    let rows: [Rect; 3] = Layout::vertical([Constraint::Length(1); 3]).areas(area);
    Paragraph::new(title).render(rows[0], buf);
    render_progress(sh, s, rows[1], buf);

    // The notes after the metrics first: the metrics fit the room they leave.
    let mut notes: Vec<Span> = env_err_note(sh, s, width).into_iter().collect();
    let errors = s.state.errors.len() + s.problems.len();
    if errors > 0 {
        notes.push(Span::styled(
            format!("  ⚠ {errors} problem{}", if errors == 1 { "" } else { "s" }),
            theme.warn(),
        ));
    }
    let room = width.saturating_sub(notes.iter().map(Span::width).sum());
    let mut metrics = metrics_line(sh, &s.state.metrics(), Some(s.intervals()), room);
    metrics.spans.extend(notes);
    Paragraph::new(super::fit_lines(vec![metrics], width)).render(rows[2], buf);
}

/// `(N EnvErr left out)` when the environment failed some classes: the rates beside it are
/// over the others (the session reducer keeps them out of the denominators); `−N EnvErr`
/// on narrow terminals.
pub fn env_err_note(sh: &Shared, s: &EvalSession, width: usize) -> Option<Span<'static>> {
    let n = s.state.env_err().tasks;
    (n > 0).then(|| {
        let text = if width >= 100 {
            format!("  ({n} EnvErr left out)")
        } else {
            format!(" −{n} EnvErr")
        };
        Span::styled(text, sh.theme().warn())
    })
}

/// The status and progress gauge of a run (evaluation or generation), with elapsed time
/// and, live, an estimate of the rest.
pub fn render_progress(sh: &Shared, s: &EvalSession, area: Rect, buf: &mut Buffer) {
    let theme = sh.theme();
    let (done, total) = s.state.progress();
    let status = s.status();
    let status_text = if status == RunStatus::Live && sh.ev.stopping {
        "stopping".to_string()
    } else {
        status.label().to_string()
    };
    let status_style = match status {
        RunStatus::Live => theme.accent(),
        RunStatus::Finished => theme.ok(),
        RunStatus::Stopped | RunStatus::Unfinished => theme.warn(),
    };
    // Live, the clock runs from the start (before any event); else first to last event.
    let elapsed = match (status, sh.ev.live_since) {
        (RunStatus::Live, Some(since)) if s.live => Some((sh.ev.clock - since).max(0.0)),
        _ => s.elapsed(),
    };
    let mut timing = match elapsed {
        Some(t) => format!(" elapsed {}", duration(t)),
        None => String::new(),
    };
    if let (RunStatus::Live, Some(t)) = (status, elapsed)
        && done > 0
        && done < total
    {
        let eta = t / done as f64 * (total - done) as f64;
        timing.push_str(&format!(" · eta {}", duration(eta)));
    }
    let right = format!(" {done}/{total}{timing} ");
    let right_w = u16::try_from(right.chars().count()).unwrap_or(u16::MAX);
    let [gauge, text] =
        Layout::horizontal([Constraint::Min(0), Constraint::Length(right_w)]).areas(area);
    let ratio = if total == 0 {
        0.0
    } else {
        done as f64 / total as f64
    };
    LineGauge::default()
        .ratio(ratio.clamp(0.0, 1.0))
        .label(Span::styled(format!(" {status_text:<10}"), status_style))
        .filled_symbol("█")
        .unfilled_symbol("░")
        .filled_style(status_style.remove_modifier(ratatui::style::Modifier::BOLD))
        .unfilled_style(theme.muted())
        .render(gauge, buf);
    Paragraph::new(Line::styled(right, theme.base())).render(text, buf);
}

/// A short account of a suite failure (`import: SyntaxError line 3`, `timeout 25s`).
pub fn failure_brief(f: &SuiteFailure) -> String {
    match f {
        SuiteFailure::Import { exc_type, line, .. } => match line {
            Some(l) => format!("import: {exc_type} line {l}"),
            None => format!("import: {exc_type}"),
        },
        SuiteFailure::Timeout { limit_s } => format!("timeout {limit_s:.0}s"),
        SuiteFailure::Memory => "memory limit".into(),
        SuiteFailure::Crashed {
            signal, exit_code, ..
        } => match (signal, exit_code) {
            (Some(s), _) => format!("crashed: signal {s}"),
            (None, Some(c)) => format!("crashed: exit {c}"),
            _ => "crashed".into(),
        },
        SuiteFailure::Protocol { .. } => "protocol violation".into(),
        SuiteFailure::Tampered { detail } => match detail.lines().next().map(str::trim) {
            Some(d) if !d.is_empty() => format!("TAMPERED: {d}"),
            _ => "TAMPERED".into(),
        },
    }
}

/// Whether the harness found a task's final suite (or one of its tests) tampered with.
pub fn is_tampered(run: &TaskRun) -> bool {
    run.private
        .as_ref()
        .is_some_and(fingerprint_rules::is_tampered)
}

/// What went wrong in a task, in a few words; a tampering attempt first (`⚑ attempt: 2 signs
/// (host 1, static 1)`), since it is a finding of its own whatever the verdict.
fn note(run: &TaskRun) -> String {
    if let Some(r) = run
        .private
        .as_ref()
        .filter(|r| fingerprint_rules::is_tampered(r))
    {
        // Before any other suite failure: tampering overrides every verdict.
        return format!("TAMPERED: {}", fingerprint_rules::tampering(r).join("; "));
    }
    let rest = verdict_note(run);
    if !attempts::attempted(run) {
        return rest;
    }
    let signs = attempts::sign_count(&attempts::evidence_of(run));
    if rest.is_empty() {
        format!("⚑ attempt: {signs}")
    } else {
        format!("⚑ attempt: {signs} · {rest}")
    }
}

/// The suite failure or the failing tests' exceptions.
fn verdict_note(run: &TaskRun) -> String {
    if let Some(f) = run.private.as_ref().and_then(|r| r.failure.as_ref()) {
        return failure_brief(f);
    }
    let Some(summary) = &run.summary else {
        return String::new();
    };
    let mut parts: Vec<String> = ranked(&summary.exceptions)
        .into_iter()
        .map(|(k, n)| format!("{} {n}", exc_label(k, false)))
        .collect();
    parts.extend(
        ranked(&summary.env_exceptions)
            .into_iter()
            .map(|(k, n)| format!("env {} {n}", exc_label(k, false))),
    );
    parts.join(", ")
}

/// A task's status; one still running in a session that is not live was cut off.
pub fn status_cell(sh: &Shared, s: &EvalSession, run: &TaskRun) -> Cell<'static> {
    let theme = sh.theme();
    match (run.status, s.status()) {
        (Status::Pending, _) => Cell::from(Span::styled("pending", theme.muted())),
        (Status::Running, RunStatus::Live) => Cell::from(Span::styled("running", theme.accent())),
        (Status::Running, RunStatus::Stopped) => Cell::from(Span::styled("stopped", theme.warn())),
        (Status::Running, _) => Cell::from(Span::styled("cut off", theme.warn())),
        (Status::Done, _) => Cell::from("done"),
    }
}

fn task_row(sh: &Shared, s: &EvalSession, r: &TaskRef, multi: bool) -> Row<'static> {
    let id = if multi {
        format!("{}/{}", r.task_id, r.sample)
    } else {
        r.task_id.to_string()
    };
    let tests = r
        .run
        .summary
        .as_ref()
        .map_or(String::new(), |s| format!("{}/{}", s.passed, s.judged));
    let outcome = if r.run.summary.is_some() {
        bucket_span(sh, r.outcome(), 0)
    } else {
        Span::raw("")
    };
    Row::new(vec![
        Cell::from(id),
        status_cell(sh, s, r.run),
        Cell::from(outcome),
        Cell::from(Line::from(tests).right_aligned()),
        Cell::from(Span::styled(
            note(r.run),
            if is_tampered(r.run) || attempts::attempted(r.run) {
                sh.theme().tampered()
            } else {
                sh.theme().muted()
            },
        )),
    ])
}

fn render_tasks(sh: &Shared, s: &EvalSession, area: Rect, buf: &mut Buffer) {
    let theme = sh.theme();
    let rows = s.task_rows(sh.ev.imperfect_only);
    let total = s.state.runs().len();
    let title = if sh.ev.imperfect_only {
        format!(" Tasks not Perfect · {} of {total} ", rows.len())
    } else {
        format!(" Tasks · {total} ")
    };
    let mut block = pane(sh, title);
    let problems: Vec<&String> = s.state.errors.iter().chain(&s.problems).collect();
    if let Some(first) = problems.first() {
        let more = if problems.len() > 1 {
            format!(" (+{} more)", problems.len() - 1)
        } else {
            String::new()
        };
        let room = usize::from(area.width.saturating_sub(8 + more.len() as u16));
        block = block.title_bottom(Line::styled(
            format!(" ⚠ {}{more} ", truncate(first, room)),
            theme.warn(),
        ));
    }
    if rows.is_empty() {
        let inner = block.inner(area);
        block.render(area, buf);
        let text = if sh.ev.imperfect_only && total > 0 {
            "No finished task is below Perfect."
        } else if s.live && !s.state.started {
            "Starting: reading the predictions and preparing the sandbox…"
        } else {
            "This session has no tasks."
        };
        Paragraph::new(Line::styled(text, theme.muted()))
            .wrap(Wrap { trim: true })
            .render(inner, buf);
        return;
    }
    let multi = s.multi_sample();
    let id_width = rows
        .iter()
        .map(|r| r.task_id.chars().count() + if multi { 3 } else { 0 })
        .max()
        .unwrap_or(4)
        .clamp(4, 28);
    let header =
        Row::new(vec!["task", "status", "outcome", "passed", "what failed"]).style(theme.header());
    // Only the rows on screen are built (the table scrolls within them).
    let first = sh.ev.tasks.offset.min(rows.len());
    let last = (first + super::layout::table_page(area).max(1)).min(rows.len());
    let body: Vec<Row> = rows[first..last]
        .iter()
        .map(|r| task_row(sh, s, r, multi))
        .collect();
    let widths = [
        Constraint::Length(u16::try_from(id_width).unwrap_or(28)),
        Constraint::Length(7),
        Constraint::Length(10),
        Constraint::Length(7),
        Constraint::Fill(1),
    ];
    let table = Table::new(body, widths).header(header).block(block);
    super::render_selectable(
        sh,
        table,
        0,
        sh.ev.tasks.selected.saturating_sub(first),
        area,
        buf,
    );
}
