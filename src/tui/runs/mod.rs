//! State of the generation-run screens: the run screen (tasks, a task's dependencies, schedule
//! and methods), the step-through view of one method's rounds, and the new-run dialog. Plain
//! data and pure folds over [`TaskTrace`]: changes happen in `app_run`, drawing in `views`.
//!
//! A run is an [`EvalSession`](super::evals::EvalSession) like an evaluation: the same events
//! folded by the same reducer, live or replayed; its `state.trace` holds what generation did.

mod dialog;

pub use dialog::*;

use crate::session::event::MethodStatus;
use crate::session::trace::{MethodTrace, RoundTrace, TaskTrace};

use super::evals::{Cursor, Source};
use super::nav::ScreenId;

/// The panes of the run screen, in `Tab` order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RunPane {
    #[default]
    Tasks,
    /// The selected task's dependencies and schedule.
    Task,
    Methods,
}

impl RunPane {
    pub fn next(self) -> RunPane {
        match self {
            RunPane::Tasks => RunPane::Task,
            RunPane::Task => RunPane::Methods,
            RunPane::Methods => RunPane::Tasks,
        }
    }

    pub fn prev(self) -> RunPane {
        self.next().next()
    }
}

/// One method's rounds, stepped through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepState {
    pub task_id: String,
    pub sample: u32,
    pub method: String,
    /// Index into the method's rounds; `None` follows the newest one (a live run's).
    pub round: Option<usize>,
    /// The prompt shown whole instead of its one-line summary.
    pub prompt_open: bool,
    /// The focused pane when the model's side and the code's side are apart (wide).
    pub pane: usize,
    /// Scroll of each pane; `usize::MAX` sticks to the end (a growing response).
    pub scroll: [usize; 2],
}

impl StepState {
    pub fn new(task_id: String, sample: u32, method: String) -> StepState {
        StepState {
            task_id,
            sample,
            method,
            round: None,
            prompt_open: false,
            pane: 0,
            scroll: [0, 0],
        }
    }
}

/// Everything the run screens keep (the sessions themselves live in `EvalUi`).
#[derive(Debug, Clone, Default)]
pub struct RunUi {
    /// Which run the run screen shows.
    pub showing: Option<Source>,
    /// Where Esc from the run screen goes.
    pub back: Option<ScreenId>,
    pub pane: RunPane,
    pub tasks: Cursor,
    pub methods: Cursor,
    /// Scroll of the task pane (dependencies and schedule).
    pub task_scroll: usize,
    /// The metrics and fingerprint panel flipped from its default (shown on tall terminals).
    pub panel_toggled: bool,
    pub step: Option<StepState>,
}

/// Where a method's generation stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MethodState {
    /// Not started yet.
    Pending,
    /// Being generated now.
    Running,
    /// Started, never finished, and the run is not going on (stopped, killed).
    CutOff,
    Done {
        status: MethodStatus,
        repairs: u32,
    },
}

impl MethodState {
    pub fn of(trace: Option<&MethodTrace>, live: bool) -> MethodState {
        match trace {
            None => MethodState::Pending,
            Some(m) => match m.status {
                Some(status) => MethodState::Done {
                    status,
                    repairs: m.repairs,
                },
                None if live => MethodState::Running,
                None => MethodState::CutOff,
            },
        }
    }

    /// `passed`, `repaired 2`, `exhausted`, `untested`, `no code`, `running` …
    pub fn label(self) -> String {
        match self {
            MethodState::Pending => "pending".into(),
            MethodState::Running => "running".into(),
            MethodState::CutOff => "cut off".into(),
            MethodState::Done { status, repairs } => match status {
                MethodStatus::Passed if repairs == 0 => "passed".into(),
                MethodStatus::Passed => format!("repaired {repairs}"),
                MethodStatus::Exhausted => "exhausted".into(),
                MethodStatus::Untested => "untested".into(),
                MethodStatus::NoCode => "no code".into(),
                MethodStatus::NotGenerated => "not generated".into(),
                MethodStatus::EnvErr => "EnvErr".into(),
            },
        }
    }
}

