//! The run screen, the same live and replayed: header (strategy, provider and model,
//! progress, model usage), the metrics and fingerprint panel, the tasks, and for the selected
//! task its dependencies and schedule over its methods with how each one ended.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Widget, Wrap};

use super::deps_view::position_label;
use super::eval_view::{metrics_line, render_progress, status_cell};
use super::fingerprint::{self, bucket_span, short_label};
use super::{fit_lines, layout, pane, run_task, truncate};
use crate::session::MethodStatus;
use crate::tui::evals::EvalSession;
use crate::tui::runs::{MethodState, RunPane, count, last_tests};
use crate::tui::shared::Shared;

pub struct RunView<'a> {
    pub sh: &'a Shared,
}

impl Widget for &RunView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let sh = self.sh;
        let Some(session) = sh.run_shown() else {
            Paragraph::new(Line::styled("No run open.", sh.theme().muted())).render(area, buf);
            return;
        };
        let areas = sh.run_areas();
        render_header(sh, session, areas.header, buf);
        if let Some(rect) = areas.panel {
            render_panel(sh, session, rect, buf);
        }
        render_tasks(sh, session, areas.tasks, buf);
        render_task(sh, session, areas.task, buf);
        render_methods(sh, areas.methods, buf);
    }
}

/// The style of a method's state.
pub fn state_style(sh: &Shared, state: MethodState) -> Style {
    let theme = sh.theme();
    match state {
        MethodState::Pending => theme.muted(),
        MethodState::Running => theme.accent(),
        MethodState::CutOff => theme.warn(),
        MethodState::Done { status, .. } => match status {
            MethodStatus::Passed => theme.ok(),
            MethodStatus::Untested => theme.muted(),
            MethodStatus::Exhausted | MethodStatus::NoCode => theme.error(),
            // Not the model's failure.
            MethodStatus::NotGenerated | MethodStatus::EnvErr => theme.warn(),
        },
    }
}

fn focused(
    sh: &Shared,
    block: ratatui::widgets::Block<'static>,
    pane: RunPane,
) -> ratatui::widgets::Block<'static> {
    if sh.runs.pane == pane {
        block.border_style(sh.theme().accent())
    } else {
        block
    }
}

/// `requests 14 · retries 1 · tokens 12.3k in, 3.4k out · model 48s`
fn usage_line(sh: &Shared, s: &EvalSession) -> Line<'static> {
    let theme = sh.theme();
    let u = &s.state.trace.usage;
    let mut spans = Vec::new();
    let mut field = |name: &str, value: String| {
        let sep = if spans.is_empty() { " " } else { " · " };
        spans.push(Span::styled(format!("{sep}{name} "), theme.muted()));
        spans.push(Span::styled(value, theme.accent()));
    };
    field("requests", u.requests.to_string());
    if s.live && s.in_flight > 0 {
        field("in flight", s.in_flight.to_string());
    }
    field("retries", u.retries.to_string());
    field(
        "tokens",
        format!(
            "{} in, {} out",
            count(u.prompt_tokens),
            count(u.completion_tokens)
        ),
    );
    field("model time", crate::tui::evals::duration(u.seconds));
    let errors = s.state.errors.len() + s.problems.len();
    if errors > 0 {
        spans.push(Span::styled(
            format!("  ⚠ {errors} problem{}", if errors == 1 { "" } else { "s" }),
            theme.warn(),
        ));
    }
    Line::from(spans)
}

fn render_header(sh: &Shared, s: &EvalSession, area: Rect, buf: &mut Buffer) {
    let theme = sh.theme();
    let info = &s.info;
    let width = usize::from(area.width);
    let provider = info.source.as_deref().unwrap_or("—");
    let model = match &info.model {
        Some(m) if m != provider => format!("{provider}/{m}"),
        _ => provider.to_string(),
    };
    let title = Line::from(vec![
        Span::styled(
            format!(" {}", info.strategy.as_deref().unwrap_or("—")),
            theme.accent(),
        ),
        Span::raw(format!(" · {model} · {}", info.dataset)),
        Span::styled(format!(" · {}", info.id), theme.muted()),
    ]);
    let rows: [Rect; 3] = Layout::vertical([Constraint::Length(1); 3]).areas(area);
    Paragraph::new(fit_lines(vec![title], width)).render(rows[0], buf);
    render_progress(sh, s, rows[1], buf);
    Paragraph::new(fit_lines(vec![usage_line(sh, s)], width)).render(rows[2], buf);
}

