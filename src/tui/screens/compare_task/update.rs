//! One task across the compared sessions.

use crate::tui::evals::{CompareTask, Source, test_ids};
use crate::tui::action::Action;
use crate::tui::screen::{Nav, ScreenId};
use crate::tui::shared::Shared;

use crate::tui::evals::detail::step;

impl Shared {
    pub fn update_compare_task(&mut self, action: Action) {
        let page = self.compare_task_page();
        let Some(c) = self.ev.compare.as_mut() else {
            self.go(Nav::To(ScreenId::Sessions));
            return;
        };
        let Some(task) = c.task.as_mut() else {
            self.go(Nav::To(ScreenId::Compare));
            return;
        };
        let ids = test_ids(&c.sessions, &task.task_id);
        let columns = c.sessions.len();
        match action {
            Action::Back | Action::Close => self.go(Nav::To(ScreenId::Compare)),
            Action::Left => task.column = task.column.saturating_sub(1),
            Action::Right => task.column = (task.column + 1).min(columns.saturating_sub(1)),
            Action::NextTask | Action::PrevTask => {
                let delta = if action == Action::NextTask { 1 } else { -1 };
                let pos = c.differing.iter().position(|t| *t == task.task_id);
                if let Some(i) = step(pos, delta, c.differing.len()) {
                    *task =
                        CompareTask::new(&c.sessions, c.differing[i].clone(), task.column, page);
                    c.cursor.selected = i;
                }
            }
            Action::Open => {
                let (column, task_id) = (task.column, task.task_id.clone());
                let test = ids.get(task.rows.selected).cloned();
                self.open_detail(
                    Source::Compared(column),
                    task_id,
                    0,
                    ScreenId::CompareTask,
                    test.as_deref(),
                );
            }
            other => {
                task.rows.navigate(&other, ids.len(), page);
            }
        }
    }
}
