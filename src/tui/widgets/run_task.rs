//! The run screen's task pane: what the model predicted about the task's dependencies beside
//! the ground truth (the browse view's layered drawing, every edge marked ✓ in both, ✗ missing,
//! `+` extra), then the schedule the methods were generated in, with violated edges marked.
//! For a session of `forge --llm`: each round's prompt about the task and the model's reply.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::deps_view::{layer_lines, legend, order::both_orders};
use super::step_text::wrap_into;
use super::{fit_lines, truncate};
use crate::analysis::DepGraph;
use crate::llm::Purpose;
use crate::metrics::deps::{Category, Prediction, TaskInput, TaskScore, score_task};
use crate::session::trace::{CallTrace, PredictionTrace, ScheduleTrace, TaskTrace};
use crate::tui::shared::Shared;

/// The prediction scored against the truth, when the reply could be read.
pub fn prediction_score(task_id: &str, p: &PredictionTrace) -> Option<TaskScore> {
    if !p.parsed {
        return None;
    }
    score_task(&TaskInput {
        task_id: task_id.to_string(),
        methods: p.methods.clone(),
        truth: p.truth.clone(),
        predicted: Some(Prediction {
            deps: p.graph.clone(),
            order: Some(p.order.clone()),
        }),
    })
}

/// Whether a dependency analysis was requested (`None`: not) and has been answered.
pub fn analysis_call(trace: &TaskTrace) -> Option<bool> {
    trace
        .calls
        .iter()
        .find(|c| matches!(c.purpose, crate::llm::Purpose::DependencyAnalysis))
        .map(|c| c.response.is_some())
}

/// The pane's lines for a task of the run shown.
pub fn doc(
    sh: &Shared,
    task_id: &str,
    trace: Option<&TaskTrace>,
    width: usize,
) -> Vec<Line<'static>> {
    let theme = sh.theme();
    let mut lines = Vec::new();
    let forge: Vec<&CallTrace> = trace
        .map(|t| {
            t.calls
                .iter()
                .filter(|c| matches!(c.purpose, Purpose::ForgeTests { .. }))
                .collect()
        })
        .unwrap_or_default();
    if !forge.is_empty() {
        return fit_lines(forge_lines(sh, &forge, width), width);
    }
    let prediction = trace.and_then(|t| t.prediction.as_ref());
    let schedule = trace.and_then(|t| t.schedule.as_ref());
    match prediction {
        Some(p) => lines.extend(prediction_lines(sh, task_id, p, width)),
        None if schedule.is_some() => lines.push(Line::styled(
            "No dependency prediction (the schedule did not need one).",
            theme.muted(),
        )),
        None => {
            let text = match trace {
                None => "Nothing generated yet.",
                Some(t) => match analysis_call(t) {
                    Some(false) => "Waiting for the dependency analysis…",
                    Some(true) => "The dependency analysis gave no usable reply.",
                    None => "No dependency analysis: this strategy generates without one.",
                },
            };
            lines.push(Line::styled(text, theme.muted()));
        }
    }
    if let Some(s) = schedule {
        lines.push(Line::default());
        lines.extend(schedule_lines(sh, prediction, s, width));
    }
    fit_lines(lines, width)
}

/// Lines of the task pane (to scroll it).
pub fn line_count(sh: &Shared, area: Rect) -> usize {
    let width = usize::from(area.width.saturating_sub(2));
    let Some((session, task)) = sh.run_shown().zip(sh.run_task()) else {
        return 0;
    };
    let trace = session.state.trace.task(task.task_id, task.sample);
    doc(sh, task.task_id, trace, width).len()
}

