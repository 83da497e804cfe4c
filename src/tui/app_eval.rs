//! `App::update` for the sessions screen, the evaluation screen, the new-evaluation dialog,
//! questions, and the results of background work (loaded sessions, live events).

use std::path::PathBuf;

use super::action::Action;
use super::app::{App, Effect, Level, Overlay, Screen};
use super::evals::{Confirm, Cursor, EvalSession, NewEvalState, SessionPick, Source};
use super::views::{layout, short_path};

impl App {
    pub(super) fn show_sessions(&mut self) -> Vec<Effect> {
        self.screen = Screen::Sessions;
        self.request_sessions()
    }

    fn request_sessions(&mut self) -> Vec<Effect> {
        let req = self.sh.ev.next_request();
        self.sh.ev.list_request = req;
        self.sh.ev.sessions.loading = true;
        vec![Effect::LoadSessions { req }]
    }

    pub(super) fn open_new_eval(&mut self) -> Vec<Effect> {
        self.overlay = Some(Overlay::NewEval(NewEvalState {
            loading: true,
            ..NewEvalState::default()
        }));
        vec![Effect::ListPredictionFiles]
    }

    /// What is running: `evaluation` or `generation run`.
    pub(super) fn live_kind(&self) -> &'static str {
        match &self.sh.ev.live {
            Some(l) if l.info.is_run() => "generation run",
            _ => "evaluation",
        }
    }

    /// One run at a time: true (and says so) when one is going on.
    pub(super) fn refuse_if_running(&mut self) -> bool {
        if self.sh.ev.running {
            let text = match self.live_kind() {
                "evaluation" => "an evaluation is already running: stop it first (x on its screen)",
                _ => "a generation run is going on: stop it first (x on its screen)",
            };
            self.sh.set_status(Level::Error, text);
        }
        self.sh.ev.running
    }

    pub(super) fn ask_cancel(&mut self) {
        let what = self.live_kind();
        if !self.sh.ev.running {
            self.sh
                .set_status(Level::Info, format!("no {what} is running"));
        } else if self.sh.ev.stopping {
            self.sh
                .set_status(Level::Info, format!("the {what} is already stopping"));
        } else {
            let text = if what == "evaluation" {
                "Stop the running evaluation? Finished tasks are kept in its session; \
                 `classlab eval --resume <session>` finishes it later."
            } else {
                "Stop the generation run? Finished tasks are kept in its session; \
                 `classlab run --resume <session>` continues the others from what was recorded."
            };
            self.overlay = Some(Overlay::Confirm(Confirm {
                text: text.into(),
                yes: Effect::CancelEval,
            }));
        }
    }

    /// Whether the sessions screen pins the running evaluation as its first row.
    pub fn live_row(&self) -> bool {
        self.sh.ev.running && self.sh.ev.live.is_some()
    }

    pub fn selected_session(&self) -> Option<SessionPick> {
        let mut i = self.sh.ev.sessions.cursor.selected;
        if self.live_row() {
            if i == 0 {
                return Some(SessionPick::Live);
            }
            i -= 1;
        }
        (i < self.sh.ev.sessions.rows.len()).then_some(SessionPick::Row(i))
    }

    fn session_count(&self) -> usize {
        self.sh.ev.sessions.rows.len() + usize::from(self.live_row())
    }

    pub fn sessions_page(&self) -> usize {
        layout::table_page(layout::sessions_split(self.sh.chrome().body).0).max(1)
    }

    pub fn eval_page(&self) -> usize {
        layout::table_page(layout::eval_split(self.sh.chrome().body).tasks).max(1)
    }

    fn show_eval(&mut self, source: Source, back: Screen) {
        self.sh.ev.showing = Some(source);
        self.sh.ev.tasks = Cursor::default();
        self.sh.ev.eval_back = Some(back);
        self.sh.ev.detail = None;
        self.screen = Screen::Eval;
    }

    pub(super) fn update_sessions(&mut self, action: Action) -> Vec<Effect> {
        let (len, page) = (self.session_count(), self.sessions_page());
        match action {
            Action::Back | Action::Close => self.screen = Screen::List,
            Action::Reload => return self.request_sessions(),
            Action::Open => return self.open_selected_session(),
            Action::ToggleMark => self.toggle_mark(),
            Action::Compare => return self.compare_marked(),
            Action::DeleteSession => self.ask_delete_session(),
            Action::Click { column, row } => {
                let table = layout::sessions_split(self.sh.chrome().body).0;
                if let Some(r) = layout::table_row_at(table, column, row) {
                    let target = self.sh.ev.sessions.cursor.offset + r;
                    if target < len {
                        if target == self.sh.ev.sessions.cursor.selected {
                            return self.open_selected_session();
                        }
                        self.sh.ev.sessions.cursor.selected = target;
                    }
                }
            }
            other => {
                self.sh.ev.sessions.cursor.navigate(&other, len, page);
            }
        }
        Vec::new()
    }

    fn open_selected_session(&mut self) -> Vec<Effect> {
        match self.selected_session() {
            Some(SessionPick::Live) if self.live_kind() == "evaluation" => {
                self.show_eval(Source::Live, Screen::Sessions)
            }
            Some(SessionPick::Live) => self.show_run(Source::Live, Screen::Sessions),
            Some(SessionPick::Row(i)) => {
                let row = &self.sh.ev.sessions.rows[i];
                if let Some(e) = &row.error {
                    let text = format!("{}: {e}", row.info.id);
                    self.sh.set_status(Level::Error, text);
                    return Vec::new();
                }
                let Some(dir) = row.info.dir.clone() else {
                    return Vec::new();
                };
                let text = format!("reading {}…", row.info.id);
                let req = self.sh.ev.next_request();
                self.sh.ev.open_request = req;
                self.sh.set_status(Level::Info, text);
                return vec![Effect::OpenSession { req, dir }];
            }
            None => {}
        }
        Vec::new()
    }

    /// `d` on the sessions list: the selected session is deleted once confirmed.
    fn ask_delete_session(&mut self) {
        let Some(SessionPick::Row(i)) = self.selected_session() else {
            if self.live_row() {
                self.sh.set_status(
                    Level::Info,
                    "the running session cannot be deleted: stop it first (x)",
                );
            }
            return;
        };
        let row = &self.sh.ev.sessions.rows[i];
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
        self.overlay = Some(Overlay::Confirm(Confirm {
            text,
            yes: Effect::DeleteSession { dir },
        }));
    }

    fn toggle_mark(&mut self) {
        let Some(SessionPick::Row(i)) = self.selected_session() else {
            if self.live_row() {
                self.sh.set_status(
                    Level::Info,
                    "the running evaluation can be compared once it has ended",
                );
            }
            return;
        };
        let Some(dir) = self.sh.ev.sessions.rows[i].info.dir.clone() else {
            return;
        };
        let marked = &mut self.sh.ev.sessions.marked;
        match marked.iter().position(|d| *d == dir) {
            Some(p) => {
                marked.remove(p);
            }
            None => marked.push(dir),
        }
        let len = self.session_count();
        let page = self.sessions_page();
        self.sh
            .ev
            .sessions
            .cursor
            .navigate(&Action::Down, len, page);
    }

    fn compare_marked(&mut self) -> Vec<Effect> {
        let marked = self.sh.ev.sessions.marked.clone();
        if marked.len() < 2 {
            let key = self
                .sh
                .keymap
                .key_for(super::keymap::Context::Sessions, &Action::ToggleMark)
                .map_or_else(|| "mark".to_string(), |k| k.to_string());
            self.sh.set_status(
                Level::Warn,
                format!(
                    "mark two or more sessions with {key} to compare them ({} marked)",
                    marked.len()
                ),
            );
            return Vec::new();
        }
        let req = self.sh.ev.next_request();
        self.sh.ev.open_request = req;
        self.sh
            .set_status(Level::Info, format!("reading {} sessions…", marked.len()));
        vec![Effect::CompareSessions { req, dirs: marked }]
    }

    pub(super) fn update_eval(&mut self, action: Action) {
        let back = self.sh.ev.eval_back.unwrap_or(Screen::Sessions);
        let Some(session) = self.sh.ev.shown() else {
            if matches!(action, Action::Back | Action::Close) {
                self.screen = back;
            }
            return;
        };
        let len = session.task_rows(self.sh.ev.imperfect_only).len();
        let page = self.eval_page();
        match action {
            Action::Back | Action::Close => self.screen = back,
            Action::ToggleFailingOnly => {
                self.sh.ev.imperfect_only = !self.sh.ev.imperfect_only;
                self.sh.ev.tasks = Cursor::default();
                let text = if self.sh.ev.imperfect_only {
                    "showing only tasks that are not Perfect"
                } else {
                    "showing every task"
                };
                self.sh.set_status(Level::Info, text);
            }
            Action::Open => self.open_detail_from_eval(),
            Action::Click { column, row } => {
                let table = layout::eval_split(self.sh.chrome().body).tasks;
                if let Some(r) = layout::table_row_at(table, column, row) {
                    let target = self.sh.ev.tasks.offset + r;
                    if target == self.sh.ev.tasks.selected {
                        self.open_detail_from_eval();
                    } else if target < len {
                        self.sh.ev.tasks.selected = target;
                    }
                }
            }
            other => {
                self.sh.ev.tasks.navigate(&other, len, page);
            }
        }
    }

    fn open_detail_from_eval(&mut self) {
        let Some(source) = self.sh.ev.showing else {
            return;
        };
        let Some(session) = self.sh.ev.session(source) else {
            return;
        };
        let rows = session.task_rows(self.sh.ev.imperfect_only);
        let Some(row) = rows.get(self.sh.ev.tasks.selected) else {
            return;
        };
        let (task, sample) = (row.task_id.to_string(), row.sample);
        self.open_detail(source, task, sample, Screen::Eval, None);
    }

    pub(super) fn update_new_eval(&mut self, action: Action) -> Vec<Effect> {
        let Some(Overlay::NewEval(d)) = self.overlay.as_mut() else {
            return Vec::new();
        };
        let count = d.candidates().len();
        match action {
            Action::Back | Action::Close => self.overlay = None,
            Action::Input(c) => {
                d.input.push(c);
                d.selected = 0;
            }
            Action::Backspace => {
                d.input.pop();
                d.selected = 0;
            }
            Action::ClearInput => {
                d.input.clear();
                d.selected = 0;
            }
            Action::Up => d.selected = d.selected.saturating_sub(1),
            Action::Down => d.selected = (d.selected + 1).min(count.saturating_sub(1)),
            Action::Complete => {
                if let Some(c) = d.chosen() {
                    d.input = c;
                    d.selected = 0;
                }
            }
            Action::Submit => match d.chosen() {
                Some(path) => {
                    self.overlay = None;
                    return self.start_eval(path);
                }
                None => self
                    .sh
                    .set_status(Level::Warn, "type the path of a predictions file"),
            },
            _ => {}
        }
        Vec::new()
    }

    /// Make `session` the live one (one run at a time); where Esc from its screen goes, or
    /// `None` when another is still running.
    pub(super) fn begin_live(&mut self, session: EvalSession) -> Option<Screen> {
        if self.refuse_if_running() {
            return None;
        }
        let back = match self.screen {
            s @ (Screen::List | Screen::Task | Screen::Summary | Screen::Sessions) => s,
            _ => Screen::Sessions,
        };
        self.sh.ev.live = Some(session);
        self.sh.ev.running = true;
        self.sh.ev.live_since = (self.sh.ev.clock > 0.0).then_some(self.sh.ev.clock);
        self.sh.ev.stopping = false;
        // A test detail of the previous live run would show the new one's.
        self.sh.ev.detail = None;
        Some(back)
    }

    fn start_eval(&mut self, path: String) -> Vec<Effect> {
        let dataset = self.sh.data.dataset.name.clone();
        let Some(back) = self.begin_live(EvalSession::live(&path, &dataset)) else {
            return Vec::new();
        };
        self.show_eval(Source::Live, back);
        self.sh.set_status(
            Level::Info,
            format!("evaluating {} on {dataset}…", short_path(&path)),
        );
        vec![Effect::StartEval {
            predictions: PathBuf::from(path),
        }]
    }

    pub(super) fn update_confirm(&mut self, action: Action) -> Vec<Effect> {
        let Some(Overlay::Confirm(c)) = self.overlay.as_ref() else {
            return Vec::new();
        };
        match action {
            Action::Submit => {
                let yes = c.yes.clone();
                self.overlay = None;
                if yes == Effect::CancelEval {
                    self.sh.ev.stopping = true;
                    let text = match self.live_kind() {
                        "evaluation" => "stopping the evaluation: running suites are killed…",
                        _ => "stopping the run: model calls and suites in flight are abandoned…",
                    };
                    self.sh.set_status(Level::Warn, text);
                }
                return vec![yes];
            }
            Action::Back | Action::Close => self.overlay = None,
            _ => {}
        }
        Vec::new()
    }

    /// Results of background work.
    pub(super) fn update_background(&mut self, action: Action) -> Vec<Effect> {
        match action {
            Action::SessionsLoaded { req, root, rows } if req == self.sh.ev.list_request => {
                let s = &mut self.sh.ev.sessions;
                s.root = Some(root);
                s.rows = rows.take();
                s.loading = false;
                s.error = None;
                let dirs: Vec<PathBuf> = s.rows.iter().filter_map(|r| r.info.dir.clone()).collect();
                s.marked.retain(|d| dirs.contains(d));
                self.clamp_eval();
            }
            Action::SessionOpened { req, session } if req == self.sh.ev.open_request => {
                let session = session.take();
                let run = session.info.is_run();
                self.sh.ev.opened = Some(session);
                self.sh.status = None;
                if run {
                    self.show_run(Source::Opened, Screen::Sessions);
                } else {
                    self.show_eval(Source::Opened, Screen::Sessions);
                }
            }
            Action::ComparisonLoaded { req, sessions } if req == self.sh.ev.open_request => {
                self.sh.ev.compare = Some(super::evals::CompareState::new(sessions.take()));
                self.sh.status = None;
                self.sh.ev.detail = None;
                self.screen = Screen::Compare;
            }
            Action::SessionDeleted { dir, error } => {
                let name = dir
                    .file_name()
                    .map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into());
                match error {
                    Some(e) => self
                        .sh
                        .set_status(Level::Error, format!("not deleted: {e}")),
                    None => {
                        self.sh.ev.sessions.marked.retain(|d| *d != dir);
                        self.sh
                            .set_status(Level::Info, format!("deleted session {name}"));
                    }
                }
                return self.request_sessions();
            }
            Action::LoadFailed { req, message } => {
                if req == self.sh.ev.list_request {
                    self.sh.ev.sessions.loading = false;
                    self.sh.ev.sessions.error = Some(message);
                } else if req == self.sh.ev.open_request {
                    self.sh.set_status(Level::Error, message);
                }
            }
            Action::PredictionFiles(files) => {
                if let Some(Overlay::NewEval(d)) = self.overlay.as_mut() {
                    d.files = files;
                    d.loading = false;
                    d.selected = 0;
                }
            }
            Action::EvalEvent(event) => {
                if let Some(live) = self.sh.ev.live.as_mut() {
                    live.apply(&event.0);
                }
                if self.sh.runs.showing == Some(Source::Live) {
                    self.clamp_run();
                }
            }
            Action::EvalNotice(text) => {
                if let Some(live) = self.sh.ev.live.as_mut() {
                    live.problems.push(text.clone());
                }
                self.sh.set_status(Level::Warn, text);
            }
            Action::EvalEnded { dir, error } => return self.eval_ended(dir, error),
            Action::RunChoices { endpoints, replays } => self.run_choices(endpoints, replays),
            Action::RunDelta {
                task_id,
                sample,
                call,
                text,
            } => {
                if let Some(live) = self.sh.ev.live.as_mut() {
                    live.state.trace.push_delta(&task_id, sample, call, &text);
                }
            }
            _ => {}
        }
        Vec::new()
    }

    fn eval_ended(&mut self, dir: Option<PathBuf>, error: Option<String>) -> Vec<Effect> {
        self.sh.ev.running = false;
        self.sh.ev.stopping = false;
        let Some(live) = self.sh.ev.live.as_mut() else {
            return Vec::new();
        };
        live.live = false;
        if let Some(dir) = dir {
            if let Some(name) = dir.file_name() {
                live.info.id = name.to_string_lossy().into_owned();
            }
            live.info.dir = Some(dir);
        }
        let what = if live.info.is_run() {
            "run"
        } else {
            "evaluation"
        };
        match error {
            Some(e) => {
                live.problems.push(e.clone());
                self.sh
                    .set_status(Level::Error, format!("{what} failed: {e}"));
            }
            None => {
                let (done, total) = live.state.progress();
                let how = if live.state.cancelled {
                    "stopped"
                } else {
                    "finished"
                };
                let text = format!(
                    "{what} {how}: {done}/{total} tasks · session {}",
                    live.info.id
                );
                self.sh.set_status(Level::Info, text);
            }
        }
        // The list shows the ended session as it now is, also when the user comes back to it
        // later from the evaluation or run screen (it was stale until `r`).
        if self.screen == Screen::Sessions || self.sh.ev.sessions.root.is_some() {
            return self.request_sessions();
        }
        Vec::new()
    }

    /// Keep the evaluation screens' positions valid (after a resize or a reload).
    pub(super) fn clamp_eval(&mut self) {
        let len = self.session_count();
        let page = self.sessions_page();
        self.sh.ev.sessions.cursor.keep_visible(len, page);
        if let Some(session) = self.sh.ev.shown() {
            let len = session.task_rows(self.sh.ev.imperfect_only).len();
            let page = self.eval_page();
            self.sh.ev.tasks.keep_visible(len, page);
        }
        self.clamp_detail();
    }
}
