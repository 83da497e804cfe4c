//! The task view's own state: which tab, where each pane is scrolled.

use crate::tui::shared::CodePart;
use crate::tui::widgets::code_pane::CodeScroll;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tab {
    #[default]
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

    /// The part of the task a code tab shows.
    pub fn code_part(self) -> Option<CodePart> {
        match self {
            Tab::Skeleton => Some(CodePart::Skeleton),
            Tab::Solution => Some(CodePart::Solution),
            Tab::Tests => Some(CodePart::Tests),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
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
    /// Where the Dependencies tab is.
    pub fn deps_at(&self) -> crate::tui::widgets::deps_view::DepsAt {
        crate::tui::widgets::deps_view::DepsAt {
            idx: self.idx,
            deps_scroll: self.deps_scroll,
        }
    }

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
