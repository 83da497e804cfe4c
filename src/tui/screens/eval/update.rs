//! The evaluation screen: walk its tasks, open one's tests.

use crate::tui::evals::{Cursor};
use crate::tui::action::Action;
use crate::tui::screen::{Nav, ScreenId};
use crate::tui::shared::{Level, Shared};
use crate::tui::widgets::layout;


impl Shared {
    pub fn update_eval(&mut self, action: Action) {
        let back = self.ev.eval_back.unwrap_or(ScreenId::Sessions);
        let Some(session) = self.ev.shown() else {
            if matches!(action, Action::Back | Action::Close) {
                self.go(Nav::To(back));
            }
            return;
        };
        let len = session.task_rows(self.ev.imperfect_only).len();
        let page = self.eval_page();
        match action {
            Action::Back | Action::Close => self.go(Nav::To(back)),
            Action::ToggleFailingOnly => {
                self.ev.imperfect_only = !self.ev.imperfect_only;
                self.ev.tasks = Cursor::default();
                let text = if self.ev.imperfect_only {
                    "showing only tasks that are not Perfect"
                } else {
                    "showing every task"
                };
                self.set_status(Level::Info, text);
            }
            Action::Open => self.open_detail_from_eval(),
            Action::Click { column, row } => {
                let table = layout::eval_split(self.chrome().body).tasks;
                if let Some(r) = layout::table_row_at(table, column, row) {
                    let target = self.ev.tasks.offset + r;
                    if target == self.ev.tasks.selected {
                        self.open_detail_from_eval();
                    } else if target < len {
                        self.ev.tasks.selected = target;
                    }
                }
            }
            other => {
                self.ev.tasks.navigate(&other, len, page);
            }
        }
    }

    pub fn open_detail_from_eval(&mut self) {
        let Some(source) = self.ev.showing else {
            return;
        };
        let Some(session) = self.ev.session(source) else {
            return;
        };
        let rows = session.task_rows(self.ev.imperfect_only);
        let Some(row) = rows.get(self.ev.tasks.selected) else {
            return;
        };
        let (task, sample) = (row.task_id.to_string(), row.sample);
        self.open_detail(source, task, sample, ScreenId::Eval, None);
    }
}
