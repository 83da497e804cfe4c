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
    Rigor,
}

impl Tab {
    pub const ALL: [Tab; 6] = [
        Tab::Skeleton,
        Tab::Solution,
        Tab::Tests,
        Tab::Methods,
        Tab::Deps,
        Tab::Rigor,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Tab::Skeleton => "Skeleton",
            Tab::Solution => "Solution",
            Tab::Tests => "Tests",
            Tab::Methods => "Methods",
            Tab::Deps => "Dependencies",
            Tab::Rigor => "Rigor",
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
    /// The Rigor tab's cursor line (1-based) and first row shown.
    pub rigor_cursor: usize,
    pub rigor_top: usize,
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
            rigor_cursor: 1,
            rigor_top: 0,
        }
    }

    /// Where the Rigor tab is.
    pub fn rigor_at(&self) -> crate::tui::widgets::rigor_view::RigorAt {
        crate::tui::widgets::rigor_view::RigorAt {
            idx: self.idx,
            cursor: self.rigor_cursor,
            top: self.rigor_top,
        }
    }
}
