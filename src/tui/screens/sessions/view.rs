//! The sessions screen: every evaluation session on disk (newest first) with its progress,
//! status and headline metrics, the running evaluation pinned on top, marks for comparison,
//! and the selected session's details.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table, Widget, Wrap};

use crate::tui::evals::{EvalSession, RunStatus, SessionInfo, SessionPick, SessionRow, short_date};
use crate::tui::shared::Shared;
use crate::tui::widgets::{layout, pane, truncate};

pub struct SessionsView<'a> {
    pub sh: &'a Shared,
}

/// From this width the table shows the dataset and the full date.
const WIDE: u16 = 110;

fn pct(x: Option<f64>) -> String {
    // A rate over nothing (no task, no test class) is not 0 %.
    x.map_or_else(|| "n/a".into(), |x| format!("{:.1}", 100.0 * x))
}

/// The status, with `⚠` when some lines of the log could not be used.
fn status_span(sh: &Shared, status: RunStatus, error: bool, problems: bool) -> Span<'static> {
    let theme = sh.theme();
    if error {
        return Span::styled("unreadable", theme.error());
    }
    let style = match status {
        RunStatus::Finished => theme.ok(),
        RunStatus::Live => theme.accent(),
        RunStatus::Stopped | RunStatus::Unfinished => theme.warn(),
    };
    let mark = if problems { " ⚠" } else { "" };
    Span::styled(format!("{}{mark}", status.label()), style)
}

/// The cells of a row, given what it shows.
#[allow(clippy::too_many_arguments)]
fn cells(
    sh: &Shared,
    wide: bool,
    mark: &'static str,
    info: &SessionInfo,
    progress: String,
    status: Span<'static>,
    metrics: Option<(Option<f64>, Option<f64>)>,
) -> Row<'static> {
    let date = short_date(&info.created);
    let date = if wide {
        date
    } else {
        date.get(5..).unwrap_or(&date).to_string()
    };
    let mut row = vec![
        Cell::from(Span::styled(mark, sh.theme().matched())),
        Cell::from(info.label().to_string()),
        Cell::from(info.strategy.clone().unwrap_or_else(|| "—".into())),
    ];
    if wide {
        row.push(Cell::from(info.dataset.clone()));
    }
    row.push(Cell::from(date));
    row.push(Cell::from(Line::from(progress).right_aligned()));
    row.push(Cell::from(status));
    let (c, f) = match metrics {
        Some((c, f)) => (pct(c), pct(f)),
        None => (String::new(), String::new()),
    };
    row.push(Cell::from(Line::from(c).right_aligned()));
    row.push(Cell::from(Line::from(f).right_aligned()));
    Row::new(row)
}

fn live_row(sh: &Shared, live: &EvalSession, wide: bool) -> Row<'static> {
    let (done, total) = live.state.progress();
    let m = live.state.metrics();
    cells(
        sh,
        wide,
        "●",
        &live.info,
        format!("{done}/{total}"),
        status_span(sh, live.status(), false, false),
        Some((m.class_success, m.fun_success)),
    )
    .style(sh.theme().accent())
}

fn disk_row(sh: &Shared, r: &SessionRow, wide: bool) -> Row<'static> {
    let marked = r
        .info
        .dir
        .as_ref()
        .and_then(|d| sh.ev.sessions.marked.iter().position(|m| m == d));
    const MARKS: [&str; 9] = ["1", "2", "3", "4", "5", "6", "7", "8", "9"];
    let mark = match marked {
        Some(i) => MARKS.get(i).copied().unwrap_or("+"),
        None => " ",
    };
    cells(
        sh,
        wide,
        mark,
        &r.info,
        format!("{}/{}", r.done, r.total),
        status_span(sh, r.status, r.error.is_some(), r.problems > 0),
        r.error
            .is_none()
            .then_some((r.class_success, r.fun_success)),
    )
}

