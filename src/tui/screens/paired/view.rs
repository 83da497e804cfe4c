//! Drawing the paired view: the two sides' verdicts, a tab bar, and the pane shown (the diff
//! of the two classes, the failing tests, or each method's repair rounds side by side). Only
//! the visible lines are drawn; the lines themselves were computed when the view opened.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget};
use similar::DiffTag;

use super::state::{DiffMode, MethodSide, Pane, RoundRow, State, TestCell};
use crate::metrics::fingerprint::Bucket;
use crate::tui::evals::is_failing;
use crate::tui::shared::Shared;
use crate::tui::theme::Theme;

/// From this width the rounds of the two sides share a line.
const ROUNDS_WIDE: u16 = 100;
/// From this width a test and its result on each side share a line.
const TESTS_WIDE: u16 = 120;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    pub header: Rect,
    pub tabs: Rect,
    pub pane: Rect,
    pub inner: Rect,
    /// Lines of the pane on screen.
    pub page: usize,
}

pub fn areas(area: Rect) -> Areas {
    let take = |y: u16, h: u16| Rect {
        y,
        height: h.min(area.bottom().saturating_sub(y)),
        ..area
    };
    let header = take(area.y, 2);
    let tabs = take(header.bottom(), 1);
    let pane = take(tabs.bottom(), area.bottom().saturating_sub(tabs.bottom()));
    let inner = Block::default().borders(Borders::ALL).inner(pane);
    Areas {
        header,
        tabs,
        pane,
        inner,
        page: usize::from(inner.height).max(1),
    }
}

/// The rounds pane: the table of methods, and below it (when tall enough) the selected
/// method's code on each side; with how many methods the table shows.
pub fn rounds_split(inner: Rect, methods: usize) -> (Rect, Option<Rect>, usize) {
    let wide = inner.width >= ROUNDS_WIDE;
    let (head, per) = if wide { (1, 1) } else { (0, 3) };
    let need = u16::try_from(head + per * methods).unwrap_or(u16::MAX);
    let (table, code) = if inner.height >= 14 {
        let h = need.min(inner.height / 2).max(4);
        let code = Rect {
            y: inner.y + h,
            height: inner.height - h,
            ..inner
        };
        (Rect { height: h, ..inner }, Some(code))
    } else {
        (inner, None)
    };
    let shown = (usize::from(table.height).saturating_sub(head) / per).max(1);
    (table, code, shown)
}

/// Lines of a pane's content at a pane `width` (inner) wide.
pub fn content_len(st: &State, pane: Pane, width: u16, body_width: u16) -> usize {
    match pane {
        Pane::Diff => match st.mode(body_width) {
            DiffMode::SideBySide => st.diff.len(),
            DiffMode::Unified => st.unified.len(),
        },
        Pane::Tests if st.tests.is_empty() => test_header(st).len(),
        Pane::Tests if width >= TESTS_WIDE => test_header(st).len() + 1 + st.tests.len(),
        Pane::Tests => test_header(st).len() + 3 * st.tests.len(),
        // Scrolled by method (see [`rounds_split`]).
        Pane::Rounds => st.rounds.len(),
    }
}

fn bucket_span(theme: &Theme, b: Option<Bucket>) -> Span<'static> {
    match b {
        Some(b) => Span::styled(b.as_str().to_string(), theme.bucket(b)),
        None => Span::styled("not finished", theme.muted()),
    }
}

/// At most `width` characters, an ellipsis marking the cut.
fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut s: String = text.chars().take(width.saturating_sub(1)).collect();
    if width > 0 {
        s.push('…');
    }
    s
}

/// `text` from character `left`, at most `width` characters.
fn window(text: &str, left: usize, width: usize) -> String {
    text.chars().skip(left).take(width).collect()
}

fn put(buf: &mut Buffer, x: u16, y: u16, text: &str, width: usize, style: Style) {
    if width > 0 {
        buf.set_stringn(x, y, text, width, style);
    }
}

