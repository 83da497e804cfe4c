//! `App::update` for the step-through of a method's rounds: rounds, methods, the prompt's
//! fold, panes and scrolling. The view reads the same [`StepCtx`].

use crate::session::trace::{MethodTrace, TaskTrace};
use crate::tui::evals::EvalSession;
use crate::tui::runs::{MethodRow, StepState, method_rows};
use crate::tui::shared::Shared;

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

impl Shared {
    pub fn step_ctx(&self) -> Option<StepCtx<'_>> {
        let step = self.runs.step.as_ref()?;
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
}
