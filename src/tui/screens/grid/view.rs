//! Drawing the grid: a header of session columns, one row per task (its id, how many buckets
//! it spans, and a coloured bucket per session), and a footer saying what the selected cell
//! is. Only the rows and columns on screen are drawn; everything else was computed in update.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::widgets::{Block, Borders, Widget};

use super::state::{CELL_WIDTH, GAP, MAX_CELL_WIDTH, State};
use crate::tui::shared::Shared;
use crate::tui::widgets::fingerprint::medium_label;

/// The columns taken by the disagreement count (`≠` and two digits) and its gap.
pub const COUNT_WIDTH: usize = 3;
/// The column of the tampering-attempt marker (`⚑`) and its gap.
pub const MARK_WIDTH: usize = 2;
/// Everything between the task id's column (and its gap) and the first cell.
pub const LEAD_WIDTH: usize = COUNT_WIDTH + MARK_WIDTH;

/// Where things go in the screen's area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    pub block: Rect,
    /// Two lines: letter and model, then strategy.
    pub header: Rect,
    pub rows: Rect,
    pub footer: Rect,
    /// Width of a cell.
    pub cell: usize,
    /// Rows and session columns that fit.
    pub rows_page: usize,
    pub cols_page: usize,
}

/// The layout of `area` for the grid of `st`.
pub fn areas(area: Rect, st: &State) -> Areas {
    let inner = Block::default().borders(Borders::ALL).inner(area);
    let header = Rect {
        height: inner.height.min(2),
        ..inner
    };
    let footer = if inner.height >= 4 {
        Rect {
            y: inner.bottom() - 1,
            height: 1,
            ..inner
        }
    } else {
        Rect { height: 0, ..inner }
    };
    let rows = Rect {
        y: inner.y + header.height,
        height: inner.height.saturating_sub(header.height + footer.height),
        ..inner
    };
    let free = usize::from(inner.width).saturating_sub(st.id_width + 1 + LEAD_WIDTH);
    let n = st.grid.columns.len().max(1);
    // Wide enough for the headers when every column fits so, else as wide as fits them
    // all, else the narrowest (and scroll).
    let fits_all = (free + GAP) / n;
    let cell = st
        .head_width
        .clamp(CELL_WIDTH, MAX_CELL_WIDTH)
        .min(fits_all.saturating_sub(GAP))
        .max(CELL_WIDTH);
    Areas {
        block: area,
        header,
        rows,
        footer,
        cell,
        rows_page: usize::from(rows.height).max(1),
        cols_page: ((free + GAP) / (cell + GAP)).max(1),
    }
}

/// `A`…`Z`, then numbers: the short name of a column.
pub fn letter(i: usize) -> String {
    match u8::try_from(i) {
        Ok(n) if n < 26 => char::from(b'A' + n).to_string(),
        _ => (i + 1).to_string(),
    }
}


/// At most `width` characters, an ellipsis marking the cut.
pub fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut s: String = text.chars().take(width - 1).collect();
    s.push('…');
    s
}

fn put(buf: &mut Buffer, area: Rect, x: usize, text: &str, width: usize, style: Style) {
    let left = usize::from(area.width).saturating_sub(x);
    let width = width.min(left);
    if width == 0 || area.height == 0 {
        return;
    }
    let x = area.x + u16::try_from(x).unwrap_or(u16::MAX);
    buf.set_stringn(x, area.y, format!("{text:<width$}"), width, style);
}

/// The block's title: the size, the order, the filter.
pub fn title(st: &State) -> String {
    let mut t = format!(
        " Grid · {} task{} × {} session{} · by {}",
        st.grid.rows.len(),
        if st.grid.rows.len() == 1 { "" } else { "s" },
        st.grid.columns.len(),
        if st.grid.columns.len() == 1 { "" } else { "s" },
        st.sort.name()
    );
    if st.disagreeing_only {
        t.push_str(" · disagreeing only");
    }
    if !st.filter.is_empty() || st.typing {
        t.push_str(&format!(" · /{}", st.filter));
        if st.typing {
            t.push('▏');
        }
    }
    if st.shown.len() != st.grid.rows.len() {
        t.push_str(&format!(" · {} shown", st.shown.len()));
    }
    t.push(' ');
    t
}

