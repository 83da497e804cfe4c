//! Drawing the corpus browser from its state: only the visible rows and lines, no I/O.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Bar, BarChart, BarGroup, Block, Borders, Paragraph, Widget};

use crate::tui::shared::Shared;
use crate::tui::theme::Theme;

use super::state::{Detail, Input, Pane, Panel, State};

/// Below this width the panel goes under the list instead of beside it.
const SIDE_PANEL_MIN_WIDTH: u16 = 120;

/// The body between the title bar and the status line, for a terminal of `size`.
pub fn body(size: (u16, u16)) -> Rect {
    Rect::new(0, 1, size.0, size.1.saturating_sub(2))
}

struct Areas {
    list: Rect,
    input: Rect,
    panel: Option<Rect>,
}

fn areas(st: &State, area: Rect) -> Areas {
    let input_h = 1 + u16::from(st.filter_error.is_some());
    let [main, input] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(input_h)]).areas(area);
    let (list, panel) = match st.panel {
        None => (main, None),
        Some(_) if main.width >= SIDE_PANEL_MIN_WIDTH => {
            let [l, p] =
                Layout::horizontal([Constraint::Percentage(58), Constraint::Percentage(42)])
                    .areas(main);
            (l, Some(p))
        }
        Some(_) if main.height >= 16 => {
            let ph = (main.height * 2 / 5).max(8);
            let [l, p] = Layout::vertical([Constraint::Min(0), Constraint::Length(ph)]).areas(main);
            (l, Some(p))
        }
        Some(_) => (main, None),
    };
    Areas { list, input, panel }
}

/// Rows of classes the list shows in a terminal of `size`.
pub fn list_rows(st: &State, size: (u16, u16)) -> usize {
    usize::from(areas(st, body(size)).list.height.saturating_sub(3))
}

/// The list position of the row drawn at terminal cell (`column`, `row`), if one is.
pub fn row_at(st: &State, size: (u16, u16), column: u16, row: u16) -> Option<u64> {
    let list = areas(st, body(size)).list;
    let rows = list.height.saturating_sub(3);
    let first = list.y + 2;
    let inside = column > list.x && column + 1 < list.x + list.width;
    if !inside || row < first || row >= first + rows {
        return None;
    }
    let i = st.view_top(u64::from(rows)) + u64::from(row - first);
    (i < st.len()).then_some(i)
}

/// Lines of the class view's pane in a terminal of `size`.
pub fn class_rows(size: (u16, u16)) -> usize {
    usize::from(body(size).height.saturating_sub(4))
}

/// The widest line of a code pane (for scrolling right); 0 for the other panes.
pub fn widest_line(d: &Detail, pane: Pane) -> usize {
    let source = match pane {
        Pane::Code => &d.code,
        Pane::Skeleton => &d.skeleton,
        _ => return 0,
    };
    source
        .lines()
        .map(|l| l.chars().count() + 3 * l.matches('\t').count())
        .max()
        .unwrap_or(0)
}

/// How many lines a pane of the class view has (for scrolling).
pub fn pane_len(d: &Detail, pane: Pane) -> usize {
    match pane {
        Pane::Code => d.code.lines().count(),
        Pane::Skeleton => d.skeleton.lines().count(),
        other => pane_lines(d, other, &Theme::mono()).len(),
    }
}

pub fn render(st: &State, sh: &Shared, area: Rect, buf: &mut Buffer) {
    let theme = sh.theme();
    if let Some(view) = &st.class {
        render_class(st, sh, view, area, buf);
        return;
    }
    let a = areas(st, area);
    render_list(st, theme, a.list, buf);
    render_input(st, theme, a.input, buf);
    if let (Some(panel), Some(rect)) = (st.panel, a.panel) {
        match panel {
            Panel::Distribution => render_histogram(st, theme, rect, buf),
            Panel::Funnel => render_funnel(st, theme, rect, buf),
            Panel::Duplicates => render_duplicates(st, theme, rect, buf),
        }
    }
}

