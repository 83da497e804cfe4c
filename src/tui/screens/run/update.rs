//! A generation run: its tasks, their methods, the panel.

use crate::tui::evals::{Cursor};
use crate::tui::runs::{RunPane, StepState};
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::screen::{Nav, ScreenId};
use crate::tui::shared::{Level, Shared};
use crate::tui::widgets::layout;

use crate::tui::screen::scrolled;

impl Shared {
    pub fn update_run(&mut self, action: Action) -> Vec<Effect> {
        let back = self.runs.back.unwrap_or(ScreenId::Sessions);
        let Some(session) = self.run_shown() else {
            if matches!(action, Action::Back | Action::Close) {
                self.go(Nav::To(back));
            }
            return Vec::new();
        };
        let tasks = session.task_rows(false).len();
        let methods = self.run_methods().len();
        let areas = self.run_areas();
        match action {
            Action::Back | Action::Close => self.go(Nav::To(back)),
            Action::TogglePanel => {
                self.runs.panel_toggled = !self.runs.panel_toggled;
                self.clamp_run();
            }
            Action::NextTab => self.runs.pane = self.runs.pane.next(),
            Action::PrevTab => self.runs.pane = self.runs.pane.prev(),
            Action::Open if self.runs.pane == RunPane::Methods => self.open_step(),
            Action::Open if methods == 0 => self.set_status(
                Level::Info,
                "no method of this task was generated on its own",
            ),
            Action::Open => self.runs.pane = RunPane::Methods,
            Action::Click { column, row } => {
                let hit = |table, offset: usize| {
                    layout::table_row_at(table, column, row).map(|r| offset + r)
                };
                if let Some(target) = hit(areas.tasks, self.runs.tasks.offset) {
                    self.runs.pane = RunPane::Tasks;
                    if target < tasks && target != self.runs.tasks.selected {
                        self.select_run_task(target);
                    }
                } else if let Some(target) = hit(areas.methods, self.runs.methods.offset) {
                    if target == self.runs.methods.selected && self.runs.pane == RunPane::Methods {
                        self.open_step();
                    } else if target < methods {
                        self.runs.methods.selected = target;
                    }
                    self.runs.pane = RunPane::Methods;
                }
            }
            other => match self.runs.pane {
                RunPane::Tasks => {
                    let before = self.runs.tasks.selected;
                    let page = layout::table_page(areas.tasks).max(1);
                    self.runs.tasks.navigate(&other, tasks, page);
                    if self.runs.tasks.selected != before {
                        let selected = self.runs.tasks.selected;
                        self.select_run_task(selected);
                    }
                }
                RunPane::Task => {
                    let page = layout::inner_page(areas.task).max(1);
                    let lines = crate::tui::widgets::run_task::line_count(self, areas.task);
                    let max = lines.saturating_sub(page);
                    self.runs.task_scroll = scrolled(self.runs.task_scroll, &other, page, max);
                }
                RunPane::Methods => {
                    let page = layout::table_page(areas.methods).max(1);
                    self.runs.methods.navigate(&other, methods, page);
                }
            },
        }
        Vec::new()
    }

    pub fn select_run_task(&mut self, index: usize) {
        self.runs.tasks.selected = index;
        self.runs.methods = Cursor::default();
        self.runs.task_scroll = 0;
        self.clamp_run();
    }

    /// Step through the selected method's rounds.
    pub fn open_step(&mut self) {
        let Some(task) = self.run_task() else {
            return;
        };
        let (task_id, sample) = (task.task_id.to_string(), task.sample);
        let methods = self.run_methods();
        let Some(m) = methods.get(self.runs.methods.selected) else {
            return;
        };
        self.runs.step = Some(StepState::new(task_id, sample, m.name.to_string()));
        self.go(Nav::To(ScreenId::Step));
    }
}
