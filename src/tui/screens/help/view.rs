//! The help overlay: every binding of the current view, generated from the keymap.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};

use crate::tui::keymap::Context;
use crate::tui::shared::Shared;
use crate::tui::widgets::{layout, pane, truncate};

pub struct HelpView<'a> {
    pub sh: &'a Shared,
    pub scroll: usize,
    /// The contexts of the screen under the help, most specific first.
    pub contexts: &'a [Context],
}

pub fn lines(sh: &Shared, contexts: &[Context]) -> Vec<Line<'static>> {
    let theme = sh.theme();
    let mut out = Vec::new();
    let sections: Vec<_> = contexts
        .iter()
        .copied()
        .map(|c| (c, sh.keymap.describe(c)))
        .collect();
    let key_column = sections
        .iter()
        .flat_map(|(_, b)| b.iter().map(|(keys, _)| keys.join(", ").chars().count()))
        .max()
        .unwrap_or(8)
        .clamp(6, 24)
        + 2;
    for (context, bindings) in sections {
        if bindings.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(Line::default());
        }
        out.push(Line::styled(context.title().to_string(), theme.header()));
        for (keys, desc) in bindings {
            let keys = truncate(&keys.join(", "), key_column - 2);
            out.push(Line::from(vec![
                Span::styled(format!("  {keys:<key_column$}"), theme.accent()),
                Span::raw(desc),
            ]));
        }
    }
    out.push(Line::default());
    out.push(Line::styled(
        "Mouse: the wheel scrolls; click selects, click again opens.",
        theme.muted(),
    ));
    out.push(Line::styled(
        "Rebind keys in the config file, table [keys].",
        theme.muted(),
    ));
    out
}

pub fn line_count(sh: &Shared, contexts: &[Context]) -> usize {
    lines(sh, contexts).len()
}

impl Widget for &HelpView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let sh = self.sh;
        let lines = lines(sh, self.contexts);
        let height = u16::try_from(lines.len() + 2).unwrap_or(u16::MAX);
        let width = lines.iter().map(Line::width).max().unwrap_or(20) + 4;
        let frame = layout::overlay(area);
        let rect = layout::centered(
            area,
            u16::try_from(width).unwrap_or(u16::MAX).min(frame.width),
            height.min(frame.height),
        );
        Clear.render(rect, buf);
        let page = usize::from(rect.height.saturating_sub(2));
        let mut block = pane(sh, " Help — keys of this view ").style(sh.theme().base());
        // Where the page is (and whether there is more below or above), never a fixed "more".
        if let Some(pos) =
            crate::tui::widgets::deps_view::position_label(self.scroll, page, lines.len())
        {
            block = block.title_bottom(Line::styled(pos, sh.theme().muted()).right_aligned());
        }
        Paragraph::new(lines)
            .block(block)
            .scroll((u16::try_from(self.scroll).unwrap_or(u16::MAX), 0))
            .render(rect, buf);
    }
}