pub fn render(st: &State, sh: &Shared, area: Rect, buf: &mut Buffer) {
    let theme = sh.theme();
    let a = areas(area);
    buf.set_style(area, theme.base());
    // The two sides.
    for (k, side) in st.sides.iter().enumerate() {
        let y = a.header.y + u16::try_from(k).unwrap_or(0);
        if y >= a.header.bottom() {
            break;
        }
        let mut spans = vec![
            Span::styled(format!(" {} ", side.letter), theme.accent()),
            Span::styled(side.label.clone(), theme.header()),
            Span::raw(" · "),
        ];
        if side.missing {
            spans.push(Span::styled("no run of this task", theme.muted()));
        } else {
            spans.push(bucket_span(theme, side.bucket));
            spans.push(Span::raw(if side.judged == 0 {
                " · no test judged".to_string()
            } else {
                format!(" · {}/{} passed", side.passed, side.judged)
            }));
            if side.failing > 0 {
                spans.push(Span::styled(
                    format!(" · {} failing", side.failing),
                    theme.warn(),
                ));
            }
            if !side.has_code {
                spans.push(Span::styled(" · no code", theme.muted()));
            }
        }
        Paragraph::new(Line::from(spans)).render(
            Rect {
                y,
                height: 1,
                ..a.header
            },
            buf,
        );
    }
    // The tabs.
    if a.tabs.height > 0 {
        let mut spans = vec![Span::raw(" ")];
        for (i, p) in st.panes().into_iter().enumerate() {
            if i > 0 {
                spans.push(Span::styled(" │ ", theme.muted()));
            }
            let name = match p {
                Pane::Diff => format!("{} Diff −{} +{}", i + 1, st.removed, st.added),
                Pane::Tests => format!(
                    "{} Failing tests {} │ {}",
                    i + 1,
                    st.sides[0].failing,
                    st.sides[1].failing
                ),
                Pane::Rounds => format!("{} Repair rounds ({} methods)", i + 1, st.rounds.len()),
            };
            let style = if p == st.pane {
                theme.selection()
            } else {
                theme.base()
            };
            spans.push(Span::styled(name, style));
        }
        Paragraph::new(Line::from(spans)).render(a.tabs, buf);
    }
    if a.pane.height == 0 {
        return;
    }
    let title = match st.pane {
        Pane::Diff => format!(
            " {} → {} · {} ",
            st.sides[0].letter,
            st.sides[1].letter,
            match st.mode(area.width) {
                DiffMode::SideBySide => "side by side",
                DiffMode::Unified => "unified",
            }
        ),
        Pane::Tests => " Tests failing on either side ".to_string(),
        Pane::Rounds => " Each method's rounds (public tests passed/run) ".to_string(),
    };
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border())
        .title(title)
        .title_style(theme.title())
        .render(a.pane, buf);
    let inner = a.inner;
    if inner.height == 0 || inner.width == 0 {
        return;
    }
    let total = content_len(st, st.pane, inner.width, area.width);
    let top = st.scroll[st.pane.index()].min(total.saturating_sub(a.page));
    let lines = top..(top + a.page).min(total);
    match st.pane {
        Pane::Diff => diff(st, theme, inner, area.width, lines, buf),
        Pane::Tests => tests(st, theme, inner, lines, buf),
        Pane::Rounds => rounds(st, theme, inner, buf),
    }
    if total == 0 {
        let text = match st.pane {
            Pane::Diff if st.sides.iter().all(|s| !s.has_code) => "Neither side has code.",
            Pane::Diff => "The two classes are the same.",
            Pane::Tests => "No test fails on either side.",
            Pane::Rounds => "No repair rounds: neither side is a generation run.",
        };
        put(
            buf,
            inner.x,
            inner.y,
            text,
            usize::from(inner.width),
            theme.muted(),
        );
    }
}

fn diff(
    st: &State,
    theme: &Theme,
    inner: Rect,
    body_width: u16,
    lines: std::ops::Range<usize>,
    buf: &mut Buffer,
) {
    let w = usize::from(inner.width);
    let del = theme
        .error()
        .remove_modifier(Modifier::UNDERLINED | Modifier::BOLD);
    let ins = theme.ok();
    for (k, i) in lines.enumerate() {
        let y = inner.y + u16::try_from(k).unwrap_or(0);
        match st.mode(body_width) {
            DiffMode::Unified => {
                let Some(r) = st.unified.get(i) else { break };
                let no = |n: Option<usize>| n.map_or("    ".to_string(), |n| format!("{n:>4}"));
                let prefix = format!("{} {} {} ", no(r.old), no(r.new), r.sign);
                let style = match r.sign {
                    '-' => del,
                    '+' => ins,
                    _ => theme.base(),
                };
                put(buf, inner.x, y, &prefix, w, theme.line_number());
                let x = inner.x + u16::try_from(prefix.chars().count()).unwrap_or(0);
                let room = w.saturating_sub(prefix.chars().count());
                put(buf, x, y, &window(&r.text, st.left, room), room, style);
            }
            DiffMode::SideBySide => {
                let Some(r) = st.diff.get(i) else { break };
                let half = w.saturating_sub(1) / 2;
                let sep_x = inner.x + u16::try_from(half).unwrap_or(0);
                put(buf, sep_x, y, "│", 1, theme.border());
                let halves = [(&r.old, inner.x, del, '-'), (&r.new, sep_x + 1, ins, '+')];
                for (line, x, changed, sign) in halves {
                    let Some((n, text)) = line else { continue };
                    let (style, sign) = if r.tag == DiffTag::Equal {
                        (theme.base(), ' ')
                    } else {
                        (changed, sign)
                    };
                    let prefix = format!("{n:>4}{sign}");
                    put(buf, x, y, &prefix, half, theme.line_number());
                    let room = half.saturating_sub(5);
                    put(buf, x + 5, y, &window(text, st.left, room), room, style);
                }
            }
        }
    }
}

