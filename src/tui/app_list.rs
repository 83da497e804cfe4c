//! `App::update` for the task list and the overlays (help, problems, command palette), and
//! text that arrives at once (a paste, a burst of typed keys) for whichever input has focus.

use super::action::Action;
use super::app::{App, Effect, Level, Overlay, Screen, TaskState, scrolled};
use super::key::{self, INPUT_CAP};
use super::list::Found;
use super::views::{self, layout};

impl App {
    pub(super) fn update_overlay(&mut self, action: Action) -> Vec<Effect> {
        let page = layout::inner_page(layout::overlay(self.sh.area())).max(1);
        let max_help = views::help::line_count(self).saturating_sub(page);
        let max_problems =
            views::overlays::problem_lines(self, layout::overlay(self.sh.area()).width)
                .len()
                .saturating_sub(page);
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
                Action::Input(c) => return self.insert_text(c.encode_utf8(&mut [0; 4])),
                Action::Backspace => {
                    p.input.pop();
                    p.refresh(&self.sh.commands);
                }
                Action::ClearInput => {
                    p.input.clear();
                    p.refresh(&self.sh.commands);
                }
                Action::Up => p.selected = p.selected.saturating_sub(1),
                Action::Down => p.selected = (p.selected + 1).min(p.items.len().saturating_sub(1)),
                Action::Submit => {
                    let chosen = p.chosen(&self.sh.commands).map(|c| c.action.clone());
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
        let page = self.sh.list_page();
        if self.sh.list.filtering {
            match action {
                Action::Input(c) => return self.insert_text(c.encode_utf8(&mut [0; 4])),
                Action::Backspace => {
                    self.sh.list.filter.pop();
                    self.refilter();
                }
                Action::ClearInput => {
                    self.sh.list.filter.clear();
                    self.refilter();
                }
                Action::Back => {
                    self.sh.list.filtering = false;
                    self.sh.list.filter.clear();
                    self.refilter();
                }
                Action::Submit => {
                    self.sh.list.filtering = false;
                    if self.sh.list.pending.is_some() {
                        self.sh.list.open_on_answer = true;
                    } else {
                        self.open_selected();
                    }
                }
                Action::Up => self.sh.list.move_by(-1, page),
                Action::Down => self.sh.list.move_by(1, page),
                Action::Scroll(n) => self.sh.list.move_by(isize::from(n), page),
                _ => {}
            }
            return Vec::new();
        }
        let len = self.sh.list.visible.len();
        match action {
            Action::Close => return vec![Effect::Quit],
            Action::Back if !self.sh.list.filter.is_empty() => {
                self.sh.list.filter.clear();
                self.refilter();
            }
            Action::StartFilter => {
                self.sh.list.filtering = true;
                self.sh.list.open_on_answer = false;
            }
            Action::Open => self.open_selected(),
            Action::SortNext => {
                self.sh.list.sort = self.sh.list.sort.next();
                self.sh.list.reverse = false;
                self.resort();
            }
            Action::SortReverse => {
                self.sh.list.reverse = !self.sh.list.reverse;
                self.resort();
            }
            Action::SortBy(column) => {
                self.sh.list.sort = column;
                self.resort();
            }
            Action::Click { column, row } => self.click_list(column, row),
            other => {
                let target = scrolled(self.sh.list.selected, &other, page, len.saturating_sub(1));
                self.sh.list.select(target, page);
            }
        }
        Vec::new()
    }

    fn click_list(&mut self, column: u16, row: u16) {
        let (table, _) = layout::list_split(self.sh.chrome().body);
        let first = table.y + 2;
        if column >= table.x
            && column < table.right()
            && row >= first
            && row < table.bottom().saturating_sub(1)
        {
            let target = self.sh.list.offset + usize::from(row - first);
            if target < self.sh.list.visible.len() {
                if target == self.sh.list.selected {
                    self.open_selected();
                } else {
                    self.sh.list.select(target, self.sh.list_page());
                }
            }
        }
    }

    /// After a filter change: the best match selected, shown from the top.
    fn refilter(&mut self) {
        self.relist(true);
    }

    /// After a sort change: the selected task stays selected.
    fn resort(&mut self) {
        self.relist(false);
    }

    /// Filter and sort the list again: at once when it is short; else the request waits in
    /// `list.pending` for the app loop to hand to its filter worker (`tui::run_with`), and
    /// the answer comes back as `Action::TasksFiltered`.
    fn relist(&mut self, select_best: bool) {
        if self.sh.list.request(&self.sh.data.rows, select_best) {
            self.shown_list(select_best);
        }
    }

    /// Rows arrived or their counts changed: show them in the list's order, the selected task
    /// kept (while loading the newest request wins, as for a sort).
    pub fn rows_changed(&mut self) {
        self.relist(false);
    }

    /// The tasks the background should analyse first: the one open (whole), then the rows on
    /// screen.
    pub fn wanted_tasks(&self) -> (Option<usize>, Vec<usize>) {
        let open = (self.screen == Screen::Task).then_some(self.task.idx);
        let page = self.sh.list_page();
        let first = self.sh.list.offset.min(self.sh.list.visible.len());
        let last = (first + page).min(self.sh.list.visible.len());
        (open, self.sh.list.visible[first..last].to_vec())
    }

    /// The background answer to a filter or sort request (older answers are dropped).
    pub(super) fn tasks_filtered(&mut self, req: u64, found: Found) {
        if let Some(select_best) = self.sh.list.receive(req, found) {
            self.shown_list(select_best);
            if std::mem::take(&mut self.sh.list.open_on_answer) && self.screen == Screen::List {
                self.open_selected();
            }
        }
    }

    fn shown_list(&mut self, select_best: bool) {
        if select_best {
            self.sh.list.offset = 0;
        }
        self.sh.list.scroll_into_view(self.sh.list_page());
    }

    /// Text that arrived at once, for the input that has focus: the filter and the palette
    /// take its first line, up to [`INPUT_CAP`] characters in all, and filter once; the other
    /// inputs get it character by character (as typed); elsewhere it is ignored (a paste is
    /// never taken for commands).
    pub(super) fn insert_text(&mut self, text: &str) -> Vec<Effect> {
        let palette = matches!(self.overlay, Some(Overlay::Palette(_)));
        let filter =
            self.overlay.is_none() && self.screen == Screen::List && self.sh.list.filtering;
        if !palette && !filter {
            if !self.contexts().first().is_some_and(|c| c.is_text_input()) {
                return Vec::new();
            }
            let line = key::one_line(text, INPUT_CAP);
            let effects = line
                .text
                .chars()
                .flat_map(|c| self.update(Action::Input(c)))
                .collect();
            if let Some(note) = line.note("input") {
                self.sh.set_status(Level::Warn, note);
            }
            return effects;
        }
        let (input, name) = match self.overlay.as_mut() {
            Some(Overlay::Palette(p)) => (&mut p.input, "palette"),
            _ => (&mut self.sh.list.filter, "filter"),
        };
        let line = key::one_line(text, INPUT_CAP.saturating_sub(input.chars().count()));
        input.push_str(&line.text);
        if line.text.is_empty() {
            // Nothing changed: nothing to filter again.
        } else if let Some(Overlay::Palette(p)) = self.overlay.as_mut() {
            p.selected = 0;
            p.refresh(&self.sh.commands);
        } else {
            self.refilter();
        }
        if let Some(note) = line.note(name) {
            self.sh.set_status(Level::Warn, note);
        }
        Vec::new()
    }

    pub(super) fn open_selected(&mut self) {
        if let Some(idx) = self.sh.list.selected_task() {
            self.task = TaskState::new(idx);
            self.screen = Screen::Task;
        }
    }
}
