//! The task view: a tab bar and the current tab.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::methods;
use super::state::TaskState;
use crate::tui::screens::task::state::Tab;
use crate::tui::shared::{CodePart, Shared};
use crate::tui::widgets::code_pane::{CodeDoc, render_code};
use crate::tui::widgets::{deps_view, layout, rigor_view};

pub struct TaskView<'a> {
    pub sh: &'a Shared,
    pub st: &'a TaskState,
}

fn tab_label(tab: Tab) -> String {
    format!(" {} {} ", tab.index() + 1, tab.title())
}

/// The tab under column `x` of the tab bar.
pub fn tab_at(x: u16) -> Option<Tab> {
    let mut start = 1usize;
    let x = usize::from(x);
    for tab in Tab::ALL {
        let end = start + tab_label(tab).chars().count();
        if (start..end).contains(&x) {
            return Some(tab);
        }
        start = end + 1;
    }
    None
}

impl Widget for &TaskView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let sh = self.sh;
        let st = self.st;
        let theme = sh.theme();
        let (tabs, content) = layout::task_split(area);
        let mut spans = vec![Span::raw(" ")];
        for (i, tab) in Tab::ALL.into_iter().enumerate() {
            if i > 0 {
                spans.push(Span::styled("│", theme.muted()));
            }
            let style = if tab == st.tab {
                theme.accent().patch(theme.selection())
            } else {
                theme.muted()
            };
            spans.push(Span::styled(tab_label(tab), style));
        }
        Paragraph::new(Line::from(spans)).render(tabs, buf);
        if sh.data.dataset.tasks.get(st.idx).is_none() {
            return;
        }
        match st.tab {
            Tab::Methods => methods::MethodsView { sh, st: self.st }.render(content, buf),
            Tab::Deps => deps_view::DepsView {
                sh,
                st: self.st.deps_at(),
            }
            .render(content, buf),
            Tab::Rigor => rigor_view::RigorView {
                sh,
                at: self.st.rigor_at(),
            }
            .render(content, buf),
            tab => CodePane {
                sh,
                st: self.st,
                tab,
            }
            .render(content, buf),
        }
    }
}

pub struct CodePane<'a> {
    pub sh: &'a Shared,
    pub st: &'a TaskState,
    pub tab: Tab,
}

impl Widget for &CodePane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let sh = self.sh;
        let st = self.st;
        let idx = st.idx;
        let Some(i) = self.tab.code_index() else {
            return;
        };
        let mut title = format!(" {} ", self.tab.title());
        if self.tab == Tab::Skeleton && sh.data.dataset.tasks[idx].skeleton.trim().is_empty() {
            title = " Skeleton (generated from the reference: the dataset has none) ".into();
        }
        let doc = CodeDoc {
            key: (idx, i as u8),
            source: sh.code_source(idx, self.tab.code_part().unwrap_or(CodePart::Skeleton)),
            title,
            scroll: st.code[i],
            mark: if self.tab == Tab::Solution {
                st.mark
            } else {
                None
            },
            focused: false,
        };
        render_code(sh, &doc, area, buf);
    }
}

/// Lines of the Dependencies tab (for scrolling).
pub fn deps_line_count(st: &TaskState, sh: &Shared, content: Rect) -> usize {
    deps_view::line_count(sh, st.deps_at(), content)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tab_positions() {
        assert_eq!(tab_at(0), None);
        assert_eq!(tab_at(1), Some(Tab::Skeleton));
        assert_eq!(tab_at(12), Some(Tab::Skeleton));
        assert_eq!(tab_at(13), None);
        assert_eq!(tab_at(14), Some(Tab::Solution));
        assert_eq!(tab_at(200), None);
    }
}
