//! Drawing the stack: the title bar and status line around the top screen, the layers over
//! it. Each screen draws itself (`Screen::render`); this only composes them.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

use super::action::Action;
use super::app::App;
use super::keymap::Context;
use super::shared::{Level, Shared};
use super::widgets::{layout, short_path, truncate};

/// Draw the whole UI.
pub fn render(app: &App, frame: &mut Frame) {
    let area = frame.area();
    draw(app, area, frame.buffer_mut());
}

/// Draw the whole UI into a buffer (what `render` does; tests call it directly).
pub fn draw(app: &App, area: Rect, buf: &mut Buffer) {
    let sh = &app.sh;
    let theme = sh.theme();
    Block::new().style(theme.base()).render(area, buf);
    if area.width < 20 || area.height < 5 {
        Paragraph::new("window too small").render(area, buf);
        return;
    }
    let chrome = layout::chrome(area, !sh.problems().is_empty());
    let screen = app.screens.get(app.screen());
    title_bar(sh, screen.title(sh), screen.position(sh), chrome.title, buf);
    if let Some(banner) = chrome.banner {
        let key = sh
            .keymap
            .key_for(Context::Global, &Action::ShowProblems)
            .map_or_else(|| ":problems".to_string(), |k| k.to_string());
        let n = sh.problems().len();
        let text = format!(
            " ⚠ {n} problem{} at startup — press {key} to list",
            if n == 1 { "" } else { "s" }
        );
        Paragraph::new(Line::styled(text, theme.warn())).render(banner, buf);
    }
    screen.render(sh, chrome.body, buf);
    let top = app.screens.get(app.top());
    status_line(sh, top.hints(sh), chrome.status, buf);
    for id in app.layers() {
        app.screens.get(id).render(sh, area, buf);
    }
    inert(area, buf);
}

/// The last word on what reaches the terminal: a cell whose symbol holds a control character,
/// a bidi override or a line separator (from a task id, a model name, a file name) shows `�`.
/// ratatui drops C0/C1 controls when it writes a string, but not bidi overrides, and a widget
/// may set a cell's symbol directly. Costs one look per cell of the frame.
pub fn inert(area: Rect, buf: &mut Buffer) {
    let area = area.intersection(buf.area);
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            let cell = &mut buf[(x, y)];
            if cell.symbol().chars().any(crate::text::needs_escape) {
                cell.set_symbol("\u{fffd}");
            }
        }
    }
}

/// Every key binding of the screen under any layer, by section (what `?` shows).
pub fn help_lines(app: &App) -> Vec<Line<'static>> {
    super::screens::help::lines(&app.sh, &app.view_contexts())
}

fn title_bar(
    sh: &Shared,
    title: Vec<Span<'static>>,
    position: Option<String>,
    area: Rect,
    buf: &mut Buffer,
) {
    let theme = sh.theme();
    let mut spans = vec![
        Span::styled(" classlab ", theme.accent()),
        Span::styled("│ ", theme.muted()),
    ];
    spans.extend(title);
    let live = live_badge(sh);
    let right = match (&sh.data.predictions, position) {
        _ if !live.is_empty() => live,
        (_, Some(position)) => position,
        (Some(p), None) => format!("predictions: {} ", short_path(&p.file)),
        (None, None) => String::new(),
    };
    let left = Line::from(spans);
    let room = usize::from(area.width).saturating_sub(left.width() + 1);
    Paragraph::new(left).render(area, buf);
    if !right.is_empty() && right.chars().count() <= room {
        Paragraph::new(Line::styled(right, theme.muted()).right_aligned()).render(area, buf);
    }
}

/// `● live 37/100`, while an evaluation runs.
fn live_badge(sh: &Shared) -> String {
    match (&sh.ev.live, sh.ev.running) {
        (Some(live), true) => {
            let (done, total) = live.state.progress();
            let what = if sh.ev.stopping { "stopping" } else { "live" };
            format!("● {what} {done}/{total} ")
        }
        _ => String::new(),
    }
}

fn status_line(
    sh: &Shared,
    hints: Vec<(Context, Action, &'static str)>,
    area: Rect,
    buf: &mut Buffer,
) {
    let theme = sh.theme();
    if let Some(status) = &sh.status {
        let style = match status.level {
            Level::Info => theme.accent(),
            Level::Warn => theme.warn(),
            Level::Error => theme.error(),
        };
        let full = format!(" {}", status.text);
        let width = usize::from(area.width);
        let text = if status.level == Level::Error && full.chars().count() > width {
            // Never cut silently: the whole error is one key away.
            let key = sh
                .keymap
                .key_for(Context::Global, &Action::ShowProblems)
                .map_or_else(|| ":problems".to_string(), |k| k.to_string());
            let hint = format!(" ({key}: all of it)");
            let cut = truncate(&full, width.saturating_sub(hint.chars().count()));
            format!("{cut}{hint}")
        } else {
            truncate(&full, width)
        };
        Paragraph::new(Line::styled(text, style)).render(area, buf);
        return;
    }
    let mut spans = Vec::new();
    let mut used = 0;
    for (context, action, label) in hints {
        let Some(key) = sh.keymap.key_for(context, &action) else {
            continue;
        };
        let key = key.to_string();
        let len = key.chars().count() + label.len() + 3;
        if used + len > usize::from(area.width) {
            continue; // a shorter hint further on may still fit
        }
        used += len;
        spans.push(Span::styled(format!(" {key}"), theme.accent()));
        spans.push(Span::styled(format!(" {label} "), theme.muted()));
    }
    Paragraph::new(Line::from(spans)).render(area, buf);
}
