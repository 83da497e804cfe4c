//! The task list: move, filter, sort, open a task.

use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::screen::scrolled;
use crate::tui::shared::Shared;
use crate::tui::widgets::layout;

impl Shared {
    pub fn update_list(&mut self, action: Action) -> Vec<Effect> {
        let page = self.list_page();
        if self.list.filtering {
            match action {
                Action::Input(c) => self.then(Action::InsertText(c.to_string())),
                Action::Backspace => {
                    self.list.filter.pop();
                    self.refilter();
                }
                Action::ClearInput => {
                    self.list.filter.clear();
                    self.refilter();
                }
                Action::Back => {
                    self.list.filtering = false;
                    self.list.filter.clear();
                    self.refilter();
                }
                Action::Submit => {
                    self.list.filtering = false;
                    if self.list.pending.is_some() {
                        self.list.open_on_answer = true;
                    } else {
                        self.open_selected();
                    }
                }
                Action::Up => self.list.move_by(-1, page),
                Action::Down => self.list.move_by(1, page),
                Action::Scroll(n) => self.list.move_by(isize::from(n), page),
                _ => {}
            }
            return Vec::new();
        }
        let len = self.list.visible.len();
        if matches!(
            action,
            Action::SortNext
                | Action::SortReverse
                | Action::SortBy(_)
                | Action::StartFilter
                | Action::Click { .. }
                | Action::Back
        ) {
            self.list.bottom_on_answer = false;
        }
        match action {
            Action::Close => return vec![Effect::Quit],
            Action::Back if !self.list.filter.is_empty() => {
                self.list.filter.clear();
                self.refilter();
            }
            Action::StartFilter => {
                self.list.filtering = true;
                self.list.open_on_answer = false;
            }
            Action::Open => self.open_selected(),
            Action::SortNext => {
                self.list.sort = self.list.sort.next();
                self.list.reverse = false;
                self.resort();
            }
            Action::SortReverse => {
                self.list.reverse = !self.list.reverse;
                self.resort();
            }
            Action::SortBy(column) => {
                self.list.sort = column;
                self.resort();
            }
            Action::Click { column, row } => self.click_list(column, row),
            other => {
                let target = scrolled(self.list.selected, &other, page, len.saturating_sub(1));
                self.list.select(target, page);
                // Until the list is in its final order, `G` means the last task, not the
                // last row shown now.
                if matches!(other, Action::Bottom) {
                    self.list.bottom_on_answer =
                        self.list.pending.is_some() || self.data.is_loading();
                } else if matches!(
                    other,
                    Action::Up
                        | Action::Down
                        | Action::PageUp
                        | Action::PageDown
                        | Action::Top
                        | Action::Scroll(_)
                ) {
                    self.list.bottom_on_answer = false;
                }
            }
        }
        Vec::new()
    }

    pub fn click_list(&mut self, column: u16, row: u16) {
        let (table, _) = layout::list_split(self.chrome().body);
        let first = table.y + 2;
        if column >= table.x
            && column < table.right()
            && row >= first
            && row < table.bottom().saturating_sub(1)
        {
            let target = self.list.offset + usize::from(row - first);
            if target < self.list.visible.len() {
                if target == self.list.selected {
                    self.open_selected();
                } else {
                    self.list.select(target, self.list_page());
                }
            }
        }
    }
}
