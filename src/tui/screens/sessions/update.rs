//! The sessions screen: open, mark, compare, delete sessions.

use crate::tui::evals::{Confirm, SessionPick, Source};
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::screen::{Nav, ScreenId};
use crate::tui::shared::{Level, Shared};
use crate::tui::widgets::layout;


impl Shared {
    pub fn update_sessions(&mut self, action: Action) -> Vec<Effect> {
        let (len, page) = (self.session_count(), self.sessions_page());
        match action {
            Action::Back | Action::Close => self.go(Nav::Back),
            Action::Reload => return self.request_sessions(),
            Action::Open => return self.open_selected_session(),
            Action::ToggleMark => self.toggle_mark(),
            Action::Compare => return self.compare_marked(),
            Action::DeleteSession => self.ask_delete_session(),
            Action::Click { column, row } => {
                let table = layout::sessions_split(self.chrome().body).0;
                if let Some(r) = layout::table_row_at(table, column, row) {
                    let target = self.ev.sessions.cursor.offset + r;
                    if target < len {
                        if target == self.ev.sessions.cursor.selected {
                            return self.open_selected_session();
                        }
                        self.ev.sessions.cursor.selected = target;
                    }
                }
            }
            other => {
                self.ev.sessions.cursor.navigate(&other, len, page);
            }
        }
        Vec::new()
    }

    pub fn open_selected_session(&mut self) -> Vec<Effect> {
        match self.selected_session() {
            Some(SessionPick::Live) if self.live_kind() == "evaluation" => {
                self.show_eval(Source::Live, ScreenId::Sessions)
            }
            Some(SessionPick::Live) => self.show_run(Source::Live, ScreenId::Sessions),
            Some(SessionPick::Row(i)) => {
                let row = &self.ev.sessions.rows[i];
                if let Some(e) = &row.error {
                    let text = format!("{}: {e}", row.info.id);
                    self.set_status(Level::Error, text);
                    return Vec::new();
                }
                let Some(dir) = row.info.dir.clone() else {
                    return Vec::new();
                };
                let text = format!("reading {}…", row.info.id);
                let req = self.ev.next_request();
                self.ev.open_request = req;
                self.set_status(Level::Info, text);
                return vec![Effect::OpenSession { req, dir }];
            }
            None => {}
        }
        Vec::new()
    }

    /// `d` on the sessions list: the selected session is deleted once confirmed.
    pub fn ask_delete_session(&mut self) {
        let Some(SessionPick::Row(i)) = self.selected_session() else {
            if self.live_row() {
                self.set_status(
                    Level::Info,
                    "the running session cannot be deleted: stop it first (x)",
                );
            }
            return;
        };
        let row = &self.ev.sessions.rows[i];
        let Some(dir) = row.info.dir.clone() else {
            return;
        };
        let text = format!(
            "Delete session {} ({}, {}/{} tasks, {})? Its directory is removed; this cannot be \
             undone.",
            row.info.id,
            row.info.label(),
            row.done,
            row.total,
            row.status.label(),
        );
        self.ask(Confirm {
            text,
            yes: Effect::DeleteSession { dir },
        });
    }

    pub fn toggle_mark(&mut self) {
        let Some(SessionPick::Row(i)) = self.selected_session() else {
            if self.live_row() {
                self.set_status(
                    Level::Info,
                    "the running evaluation can be compared once it has ended",
                );
            }
            return;
        };
        let Some(dir) = self.ev.sessions.rows[i].info.dir.clone() else {
            return;
        };
        let marked = &mut self.ev.sessions.marked;
        match marked.iter().position(|d| *d == dir) {
            Some(p) => {
                marked.remove(p);
            }
            None => marked.push(dir),
        }
        let len = self.session_count();
        let page = self.sessions_page();
        self.ev.sessions.cursor.navigate(&Action::Down, len, page);
    }

    pub fn compare_marked(&mut self) -> Vec<Effect> {
        let marked = self.ev.sessions.marked.clone();
        if marked.len() < 2 {
            let key = self
                .keymap
                .key_for(crate::tui::keymap::Context::Sessions, &Action::ToggleMark)
                .map_or_else(|| "mark".to_string(), |k| k.to_string());
            self.set_status(
                Level::Warn,
                format!(
                    "mark two or more sessions with {key} to compare them ({} marked)",
                    marked.len()
                ),
            );
            return Vec::new();
        }
        let req = self.ev.next_request();
        self.ev.open_request = req;
        self.set_status(Level::Info, format!("reading {} sessions…", marked.len()));
        vec![Effect::CompareSessions { req, dirs: marked }]
    }
}