fn render_table(sh: &Shared, area: Rect, buf: &mut Buffer) {
    let theme = sh.theme();
    let s = &sh.ev.sessions;
    let wide = area.width >= WIDE;
    let mut header: Vec<Cell> = ["", "model", "strategy"].map(Cell::from).to_vec();
    if wide {
        header.push(Cell::from("dataset"));
    }
    header.push(Cell::from("date"));
    header.push(Cell::from(Line::from("done").right_aligned()));
    header.push(Cell::from("status"));
    header.push(Cell::from(Line::from("class%").right_aligned()));
    header.push(Cell::from(Line::from("fun%").right_aligned()));
    let header = Row::new(header).style(theme.header());
    let mut rows: Vec<Row> = Vec::new();
    if let (true, Some(live)) = (sh.live_row(), sh.ev.live.as_ref()) {
        rows.push(live_row(sh, live, wide));
    }
    rows.extend(s.rows.iter().map(|r| disk_row(sh, r, wide)));
    let mut widths = vec![
        Constraint::Length(1),
        Constraint::Fill(2),
        Constraint::Length(if wide { 13 } else { 11 }),
    ];
    if wide {
        widths.push(Constraint::Fill(1));
    }
    widths.extend([
        Constraint::Length(if wide { 16 } else { 11 }),
        Constraint::Length(7),
        Constraint::Length(12),
        Constraint::Length(6),
        Constraint::Length(6),
    ]);
    let where_ = s.root.as_ref().map_or(String::new(), |r| {
        format!(" in {}", truncate(&r.display().to_string(), 40))
    });
    let mut block = pane(sh, format!(" Sessions{where_} · {} ", s.rows.len()));
    if !s.marked.is_empty() {
        block = block.title_bottom(Line::styled(
            format!(" {} marked for comparison ", s.marked.len()),
            theme.matched(),
        ));
    }
    if rows.is_empty() {
        let inner = block.inner(area);
        block.render(area, buf);
        let text = if s.loading {
            "Reading the sessions…".to_string()
        } else if let Some(e) = &s.error {
            format!("Cannot read the sessions: {e}")
        } else {
            let key = |a| {
                sh.keymap
                    .key_for(crate::tui::keymap::Context::Global, &a)
                    .map_or_else(|| ":".into(), |k| k.to_string())
            };
            format!(
                "No sessions yet. Press {} to evaluate a predictions file.",
                key(crate::tui::action::Action::NewEval)
            )
        };
        Paragraph::new(Line::styled(text, theme.muted()))
            .wrap(Wrap { trim: true })
            .render(inner, buf);
        return;
    }
    let table = Table::new(rows, widths).header(header).block(block);
    crate::tui::widgets::render_selectable(
        sh,
        table,
        s.cursor.offset,
        s.cursor.selected,
        area,
        buf,
    );
}

/// `evaluation`, `generation run` or `forge --llm`.
fn what(info: &SessionInfo) -> &'static str {
    if info.is_forge() {
        "forge --llm (prompts for tests)"
    } else if info.is_run() {
        "generation run"
    } else {
        "evaluation"
    }
}

/// Where a session's code came from: a predictions file, or a run's provider.
fn source_name(info: &SessionInfo) -> &'static str {
    if info.is_run() { "provider" } else { "source" }
}

fn render_preview(sh: &Shared, area: Rect, buf: &mut Buffer) {
    let theme = sh.theme();
    let block = pane(sh, " Session ");
    let field = |name: &str, value: String| {
        Line::from(vec![
            Span::styled(format!("{name:<9}"), theme.muted()),
            Span::raw(value),
        ])
    };
    let lines = match sh.selected_session() {
        Some(SessionPick::Live) => {
            let Some(live) = sh.ev.live.as_ref() else {
                block.render(area, buf);
                return;
            };
            vec![
                field(
                    "running",
                    format!("the {} started here (Enter: watch it)", what(&live.info)),
                ),
                field("dataset", live.info.dataset.clone()),
                field(
                    source_name(&live.info),
                    live.info.source.clone().unwrap_or_default(),
                ),
            ]
        }
        Some(SessionPick::Row(i)) => {
            let r = &sh.ev.sessions.rows[i];
            let mut lines = vec![
                field("id", r.info.id.clone()),
                field("dataset", r.info.dataset.clone()),
                field(
                    source_name(&r.info),
                    r.info.source.clone().unwrap_or_else(|| "—".into()),
                ),
                field(
                    "dir",
                    r.info
                        .dir
                        .as_ref()
                        .map_or_else(String::new, |d| d.display().to_string()),
                ),
            ];
            if let Some(e) = &r.error {
                lines.insert(0, Line::styled(format!("✗ {e}"), theme.error()));
            } else if r.problems > 0 {
                lines.push(Line::styled(
                    format!("⚠ {} line(s) of the log could not be used", r.problems),
                    theme.warn(),
                ));
            }
            lines
        }
        None => Vec::new(),
    };
    let width = usize::from(area.width.saturating_sub(2));
    Paragraph::new(crate::tui::widgets::fit_lines(lines, width))
        .block(block)
        .render(area, buf);
}

impl Widget for &SessionsView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let (table, preview) = layout::sessions_split(area);
        render_table(self.sh, table, buf);
        if let Some(preview) = preview {
            render_preview(self.sh, preview, buf);
        }
    }
}