/// The metrics so far, the repair cost, and the fingerprint.
fn render_panel(sh: &Shared, s: &EvalSession, area: Rect, buf: &mut Buffer) {
    let theme = sh.theme();
    let width = usize::from(area.width);
    let [metrics, cost, chart] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(0),
    ])
    .areas(area);
    let mut line = metrics_line(sh, &s.state.metrics(), Some(s.intervals()), width);
    line.spans
        .extend(super::eval_view::env_err_note(sh, s, width));
    Paragraph::new(fit_lines(vec![line], width)).render(metrics, buf);
    let text = match s.state.trace.repair_cost() {
        Some(c) => format!(
            " repair cost: {:.2} rounds per method · {} repaired ({:.2} rounds each) · \
             {:.2} per class · {} class{} repaired",
            c.avg_rounds_per_method,
            c.methods_repaired,
            c.avg_rounds_when_repaired,
            c.avg_rounds_per_class,
            c.classes_repaired,
            if c.classes_repaired == 1 { "" } else { "es" }
        ),
        None => " repair cost: no method finished through the repair loop yet".into(),
    };
    Paragraph::new(Line::styled(truncate(&text, width), theme.muted())).render(cost, buf);
    fingerprint::render_panel(sh, &s.state.fingerprint(), chart, buf);
}

fn render_tasks(sh: &Shared, s: &EvalSession, area: Rect, buf: &mut Buffer) {
    let theme = sh.theme();
    let rows = s.task_rows(false);
    let block = focused(
        sh,
        pane(sh, format!(" Tasks · {} ", rows.len())),
        RunPane::Tasks,
    );
    if rows.is_empty() {
        let inner = block.inner(area);
        block.render(area, buf);
        let text = if s.live && !s.state.started {
            "Starting: preparing the provider and the sandbox…"
        } else {
            "This run has no tasks."
        };
        Paragraph::new(Line::styled(text, theme.muted()))
            .wrap(Wrap { trim: true })
            .render(inner, buf);
        return;
    }
    let multi = s.multi_sample();
    // Narrow, the ids need the room more than the methods done.
    let narrow = area.width < 40;
    let body: Vec<Row> = rows
        .iter()
        .map(|r| {
            let id = if multi {
                format!("{}/{}", r.task_id, r.sample)
            } else {
                r.task_id.to_string()
            };
            let trace = s.state.trace.task(r.task_id, r.sample);
            let methods = trace.map_or(String::new(), |t| {
                let rows = crate::tui::runs::method_rows(t);
                let done = rows
                    .iter()
                    .filter(|m| m.trace.is_some_and(|m| m.status.is_some()))
                    .count();
                if rows.is_empty() {
                    String::new()
                } else {
                    format!("{done}/{}", rows.len())
                }
            });
            let outcome = if s.info.is_forge() {
                forge_cell(sh, trace, narrow)
            } else if r.run.not_generated.is_some() {
                // A model request failed: not the model's failure, and no outcome.
                let label = if narrow { "n/gen" } else { "not generated" };
                Cell::from(Span::styled(label, theme.warn()))
            } else if r.run.summary.is_some() {
                let b = r.outcome();
                let mut span = bucket_span(sh, b, 0);
                if narrow {
                    span.content = b.map_or("—", short_label).into();
                }
                Cell::from(span)
            } else {
                status_cell(sh, s, r.run)
            };
            let mut cells = vec![Cell::from(id)];
            if !narrow {
                cells.push(Cell::from(Line::from(methods).right_aligned()));
            }
            cells.push(outcome);
            Row::new(cells)
        })
        .collect();
    let mut header = vec![Cell::from("task")];
    let mut widths = vec![Constraint::Fill(1)];
    if !narrow {
        header.push(Cell::from(Line::from("done").right_aligned()));
        widths.push(Constraint::Length(5));
    }
    header.push(Cell::from("outcome"));
    widths.push(Constraint::Length(if narrow { 7 } else { 10 }));
    let table = Table::new(body, widths)
        .header(Row::new(header).style(theme.header()))
        .block(block);
    super::render_selectable(
        sh,
        table,
        sh.runs.tasks.offset,
        sh.runs.tasks.selected,
        area,
        buf,
    );
}

/// A forge session's task: whether the model was asked about it, and answered.
fn forge_cell(
    sh: &Shared,
    trace: Option<&crate::session::trace::TaskTrace>,
    narrow: bool,
) -> Cell<'static> {
    let theme = sh.theme();
    let (answered, asked) = trace.map_or((0, 0), |t| t.forge_rounds());
    let (text, style) = match (answered, asked) {
        (_, 0) => ("not asked".to_string(), theme.muted()),
        (a, n) if a < n => ("waiting".to_string(), theme.accent()),
        (_, 1) => ("1 round".to_string(), theme.ok()),
        (_, n) if !narrow => (format!("{n} rounds"), theme.ok()),
        (_, n) => (format!("{n} rnds"), theme.ok()),
    };
    Cell::from(Span::styled(text, style))
}