/// The lines above the tests: how each side's whole suite failed.
fn test_header(st: &State) -> Vec<String> {
    st.sides
        .iter()
        .filter_map(|s| {
            let f = s.suite_failure.as_ref()?;
            Some(format!("{}: the suite failed: {f}", s.letter))
        })
        .collect()
}

fn cell_spans(theme: &Theme, letter: &str, cell: Option<&TestCell>) -> Vec<Span<'static>> {
    let mut spans = vec![Span::styled(format!("  {letter} "), theme.accent())];
    match cell {
        None => spans.push(Span::styled("— not run on this side", theme.muted())),
        Some(c) if !is_failing(c.outcome) => {
            spans.push(Span::styled(
                format!("{:?}", c.outcome).to_lowercase(),
                theme.ok(),
            ));
        }
        Some(c) => {
            spans.push(Span::styled(c.what.clone(), theme.warn()));
            if let Some(cause) = &c.cause {
                spans.push(Span::styled(format!(" ({cause})"), theme.accent()));
            }
            if !c.message.is_empty() {
                spans.push(Span::styled(format!(" — {}", c.message), theme.muted()));
            }
        }
    }
    spans
}

fn tests(st: &State, theme: &Theme, inner: Rect, lines: std::ops::Range<usize>, buf: &mut Buffer) {
    let header = test_header(st);
    let wide = inner.width >= TESTS_WIDE;
    let id_w = st
        .tests
        .iter()
        .map(|t| t.id.chars().count())
        .max()
        .unwrap_or(0)
        .min(usize::from(inner.width) * 2 / 5);
    let col_w = usize::from(inner.width).saturating_sub(id_w + 1) / 2;
    for (k, i) in lines.enumerate() {
        let y = inner.y + u16::try_from(k).unwrap_or(0);
        let row = Rect {
            y,
            height: 1,
            ..inner
        };
        if let Some(h) = header.get(i) {
            Paragraph::new(Line::styled(h.clone(), theme.error())).render(row, buf);
            continue;
        }
        let j = i - header.len();
        if wide {
            let x_a = inner.x + u16::try_from(id_w + 1).unwrap_or(0);
            let x_b = x_a + u16::try_from(col_w).unwrap_or(0);
            let col = |x: u16| Rect {
                x,
                width: u16::try_from(col_w.saturating_sub(1)).unwrap_or(0),
                ..row
            };
            if j == 0 {
                put(buf, inner.x, y, "test", id_w, theme.header());
                for (x, s) in [(x_a, &st.sides[0]), (x_b, &st.sides[1])] {
                    let text = format!("{} {}", s.letter, s.label);
                    put(buf, x, y, &text, col_w.saturating_sub(1), theme.header());
                }
                continue;
            }
            let Some(t) = st.tests.get(j - 1) else { break };
            put(buf, inner.x, y, &t.id, id_w, theme.base());
            for (s, x) in [(0, x_a), (1, x_b)] {
                let mut spans = cell_spans(theme, "", t.sides[s].as_ref());
                spans.remove(0);
                Paragraph::new(Line::from(spans)).render(col(x), buf);
            }
            continue;
        }
        let Some(t) = st.tests.get(j / 3) else { break };
        let line = match j % 3 {
            0 => Line::styled(t.id.clone(), theme.header()),
            part => {
                let s = part - 1;
                Line::from(cell_spans(theme, &st.sides[s].letter, t.sides[s].as_ref()))
            }
        };
        Paragraph::new(line).render(row, buf);
    }
}

fn round_spans(theme: &Theme, side: &MethodSide) -> Vec<Span<'static>> {
    if side.state.is_empty() {
        return vec![Span::styled("—", theme.muted())];
    }
    let mut spans = vec![Span::raw(side.state.clone())];
    for (k, (round, tests)) in side.rounds.iter().enumerate() {
        spans.push(Span::styled(
            if k == 0 { " · " } else { " → " },
            theme.muted(),
        ));
        match tests {
            Some((p, t)) => spans.push(Span::styled(
                format!("r{round} {p}/{t}"),
                if p == t { theme.ok() } else { theme.warn() },
            )),
            None => spans.push(Span::styled(format!("r{round} –"), theme.muted())),
        }
    }
    spans
}

