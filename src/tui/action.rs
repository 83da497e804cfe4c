//! The one way the TUI's state changes: every key, mouse event, resize or command becomes an
//! [`Action`] given to `App::update`.

/// A column of the task list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortColumn {
    #[default]
    Id,
    Class,
    Methods,
    Deps,
    Tests,
}

impl SortColumn {
    pub const ALL: [SortColumn; 5] = [
        SortColumn::Id,
        SortColumn::Class,
        SortColumn::Methods,
        SortColumn::Deps,
        SortColumn::Tests,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SortColumn::Id => "id",
            SortColumn::Class => "class",
            SortColumn::Methods => "methods",
            SortColumn::Deps => "deps",
            SortColumn::Tests => "tests",
        }
    }

    pub fn from_name(name: &str) -> Option<SortColumn> {
        SortColumn::ALL.into_iter().find(|c| c.name() == name)
    }

    pub fn next(self) -> SortColumn {
        let i = SortColumn::ALL.iter().position(|c| *c == self).unwrap_or(0);
        SortColumn::ALL[(i + 1) % SortColumn::ALL.len()]
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Quit,
    /// Close the overlay, leave text input, or go back one screen (quits nothing).
    Back,
    /// `q`: back from a task or summary view, quit from the task list.
    Close,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Left,
    Right,
    /// Horizontal scroll back to column 0.
    LineStart,
    Open,
    NextTab,
    PrevTab,
    /// Go to tab 1–5.
    GoTab(u8),
    NextTask,
    PrevTask,
    StartFilter,
    SortNext,
    SortReverse,
    SortBy(SortColumn),
    ShowSummary,
    ToggleHelp,
    OpenPalette,
    ShowProblems,
    CycleTheme,
    SetTheme(String),
    /// Text input (filter, palette).
    Input(char),
    Backspace,
    ClearInput,
    /// Enter in a text input.
    Submit,
    /// Mouse wheel: lines, negative is up.
    Scroll(i16),
    /// Left click at a terminal cell.
    Click {
        column: u16,
        row: u16,
    },
    Resize(u16, u16),
}

/// Actions a key can be bound to, by the name the config file uses.
const NAMED: &[(&str, Action, &str)] = &[
    ("quit", Action::Quit, "quit classlab"),
    ("back", Action::Back, "back / close"),
    ("close", Action::Close, "back (quit from the task list)"),
    ("up", Action::Up, "move up"),
    ("down", Action::Down, "move down"),
    ("page-up", Action::PageUp, "page up"),
    ("page-down", Action::PageDown, "page down"),
    ("top", Action::Top, "go to the top"),
    ("bottom", Action::Bottom, "go to the bottom"),
    ("left", Action::Left, "scroll left"),
    ("right", Action::Right, "scroll right"),
    ("line-start", Action::LineStart, "scroll to column 1"),
    ("open", Action::Open, "open"),
    ("next-tab", Action::NextTab, "next tab"),
    ("prev-tab", Action::PrevTab, "previous tab"),
    ("tab-1", Action::GoTab(1), "Skeleton tab"),
    ("tab-2", Action::GoTab(2), "Solution tab"),
    ("tab-3", Action::GoTab(3), "Tests tab"),
    ("tab-4", Action::GoTab(4), "Methods tab"),
    ("tab-5", Action::GoTab(5), "Dependencies tab"),
    ("next-task", Action::NextTask, "next task"),
    ("prev-task", Action::PrevTask, "previous task"),
    ("filter", Action::StartFilter, "fuzzy filter"),
    ("sort", Action::SortNext, "sort by the next column"),
    ("sort-reverse", Action::SortReverse, "reverse the sort"),
    ("sort-id", Action::SortBy(SortColumn::Id), "sort by id"),
    (
        "sort-class",
        Action::SortBy(SortColumn::Class),
        "sort by class",
    ),
    (
        "sort-methods",
        Action::SortBy(SortColumn::Methods),
        "sort by methods",
    ),
    (
        "sort-deps",
        Action::SortBy(SortColumn::Deps),
        "sort by deps",
    ),
    (
        "sort-tests",
        Action::SortBy(SortColumn::Tests),
        "sort by tests",
    ),
    ("summary", Action::ShowSummary, "dataset dependency summary"),
    ("help", Action::ToggleHelp, "this help"),
    ("palette", Action::OpenPalette, "command palette"),
    ("problems", Action::ShowProblems, "list load problems"),
    ("cycle-theme", Action::CycleTheme, "next theme"),
    ("backspace", Action::Backspace, "delete a character"),
    ("clear-input", Action::ClearInput, "clear the input"),
    ("submit", Action::Submit, "accept"),
];

impl Action {
    /// The action a config file names, e.g. `"down"`, `"tab-3"`.
    pub fn from_name(name: &str) -> Option<Action> {
        NAMED
            .iter()
            .find(|(n, _, _)| *n == name)
            .map(|(_, a, _)| a.clone())
    }

    /// The config name of a bindable action.
    pub fn name(&self) -> Option<&'static str> {
        NAMED.iter().find(|(_, a, _)| a == self).map(|(n, _, _)| *n)
    }

    /// What the action does, for the help overlay.
    pub fn describe(&self) -> String {
        match self {
            Action::SetTheme(t) => format!("theme {t}"),
            Action::Input(_) => "type".into(),
            Action::Scroll(_) => "scroll".into(),
            Action::Click { .. } => "click".into(),
            Action::Resize(..) => "resize".into(),
            other => NAMED
                .iter()
                .find(|(_, a, _)| a == other)
                .map(|(_, _, d)| d.to_string())
                .unwrap_or_default(),
        }
    }

    /// Every name a config file may use.
    pub fn names() -> impl Iterator<Item = &'static str> {
        NAMED.iter().map(|(n, _, _)| *n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in Action::names() {
            let action = Action::from_name(name).unwrap();
            assert_eq!(action.name(), Some(name));
            assert!(!action.describe().is_empty(), "{name}");
        }
        assert_eq!(Action::from_name("fly"), None);
    }

    #[test]
    fn sort_columns_cycle() {
        let mut c = SortColumn::Id;
        for _ in 0..SortColumn::ALL.len() {
            c = c.next();
        }
        assert_eq!(c, SortColumn::Id);
        assert_eq!(SortColumn::from_name("deps"), Some(SortColumn::Deps));
    }
}
