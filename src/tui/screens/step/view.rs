//! The step-through of one method: its rounds on a timeline (round 0 the first try, then one
//! per repair), and for the selected round the prompt, the response (growing while it
//! streams), the reflection, the public tests, the patch as a diff and the code.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use crate::session::trace::MethodTrace;
use crate::tui::runs::step_ctx::StepCtx;
use crate::tui::runs::{MethodState, round_tests};
use crate::tui::shared::Shared;
use crate::tui::widgets::deps_view::position_label;
use crate::tui::widgets::step_doc::{Doc, documents};
use crate::tui::widgets::{fit_lines, layout, pane};

pub struct StepView<'a> {
    pub sh: &'a Shared,
}

impl Widget for &StepView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let sh = self.sh;
        let Some(ctx) = sh.step_ctx() else {
            Paragraph::new(Line::styled("No method open.", sh.theme().muted())).render(area, buf);
            return;
        };
        let areas = layout::step_split(area);
        let width = usize::from(area.width);
        Paragraph::new(fit_lines(vec![title(sh, &ctx)], width)).render(areas.title, buf);
        Paragraph::new(fit_lines(vec![timeline(sh, &ctx)], width)).render(areas.timeline, buf);
        let docs = documents(sh, &ctx, &areas);
        let wide = docs.len() > 1;
        let mut rects = vec![areas.left];
        rects.extend(areas.right);
        for (i, (doc, rect)) in docs.iter().zip(rects).enumerate() {
            let focused = wide && ctx.step.pane.min(1) == i;
            render_doc(sh, doc, ctx.step.scroll[i], focused, rect, buf);
        }
    }
}

/// ` ClassEval_3 › add · method 2 of 4 · repaired 2 · round 1 of 2 `
fn title(sh: &Shared, ctx: &StepCtx) -> Line<'static> {
    let theme = sh.theme();
    let step = ctx.step;
    let mut spans = vec![
        Span::styled(format!(" {}", step.task_id), theme.muted()),
        Span::styled(" › ", theme.muted()),
        Span::styled(step.method.clone(), theme.accent()),
    ];
    if let Some(p) = ctx.position {
        spans.push(Span::raw(format!(
            " · method {} of {}",
            p + 1,
            ctx.rows.len()
        )));
    }
    let state = MethodState::of(ctx.method, ctx.live);
    spans.push(Span::raw(" · "));
    spans.push(Span::styled(
        state.label(),
        crate::tui::widgets::run_view::state_style(sh, state),
    ));
    if let Some(b) = ctx
        .task
        .and_then(|t| t.in_class(&step.method))
        .and_then(|c| c.outcome)
    {
        spans.push(Span::raw(" · "));
        spans.push(Span::styled(b.as_str(), theme.bucket(b)));
    }
    if let (Some(m), Some(i)) = (ctx.method, ctx.round) {
        let r = m.rounds.get(i).map_or(0, |r| r.round);
        let repairs = m.rounds.len().saturating_sub(1);
        spans.push(Span::raw(match r {
            0 => " · first try".to_string(),
            r => format!(" · repair {r} of {repairs}"),
        }));
    }
    Line::from(spans)
}

/// One cell of the timeline: the round number and its public tests.
fn round_cell(m: &MethodTrace, i: usize, live: bool) -> String {
    let Some(r) = m.rounds.get(i) else {
        return String::new();
    };
    let tests = match round_tests(r) {
        Some((p, t)) if p == t => format!("✓ {p}/{t}"),
        Some((p, t)) => format!("✗ {p}/{t}"),
        None if live && i + 1 == m.rounds.len() && m.status.is_none() => "…".into(),
        None => "·".into(),
    };
    format!(" {} {tests} ", r.round)
}

fn timeline(sh: &Shared, ctx: &StepCtx) -> Line<'static> {
    let theme = sh.theme();
    let mut spans = vec![Span::styled(" rounds ", theme.muted())];
    let (Some(m), Some(selected)) = (ctx.method, ctx.round) else {
        let whole = ctx.task.is_some_and(|t| t.whole_class);
        let text = if whole {
            "none: written with the whole class in one completion"
        } else {
            "none yet"
        };
        spans.push(Span::styled(text, theme.muted()));
        return Line::from(spans);
    };
    for i in 0..m.rounds.len() {
        if i > 0 {
            spans.push(Span::styled("─", theme.muted()));
        }
        let style = if i == selected {
            theme.selection()
        } else {
            theme.base()
        };
        spans.push(Span::styled(round_cell(m, i, ctx.live), style));
    }
    let following = ctx.step.round.is_none() && ctx.live;
    if following {
        spans.push(Span::styled("  following the newest", theme.muted()));
    }
    Line::from(spans)
}

fn render_doc(sh: &Shared, doc: &Doc, scroll: usize, focused: bool, area: Rect, buf: &mut Buffer) {
    let theme = sh.theme();
    let page = layout::inner_page(area);
    let scroll = scroll.min(doc.lines.len().saturating_sub(page));
    let mut block = pane(sh, doc.title);
    if focused {
        block = block.border_style(theme.accent());
    }
    if let Some(position) = position_label(scroll, page, doc.lines.len()) {
        block = block.title_top(Line::styled(position, theme.muted()).right_aligned());
    }
    let width = usize::from(area.width.saturating_sub(2));
    let shown: Vec<Line> = doc.lines.iter().skip(scroll).take(page).cloned().collect();
    Paragraph::new(fit_lines(shown, width))
        .block(block)
        .render(area, buf);
}
