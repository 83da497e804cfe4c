//! `App::update` for the run screen and the new-run dialog, and what the run screens need to
//! know about where things are (the run shown, the selected task and method, the panes).

use crate::tui::effect::Effect;
use crate::tui::evals::{Cursor, EvalSession, Source, TaskRef};
use crate::tui::keymap::Context;
use crate::tui::runs::{MethodRow, RunSetup, method_rows};
use crate::tui::screen::{Nav, ScreenId};
use crate::tui::shared::{Level, Shared};
use crate::tui::widgets::layout;

impl Shared {
    /// The run on the run screen.
    pub fn run_shown(&self) -> Option<&EvalSession> {
        self.ev.session(self.runs.showing?)
    }

    /// Whether the run screens show the run going on now.
    pub fn run_is_live(&self) -> bool {
        self.ev.running
            && self.runs.showing == Some(Source::Live)
            && self.ev.live.as_ref().is_some_and(|l| l.info.is_run())
    }

    /// The task selected on the run screen.
    pub fn run_task(&self) -> Option<TaskRef<'_>> {
        let rows = self.run_shown()?.task_rows(false);
        rows.get(self.runs.tasks.selected).copied()
    }

    /// The methods of the selected task, in schedule order.
    pub fn run_methods(&self) -> Vec<MethodRow<'_>> {
        let Some((session, task)) = self.run_shown().zip(self.run_task()) else {
            return Vec::new();
        };
        session
            .state
            .trace
            .task(task.task_id, task.sample)
            .map(method_rows)
            .unwrap_or_default()
    }

    /// The keymap contexts of the run and step-through screens: a live run's keys first.
    pub fn run_contexts(&self) -> Vec<Context> {
        let view = if self.screen == ScreenId::Step {
            Context::Step
        } else {
            Context::Run
        };
        if self.run_is_live() {
            vec![Context::RunLive, view, Context::Global]
        } else {
            vec![view, Context::Global]
        }
    }

    /// Whether the metrics and fingerprint panel is shown (by default on tall terminals).
    pub fn run_panel_shown(&self) -> bool {
        (self.chrome().body.height >= layout::RUN_PANEL_HEIGHT) != self.runs.panel_toggled
    }

    pub fn run_areas(&self) -> layout::RunAreas {
        layout::run_split(
            self.chrome().body,
            self.run_panel_shown(),
            self.run_methods().len(),
            self.runs.pane,
        )
    }

    pub fn show_run(&mut self, source: Source, back: ScreenId) {
        self.runs.showing = Some(source);
        self.runs.back = Some(back);
        self.runs.tasks = Cursor::default();
        self.runs.methods = Cursor::default();
        self.runs.task_scroll = 0;
        self.runs.pane = crate::tui::runs::RunPane::Tasks;
        self.runs.step = None;
        self.go(Nav::To(ScreenId::Run));
    }

    pub fn start_run(&mut self, setup: RunSetup) -> Vec<Effect> {
        let dataset = self.data.dataset.name.clone();
        let strategy = setup.strategy.to_string();
        let live = EvalSession::live_run(&strategy, &setup.provider, &dataset);
        let Some(back) = self.begin_live(live) else {
            return Vec::new();
        };
        self.show_run(Source::Live, back);
        let tasks = match &setup.tasks {
            Some(t) if t.len() == 1 => t[0].clone(),
            Some(t) => format!("{} tasks", t.len()),
            None => "every task".into(),
        };
        self.set_status(
            Level::Info,
            format!(
                "{strategy} run with {} on {tasks} of {dataset}…",
                setup.provider
            ),
        );
        vec![Effect::StartRun(setup)]
    }

    /// Keep the run screens' positions valid (after a resize or new events).
    pub fn clamp_run(&mut self) {
        let Some(session) = self.run_shown() else {
            return;
        };
        let tasks = session.task_rows(false).len();
        let methods = self.run_methods().len();
        let areas = self.run_areas();
        self.runs
            .tasks
            .keep_visible(tasks, layout::table_page(areas.tasks).max(1));
        self.runs
            .methods
            .keep_visible(methods, layout::table_page(areas.methods).max(1));
    }
}

/// The title of the run screens: which run, live or not.
pub fn title(sh: &Shared) -> Vec<ratatui::text::Span<'static>> {
    use ratatui::text::Span;
    let forge = sh.run_shown().is_some_and(|s| s.info.is_forge());
    let mut spans = vec![Span::raw(match (forge, sh.run_is_live()) {
        (true, _) => "forge --llm session",
        (false, true) => "live generation run",
        (false, false) => "generation run",
    })];
    if let Some(s) = sh.run_shown() {
        spans.push(Span::styled(
            format!(" · {}", s.info.label()),
            sh.theme().muted(),
        ));
    }
    spans
}
