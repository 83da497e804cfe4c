//! What every screen reads and the models they share: the dataset and its analyses, the
//! evaluation and run sessions, the task list's order, the theme, the keys and the status
//! line. Screens get `&Shared` to draw and `&mut Shared` to update; none owns another's state.

use std::cell::RefCell;

use ratatui::layout::Rect;

use super::data::Data;
use super::evals::EvalUi;
use super::highlight::HighlightCache;
use super::keymap::Keymap;
use super::list::ListState;
use super::palette::{self, Command};
use super::runs::RunUi;
use super::theme::Theme;
use super::views::layout;

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
    mono: Theme,
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
    pub fn code_source(&self, idx: usize, tab: super::app::Tab) -> &str {
        let (Some(task), Some(analysis)) = (
            self.data.dataset.tasks.get(idx),
            self.data.full_analysis(idx),
        ) else {
            return "";
        };
        match tab {
            super::app::Tab::Skeleton if task.skeleton.trim().is_empty() => {
                &analysis.generated_skeleton
            }
            super::app::Tab::Skeleton => &task.skeleton,
            super::app::Tab::Solution => &task.solution,
            super::app::Tab::Tests => &task.test_module,
            _ => "",
        }
    }

    pub fn set_status(&mut self, level: Level, text: impl Into<String>) {
        let text = text.into();
        if level == Level::Error {
            self.errors.push(text.clone());
        }
        self.status = Some(Status { text, level });
    }

    /// Rows of tasks visible in the list now.
    pub fn list_page(&self) -> usize {
        let (table, _) = layout::list_split(self.chrome().body);
        layout::table_page(table).max(1)
    }
}
