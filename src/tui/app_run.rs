//! `App::update` for the run screen and the new-run dialog, and what the run screens need to
//! know about where things are (the run shown, the selected task and method, the panes).

use super::action::Action;
use super::app::{App, Effect, Level, Overlay, Screen, scrolled};
use super::evals::{Cursor, EvalSession, Source, TaskRef};
use super::keymap::Context;
use super::runs::{MethodRow, NewRunState, RunPane, RunSetup, StepState, TaskPick, method_rows};
use super::views::{self, layout};

impl App {
    /// The run on the run screen.
    pub fn run_shown(&self) -> Option<&EvalSession> {
        self.sh.ev.session(self.sh.runs.showing?)
    }

    /// Whether the run screens show the run going on now.
    pub fn run_is_live(&self) -> bool {
        self.sh.ev.running
            && self.sh.runs.showing == Some(Source::Live)
            && self.sh.ev.live.as_ref().is_some_and(|l| l.info.is_run())
    }

    /// The task selected on the run screen.
    pub fn run_task(&self) -> Option<TaskRef<'_>> {
        let rows = self.run_shown()?.task_rows(false);
        rows.get(self.sh.runs.tasks.selected).copied()
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
    pub(super) fn run_contexts(&self) -> Vec<Context> {
        let view = if self.screen == Screen::Step {
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
        (self.sh.chrome().body.height >= layout::RUN_PANEL_HEIGHT) != self.sh.runs.panel_toggled
    }

    pub fn run_areas(&self) -> layout::RunAreas {
        layout::run_split(
            self.sh.chrome().body,
            self.run_panel_shown(),
            self.run_methods().len(),
            self.sh.runs.pane,
        )
    }

    pub(super) fn show_run(&mut self, source: Source, back: Screen) {
        self.sh.runs.showing = Some(source);
        self.sh.runs.back = Some(back);
        self.sh.runs.tasks = Cursor::default();
        self.sh.runs.methods = Cursor::default();
        self.sh.runs.task_scroll = 0;
        self.sh.runs.pane = super::runs::RunPane::Tasks;
        self.sh.runs.step = None;
        self.screen = Screen::Run;
    }

    pub(super) fn update_run(&mut self, action: Action) -> Vec<Effect> {
        let back = self.sh.runs.back.unwrap_or(Screen::Sessions);
        let Some(session) = self.run_shown() else {
            if matches!(action, Action::Back | Action::Close) {
                self.screen = back;
            }
            return Vec::new();
        };
        let tasks = session.task_rows(false).len();
        let methods = self.run_methods().len();
        let areas = self.run_areas();
        match action {
            Action::Back | Action::Close => self.screen = back,
            Action::TogglePanel => {
                self.sh.runs.panel_toggled = !self.sh.runs.panel_toggled;
                self.clamp_run();
            }
            Action::NextTab => self.sh.runs.pane = self.sh.runs.pane.next(),
            Action::PrevTab => self.sh.runs.pane = self.sh.runs.pane.prev(),
            Action::Open if self.sh.runs.pane == RunPane::Methods => self.open_step(),
            Action::Open if methods == 0 => self.sh.set_status(
                Level::Info,
                "no method of this task was generated on its own",
            ),
            Action::Open => self.sh.runs.pane = RunPane::Methods,
            Action::Click { column, row } => {
                let hit = |table, offset: usize| {
                    layout::table_row_at(table, column, row).map(|r| offset + r)
                };
                if let Some(target) = hit(areas.tasks, self.sh.runs.tasks.offset) {
                    self.sh.runs.pane = RunPane::Tasks;
                    if target < tasks && target != self.sh.runs.tasks.selected {
                        self.select_run_task(target);
                    }
                } else if let Some(target) = hit(areas.methods, self.sh.runs.methods.offset) {
                    if target == self.sh.runs.methods.selected
                        && self.sh.runs.pane == RunPane::Methods
                    {
                        self.open_step();
                    } else if target < methods {
                        self.sh.runs.methods.selected = target;
                    }
                    self.sh.runs.pane = RunPane::Methods;
                }
            }
            other => match self.sh.runs.pane {
                RunPane::Tasks => {
                    let before = self.sh.runs.tasks.selected;
                    let page = layout::table_page(areas.tasks).max(1);
                    self.sh.runs.tasks.navigate(&other, tasks, page);
                    if self.sh.runs.tasks.selected != before {
                        let selected = self.sh.runs.tasks.selected;
                        self.select_run_task(selected);
                    }
                }
                RunPane::Task => {
                    let page = layout::inner_page(areas.task).max(1);
                    let lines = views::run_task::line_count(self, areas.task);
                    let max = lines.saturating_sub(page);
                    self.sh.runs.task_scroll =
                        scrolled(self.sh.runs.task_scroll, &other, page, max);
                }
                RunPane::Methods => {
                    let page = layout::table_page(areas.methods).max(1);
                    self.sh.runs.methods.navigate(&other, methods, page);
                }
            },
        }
        Vec::new()
    }

    fn select_run_task(&mut self, index: usize) {
        self.sh.runs.tasks.selected = index;
        self.sh.runs.methods = Cursor::default();
        self.sh.runs.task_scroll = 0;
        self.clamp_run();
    }

    /// Step through the selected method's rounds.
    fn open_step(&mut self) {
        let Some(task) = self.run_task() else {
            return;
        };
        let (task_id, sample) = (task.task_id.to_string(), task.sample);
        let methods = self.run_methods();
        let Some(m) = methods.get(self.sh.runs.methods.selected) else {
            return;
        };
        self.sh.runs.step = Some(StepState::new(task_id, sample, m.name.to_string()));
        self.screen = Screen::Step;
    }

    pub(super) fn open_new_run(&mut self) -> Vec<Effect> {
        // From the task list or a task, the selected task is offered (and chosen).
        let from_tasks = matches!(self.screen, Screen::List | Screen::Task);
        let selected = match self.screen {
            Screen::Task => self.sh.data.dataset.tasks.get(self.task.idx),
            _ => self
                .sh
                .list
                .selected_task()
                .and_then(|i| self.sh.data.dataset.tasks.get(i)),
        }
        .map(|t| t.id.clone());
        let tasks = if from_tasks && selected.is_some() {
            TaskPick::Selected
        } else {
            TaskPick::All
        };
        self.overlay = Some(Overlay::NewRun(NewRunState {
            selected_task: selected,
            tasks,
            loading: true,
            ..NewRunState::default()
        }));
        vec![Effect::LoadRunChoices]
    }

    pub(super) fn run_choices(
        &mut self,
        endpoints: Vec<String>,
        replays: Vec<(String, std::path::PathBuf)>,
    ) {
        if let Some(Overlay::NewRun(d)) = self.overlay.as_mut() {
            // The profiles' contents from the config loaded at startup (as the run will read
            // them); the default one chosen and its values filled in.
            let config = crate::config::current();
            let profiles = endpoints
                .into_iter()
                .map(|name| {
                    let profile = config.endpoints.get(&name).cloned().unwrap_or_default();
                    (name, profile)
                })
                .collect();
            d.set_profiles(profiles, config.default_profile());
            d.replays = replays;
            d.replay = d.replay.min(d.replays.len().saturating_sub(1));
            d.loading = false;
        }
    }

    pub(super) fn update_new_run(&mut self, action: Action) -> Vec<Effect> {
        let Some(Overlay::NewRun(d)) = self.overlay.as_mut() else {
            return Vec::new();
        };
        match action {
            Action::Back | Action::Close => self.overlay = None,
            Action::Up | Action::PrevTab => d.move_focus(-1),
            Action::Down | Action::NextTab => d.move_focus(1),
            Action::Left => d.change(-1),
            Action::Right => d.change(1),
            Action::Input(c) => d.input(c),
            Action::Backspace => d.backspace(),
            Action::ClearInput => d.clear(),
            Action::Submit => match d.setup() {
                Ok(setup) => {
                    self.overlay = None;
                    return self.start_run(setup);
                }
                Err(e) => self.sh.set_status(Level::Warn, e),
            },
            _ => {}
        }
        Vec::new()
    }

    fn start_run(&mut self, setup: RunSetup) -> Vec<Effect> {
        let dataset = self.sh.data.dataset.name.clone();
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
        self.sh.set_status(
            Level::Info,
            format!(
                "{strategy} run with {} on {tasks} of {dataset}…",
                setup.provider
            ),
        );
        vec![Effect::StartRun(setup)]
    }

    /// Keep the run screens' positions valid (after a resize or new events).
    pub(super) fn clamp_run(&mut self) {
        let Some(session) = self.run_shown() else {
            return;
        };
        let tasks = session.task_rows(false).len();
        let methods = self.run_methods().len();
        let areas = self.run_areas();
        self.sh
            .runs
            .tasks
            .keep_visible(tasks, layout::table_page(areas.tasks).max(1));
        self.sh
            .runs
            .methods
            .keep_visible(methods, layout::table_page(areas.methods).max(1));
    }
}