/// A task's methods as the run screen lists them.
#[derive(Debug, Clone, Copy)]
pub struct MethodRow<'a> {
    pub name: &'a str,
    pub trace: Option<&'a MethodTrace>,
}

/// The methods of a task in schedule order, then any generated method the schedule does not
/// list (in the order they started), then predicted methods not generated yet.
pub fn method_rows(t: &TaskTrace) -> Vec<MethodRow<'_>> {
    let mut names: Vec<&str> = Vec::new();
    if let Some(s) = &t.schedule {
        names.extend(s.order.iter().map(String::as_str));
    }
    let mut started: Vec<&MethodTrace> = t.methods.iter().collect();
    started.sort_by_key(|m| m.index);
    for m in started {
        if !names.contains(&m.name.as_str()) {
            names.push(&m.name);
        }
    }
    if let Some(p) = &t.prediction {
        for m in &p.methods {
            if !names.contains(&m.as_str()) {
                names.push(m);
            }
        }
    }
    names
        .into_iter()
        .map(|name| MethodRow {
            name,
            trace: t.method(name),
        })
        .collect()
}

/// The public tests of a round: (passed, total), when they ran.
pub fn round_tests(r: &RoundTrace) -> Option<(usize, usize)> {
    let suite = r.public.as_ref()?;
    let passed = suite
        .tests
        .iter()
        .filter(|t| matches!(t.outcome, crate::model::Outcome::Pass))
        .count();
    Some((passed, suite.tests.len()))
}

/// The last public-test result of a method.
pub fn last_tests(m: &MethodTrace) -> Option<(usize, usize)> {
    m.rounds.iter().rev().find_map(round_tests)
}

/// The code a round produced: as extracted, else the patch as the model wrote it.
pub fn round_code(r: &RoundTrace) -> Option<&str> {
    r.code.as_deref().or(r.patch.as_deref())
}

/// `12.3k` for token counts.
pub fn count(n: u64) -> String {
    match n {
        0..1000 => n.to_string(),
        1000..1_000_000 => format!("{:.1}k", n as f64 / 1000.0),
        _ => format!("{:.1}M", n as f64 / 1_000_000.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::trace::{PredictionTrace, ScheduleTrace};

    fn method(name: &str, index: usize, status: Option<MethodStatus>, repairs: u32) -> MethodTrace {
        MethodTrace {
            name: name.into(),
            index,
            status,
            repairs,
            rounds: Vec::new(),
            public_check: None,
        }
    }

    #[test]
    fn rows_follow_the_schedule_then_what_else_ran() {
        let t = TaskTrace {
            prediction: Some(PredictionTrace {
                methods: vec!["a".into(), "b".into(), "c".into(), "d".into()],
                ..PredictionTrace::default()
            }),
            schedule: Some(ScheduleTrace {
                mode: "predicted".into(),
                order: vec!["c".into(), "a".into()],
                violations: Vec::new(),
            }),
            methods: vec![
                method("a", 1, Some(MethodStatus::Passed), 2),
                method("b", 2, None, 0),
                method("c", 0, Some(MethodStatus::Passed), 0),
            ],
            calls: Vec::new(),
            ..TaskTrace::default()
        };
        let rows = method_rows(&t);
        let names: Vec<&str> = rows.iter().map(|r| r.name).collect();
        assert_eq!(names, ["c", "a", "b", "d"]);
        let states: Vec<String> = rows
            .iter()
            .map(|r| MethodState::of(r.trace, true).label())
            .collect();
        assert_eq!(states, ["passed", "repaired 2", "running", "pending"]);
        assert_eq!(MethodState::of(rows[2].trace, false), MethodState::CutOff);
    }

    #[test]
    fn counts_read_well() {
        assert_eq!(count(999), "999");
        assert_eq!(count(12_345), "12.3k");
        assert_eq!(count(2_500_000), "2.5M");
    }
}

pub mod flow;
pub mod step_ctx;
pub use flow::title;
