//! What every screen reads and the models they share: the dataset and its analyses, the
//! evaluation and run sessions, the task list's order, the theme, the keys and the status
//! line. Screens get `&Shared` to draw and `&mut Shared` to update; none owns another's state.

use std::cell::RefCell;

use ratatui::layout::Rect;

use super::action::Action;
use super::data::Data;
use super::evals::EvalUi;
use super::highlight::HighlightCache;
use super::keymap::Keymap;
use super::list::ListState;
use super::nav::{Nav, ScreenId};
use super::palette::{self, Command};
use super::runs::RunUi;
use super::theme::Theme;
use super::widgets::layout;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Warn,
    Error,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub text: String,
    pub level: Level,
}

/// How the UI starts: themes, keys, colours and messages from config loading.
pub struct UiSetup {
    pub themes: Vec<Theme>,
    /// Theme name to start with (flag or config); unknown names are reported.
    pub theme: Option<String>,
    pub no_color: bool,
    pub keymap: Keymap,
    /// Problems met reading config and themes, shown in the status line.
    pub messages: Vec<String>,
    pub size: (u16, u16),
}

impl Default for UiSetup {
    fn default() -> Self {
        UiSetup {
            themes: Theme::builtin(),
            theme: None,
            no_color: false,
            keymap: Keymap::default(),
            messages: Vec::new(),
            size: (80, 24),
        }
    }
}

/// A part of a task shown as code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodePart {
    Skeleton,
    Solution,
    Tests,
}

pub struct Shared {
    pub data: Data,
    pub keymap: Keymap,
    pub themes: Vec<Theme>,
    pub theme_idx: usize,
    pub no_color: bool,
    pub status: Option<Status>,
    pub size: (u16, u16),
    /// Something changed since the last draw.
    pub dirty: bool,
    pub commands: Vec<Command>,
    /// Problems met reading the config and themes (listed with the load problems).
    pub notes: Vec<String>,
    /// Every error the status line showed since startup, whole (`!` lists them after the
    /// load problems; the status line only has one row).
    pub errors: Vec<String>,
    /// Memo of highlighted code; filled while rendering.
    pub highlight: RefCell<HighlightCache>,
    /// The task list's filter, order and selection (the task view steps through it).
    pub list: ListState,
    /// The evaluation sessions: listed, opened, live, compared.
    pub ev: EvalUi,
    /// The generation-run sessions shown.
    pub runs: RunUi,
    /// Rigor results (coverage, mutants) arrived so far, by task.
    pub rigor: super::rigor::RigorUi,
    /// The task the task view shows (the list opens it, stepping changes it).
    pub open_task: usize,
    /// The task and two compared sessions the paired view shows (set by the grid before
    /// going there).
    pub pair: Option<Pair>,
    /// A question for the confirm layer (set before going to it).
    pub question: Option<super::evals::Confirm>,
    /// Navigation and follow-up actions asked for during an update; the app carries them
    /// out after it, in order.
    pending: Vec<Pending>,
    /// The screen shown (under any layer); the app keeps it current.
    pub screen: ScreenId,
    mono: Theme,
}

/// Two cells of one grid row: indices into `ev.compare.sessions`, `a` marked first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pair {
    pub task_id: String,
    pub a: usize,
    pub b: usize,
}

/// Something for the app to do after the current update.
#[derive(Debug)]
pub enum Pending {
    Nav(Nav),
    /// An action handled as if it came from a key (the palette runs commands so).
    Action(Action),
}