/// A column's header, short enough for the table (`CountLineCode` → `LnCode`).
pub fn short(name: &str) -> String {
    let mut s = name.to_string();
    for (from, to) in [
        ("Count", ""),
        ("Decl", ""),
        ("Cyclomatic", "Cyc"),
        ("Comment", "Cmt"),
        ("Instance", "Inst"),
        ("Variable", "Var"),
        ("Method", "Meth"),
        ("Line", "Ln"),
        ("Class", "Cls"),
        ("Modified", "Mod"),
        ("Derived", "Der"),
        ("Coupled", "Cpl"),
        ("Executable", "Exe"),
        ("Essential", "Ess"),
        ("Strict", "Str"),
        ("Nesting", "Nest"),
        ("Modified", "Mod"),
        ("Declarative", "Decl"),
        ("Blank", "Blk"),
        ("Avg", "avg"),
        ("Sum", "sum"),
        ("Max", "max"),
        ("Ratio", "%"),
        ("total_program_units", "units"),
        ("total_doc_str", "docs"),
    ] {
        s = s.replace(from, to);
    }
    if s.is_empty() { name.to_string() } else { s }
}

pub fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v:.2}")
    }
}

pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn fit(text: &str, width: usize) -> String {
    let n = text.chars().count();
    if n <= width {
        format!("{text:<width$}")
    } else if width == 0 {
        String::new()
    } else {
        let mut s: String = text.chars().take(width - 1).collect();
        s.push('…');
        s
    }
}

fn fit_left(text: &str, width: usize) -> String {
    let n = text.chars().count();
    if n <= width {
        format!("{text:<width$}")
    } else if width == 0 {
        String::new()
    } else {
        let s: String = text.chars().skip(n - (width - 1)).collect();
        format!("…{s}")
    }
}

fn list_title(st: &State) -> String {
    let count = match (st.total, st.counting) {
        (Some(n), false) => format!("{} classes", thousands(n)),
        (Some(n), true) => format!("{}+ classes, searching…", thousands(n)),
        (None, _) => "counting…".to_string(),
    };
    let order = match &st.sort.column {
        None if !st.search.trim().is_empty() => "best match first".to_string(),
        None => "store order".to_string(),
        Some(c) => format!("by {c} {}", if st.sort.descending { "↓" } else { "↑" }),
    };
    format!(" Corpus · {count} · {order} ")
}

fn render_list(st: &State, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border())
        .title(Span::styled(list_title(st), theme.title()));
    if st.unfinished.is_some() {
        block = block.title_bottom(Span::styled(
            " unfinished build: run `classlab corpus build` again ",
            theme.error(),
        ));
    }
    let inner = block.inner(area);
    block.render(area, buf);
    if inner.height == 0 || inner.width == 0 {
        return;
    }
    let cols = st.shown_columns();
    // Room for the sort mark before the name.
    let widths: Vec<usize> = cols
        .iter()
        .map(|c| (short(c).chars().count() + 1).max(6))
        .collect();
    let fixed: usize = widths.iter().map(|w| w + 1).sum();
    let room = usize::from(inner.width).saturating_sub(fixed + 2);
    let (class_w, path_w) = if room >= 48 {
        (room * 3 / 5, room - room * 3 / 5 - 1)
    } else {
        (room, 0)
    };
    // Header.
    let mut header = vec![
        Span::raw("  "),
        Span::styled(fit("class", class_w), theme.header()),
    ];
    if path_w > 0 {
        header.push(Span::raw(" "));
        header.push(Span::styled(fit("path:line", path_w), theme.header()));
    }
    for (c, w) in cols.iter().zip(&widths) {
        let mark = match &st.sort.column {
            Some(s) if s == c => {
                if st.sort.descending {
                    "▼"
                } else {
                    "▲"
                }
            }
            _ => "",
        };
        let label = format!("{mark}{}", short(c));
        header.push(Span::raw(" "));
        let style = if mark.is_empty() {
            theme.header()
        } else {
            theme.accent()
        };
        header.push(Span::styled(format!("{label:>w$}"), style));
    }
    Line::from(header).render(Rect { height: 1, ..inner }, buf);
    let rows = usize::from(inner.height - 1);
    let top = st.view_top(rows as u64);
    let len = st.len();
    if len == 0 {
        let msg = if let Some(e) = &st.error {
            format!("cannot read the list: {e}")
        } else if st.waiting() || st.counting || st.total.is_none() {
            "reading…".to_string()
        } else {
            "no class matches".to_string()
        };
        let style = if st.error.is_some() {
            theme.error()
        } else {
            theme.muted()
        };
        Line::styled(format!("  {msg}"), style).render(
            Rect {
                y: inner.y + 1,
                height: 1,
                ..inner
            },
            buf,
        );
        return;
    }
    for k in 0..rows as u64 {
        let i = top + k;
        if i >= len {
            break;
        }
        let y = inner.y + 1 + k as u16;
        let rect = Rect {
            y,
            height: 1,
            ..inner
        };
        let selected = i == st.selected;
        let mut spans = vec![Span::raw(if selected { "▸ " } else { "  " })];
        match st.row(i) {
            Some(r) => {
                spans.push(Span::raw(fit(&r.qualname, class_w)));
                if path_w > 0 {
                    spans.push(Span::raw(" "));
                    spans.push(Span::styled(
                        fit_left(&format!("{}:{}", r.path, r.line), path_w),
                        theme.muted(),
                    ));
                }
                for (v, w) in r.values.iter().zip(&widths) {
                    let text = v.map(number).unwrap_or_default();
                    spans.push(Span::raw(format!(" {text:>w$}")));
                }
            }
            None => spans.push(Span::styled("…", theme.muted())),
        }
        let line = Line::from(spans);
        let line = if selected {
            line.style(theme.selection())
        } else {
            line
        };
        if selected {
            buf.set_style(rect, theme.selection());
        }
        line.render(rect, buf);
    }
}

