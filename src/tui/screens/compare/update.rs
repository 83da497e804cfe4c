//! Two or more sessions side by side.

use crate::tui::evals::{CompareTask};
use crate::tui::action::Action;
use crate::tui::screen::{Nav, ScreenId};
use crate::tui::shared::Shared;


impl Shared {
    pub fn update_compare(&mut self, action: Action) {
        let page = self.compare_page();
        let task_page = self.compare_task_page();
        let Some(c) = self.ev.compare.as_mut() else {
            self.go(Nav::To(ScreenId::Sessions));
            return;
        };
        match action {
            Action::Back | Action::Close => self.go(Nav::To(ScreenId::Sessions)),
            Action::Open => {
                if let Some(task_id) = c.differing.get(c.cursor.selected).cloned() {
                    c.task = Some(CompareTask::new(&c.sessions, task_id, 0, task_page));
                    self.go(Nav::To(ScreenId::CompareTask));
                }
            }
            other => {
                c.cursor.navigate(&other, c.differing.len(), page);
            }
        }
    }
}