impl Shared {
    pub fn new(data: Data, setup: UiSetup) -> Shared {
        let themes = if setup.themes.is_empty() {
            Theme::builtin()
        } else {
            setup.themes
        };
        let mut messages = setup.messages;
        let theme_idx = match &setup.theme {
            Some(name) => themes
                .iter()
                .position(|t| &t.name == name)
                .unwrap_or_else(|| {
                    let known: Vec<&str> = themes.iter().map(|t| t.name.as_str()).collect();
                    messages.push(format!(
                        "unknown theme `{name}` (known: {})",
                        known.join(", ")
                    ));
                    0
                }),
            None => 0,
        };
        let names: Vec<String> = themes.iter().map(|t| t.name.clone()).collect();
        let status = (!messages.is_empty()).then(|| Status {
            text: messages.join(" · "),
            level: Level::Error,
        });
        Shared {
            list: ListState::new(&data.rows),
            data,
            keymap: setup.keymap,
            commands: palette::commands(&names),
            themes,
            theme_idx,
            no_color: setup.no_color,
            status,
            size: setup.size,
            dirty: true,
            notes: messages,
            errors: Vec::new(),
            highlight: RefCell::new(HighlightCache::default()),
            ev: EvalUi::default(),
            runs: RunUi::default(),
            rigor: super::rigor::RigorUi::default(),
            open_task: 0,
            screen: ScreenId::List,
            question: None,
            pair: None,
            pending: Vec::new(),
            mono: Theme::mono(),
        }
    }

    pub fn theme(&self) -> &Theme {
        if self.no_color {
            return &self.mono;
        }
        self.themes.get(self.theme_idx).unwrap_or(&self.mono)
    }

    /// Everything that went wrong at startup: dataset and predictions problems, then config
    /// and theme problems.
    pub fn problems(&self) -> Vec<&str> {
        self.data
            .problems
            .iter()
            .chain(&self.notes)
            .map(String::as_str)
            .collect()
    }

    pub fn area(&self) -> Rect {
        Rect::new(0, 0, self.size.0, self.size.1)
    }

    pub fn chrome(&self) -> layout::Chrome {
        layout::chrome(self.area(), !self.problems().is_empty())
    }

    /// Source shown by a code tab of task `idx`.
    pub fn code_source(&self, idx: usize, part: CodePart) -> &str {
        let (Some(task), Some(analysis)) = (
            self.data.dataset.tasks.get(idx),
            self.data.full_analysis(idx),
        ) else {
            return "";
        };
        match part {
            CodePart::Skeleton if task.skeleton.trim().is_empty() => &analysis.generated_skeleton,
            CodePart::Skeleton => &task.skeleton,
            CodePart::Solution => &task.solution,
            CodePart::Tests => &task.test_module,
        }
    }

    pub fn set_status(&mut self, level: Level, text: impl Into<String>) {
        let text = text.into();
        if level == Level::Error {
            self.errors.push(text.clone());
        }
        self.status = Some(Status { text, level });
    }

    /// Go to a screen, back, or close the layers, after this update.
    pub fn go(&mut self, nav: Nav) {
        self.pending.push(Pending::Nav(nav));
    }

    /// Handle `action` after this update, as if a key had asked for it.
    pub fn then(&mut self, action: Action) {
        self.pending.push(Pending::Action(action));
    }

    /// Ask a yes/no question (the confirm layer); yes runs its action.
    pub fn ask(&mut self, question: super::evals::Confirm) {
        self.question = Some(question);
        self.go(Nav::To(ScreenId::Confirm));
    }

    pub fn take_pending(&mut self) -> Vec<Pending> {
        std::mem::take(&mut self.pending)
    }

    /// Rows of tasks visible in the list now.
    pub fn list_page(&self) -> usize {
        let (table, _) = layout::list_split(self.chrome().body);
        layout::table_page(table).max(1)
    }
    pub fn cycle_theme(&mut self) {
        if self.no_color {
            self.set_status(Level::Info, "NO_COLOR is set: colours are off");
            return;
        }
        self.theme_idx = (self.theme_idx + 1) % self.themes.len().max(1);
        let name = self.theme().name.clone();
        self.set_status(Level::Info, format!("theme: {name}"));
    }

    pub fn set_theme(&mut self, name: &str) {
        match self.themes.iter().position(|t| t.name == name) {
            Some(i) => {
                self.theme_idx = i;
                if self.no_color {
                    self.set_status(Level::Info, "NO_COLOR is set: colours are off");
                } else {
                    self.set_status(Level::Info, format!("theme: {name}"));
                }
            }
            None => self.set_status(Level::Error, format!("unknown theme `{name}`")),
        }
    }
}
