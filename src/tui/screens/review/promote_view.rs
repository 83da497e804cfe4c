//! The review queue's checklist of a method's private tests to promote to public tests.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Widget};

use super::state::Promote;
use crate::tui::shared::Shared;
use crate::tui::widgets::{fit_lines, pane, truncate};

/// The checklist of private tests to promote, over the detail.
pub fn render(sh: &Shared, p: &Promote, area: Rect, buf: &mut Buffer) {
    let theme = sh.theme();
    let w = area.width.clamp(20, 64).min(area.width);
    let h = (p.tests.len() as u16 + 3).min(area.height);
    let x = area.x + (area.width - w) / 2;
    let y = area.y + (area.height - h) / 2;
    let box_area = Rect::new(x, y, w, h);
    Clear.render(box_area, buf);
    let block = pane(
        sh,
        truncate(
            &format!(" promote tests of {} to public tests ", p.method),
            usize::from(w).saturating_sub(2),
        ),
    );
    let inner = block.inner(box_area);
    block.render(box_area, buf);
    let page = usize::from(inner.height.saturating_sub(1)).max(1);
    let start = (p.cursor + 1).saturating_sub(page);
    let mut lines: Vec<Line<'static>> = p
        .tests
        .iter()
        .zip(&p.chosen)
        .enumerate()
        .skip(start)
        .take(page)
        .map(|(i, (name, chosen))| {
            let text = format!(
                "{}[{}] {name}",
                if i == p.cursor { "› " } else { "  " },
                if *chosen { "x" } else { " " }
            );
            if i == p.cursor {
                Line::styled(text, theme.selection())
            } else {
                Line::raw(text)
            }
        })
        .collect();
    lines.push(Line::styled(
        "space: choose · Enter: promote and edit · Esc: cancel",
        theme.muted(),
    ));
    Paragraph::new(fit_lines(lines, usize::from(inner.width))).render(inner, buf);
}
