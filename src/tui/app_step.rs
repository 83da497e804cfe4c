//! `App::update` for the step-through of a method's rounds: rounds, methods, the prompt's
//! fold, panes and scrolling. The view reads the same [`StepCtx`].

use super::action::Action;
use super::app::{App, Screen, scrolled};
use super::evals::EvalSession;
use super::runs::{MethodRow, StepState, method_rows};
use super::views::{layout, step_doc};
use crate::session::trace::{MethodTrace, TaskTrace};

/// What the step-through shows, resolved from the state and the run's fold.
pub struct StepCtx<'a> {
    pub session: &'a EvalSession,
    pub step: &'a StepState,
    pub task: Option<&'a TaskTrace>,
    pub method: Option<&'a MethodTrace>,
    /// The task's methods in schedule order, and where this one is among them.
    pub rows: Vec<MethodRow<'a>>,
    pub position: Option<usize>,
    /// Index of the round shown (the newest when following).
    pub round: Option<usize>,
    /// The task is being generated now, in this classlab.
    pub live: bool,
}

impl App {
    pub fn step_ctx(&self) -> Option<StepCtx<'_>> {
        let step = self.sh.runs.step.as_ref()?;
        let session = self.run_shown()?;
        let task = session.state.trace.task(&step.task_id, step.sample);
        let method = task.and_then(|t| t.method(&step.method));
        let rows = task.map(method_rows).unwrap_or_default();
        let position = rows.iter().position(|r| r.name == step.method);
        let rounds = method.map_or(0, |m| m.rounds.len());
        let round = match step.round {
            _ if rounds == 0 => None,
            Some(i) => Some(i.min(rounds - 1)),
            None => Some(rounds - 1),
        };
        Some(StepCtx {
            session,
            step,
            task,
            method,
            rows,
            position,
            round,
            live: self.run_is_live()
                && session
                    .state
                    .run(&step.task_id, step.sample)
                    .is_some_and(|r| r.status == crate::session::Status::Running),
        })
    }

    pub(super) fn update_step(&mut self, action: Action) {
        let Some(ctx) = self.step_ctx() else {
            self.screen = Screen::Run;
            return;
        };
        let rounds = ctx.method.map_or(0, |m| m.rounds.len());
        let round = ctx.round;
        let names: Vec<String> = ctx.rows.iter().map(|r| r.name.to_string()).collect();
        let position = ctx.position;
        let areas = layout::step_split(self.sh.chrome().body);
        let docs = step_doc::documents(self, &ctx, &areas);
        drop(ctx);
        let Some(step) = self.sh.runs.step.as_mut() else {
            return;
        };
        match action {
            Action::Back | Action::Close => {
                if let Some(i) = position {
                    self.sh.runs.methods.selected = i;
                }
                self.screen = Screen::Run;
                self.clamp_run();
            }
            Action::NextRound | Action::PrevRound => {
                let Some(at) = round else { return };
                let next = if action == Action::NextRound {
                    (at + 1).min(rounds.saturating_sub(1))
                } else {
                    at.saturating_sub(1)
                };
                // The newest round is followed: a live run's next repair shows up by itself.
                step.round = (next + 1 < rounds).then_some(next);
                step.scroll = [0, 0];
            }
            Action::NextMethod | Action::PrevMethod => {
                let delta: isize = if action == Action::NextMethod { 1 } else { -1 };
                let target = match position {
                    Some(p) => p
                        .saturating_add_signed(delta)
                        .min(names.len().saturating_sub(1)),
                    None => 0,
                };
                if let Some(name) = names.get(target).filter(|n| **n != step.method) {
                    let open = step.prompt_open;
                    *step = StepState::new(step.task_id.clone(), step.sample, name.clone());
                    step.prompt_open = open;
                    self.sh.runs.methods.selected = target;
                }
            }
            Action::ToggleFold => step.prompt_open = !step.prompt_open,
            Action::NextTab | Action::PrevTab if docs.len() > 1 => step.pane = 1 - step.pane.min(1),
            Action::NextTab | Action::PrevTab => {
                // One pane: Tab jumps between its sections.
                let Some(doc) = docs.first() else { return };
                let page = layout::inner_page(areas.left).max(1);
                let max = doc.lines.len().saturating_sub(page);
                let at = step.scroll[0].min(max);
                let target = if action == Action::NextTab {
                    doc.sections.iter().copied().find(|&s| s > at)
                } else {
                    doc.sections.iter().rev().copied().find(|&s| s < at)
                };
                step.scroll[0] = target.unwrap_or(if action == Action::NextTab { at } else { 0 });
                step.scroll[0] = step.scroll[0].min(max);
            }
            other => {
                let pane = if docs.len() > 1 { step.pane.min(1) } else { 0 };
                let area = match (pane, areas.right) {
                    (1, Some(right)) => right,
                    _ => areas.left,
                };
                let page = layout::inner_page(area).max(1);
                let max = docs
                    .get(pane)
                    .map_or(0, |d| d.lines.len().saturating_sub(page));
                let at = step.scroll[pane].min(max);
                step.scroll[pane] = match other {
                    // The end sticks: a response still streaming stays in view as it grows.
                    Action::Bottom => usize::MAX,
                    other => scrolled(at, &other, page, max),
                };
            }
        }
    }
}
