//! The TUI's state and its one entry point for change: `App::update(Action) -> Vec<Effect>`.

use std::path::PathBuf;

use super::action::Action;
use super::data::Data;
use super::evals::{Confirm, NewEvalState};
use super::keymap::Context;
use super::palette::PaletteState;
use super::runs::{NewRunState, RunSetup};
pub use super::shared::{Level, Shared, Status, UiSetup};
use super::views::{self, layout};

/// What the app loop must do after an update. Anything slow or outside the process happens
/// here, off the UI thread; results come back as actions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    Quit,
    /// Read the sessions directory (answered by `Action::SessionsLoaded`).
    LoadSessions {
        req: u64,
    },
    /// Read one session for the evaluation screen (`Action::SessionOpened`).
    OpenSession {
        req: u64,
        dir: PathBuf,
    },
    /// Read sessions for a comparison (`Action::ComparisonLoaded`).
    CompareSessions {
        req: u64,
        dirs: Vec<PathBuf>,
    },
    /// Delete a session's directory (`Action::SessionDeleted`); one being written is refused.
    DeleteSession {
        dir: PathBuf,
    },
    /// Find predictions files for the new-evaluation dialog (`Action::PredictionFiles`).
    ListPredictionFiles,
    /// Evaluate a predictions file against the loaded dataset in the sandbox, as a new
    /// session; its events come back as `Action::EvalEvent`, its end as `Action::EvalEnded`.
    StartEval {
        predictions: PathBuf,
    },
    /// Stop the running evaluation or generation run (the pipeline records
    /// `run_finished {cancelled: true}`).
    CancelEval,
    /// Read the endpoint profiles and the generation sessions for the new-run dialog
    /// (`Action::RunChoices`).
    LoadRunChoices,
    /// Generate with a model (or the reference, or a replay) as a new session; events come
    /// back as `Action::EvalEvent`, streamed text as `Action::RunDelta`, the end as
    /// `Action::EvalEnded`.
    StartRun(RunSetup),
    /// Read the curation store and lint every task (`Action::ReviewLoaded`).
    LoadReview {
        req: u64,
        path: PathBuf,
    },
    /// Suspend the TUI and edit `text` (a part of a task) in `$EDITOR`
    /// (`Action::ReviewEdited`).
    EditPart {
        task_id: String,
        target: crate::curate::targets::Target,
        text: String,
    },
    /// Validate a task as edited in the store at `path` in the sandbox and record the outcome
    /// there (`Action::ReviewValidated`); a newer request for the task stops this one.
    ValidateTask {
        req: u64,
        task_id: String,
        path: PathBuf,
    },
    /// Apply review decisions to the store under its lock and write it
    /// (`Action::ReviewSaved`).
    SaveReview {
        path: PathBuf,
        ops: Vec<(String, crate::curate::ReviewAction)>,
        stamp: crate::curate::Stamp,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    List,
    Task,
    Summary,
    /// The evaluation sessions on disk.
    Sessions,
    /// One evaluation, live or replayed.
    Eval,
    /// One task's tests beside the code that ran.
    TestDetail,
    /// Two or more sessions side by side.
    Compare,
    /// One task across the compared sessions.
    CompareTask,
    /// A generation run, live or replayed.
    Run,
    /// One method's rounds of a generation run.
    Step,
    /// The curation review queue.
    Review,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    Skeleton,
    Solution,
    Tests,
    Methods,
    Deps,
}