fn rounds(st: &State, theme: &Theme, inner: Rect, buf: &mut Buffer) {
    let wide = inner.width >= ROUNDS_WIDE;
    let (table, code, shown) = rounds_split(inner, st.rounds.len());
    let first = st.scroll[Pane::Rounds.index()];
    let name_w = st
        .rounds
        .iter()
        .map(|r| r.method.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(6, 32)
        .min(usize::from(inner.width) / 3);
    let col_w = usize::from(inner.width).saturating_sub(name_w + 1) / 2;
    let line_at = |k: usize| Rect {
        y: table.y + u16::try_from(k).unwrap_or(u16::MAX),
        height: 1,
        ..table
    };
    let methods = st.rounds.iter().enumerate().skip(first).take(shown);
    if wide {
        let x_a = inner.x + u16::try_from(name_w + 1).unwrap_or(0);
        let x_b = x_a + u16::try_from(col_w).unwrap_or(0);
        put(buf, inner.x, table.y, "method", name_w, theme.header());
        for (x, s) in [(x_a, &st.sides[0]), (x_b, &st.sides[1])] {
            let text = format!("{} {}", s.letter, s.label);
            put(
                buf,
                x,
                table.y,
                &text,
                col_w.saturating_sub(1),
                theme.header(),
            );
        }
        for (k, (i, r)) in methods.enumerate() {
            let row = line_at(k + 1);
            if row.y >= table.bottom() {
                break;
            }
            let style = if i == st.method {
                theme.selection()
            } else {
                theme.base()
            };
            put(buf, inner.x, row.y, &fit(&r.method, name_w), name_w, style);
            for (x, s) in [(x_a, &r.sides[0]), (x_b, &r.sides[1])] {
                Paragraph::new(Line::from(round_spans(theme, s))).render(
                    Rect {
                        x,
                        width: u16::try_from(col_w.saturating_sub(1)).unwrap_or(0),
                        ..row
                    },
                    buf,
                );
            }
        }
    } else {
        for (k, (i, r)) in methods.enumerate() {
            for part in 0..3 {
                let row = line_at(3 * k + part);
                if row.y >= table.bottom() {
                    break;
                }
                let line = if part == 0 {
                    let style = if i == st.method {
                        theme.selection()
                    } else {
                        theme.header()
                    };
                    Line::styled(r.method.clone(), style)
                } else {
                    let s = part - 1;
                    let mut spans = vec![Span::styled(
                        format!("  {} ", st.sides[s].letter),
                        theme.accent(),
                    )];
                    spans.extend(round_spans(theme, &r.sides[s]));
                    Line::from(spans)
                };
                Paragraph::new(line).render(row, buf);
            }
        }
    }
    if let (Some(area), Some(r)) = (code, st.rounds.get(st.method)) {
        method_code(st, r, theme, area, buf);
    }
}

/// The selected method as each side's judged class has it, side by side.
fn method_code(st: &State, r: &RoundRow, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let w = usize::from(area.width);
    let half = w.saturating_sub(1) / 2;
    let rule: String = "─".repeat(w);
    put(buf, area.x, area.y, &rule, w, theme.border());
    let sep_x = area.x + u16::try_from(half).unwrap_or(0);
    for (k, side) in r.sides.iter().enumerate() {
        let x = if k == 0 { area.x } else { sep_x + 1 };
        let mut spans = vec![Span::styled(
            format!(" {} {} ", st.sides[k].letter, r.method),
            theme.header(),
        )];
        if let Some(b) = side.outcome {
            spans.push(Span::styled(b.as_str().to_string(), theme.bucket(b)));
            spans.push(Span::raw(" "));
        }
        Paragraph::new(Line::from(spans)).render(
            Rect {
                x,
                y: area.y,
                width: u16::try_from(half).unwrap_or(0),
                height: 1,
            },
            buf,
        );
    }
    let rows = usize::from(area.height.saturating_sub(1));
    for i in 0..rows {
        let y = area.y + 1 + u16::try_from(i).unwrap_or(0);
        put(buf, sep_x, y, "│", 1, theme.border());
        for (k, side) in r.sides.iter().enumerate() {
            let x = if k == 0 { area.x } else { sep_x + 1 };
            let text = match side.code.get(i) {
                Some(line) => window(line, st.left, half),
                None if i == 0 && side.code.is_empty() => "(not in the class)".to_string(),
                None => continue,
            };
            let style = if side.code.is_empty() {
                theme.muted()
            } else {
                theme.base()
            };
            put(buf, x, y, &text, half, style);
        }
    }
}