fn render_input(st: &State, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let editing = st.input.as_ref().map(|(i, _)| *i);
    let cursor = Span::styled("▏", theme.accent());
    let mut spans = Vec::new();
    let label = |name: &'static str, on: bool| {
        Span::styled(
            format!("{name}{} ", if on { "›" } else { ":" }),
            if on { theme.accent() } else { theme.muted() },
        )
    };
    spans.push(label("filter", editing == Some(Input::Filter)));
    let prefix = "filter: ".chars().count();
    if st.filter_text.is_empty() && editing != Some(Input::Filter) {
        spans.push(Span::styled("(all)", theme.muted()));
    } else {
        let style = if st.filter_error.is_some() {
            theme.error()
        } else {
            Style::new()
        };
        spans.push(Span::styled(st.filter_text.clone(), style));
    }
    if editing == Some(Input::Filter) {
        spans.push(cursor.clone());
    }
    spans.push(Span::raw("   "));
    spans.push(label("search", editing == Some(Input::Search)));
    if st.search.is_empty() && editing != Some(Input::Search) {
        spans.push(Span::styled("(none)", theme.muted()));
    } else {
        spans.push(Span::raw(st.search.clone()));
    }
    if editing == Some(Input::Search) {
        spans.push(cursor);
    }
    Line::from(spans).render(Rect { height: 1, ..area }, buf);
    if let Some(e) = &st.filter_error
        && area.height > 1
    {
        let pad = prefix + e.at;
        let text = if pad + 2 + e.message.len() <= usize::from(area.width) {
            format!("{}^ {}", " ".repeat(pad), e.message)
        } else {
            format!("character {}: {}", e.at + 1, e.message)
        };
        Line::styled(text, theme.error()).render(
            Rect {
                y: area.y + 1,
                height: 1,
                ..area
            },
            buf,
        );
    }
}

fn panel_block<'a>(theme: &Theme, current: Panel, extra: String) -> Block<'a> {
    let mut tabs = vec![Span::raw(" ")];
    for p in Panel::ALL {
        let style = if p == current {
            theme.accent()
        } else {
            theme.muted()
        };
        tabs.push(Span::styled(p.title(), style));
        tabs.push(Span::raw(" "));
    }
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border())
        .title(Line::from(tabs));
    if extra.is_empty() {
        block
    } else {
        block.title_bottom(Span::styled(extra, theme.muted()))
    }
}

