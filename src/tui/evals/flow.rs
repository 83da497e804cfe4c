//! `App::update` for the sessions screen, the evaluation screen, the new-evaluation dialog,
//! questions, and the results of background work (loaded sessions, live events).

use std::path::PathBuf;

use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::evals::{Confirm, Cursor, EvalSession, SessionPick, Source};
use crate::tui::screen::{Nav, ScreenId};
use crate::tui::shared::{Level, Shared};
use crate::tui::widgets::{layout, short_path};

impl Shared {
    pub fn show_sessions(&mut self) -> Vec<Effect> {
        self.go(Nav::To(ScreenId::Sessions));
        self.request_sessions()
    }

    pub fn request_sessions(&mut self) -> Vec<Effect> {
        let req = self.ev.next_request();
        self.ev.list_request = req;
        self.ev.sessions.loading = true;
        vec![Effect::LoadSessions { req }]
    }

    /// What is running: `evaluation` or `generation run`.
    pub fn live_kind(&self) -> &'static str {
        match &self.ev.live {
            Some(l) if l.info.is_run() => "generation run",
            _ => "evaluation",
        }
    }

    /// One run at a time: true (and says so) when one is going on.
    pub fn refuse_if_running(&mut self) -> bool {
        if self.ev.running {
            let text = match self.live_kind() {
                "evaluation" => "an evaluation is already running: stop it first (x on its screen)",
                _ => "a generation run is going on: stop it first (x on its screen)",
            };
            self.set_status(Level::Error, text);
        }
        self.ev.running
    }

    pub fn ask_cancel(&mut self) {
        let what = self.live_kind();
        if !self.ev.running {
            self.set_status(Level::Info, format!("no {what} is running"));
        } else if self.ev.stopping {
            self.set_status(Level::Info, format!("the {what} is already stopping"));
        } else {
            let text = if what == "evaluation" {
                "Stop the running evaluation? Finished tasks are kept in its session; \
                 `classlab eval --resume <session>` finishes it later."
            } else {
                "Stop the generation run? Finished tasks are kept in its session; \
                 `classlab run --resume <session>` continues the others from what was recorded."
            };
            self.ask(Confirm {
                text: text.into(),
                yes: Effect::CancelEval,
            });
        }
    }

    /// Whether the sessions screen pins the running evaluation as its first row.
    pub fn live_row(&self) -> bool {
        self.ev.running && self.ev.live.is_some()
    }

    pub fn selected_session(&self) -> Option<SessionPick> {
        let mut i = self.ev.sessions.cursor.selected;
        if self.live_row() {
            if i == 0 {
                return Some(SessionPick::Live);
            }
            i -= 1;
        }
        (i < self.ev.sessions.rows.len()).then_some(SessionPick::Row(i))
    }

    pub fn session_count(&self) -> usize {
        self.ev.sessions.rows.len() + usize::from(self.live_row())
    }

    pub fn sessions_page(&self) -> usize {
        layout::table_page(layout::sessions_split(self.chrome().body).0).max(1)
    }

    pub fn eval_page(&self) -> usize {
        layout::table_page(layout::eval_split(self.chrome().body).tasks).max(1)
    }

    pub fn show_eval(&mut self, source: Source, back: ScreenId) {
        self.ev.showing = Some(source);
        self.ev.tasks = Cursor::default();
        self.ev.eval_back = Some(back);
        self.ev.detail = None;
        self.go(Nav::To(ScreenId::Eval));
    }

    /// Make `session` the live one (one run at a time); where Esc from its screen goes, or
    /// `None` when another is still running.
    pub fn begin_live(&mut self, session: EvalSession) -> Option<ScreenId> {
        if self.refuse_if_running() {
            return None;
        }
        let back = match self.screen {
            s @ (ScreenId::List | ScreenId::Task | ScreenId::Summary | ScreenId::Sessions) => s,
            _ => ScreenId::Sessions,
        };
        self.ev.live = Some(session);
        self.ev.running = true;
        self.ev.live_since = (self.ev.clock > 0.0).then_some(self.ev.clock);
        self.ev.stopping = false;
        // A test detail of the previous live run would show the new one's.
        self.ev.detail = None;
        Some(back)
    }

    pub fn start_eval(&mut self, path: String) -> Vec<Effect> {
        let dataset = self.data.dataset.name.clone();
        let Some(back) = self.begin_live(EvalSession::live(&path, &dataset)) else {
            return Vec::new();
        };
        self.show_eval(Source::Live, back);
        self.set_status(
            Level::Info,
            format!("evaluating {} on {dataset}…", short_path(&path)),
        );
        vec![Effect::StartEval {
            predictions: PathBuf::from(path),
        }]
    }

    /// Results of background work.
    pub fn update_background(&mut self, action: Action) -> Vec<Effect> {
        match action {
            Action::SessionsLoaded { req, root, rows } if req == self.ev.list_request => {
                let s = &mut self.ev.sessions;
                s.root = Some(root);
                s.rows = rows.take();
                s.loading = false;
                s.error = None;
                let dirs: Vec<PathBuf> = s.rows.iter().filter_map(|r| r.info.dir.clone()).collect();
                s.marked.retain(|d| dirs.contains(d));
                self.clamp_eval();
            }
            Action::SessionOpened { req, session } if req == self.ev.open_request => {
                let session = session.take();
                let run = session.info.is_run();
                self.ev.opened = Some(session);
                self.status = None;
                if run {
                    self.show_run(Source::Opened, ScreenId::Sessions);
                } else {
                    self.show_eval(Source::Opened, ScreenId::Sessions);
                }
            }
            Action::ComparisonLoaded { req, sessions } if req == self.ev.open_request => {
                self.ev.compare = Some(crate::tui::evals::CompareState::new(sessions.take()));
                self.status = None;
                self.ev.detail = None;
                self.go(Nav::To(ScreenId::Compare));
            }
            Action::SessionDeleted { dir, error } => {
                let name = dir
                    .file_name()
                    .map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into());
                match error {
                    Some(e) => self.set_status(Level::Error, format!("not deleted: {e}")),
                    None => {
                        self.ev.sessions.marked.retain(|d| *d != dir);
                        self.set_status(Level::Info, format!("deleted session {name}"));
                    }
                }
                return self.request_sessions();
            }
            Action::LoadFailed { req, message } => {
                if req == self.ev.list_request {
                    self.ev.sessions.loading = false;
                    self.ev.sessions.error = Some(message);
                } else if req == self.ev.open_request {
                    self.set_status(Level::Error, message);
                }
            }
            Action::EvalEvent(event) => {
                if let Some(live) = self.ev.live.as_mut() {
                    live.apply(&event.0);
                }
                if self.runs.showing == Some(Source::Live) {
                    self.clamp_run();
                }
            }
            Action::EvalNotice(text) => {
                if let Some(live) = self.ev.live.as_mut() {
                    live.problems.push(text.clone());
                }
                self.set_status(Level::Warn, text);
            }
            Action::EvalEnded { dir, error } => return self.eval_ended(dir, error),
            Action::RunDelta {
                task_id,
                sample,
                call,
                text,
            } => {
                if let Some(live) = self.ev.live.as_mut() {
                    live.state.trace.push_delta(&task_id, sample, call, &text);
                }
            }
            _ => {}
        }
        Vec::new()
    }

    fn eval_ended(&mut self, dir: Option<PathBuf>, error: Option<String>) -> Vec<Effect> {
        self.ev.running = false;
        self.ev.stopping = false;
        let Some(live) = self.ev.live.as_mut() else {
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
                self.set_status(Level::Error, format!("{what} failed: {e}"));
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
                self.set_status(Level::Info, text);
            }
        }
        // The list shows the ended session as it now is, also when the user comes back to it
        // later from the evaluation or run screen (it was stale until `r`).
        if self.screen == ScreenId::Sessions || self.ev.sessions.root.is_some() {
            return self.request_sessions();
        }
        Vec::new()
    }

    /// Keep the evaluation screens' positions valid (after a resize or a reload).
    pub fn clamp_eval(&mut self) {
        let len = self.session_count();
        let page = self.sessions_page();
        self.ev.sessions.cursor.keep_visible(len, page);
        if let Some(session) = self.ev.shown() {
            let len = session.task_rows(self.ev.imperfect_only).len();
            let page = self.eval_page();
            self.ev.tasks.keep_visible(len, page);
        }
        self.clamp_detail();
    }

    /// The task × session grid of the compared sessions (there must be some).
    pub fn show_grid(&mut self) {
        if self.ev.compare.is_some() {
            self.go(Nav::To(ScreenId::Grid));
        } else {
            let text = "compare sessions first: E, Space to mark two or more, c";
            self.set_status(Level::Info, text);
        }
    }

    /// A question was answered yes: carry out what it asked.
    pub fn confirmed(&mut self, yes: Effect) -> Vec<Effect> {
        if yes == Effect::CancelEval {
            self.ev.stopping = true;
            let text = match self.live_kind() {
                "evaluation" => "stopping the evaluation: running suites are killed…",
                _ => "stopping the run: model calls and suites in flight are abandoned…",
            };
            self.set_status(Level::Warn, text);
        }
        vec![yes]
    }
}

/// The title of the evaluation screens: which evaluation, live or not.
pub fn title(sh: &Shared) -> Vec<ratatui::text::Span<'static>> {
    use ratatui::text::Span;
    let label = match sh.ev.showing {
        Some(Source::Live) if sh.ev.running => "live evaluation",
        _ => "evaluation",
    };
    let mut spans = vec![Span::raw(label)];
    if let Some(s) = sh.ev.shown() {
        spans.push(Span::styled(
            format!(" · {}", s.info.label()),
            sh.theme().muted(),
        ));
    }
    spans
}

/// The title of the comparison screens.
pub fn compare_title(sh: &Shared) -> Vec<ratatui::text::Span<'static>> {
    let n = sh.ev.compare.as_ref().map_or(0, |c| c.sessions.len());
    vec![ratatui::text::Span::raw(format!("comparing {n} sessions"))]
}
