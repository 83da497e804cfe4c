//! The task view: a tab bar and the current tab.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::{code_pane, deps_view, layout, methods};
use crate::tui::app::{App, Tab};

pub struct TaskView<'a> {
    pub app: &'a App,
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
        let app = self.app;
        let theme = app.sh.theme();
        let (tabs, content) = layout::task_split(area);
        let mut spans = vec![Span::raw(" ")];
        for (i, tab) in Tab::ALL.into_iter().enumerate() {
            if i > 0 {
                spans.push(Span::styled("│", theme.muted()));
            }
            let style = if tab == app.task.tab {
                theme.accent().patch(theme.selection())
            } else {
                theme.muted()
            };
            spans.push(Span::styled(tab_label(tab), style));
        }
        Paragraph::new(Line::from(spans)).render(tabs, buf);
        if app.sh.data.dataset.tasks.get(app.task.idx).is_none() {
            return;
        }
        match app.task.tab {
            Tab::Methods => methods::MethodsView { app }.render(content, buf),
            Tab::Deps => deps_view::DepsView { app }.render(content, buf),
            tab => code_pane::CodePane { app, tab }.render(content, buf),
        }
    }
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