/// `forge --llm`'s rounds for the task: the prompt (what the forged suite misses) and the
/// reply (the tests proposed), as the forge session recorded them.
fn forge_lines(sh: &Shared, calls: &[&CallTrace], width: usize) -> Vec<Line<'static>> {
    let theme = sh.theme();
    let mut lines = Vec::new();
    for c in calls {
        let Purpose::ForgeTests { round } = c.purpose else {
            continue;
        };
        if !lines.is_empty() {
            lines.push(Line::default());
        }
        let mut head = vec![
            Span::styled(format!("Forge round {round}"), theme.header()),
            Span::styled(format!(" · {}", c.model), theme.muted()),
        ];
        match &c.response {
            Some(r) => {
                let mut facts = format!(" · {:.1} s", r.latency_s);
                if let Some(u) = r.usage {
                    facts.push_str(&format!(
                        " · {} + {} tokens",
                        u.prompt_tokens, u.completion_tokens
                    ));
                }
                head.push(Span::styled(facts, theme.muted()));
                if let Some(f) = &r.failure {
                    head.push(Span::styled(
                        format!(" · failed: {}", f.message),
                        theme.error(),
                    ));
                }
            }
            None => head.push(Span::styled(" · waiting for the reply…", theme.warn())),
        }
        lines.push(Line::from(head));
        lines.push(Line::styled("Prompt", theme.accent()));
        for m in c.messages.iter().filter(|m| m.role != "assistant") {
            wrap_into(&mut lines, &m.content, width, theme.base());
        }
        lines.push(Line::styled("Reply", theme.accent()));
        let reply = c.response.as_ref().map_or(c.streamed.as_str(), |r| &r.text);
        if reply.is_empty() {
            lines.push(Line::styled("(nothing yet)", theme.muted()));
        } else {
            wrap_into(&mut lines, reply, width, theme.base());
        }
    }
    lines
}

fn prediction_lines(
    sh: &Shared,
    task_id: &str,
    p: &PredictionTrace,
    width: usize,
) -> Vec<Line<'static>> {
    let theme = sh.theme();
    let truth = DepGraph::new(p.methods.clone(), &p.truth);
    let score = prediction_score(task_id, p);
    let mut head = vec![Span::styled("Dependencies", theme.header())];
    match &score {
        Some(s) => {
            let m = &s.metrics;
            let exact = s
                .methods
                .iter()
                .filter(|m| m.category == Category::Exact)
                .count();
            head.push(Span::styled(
                format!(
                    " · predicted vs true · {} of {} edges · {exact}/{} methods exact",
                    m.edges_correct,
                    m.edges_truth,
                    s.methods.len()
                ),
                theme.muted(),
            ));
        }
        None => head.push(Span::styled(
            " · true (the reply could not be read)",
            theme.warn(),
        )),
    }
    let mut lines = vec![Line::from(head)];
    if score.is_some() {
        lines.push(legend(theme));
    }
    if truth.nodes.is_empty() {
        lines.push(Line::styled("No target methods.", theme.muted()));
    } else {
        lines.extend(layer_lines(sh, &truth, score.as_ref(), width.max(10)));
    }
    for problem in &p.problems {
        lines.push(Line::styled(
            truncate(&format!("⚠ {problem}"), width),
            theme.warn(),
        ));
    }
    lines
}

fn schedule_lines(
    sh: &Shared,
    prediction: Option<&PredictionTrace>,
    s: &ScheduleTrace,
    width: usize,
) -> Vec<Line<'static>> {
    let theme = sh.theme();
    let n = s.violations.len();
    let verdict = match n {
        0 => " · no violated edge".to_string(),
        1 => " · 1 violated edge".to_string(),
        n => format!(" · {n} violated edges"),
    };
    let mut lines = vec![Line::from(vec![
        Span::styled("Schedule", theme.header()),
        Span::styled(format!(" ({})", s.mode), theme.muted()),
        Span::styled(verdict, if n == 0 { theme.ok() } else { theme.error() }),
    ])];
    match prediction {
        // Beside the true order, as the browse view shows a predicted one.
        Some(p) => {
            let truth = DepGraph::new(p.methods.clone(), &p.truth);
            lines.extend(both_orders(
                sh,
                &truth,
                &s.violations,
                &s.order,
                "scheduled",
                width,
            ));
        }
        None => {
            let marked = |m: &str| s.violations.iter().any(|[a, _]| a == m);
            for (i, m) in s.order.iter().enumerate() {
                let style = if marked(m) {
                    theme.error()
                } else {
                    theme.base()
                };
                let mark = if marked(m) { " !" } else { "" };
                lines.push(Line::styled(format!("  {:>2}. {m}{mark}", i + 1), style));
            }
            for [a, b] in &s.violations {
                lines.push(Line::styled(format!("    {a} → {b}"), theme.error()));
            }
        }
    }
    lines
}