fn render_histogram(st: &State, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let col = st.hist_column();
    let block = panel_block(theme, Panel::Distribution, format!(" {col} "));
    let inner = block.inner(area);
    block.render(area, buf);
    let Some(h) = st.histogram.as_ref().filter(|h| h.column == col) else {
        Line::styled(" computing…", theme.muted()).render(inner, buf);
        return;
    };
    if inner.height < 3 || inner.width < 4 {
        return;
    }
    let n: u64 = h.counts.iter().sum();
    let [head, chart, axis] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(inner);
    let peak = h.counts.iter().copied().max().unwrap_or(0);
    Line::styled(
        format!(" {} classes · peak {}", thousands(n), thousands(peak)),
        theme.muted(),
    )
    .render(head, buf);
    let bins = h.counts.len().max(1) as u16;
    let gap = u16::from(chart.width >= bins * 2);
    let bar_w = (chart.width.saturating_sub(gap * (bins - 1)) / bins).max(1);
    let bars: Vec<Bar> = h
        .counts
        .iter()
        .map(|&c| {
            let text = c.to_string();
            let bar = Bar::default().value(c).style(theme.accent());
            if text.len() <= usize::from(bar_w) {
                bar.text_value(text)
            } else {
                bar.text_value(String::new())
            }
        })
        .collect();
    BarChart::default()
        .data(BarGroup::default().bars(&bars))
        .bar_width(bar_w)
        .bar_gap(gap)
        .value_style(theme.selection())
        .render(chart, buf);
    let width = (bins * bar_w + gap * (bins - 1)).min(axis.width);
    let left = number(h.min);
    let right = number(h.max);
    let pad = usize::from(width).saturating_sub(left.len() + right.len());
    Line::styled(format!("{left}{}{right}", " ".repeat(pad)), theme.muted()).render(axis, buf);
}

fn render_funnel(st: &State, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let block = panel_block(theme, Panel::Funnel, " whole store ".into());
    let inner = block.inner(area);
    block.render(area, buf);
    let Some(f) = &st.funnel else {
        Line::styled(" computing…", theme.muted()).render(inner, buf);
        return;
    };
    let stages = [
        ("files seen", f.files_seen, f.files_seen),
        ("decoded", f.decoded, f.files_seen),
        ("parsed", f.parsed, f.files_seen),
        ("classes", f.classes, f.classes),
        ("with methods", f.with_methods, f.classes),
        ("documented", f.documented, f.classes),
        ("unique", f.unique, f.classes),
        ("self-contained", f.self_contained, f.classes),
    ];
    let num_w = stages
        .iter()
        .map(|s| thousands(s.1).len())
        .max()
        .unwrap_or(1);
    let bar_room = usize::from(inner.width).saturating_sub(16 + num_w + 3);
    let mut lines: Vec<Line> = Vec::new();
    for (name, n, of) in stages {
        let filled = if of == 0 {
            0
        } else {
            ((n as f64 / of as f64) * bar_room as f64).round() as usize
        };
        lines.push(Line::from(vec![
            Span::raw(format!(" {name:<15}")),
            Span::raw(format!("{:>num_w$} ", thousands(n))),
            Span::styled("█".repeat(filled), theme.accent()),
        ]));
    }
    if f.partially_parsed > 0 {
        lines.push(Line::styled(
            format!(
                " {} files partly parsed (their sound classes kept)",
                thousands(f.partially_parsed)
            ),
            theme.muted(),
        ));
    }
    let dropped: Vec<String> = f
        .dropped
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(k, n)| format!("{k} {}", thousands(*n)))
        .collect();
    if !dropped.is_empty() {
        lines.push(Line::styled(
            format!(" dropped: {}", dropped.join(", ")),
            theme.muted(),
        ));
    }
    let mut why: Vec<(&String, &u64)> = f.outside_stdlib_because.iter().collect();
    why.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    if !why.is_empty() {
        let top: Vec<String> = why
            .iter()
            .take(3)
            .map(|(k, n)| format!("{} {}", crate::text::escape_control(k), thousands(**n)))
            .collect();
        lines.push(Line::styled(
            format!(
                " not self-contained: {}{}",
                top.join(", "),
                if why.len() > 3 { ", …" } else { "" }
            ),
            theme.muted(),
        ));
    }
    Paragraph::new(lines)
        .wrap(ratatui::widgets::Wrap { trim: false })
        .render(inner, buf);
}