fn render_task(sh: &Shared, s: &EvalSession, area: Rect, buf: &mut Buffer) {
    let theme = sh.theme();
    let Some(task) = sh.run_task() else {
        pane(sh, " Task ").render(area, buf);
        return;
    };
    let mut title = vec![Span::styled(format!(" {} ", task.task_id), theme.accent())];
    if let Some(why) = &task.run.not_generated {
        title.push(Span::styled(
            format!("not generated ({why}) "),
            theme.warn(),
        ));
    } else if let Some(summary) = &task.run.summary {
        title.push(bucket_span(sh, summary.outcome, 0));
        title.push(Span::raw(format!(
            " {}/{} tests ",
            summary.passed, summary.judged
        )));
    }
    let width = usize::from(area.width.saturating_sub(2));
    let trace = s.state.trace.task(task.task_id, task.sample);
    let doc = run_task::doc(sh, task.task_id, trace, width);
    let page = layout::inner_page(area);
    let scroll = sh.runs.task_scroll.min(doc.len().saturating_sub(page));
    let mut block = focused(sh, pane(sh, Line::from(title)), RunPane::Task);
    if let Some(position) = position_label(scroll, page, doc.len()) {
        block = block.title_top(Line::styled(position, theme.muted()).right_aligned());
    }
    let shown: Vec<Line> = doc.into_iter().skip(scroll).take(page).collect();
    Paragraph::new(shown).block(block).render(area, buf);
}

fn render_methods(sh: &Shared, area: Rect, buf: &mut Buffer) {
    let theme = sh.theme();
    let rows = sh.run_methods();
    let live = sh.run_is_live();
    let running = sh
        .run_task()
        .is_some_and(|t| t.run.status == crate::session::Status::Running);
    let block = focused(
        sh,
        pane(sh, format!(" Methods · {} ", rows.len())),
        RunPane::Methods,
    );
    if rows.is_empty() {
        let inner = block.inner(area);
        block.render(area, buf);
        let forge = sh.run_shown().is_some_and(|s| s.info.is_forge());
        let text = if forge {
            "A forge session asks for tests, not methods: the prompts and replies are above."
        } else {
            "No method generated on its own (yet)."
        };
        Paragraph::new(Line::styled(text, theme.muted()))
            .wrap(Wrap { trim: true })
            .render(inner, buf);
        return;
    }
    let violated = sh
        .run_shown()
        .zip(sh.run_task())
        .and_then(|(s, t)| s.state.trace.task(t.task_id, t.sample))
        .and_then(|t| t.schedule.as_ref())
        .map(|s| s.violations.clone())
        .unwrap_or_default();
    let body: Vec<Row> = rows
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let state = MethodState::of(m.trace, live && running);
            let mut name = vec![Span::raw(m.name.to_string())];
            if violated.iter().any(|[a, _]| a == m.name) {
                name.push(Span::styled(" !", theme.error()));
            }
            let rounds = m.trace.map_or(0, |t| t.rounds.len());
            let tests = m
                .trace
                .and_then(last_tests)
                .map_or(String::new(), |(p, t)| format!("{p}/{t}"));
            Row::new(vec![
                Cell::from(Span::styled(format!("{}", i + 1), theme.muted())),
                Cell::from(Line::from(name)),
                Cell::from(Span::styled(state.label(), state_style(sh, state))),
                Cell::from(
                    Line::from(if rounds > 0 {
                        rounds.to_string()
                    } else {
                        String::new()
                    })
                    .right_aligned(),
                ),
                Cell::from(Line::from(tests).right_aligned()),
            ])
        })
        .collect();
    let header = Row::new(vec![
        Cell::from("#"),
        Cell::from("method (schedule order)"),
        Cell::from("status"),
        Cell::from(Line::from("rnd").right_aligned()),
        Cell::from(Line::from("tests").right_aligned()),
    ])
    .style(theme.header());
    let table = Table::new(
        body,
        [
            Constraint::Length(2),
            Constraint::Fill(1),
            Constraint::Length(11),
            Constraint::Length(3),
            Constraint::Length(5),
        ],
    )
    .header(header)
    .block(block);
    let selected = sh.runs.methods.selected.min(rows.len() - 1);
    super::render_selectable(sh, table, sh.runs.methods.offset, selected, area, buf);
}
