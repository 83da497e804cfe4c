//! How the task list's order follows the data and the background filter: the list is the
//! order the task view steps through, so it is shared, not the list screen's alone.

use super::list::Found;
use super::screen::{Nav, ScreenId};
use super::shared::Shared;

impl Shared {
    /// After a filter change: the best match selected, shown from the top.
    pub fn refilter(&mut self) {
        self.relist(true);
    }

    /// After a sort change: the selected task stays selected.
    pub fn resort(&mut self) {
        self.relist(false);
    }

    /// Filter and sort the list again: at once when it is short; else the request waits in
    /// `list.pending` for the app loop to hand to its filter worker (`tui::run_with`), and
    /// the answer comes back as `Action::TasksFiltered`.
    pub fn relist(&mut self, select_best: bool) {
        if self.list.request(&self.data.rows, select_best) {
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
        let open = (self.screen == ScreenId::Task).then_some(self.open_task);
        let page = self.list_page();
        let first = self.list.offset.min(self.list.visible.len());
        let last = (first + page).min(self.list.visible.len());
        (open, self.list.visible[first..last].to_vec())
    }

    /// The background answer to a filter or sort request (older answers are dropped).
    pub fn tasks_filtered(&mut self, req: u64, found: Found) {
        if let Some(select_best) = self.list.receive(req, found) {
            self.shown_list(select_best);
            if std::mem::take(&mut self.list.open_on_answer) && self.screen == ScreenId::List {
                self.open_selected();
            }
        }
    }

    pub fn shown_list(&mut self, select_best: bool) {
        if select_best {
            self.list.offset = 0;
        }
        self.list.scroll_into_view(self.list_page());
    }

    pub fn open_selected(&mut self) {
        if let Some(idx) = self.list.selected_task() {
            self.open_task = idx;
            self.go(Nav::To(ScreenId::Task));
        }
    }
}
