//! `App::update` for the task list and the overlays (help, problems, command palette).

use super::action::Action;
use super::app::{App, Effect, Overlay, Screen, TaskState, scrolled};
use super::views::{self, layout};

impl App {
    pub(super) fn update_overlay(&mut self, action: Action) -> Vec<Effect> {
        let page = layout::inner_page(layout::overlay(self.area())).max(1);
        let max_help = views::help::line_count(self).saturating_sub(page);
        let max_problems = self.problems().len().saturating_sub(page);
        match self.overlay.as_mut() {
            Some(Overlay::Help { scroll }) => match action {
                Action::Back | Action::ToggleHelp | Action::Close => self.overlay = None,
                other => *scroll = scrolled(*scroll, &other, page, max_help),
            },
            Some(Overlay::Problems { scroll }) => match action {
                Action::Back | Action::ShowProblems | Action::Close => self.overlay = None,
                other => *scroll = scrolled(*scroll, &other, page, max_problems),
            },
            Some(Overlay::Palette(p)) => match action {
                Action::Back => self.overlay = None,
                Action::Input(c) => {
                    p.input.push(c);
                    p.selected = 0;
                    p.refresh(&self.commands);
                }
                Action::Backspace => {
                    p.input.pop();
                    p.refresh(&self.commands);
                }
                Action::ClearInput => {
                    p.input.clear();
                    p.refresh(&self.commands);
                }
                Action::Up => p.selected = p.selected.saturating_sub(1),
                Action::Down => p.selected = (p.selected + 1).min(p.items.len().saturating_sub(1)),
                Action::Submit => {
                    let chosen = p.chosen(&self.commands).map(|c| c.action.clone());
                    self.overlay = None;
                    if let Some(action) = chosen {
                        return self.update(action);
                    }
                }
                _ => {}
            },
            Some(Overlay::NewEval(_)) => return self.update_new_eval(action),
            Some(Overlay::NewRun(_)) => return self.update_new_run(action),
            Some(Overlay::Confirm(_)) => return self.update_confirm(action),
            None => {}
        }
        Vec::new()
    }

    pub(super) fn update_list(&mut self, action: Action) -> Vec<Effect> {
        let page = self.list_page();
        if self.list.filtering {
            match action {
                Action::Input(c) => {
                    self.list.filter.push(c);
                    self.refilter();
                }
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
                    self.open_selected();
                }
                Action::Up => self.list.move_by(-1, page),
                Action::Down => self.list.move_by(1, page),
                Action::Scroll(n) => self.list.move_by(isize::from(n), page),
                _ => {}
            }
            return Vec::new();
        }
        let len = self.list.visible.len();
        match action {
            Action::Close => return vec![Effect::Quit],
            Action::Back if !self.list.filter.is_empty() => {
                self.list.filter.clear();
                self.refilter();
            }
            Action::StartFilter => self.list.filtering = true,
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
            }
        }
        Vec::new()
    }

    fn click_list(&mut self, column: u16, row: u16) {
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

    fn refilter(&mut self) {
        self.list.refilter(&self.data.rows);
        self.list.offset = 0;
        self.list.scroll_into_view(self.list_page());
    }

    fn resort(&mut self) {
        self.list.refresh(&self.data.rows);
        self.list.scroll_into_view(self.list_page());
    }

    pub(super) fn open_selected(&mut self) {
        if let Some(idx) = self.list.selected_task() {
            self.task = TaskState::new(idx);
            self.screen = Screen::Task;
        }
    }
}