pub fn render(st: &State, sh: &Shared, area: Rect, buf: &mut Buffer) {
    let theme = sh.theme();
    let a = areas(area, st);
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border())
        .title(fit(&title(st), usize::from(area.width.saturating_sub(2))))
        .title_style(theme.title())
        .style(theme.base())
        .render(area, buf);
    if a.header.height == 0 || a.header.width == 0 {
        return;
    }
    if st.grid.columns.is_empty() {
        put(
            buf,
            a.header,
            0,
            "No sessions compared: mark two or more on the sessions screen and compare them.",
            usize::from(a.header.width),
            theme.muted(),
        );
        return;
    }
    let id_w = st.id_width;
    let cw = a.cell;
    let cell_x = |j: usize| id_w + 1 + LEAD_WIDTH + (j - st.left) * (cw + GAP);
    let last = (st.left + a.cols_page).min(st.grid.columns.len());
    // Header: letter and model over strategy, arrows where more columns are off screen.
    let lines = [
        Rect {
            height: 1,
            ..a.header
        },
        Rect {
            y: a.header.y + 1,
            height: a.header.height.saturating_sub(1),
            ..a.header
        },
    ];
    put(buf, lines[0], 0, "task", id_w, theme.header());
    put(buf, lines[0], id_w + 1, " ≠", COUNT_WIDTH, theme.header());
    put(buf, lines[0], id_w + 1 + COUNT_WIDTH, "⚑", MARK_WIDTH, theme.header());
    for j in st.left..last {
        let (top, bottom) = &st.heads[j];
        let style = if j == st.col {
            theme.header().add_modifier(Modifier::UNDERLINED)
        } else {
            theme.header()
        };
        put(buf, lines[0], cell_x(j), &fit(top, cw), cw, style);
        let bottom = fit(&format!("  {bottom}"), cw);
        put(buf, lines[1], cell_x(j), &bottom, cw, theme.muted());
    }
    if st.left > 0 {
        put(buf, lines[0], id_w + 1, "‹", 1, theme.accent());
    }
    if last < st.grid.columns.len() {
        let x = usize::from(a.header.width).saturating_sub(1);
        put(buf, lines[0], x, "›", 1, theme.accent());
    }
    if st.shown.is_empty() {
        let text = if st.grid.rows.is_empty() {
            "The compared sessions have no tasks yet."
        } else {
            "No task matches the filter."
        };
        let line = Rect {
            height: a.rows.height.min(1),
            ..a.rows
        };
        put(buf, line, 0, text, usize::from(line.width), theme.muted());
    }
    for (k, &r) in st.shown.iter().enumerate().skip(st.top).take(a.rows_page) {
        let row = &st.grid.rows[r];
        let y = a.rows.y + u16::try_from(k - st.top).unwrap_or(0);
        if y >= a.rows.bottom() {
            break;
        }
        let line = Rect {
            y,
            height: 1,
            ..a.rows
        };
        let selected = k == st.row;
        let id_style = if selected {
            theme.selection()
        } else {
            theme.base()
        };
        put(buf, line, 0, &fit(&row.task_id, id_w), id_w, id_style);
        let count = if row.disagreement == 0 {
            (" ·".to_string(), theme.muted())
        } else {
            (format!("{:>2}", row.disagreement), theme.warn())
        };
        put(buf, line, id_w + 1, &count.0, COUNT_WIDTH, count.1);
        // Any session whose code attempted tampering on this task (which: the footer).
        if st.attempts.get(r).is_some_and(|a| a.iter().any(Option::is_some)) {
            put(buf, line, id_w + 1 + COUNT_WIDTH, "⚑", MARK_WIDTH, theme.tampered());
        }
        for j in st.left..last {
            let cell = row.cells.get(j).copied().flatten();
            let (text, mut style) = match cell {
                Some(b) => (medium_label(b), theme.bucket(b)),
                None => ("—", theme.muted()),
            };
            let marked = st.mark == Some((r, j));
            if marked {
                style = style.add_modifier(Modifier::REVERSED | Modifier::BOLD);
            }
            if selected && j == st.col {
                style = if marked {
                    style.add_modifier(Modifier::UNDERLINED)
                } else {
                    theme.selection()
                };
            }
            put(buf, line, cell_x(j), text, cw, style);
        }
    }
    if a.footer.height > 0 {
        let (text, style) = footer(st);
        put(
            buf,
            a.footer,
            0,
            &fit(&text, usize::from(a.footer.width)),
            usize::from(a.footer.width),
            style.patch(theme.muted()),
        );
    }
}

/// What the selected cell is, and what Enter does next.
fn footer(st: &State) -> (String, Style) {
    if st.typing {
        return (
            format!("filter: {}▏ (Enter keeps it, Esc clears it)", st.filter),
            Style::new(),
        );
    }
    let Some(row) = st.selected_row() else {
        return (String::new(), Style::new());
    };
    let cell = st.selected_cell().map_or("not finished", |b| b.as_str());
    let mut here = format!(
        "{} {} · {} · {cell}",
        letter(st.col),
        st.labels.get(st.col).map_or("", String::as_str),
        row.task_id
    );
    if let Some(signs) = st.selected_attempt() {
        here += &format!(" · ⚑ tampering attempt: {signs}");
    }
    match st.mark {
        Some((r, j)) => {
            let task = &st.grid.rows[r].task_id;
            let next = if st.shown.get(st.row) == Some(&r) && j != st.col {
                "Enter opens the pair"
            } else {
                "Enter on another cell of its row opens the pair"
            };
            (
                format!("marked {} {task} · {next} · here: {here}", letter(j)),
                Style::new(),
            )
        }
        None => (format!("{here} · Enter marks the cell"), Style::new()),
    }
}