fn render_duplicates(st: &State, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let block = panel_block(
        theme,
        Panel::Duplicates,
        " ] [ jump between members ".into(),
    );
    let inner = block.inner(area);
    block.render(area, buf);
    let Some(sel) = st.selected_row() else {
        return;
    };
    let Some(c) = st.cluster.as_ref().filter(|c| c.id == sel.id) else {
        Line::styled(" reading…", theme.muted()).render(inner, buf);
        return;
    };
    let mut lines: Vec<Line> = Vec::new();
    if c.members.len() <= 1 {
        lines.push(Line::styled(" no exact or near duplicate", theme.muted()));
    }
    let near = c.members.len() - c.exact;
    let w = usize::from(inner.width).saturating_sub(3);
    for (i, m) in c.members.iter().enumerate() {
        if c.members.len() <= 1 {
            break;
        }
        if i == 0 && c.exact > 0 {
            lines.push(Line::styled(
                format!(" exact duplicates ({})", c.exact),
                theme.header(),
            ));
        }
        if i == c.exact && near > 0 {
            lines.push(Line::styled(
                format!(" near duplicates ({near})"),
                theme.header(),
            ));
        }
        let me = m.id == sel.id;
        let text = fit_left(&format!("{}:{} {}", m.path, m.line, m.qualname), w);
        let style = if me { theme.accent() } else { Style::new() };
        lines.push(Line::from(vec![
            Span::raw(if me { " ▸ " } else { "   " }),
            Span::styled(text, style),
        ]));
    }
    Paragraph::new(lines).render(inner, buf);
}

fn render_class(
    st: &State,
    sh: &Shared,
    view: &super::state::ClassView,
    area: Rect,
    buf: &mut Buffer,
) {
    let theme = sh.theme();
    let [head, tabs, pane] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(0),
    ])
    .areas(area);
    let Some(d) = &view.detail else {
        Line::styled(" reading the class…", theme.muted()).render(head, buf);
        return;
    };
    let mut info = vec![
        Span::styled(format!(" {}", d.qualname), theme.accent()),
        Span::styled(
            format!("  {} · {}:{}–{}", d.repo, d.path, d.line, d.end_line),
            theme.muted(),
        ),
    ];
    if let Some(c) = st
        .cluster
        .as_ref()
        // linear-ok: the members of one duplicate cluster (a handful)
        .filter(|c| c.members.len() > 1 && c.members.iter().any(|m| m.id == d.id))
    {
        let at = c.members.iter().position(|m| m.id == d.id).unwrap_or(0);
        let kind = if at < c.exact { "exact" } else { "near" };
        info.push(Span::styled(
            format!("  duplicate {}/{} ({kind})", at + 1, c.members.len()),
            theme.warn(),
        ));
    } else if d.dup_cluster.is_some() || d.near_dup_cluster.is_some() {
        info.push(Span::styled("  has duplicates: ] [", theme.warn()));
    }
    Line::from(info).render(head, buf);
    let mut t = vec![Span::raw(" ")];
    for (i, p) in Pane::ALL.iter().enumerate() {
        let style = if *p == view.pane {
            theme.selection()
        } else {
            theme.muted()
        };
        t.push(Span::styled(format!(" {} {} ", i + 1, p.title()), style));
        t.push(Span::raw(" "));
    }
    Line::from(t).render(tabs, buf);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border())
        .title(Span::styled(
            format!(" {} ", view.pane.title()),
            theme.title(),
        ));
    let inner = block.inner(pane);
    block.render(pane, buf);
    let h = usize::from(inner.height);
    let lines: Vec<Line> = match view.pane {
        Pane::Code | Pane::Skeleton => {
            let (source, first, slot) = match view.pane {
                Pane::Code => (&d.code, d.line, 200),
                _ => (&d.skeleton, 1, 201),
            };
            let doc = CodeDoc {
                key: (d.id as u64 as usize, slot),
                source,
                first,
                scroll: view.scroll,
                left: view.left,
                height: h,
            };
            code_lines(sh, &doc, usize::from(inner.width))
        }
        other => pane_lines(d, other, theme)
            .into_iter()
            .skip(view.scroll)
            .take(h)
            .collect(),
    };
    Paragraph::new(lines).render(inner, buf);
}

/// A code pane's source and where it is scrolled to.
struct CodeDoc<'a> {
    /// Key of the shared highlight cache: (class id, pane slot of this screen).
    key: (usize, u8),
    source: &'a str,
    /// The number of its first line.
    first: i64,
    scroll: usize,
    left: usize,
    height: usize,
}