impl Tab {
    pub const ALL: [Tab; 5] = [
        Tab::Skeleton,
        Tab::Solution,
        Tab::Tests,
        Tab::Methods,
        Tab::Deps,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Tab::Skeleton => "Skeleton",
            Tab::Solution => "Solution",
            Tab::Tests => "Tests",
            Tab::Methods => "Methods",
            Tab::Deps => "Dependencies",
        }
    }

    pub fn index(self) -> usize {
        Tab::ALL.iter().position(|t| *t == self).unwrap_or(0)
    }

    /// Index of the code pane (0–2) for the three code tabs.
    pub fn code_index(self) -> Option<usize> {
        (self.index() < 3).then(|| self.index())
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CodeScroll {
    pub top: usize,
    pub left: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskState {
    pub idx: usize,
    pub tab: Tab,
    /// Skeleton, Solution, Tests.
    pub code: [CodeScroll; 3],
    /// A line of the Solution to highlight (0-based): the method jumped to.
    pub mark: Option<usize>,
    pub method_selected: usize,
    pub method_offset: usize,
    pub deps_scroll: usize,
}

impl TaskState {
    pub fn new(idx: usize) -> TaskState {
        TaskState {
            idx,
            tab: Tab::Skeleton,
            code: [CodeScroll::default(); 3],
            mark: None,
            method_selected: 0,
            method_offset: 0,
            deps_scroll: 0,
        }
    }
}

#[derive(Debug, Clone)]
pub enum Overlay {
    Help {
        scroll: usize,
    },
    Problems {
        scroll: usize,
    },
    Palette(PaletteState),
    /// Choose a predictions file to evaluate.
    NewEval(NewEvalState),
    /// Set up a generation run.
    NewRun(NewRunState),
    Confirm(Confirm),
}

pub struct App {
    /// What every screen reads: the data, the session models, theme, keys, status.
    pub sh: Shared,
    pub screen: Screen,
    /// Where Esc from the summary goes.
    pub summary_return: Screen,
    pub summary_scroll: usize,
    pub task: TaskState,
    pub overlay: Option<Overlay>,
    /// The review queue.
    pub review: super::app_review::ReviewUi,
}

impl App {
    pub fn new(data: Data, setup: UiSetup) -> App {
        App {
            sh: Shared::new(data, setup),
            screen: Screen::List,
            summary_return: Screen::List,
            summary_scroll: 0,
            task: TaskState::new(0),
            overlay: None,
            review: Default::default(),
        }
    }

    /// The keymap contexts active now, most specific first.
    pub fn contexts(&self) -> Vec<Context> {
        match &self.overlay {
            Some(Overlay::Help { .. }) => return vec![Context::Help, Context::Global],
            Some(Overlay::Problems { .. }) => return vec![Context::Problems, Context::Global],
            Some(Overlay::Palette(_)) => return vec![Context::Palette, Context::Global],
            Some(Overlay::NewEval(_)) => return vec![Context::NewEval, Context::Global],
            Some(Overlay::NewRun(_)) => return vec![Context::NewRun, Context::Global],
            Some(Overlay::Confirm(_)) => return vec![Context::Confirm, Context::Global],
            None => {}
        }
        self.view_contexts()
    }

    /// The contexts of the view under any overlay (what the help lists).
    pub fn view_contexts(&self) -> Vec<Context> {
        match self.screen {
            Screen::List if self.sh.list.filtering => vec![Context::Filter, Context::Global],
            Screen::List => vec![Context::List, Context::Global],
            Screen::Summary => vec![Context::Summary, Context::Global],
            Screen::Sessions => vec![Context::Sessions, Context::Global],
            Screen::Eval => vec![Context::Eval, Context::Global],
            Screen::TestDetail => vec![Context::TestDetail, Context::Global],
            Screen::Compare => vec![Context::Compare, Context::Global],
            Screen::CompareTask => vec![Context::CompareTask, Context::Global],
            Screen::Run | Screen::Step => self.run_contexts(),
            Screen::Review if self.review.input.is_some() => {
                vec![Context::ReviewInput, Context::Global]
            }
            Screen::Review if self.review.promote.is_some() => {
                vec![Context::ReviewPromote, Context::Global]
            }
            Screen::Review if self.review.confirm.is_some() => {
                vec![Context::ReviewConfirm, Context::Global]
            }
            Screen::Review => vec![Context::Review, Context::Global],
            Screen::Task => {
                let tab = match self.task.tab {
                    Tab::Methods => Context::Methods,
                    Tab::Deps => Context::Deps,
                    _ => Context::Code,
                };
                vec![tab, Context::Task, Context::Global]
            }
        }
    }

    pub fn update(&mut self, action: Action) -> Vec<Effect> {
        self.sh.dirty = true;
        if matches!(
            action,
            Action::ReviewLoaded { .. }
                | Action::ReviewSaved { .. }
                | Action::ReviewEdited { .. }
                | Action::ReviewValidated { .. }
        ) {
            return self.update_review_background(action);
        }
        if let Action::TasksFiltered { req, found } = action {
            self.tasks_filtered(req, found.take());
            return Vec::new();
        }
        if action.is_background() {
            return self.update_background(action);
        }
        if !matches!(action, Action::Resize(..) | Action::Scroll(_)) {
            self.sh.status = None;
        }
        match action {
            Action::Quit => return vec![Effect::Quit],
            Action::Resize(w, h) => {
                self.sh.size = (w, h);
                self.clamp();
            }
            Action::CycleTheme => self.cycle_theme(),
            Action::SetTheme(name) => self.set_theme(&name),
            Action::ShowSummary => {
                self.overlay = None;
                if self.screen != Screen::Summary {
                    self.summary_return = self.screen;
                    self.screen = Screen::Summary;
                    self.summary_scroll = 0;
                }
            }
            Action::ShowProblems if !matches!(self.overlay, Some(Overlay::Problems { .. })) => {
                if self.sh.problems().is_empty() && self.sh.errors.is_empty() {
                    self.sh
                        .set_status(Level::Info, "no load problems and no errors");
                } else {
                    self.overlay = Some(Overlay::Problems { scroll: 0 });
                }
            }
            Action::ToggleHelp if !matches!(self.overlay, Some(Overlay::Help { .. })) => {
                self.overlay = Some(Overlay::Help { scroll: 0 });
            }
            Action::OpenPalette => {
                self.overlay = Some(Overlay::Palette(PaletteState::new(&self.sh.commands)))
            }
            Action::ShowSessions => {
                self.overlay = None;
                return self.show_sessions();
            }
            Action::NewEval => return self.open_new_eval(),
            Action::NewRun => return self.open_new_run(),
            Action::CancelRun => self.ask_cancel(),
            Action::ShowReview => return self.show_review(),
            Action::InsertText(text) => return self.insert_text(&text),
            action if self.overlay.is_some() => return self.update_overlay(action),
            action => match self.screen {
                Screen::List => return self.update_list(action),
                Screen::Task => self.update_task(action),
                Screen::Summary => self.update_summary(action),
                Screen::Sessions => return self.update_sessions(action),
                Screen::Eval => self.update_eval(action),
                Screen::TestDetail => self.update_detail(action),
                Screen::Compare => self.update_compare(action),
                Screen::CompareTask => self.update_compare_task(action),
                Screen::Run => return self.update_run(action),
                Screen::Step => self.update_step(action),
                Screen::Review => return self.update_review(action),
            },
        }
        Vec::new()
    }

    fn cycle_theme(&mut self) {
        if self.sh.no_color {
            self.sh
                .set_status(Level::Info, "NO_COLOR is set: colours are off");
            return;
        }
        self.sh.theme_idx = (self.sh.theme_idx + 1) % self.sh.themes.len().max(1);
        let name = self.sh.theme().name.clone();
        self.sh.set_status(Level::Info, format!("theme: {name}"));
    }

    fn set_theme(&mut self, name: &str) {
        match self.sh.themes.iter().position(|t| t.name == name) {
            Some(i) => {
                self.sh.theme_idx = i;
                if self.sh.no_color {
                    self.sh
                        .set_status(Level::Info, "NO_COLOR is set: colours are off");
                } else {
                    self.sh.set_status(Level::Info, format!("theme: {name}"));
                }
            }
            None => self
                .sh
                .set_status(Level::Error, format!("unknown theme `{name}`")),
        }
    }

    fn update_summary(&mut self, action: Action) {
        match action {
            Action::Back | Action::Close => self.screen = self.summary_return,
            other => {
                let content = self.sh.chrome().body;
                let page = layout::inner_page(content).max(1);
                let max = views::summary::line_count(self, content.width).saturating_sub(page);
                self.summary_scroll = scrolled(self.summary_scroll, &other, page, max);
            }
        }
    }

    fn update_task(&mut self, action: Action) {
        match action {
            Action::Back | Action::Close => self.screen = Screen::List,
            Action::NextTab => self.task.tab = Tab::ALL[(self.task.tab.index() + 1) % 5],
            Action::PrevTab => self.task.tab = Tab::ALL[(self.task.tab.index() + 4) % 5],
            Action::GoTab(n) if (1..=5).contains(&n) => {
                self.task.tab = Tab::ALL[usize::from(n - 1)]
            }
            Action::NextTask => self.step_task(1),
            Action::PrevTask => self.step_task(-1),
            Action::Click { column, row } => self.click_tabs(column, row),
            other => match self.task.tab {
                Tab::Methods => super::app_task::update_methods(self, other),
                Tab::Deps => {
                    let (_, content) = layout::task_split(self.sh.chrome().body);
                    let page = layout::inner_page(content).max(1);
                    let max = views::deps_view::line_count(self, content).saturating_sub(page);
                    self.task.deps_scroll = scrolled(self.task.deps_scroll, &other, page, max);
                }
                tab => super::app_task::update_code(self, tab, other),
            },
        }
    }

    fn step_task(&mut self, delta: isize) {
        let page = self.sh.list_page();
        if self.sh.list.visible.is_empty() {
            return;
        }
        self.sh.list.move_by(delta, page);
        if let Some(idx) = self.sh.list.selected_task() {
            let tab = self.task.tab;
            self.task = TaskState::new(idx);
            self.task.tab = tab;
        }
    }

    fn click_tabs(&mut self, column: u16, row: u16) {
        let (tabs, _) = layout::task_split(self.sh.chrome().body);
        if row != tabs.y {
            return;
        }
        if let Some(tab) = views::task_view::tab_at(column.saturating_sub(tabs.x)) {
            self.task.tab = tab;
        }
    }
}

/// Apply a navigation action to a position in `0..=max`.
pub fn scrolled(pos: usize, action: &Action, page: usize, max: usize) -> usize {
    let next = match action {
        Action::Up => pos.saturating_sub(1),
        Action::Down => pos + 1,
        Action::PageUp => pos.saturating_sub(page.max(1)),
        Action::PageDown => pos + page.max(1),
        Action::Top => 0,
        Action::Bottom => max,
        Action::Scroll(n) => pos.saturating_add_signed(isize::from(*n)),
        _ => pos,
    };
    next.min(max)
}

impl App {
    /// Keep every position valid after a resize.
    fn clamp(&mut self) {
        let page = self.sh.list_page();
        self.sh.list.scroll_into_view(page);
        if self.screen == Screen::Task {
            super::app_task::clamp_code(self);
        }
        self.clamp_eval();
        self.clamp_run();
        self.clamp_review();
    }
}