/// The visible lines of a code pane, numbered, highlighted as far as they are shown (the
/// shared cache keeps what was highlighted).
fn code_lines(sh: &Shared, doc: &CodeDoc, width: usize) -> Vec<Line<'static>> {
    let theme = sh.theme();
    let total = doc.source.lines().count();
    let w = (doc.first + total as i64).max(1).to_string().len();
    let syntax = theme.has_color().then_some(theme.syntax.as_str());
    let styled = sh.highlight.borrow_mut().lines(
        doc.key,
        doc.source,
        syntax,
        doc.scroll,
        doc.scroll + doc.height,
    );
    let room = width.saturating_sub(w + 1);
    styled
        .into_iter()
        .enumerate()
        .map(|(i, line)| {
            let mut spans = vec![Span::styled(
                format!("{:>w$} ", doc.first + (doc.scroll + i) as i64),
                theme.line_number(),
            )];
            let (mut skip, mut left) = (doc.left, room);
            for (style, text) in line {
                if left == 0 {
                    break;
                }
                let text = text.replace('\t', "    ");
                let n = text.chars().count();
                if skip >= n {
                    skip -= n;
                    continue;
                }
                let piece: String = text.chars().skip(skip).take(left).collect();
                skip = 0;
                left -= piece.chars().count();
                spans.push(Span::styled(piece, style));
            }
            Line::from(spans)
        })
        .collect()
}

/// The lines of the Methods, Dependencies and Metrics panes.
fn pane_lines(d: &Detail, pane: Pane, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    match pane {
        Pane::Code | Pane::Skeleton => {}
        Pane::Methods => {
            out.push(Line::styled(
                format!(
                    "{} methods · {} of {} program units documented",
                    d.method_count,
                    d.total_doc_str,
                    d.total_program_units
                ),
                theme.header(),
            ));
            for m in &d.methods {
                out.push(Line::from(vec![
                    Span::styled(format!("{:>5} ", m.line), theme.line_number()),
                    Span::styled(
                        if m.documented { "✓ " } else { "· " },
                        if m.documented {
                            theme.ok()
                        } else {
                            theme.muted()
                        },
                    ),
                    Span::raw(m.signature.clone()),
                ]));
            }
        }
        Pane::Graph => {
            out.push(Line::styled(
                format!(
                    "Intra-class dependencies ({} edge{})",
                    d.edges.len(),
                    if d.edges.len() == 1 { "" } else { "s" }
                ),
                theme.header(),
            ));
            if d.edges.is_empty() {
                out.push(Line::styled("  none", theme.muted()));
            }
            let mut i = 0;
            while i < d.edges.len() {
                let src = &d.edges[i].0;
                let mut dst = Vec::new();
                while i < d.edges.len() && d.edges[i].0 == *src {
                    dst.push(d.edges[i].1.clone());
                    i += 1;
                }
                out.push(Line::from(vec![
                    Span::raw(format!("  {src} ")),
                    Span::styled("→ ", theme.muted()),
                    Span::raw(dst.join(", ")),
                ]));
            }
            out.push(Line::raw(""));
            out.push(Line::styled(
                format!(
                    "Modules used · {}",
                    if d.self_contained {
                        "self-contained (standard library only)"
                    } else {
                        "not self-contained"
                    }
                ),
                theme.header(),
            ));
            for (kind, names) in &d.deps {
                let list = if names.is_empty() {
                    "—".to_string()
                } else {
                    names.join(", ")
                };
                out.push(Line::raw(format!(
                    "  {:<12} {list}",
                    kind.replace('_', "-")
                )));
            }
        }
        Pane::Metrics => {
            out.push(Line::styled("Understand metrics", theme.header()));
            for (name, v) in &d.metrics {
                out.push(Line::raw(format!("  {name:<28} {:>8}", number(*v))));
            }
            out.push(Line::raw(format!(
                "  {:<28} {:>8}",
                "total_program_units", d.total_program_units
            )));
            out.push(Line::raw(format!(
                "  {:<28} {:>8}",
                "total_doc_str", d.total_doc_str
            )));
            if let Some(doc) = &d.docstring {
                out.push(Line::raw(""));
                out.push(Line::styled("Docstring", theme.header()));
                for l in doc.lines() {
                    out.push(Line::raw(format!("  {l}")));
                }
            }
        }
    }
    out
}
