//! Rendering: pure functions of `&App` into a frame. Each view is a small struct wrapping the
//! app with `impl Widget for &View`.

pub mod code_pane;
pub mod compare;
pub mod deps_view;
pub mod dialogs;
pub mod eval_view;
pub mod fingerprint;
pub mod help;
pub mod layout;
pub mod methods;
pub mod overlays;
pub mod review_promote;
pub mod review_view;
pub mod run_dialog;
pub mod run_task;
pub mod run_view;
pub mod sessions;
pub mod step_doc;
pub mod step_text;
pub mod step_view;
pub mod summary;
pub mod task_list;
pub mod task_view;
pub mod test_detail;

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, StatefulWidget, Table, TableState, Widget};

use super::action::Action;
use super::app::{App, Level, Overlay, Screen};
use super::keymap::Context;

/// Draw the whole UI.
pub fn render(app: &App, frame: &mut Frame) {
    let area = frame.area();
    draw(app, area, frame.buffer_mut());
}

/// Draw the whole UI into a buffer (what `render` does; tests call it directly).
pub fn draw(app: &App, area: Rect, buf: &mut Buffer) {
    let theme = app.sh.theme();
    Block::new().style(theme.base()).render(area, buf);
    if area.width < 20 || area.height < 5 {
        Paragraph::new("window too small").render(area, buf);
        return;
    }
    let chrome = layout::chrome(area, !app.sh.problems().is_empty());
    title_bar(app, chrome.title, buf);
    if let Some(banner) = chrome.banner {
        let key = app
            .sh
            .keymap
            .key_for(Context::Global, &Action::ShowProblems)
            .map_or_else(|| ":problems".to_string(), |k| k.to_string());
        let n = app.sh.problems().len();
        let text = format!(
            " ⚠ {n} problem{} at startup — press {key} to list",
            if n == 1 { "" } else { "s" }
        );
        Paragraph::new(Line::styled(text, theme.warn())).render(banner, buf);
    }
    match app.screen {
        Screen::List => task_list::TaskListView { app }.render(chrome.body, buf),
        Screen::Task => task_view::TaskView { app }.render(chrome.body, buf),
        Screen::Summary => summary::SummaryView { app }.render(chrome.body, buf),
        Screen::Sessions => sessions::SessionsView { app }.render(chrome.body, buf),
        Screen::Eval => eval_view::EvalView { app }.render(chrome.body, buf),
        Screen::TestDetail => test_detail::TestDetailView { app }.render(chrome.body, buf),
        Screen::Compare => compare::CompareView { app }.render(chrome.body, buf),
        Screen::CompareTask => compare::CompareTaskView { app }.render(chrome.body, buf),
        Screen::Run => run_view::RunView { app }.render(chrome.body, buf),
        Screen::Step => step_view::StepView { app }.render(chrome.body, buf),
        Screen::Review => review_view::ReviewView { app }.render(chrome.body, buf),
    }
    status_line(app, chrome.status, buf);
    match &app.overlay {
        Some(Overlay::Help { scroll }) => help::HelpView {
            app,
            scroll: *scroll,
        }
        .render(area, buf),
        Some(Overlay::Problems { scroll }) => overlays::ProblemsView {
            app,
            scroll: *scroll,
        }
        .render(area, buf),
        Some(Overlay::Palette(state)) => overlays::PaletteView { app, state }.render(area, buf),
        Some(Overlay::NewEval(state)) => dialogs::NewEvalView { app, state }.render(area, buf),
        Some(Overlay::NewRun(state)) => run_dialog::NewRunView { app, state }.render(area, buf),
        Some(Overlay::Confirm(confirm)) => dialogs::ConfirmView { app, confirm }.render(area, buf),
        None => {}
    }
}

fn title_bar(app: &App, area: Rect, buf: &mut Buffer) {
    let theme = app.sh.theme();
    let d = &app.sh.data;
    let mut spans = vec![
        Span::styled(" classlab ", theme.accent()),
        Span::styled("│ ", theme.muted()),
    ];
    match app.screen {
        Screen::Task => {
            if let Some(task) = d.dataset.tasks.get(app.task.idx) {
                spans.push(Span::styled(task.id.clone(), theme.accent()));
                spans.push(Span::raw(format!(" {}", task.class_name)));
            }
        }
        Screen::Sessions => spans.push(Span::raw("evaluation sessions")),
        Screen::Eval | Screen::TestDetail => {
            let label = match app.sh.ev.showing {
                Some(super::evals::Source::Live) if app.sh.ev.running => "live evaluation",
                _ => "evaluation",
            };
            spans.push(Span::raw(label));
            if let Some(s) = app.sh.ev.shown() {
                spans.push(Span::styled(
                    format!(" · {}", s.info.label()),
                    theme.muted(),
                ));
            }
        }
        Screen::Compare | Screen::CompareTask => {
            let n = app.sh.ev.compare.as_ref().map_or(0, |c| c.sessions.len());
            spans.push(Span::raw(format!("comparing {n} sessions")));
        }
        Screen::Run | Screen::Step => {
            spans.push(Span::raw(if app.run_is_live() {
                "live generation run"
            } else {
                "generation run"
            }));
            if let Some(s) = app.run_shown() {
                spans.push(Span::styled(
                    format!(" · {}", s.info.label()),
                    theme.muted(),
                ));
            }
        }
        Screen::Review => {
            spans.push(Span::raw("review queue"));
            spans.push(Span::styled(
                format!(" · {}", d.dataset.name),
                theme.muted(),
            ));
        }
        Screen::List | Screen::Summary => {
            spans.push(Span::raw(d.dataset.name.clone()));
            spans.push(Span::styled(
                format!(
                    " · {} tasks · {} methods · {} edges",
                    d.len(),
                    d.method_total,
                    d.edge_total
                ),
                theme.muted(),
            ));
        }
    }
    let live = live_badge(app);
    let right = match (&d.predictions, app.screen) {
        _ if !live.is_empty() => live,
        (_, Screen::Task) => {
            // The open task is the list's selected row (opening and stepping keep it so).
            let selected = app.sh.list.selected_task() == Some(app.task.idx);
            let pos = selected.then_some(app.sh.list.selected);
            match pos {
                Some(p) => format!("task {}/{} ", p + 1, app.sh.list.visible.len()),
                None => String::new(),
            }
        }
        (Some(p), _) => format!("predictions: {} ", short_path(&p.file)),
        (None, _) => String::new(),
    };
    let left = Line::from(spans);
    let room = usize::from(area.width).saturating_sub(left.width() + 1);
    Paragraph::new(left).render(area, buf);
    if !right.is_empty() && right.chars().count() <= room {
        Paragraph::new(Line::styled(right, theme.muted()).right_aligned()).render(area, buf);
    }
}

/// `● live 37/100`, while an evaluation runs.
fn live_badge(app: &App) -> String {
    match (&app.sh.ev.live, app.sh.ev.running) {
        (Some(live), true) => {
            let (done, total) = live.state.progress();
            let what = if app.sh.ev.stopping {
                "stopping"
            } else {
                "live"
            };
            format!("● {what} {done}/{total} ")
        }
        _ => String::new(),
    }
}

/// The file name of a path (for titles).
pub fn short_path(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// Hints for the status line: (context, action, label).
fn hints(app: &App) -> Vec<(Context, Action, &'static str)> {
    use Action as A;
    use Context as C;
    match (&app.overlay, app.screen) {
        (Some(Overlay::Palette(_)), _) => vec![
            (C::Palette, A::Submit, "run"),
            (C::Palette, A::Down, "next"),
            (C::Palette, A::Up, "previous"),
            (C::Palette, A::Back, "close"),
        ],
        (Some(Overlay::Help { .. }), _) => {
            vec![(C::Help, A::Down, "scroll"), (C::Help, A::Back, "close")]
        }
        (Some(Overlay::Problems { .. }), _) => {
            vec![
                (C::Problems, A::Down, "scroll"),
                (C::Problems, A::Back, "close"),
            ]
        }
        (None, Screen::List) if app.sh.list.filtering => vec![
            (C::Filter, A::Submit, "open"),
            (C::Filter, A::Back, "cancel"),
            (C::Filter, A::Down, "next"),
            (C::Filter, A::Up, "previous"),
        ],
        (None, Screen::List) => vec![
            (C::List, A::Open, "open"),
            (C::List, A::StartFilter, "filter"),
            (C::List, A::SortNext, "sort"),
            (C::List, A::ShowReview, "review"),
            (C::Global, A::NewRun, "run"),
            (C::Global, A::NewEval, "eval"),
            (C::Global, A::ShowSessions, "sessions"),
            (C::Global, A::ToggleHelp, "help"),
            (C::Global, A::ShowSummary, "summary"),
            (C::List, A::Close, "quit"),
            (C::Global, A::OpenPalette, "commands"),
        ],
        (None, Screen::Task) => {
            let mut h = vec![
                (C::Task, A::NextTab, "tab"),
                (C::Task, A::NextTask, "next task"),
            ];
            if app.task.tab == super::app::Tab::Methods {
                h.insert(0, (C::Methods, A::Open, "show code"));
            }
            h.extend([
                (C::Global, A::ToggleHelp, "help"),
                (C::Task, A::Back, "back"),
            ]);
            h
        }
        (None, Screen::Summary) => vec![
            (C::Summary, A::Down, "scroll"),
            (C::Global, A::ToggleHelp, "help"),
            (C::Summary, A::Back, "back"),
        ],
        (Some(Overlay::NewEval(_)), _) => vec![
            (C::NewEval, A::Submit, "evaluate"),
            (C::NewEval, A::Complete, "complete"),
            (C::NewEval, A::Back, "cancel"),
        ],
        (Some(Overlay::NewRun(_)), _) => vec![
            (C::NewRun, A::Submit, "start"),
            (C::NewRun, A::Right, "change"),
            (C::NewRun, A::Down, "next field"),
            (C::NewRun, A::Back, "cancel"),
        ],
        (Some(Overlay::Confirm(_)), _) => {
            vec![(C::Confirm, A::Submit, "yes"), (C::Confirm, A::Back, "no")]
        }
        (None, Screen::Sessions) => vec![
            (C::Sessions, A::Open, "open"),
            (C::Sessions, A::ToggleMark, "mark"),
            (C::Sessions, A::Compare, "compare"),
            (C::Sessions, A::DeleteSession, "delete"),
            (C::Global, A::NewEval, "new"),
            (C::Sessions, A::Reload, "reload"),
            (C::Global, A::ToggleHelp, "help"),
            (C::Sessions, A::Back, "back"),
        ],
        (None, Screen::Eval) => {
            let mut h = vec![
                (C::Eval, A::Open, "tests"),
                (C::Eval, A::ToggleFailingOnly, "not perfect"),
            ];
            if app.sh.ev.running && app.sh.ev.showing == Some(super::evals::Source::Live) {
                h.push((C::Eval, A::CancelRun, "stop"));
            }
            h.extend([
                (C::Global, A::ToggleHelp, "help"),
                (C::Eval, A::Back, "back"),
            ]);
            h
        }
        (None, Screen::TestDetail) => vec![
            (C::TestDetail, A::NextTab, "pane"),
            (C::TestDetail, A::Open, "failing line"),
            (C::TestDetail, A::NextTask, "next task"),
            (C::Global, A::ToggleHelp, "help"),
            (C::TestDetail, A::Back, "back"),
        ],
        (None, Screen::Compare) => vec![
            (C::Compare, A::Open, "task in each"),
            (C::Global, A::ToggleHelp, "help"),
            (C::Compare, A::Back, "back"),
        ],
        (None, Screen::Run) => {
            let mut h = vec![
                (C::Run, A::Open, "open"),
                (C::Run, A::NextTab, "pane"),
                (C::Run, A::TogglePanel, "metrics"),
            ];
            if app.run_is_live() {
                h.push((C::RunLive, A::CancelRun, "stop"));
            }
            h.extend([
                (C::Global, A::ToggleHelp, "help"),
                (C::Run, A::Back, "back"),
            ]);
            h
        }
        (None, Screen::Step) => vec![
            (C::Step, A::NextRound, "round"),
            (C::Step, A::NextMethod, "method"),
            (C::Step, A::ToggleFold, "prompt"),
            (C::Step, A::NextTab, "section"),
            (C::Global, A::ToggleHelp, "help"),
            (C::Step, A::Back, "back"),
        ],
        (None, Screen::Review) if app.review.input.is_some() => vec![
            (C::ReviewInput, A::Submit, "ok"),
            (C::ReviewInput, A::Back, "cancel"),
        ],
        (None, Screen::Review) if app.review.promote.is_some() => vec![
            (C::ReviewPromote, A::ToggleMark, "choose"),
            (C::ReviewPromote, A::Submit, "promote"),
            (C::ReviewPromote, A::Back, "cancel"),
        ],
        (None, Screen::Review) if app.review.confirm.is_some() => vec![
            (C::ReviewConfirm, A::Submit, "yes"),
            (C::ReviewConfirm, A::Back, "no"),
        ],
        (None, Screen::Review) => vec![
            (C::Review, A::ReviewApprove, "approve"),
            (C::Review, A::ReviewReject, "reject"),
            (C::Review, A::ReviewNeedsWork, "needs work"),
            (C::Review, A::ReviewNote, "note"),
            (C::Review, A::CycleStatusFilter, "status"),
            (C::Review, A::CycleSeverityFilter, "severity"),
            (C::Global, A::ToggleHelp, "help"),
            (C::Review, A::Back, "back"),
        ],
        (None, Screen::CompareTask) => vec![
            (C::CompareTask, A::Right, "session"),
            (C::CompareTask, A::Open, "its tests"),
            (C::CompareTask, A::NextTask, "next task"),
            (C::Global, A::ToggleHelp, "help"),
            (C::CompareTask, A::Back, "back"),
        ],
    }
}

fn status_line(app: &App, area: Rect, buf: &mut Buffer) {
    let theme = app.sh.theme();
    if let Some(status) = &app.sh.status {
        let style = match status.level {
            Level::Info => theme.accent(),
            Level::Warn => theme.warn(),
            Level::Error => theme.error(),
        };
        let full = format!(" {}", status.text);
        let width = usize::from(area.width);
        let text = if status.level == Level::Error && full.chars().count() > width {
            // Never cut silently: the whole error is one key away.
            let key = app
                .sh
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
    for (context, action, label) in hints(app) {
        let Some(key) = app.sh.keymap.key_for(context, &action) else {
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

/// Cut `text` to `width` characters, ending in `…` when cut.
pub fn truncate(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out: String = text.chars().take(width - 1).collect();
    out.push('…');
    out
}

/// Cut lines wider than `width`, ending in `…` (the cut line keeps its first span's style).
pub fn fit_lines(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    lines
        .into_iter()
        .map(|l| {
            if l.width() > width {
                let text: String = l.spans.iter().map(|s| s.content.as_ref()).collect();
                Line::styled(
                    truncate(&text, width),
                    l.spans.first().map(|s| s.style).unwrap_or_default(),
                )
            } else {
                l
            }
        })
        .collect()
}

/// Spans of `text` with the characters at `indices` (char positions, shifted by `offset`)
/// in the matched style.
pub fn highlight_matches(
    text: &str,
    indices: &[u32],
    offset: u32,
    base: Style,
    matched: Style,
) -> Line<'static> {
    if indices.is_empty() {
        return Line::styled(text.to_string(), base);
    }
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut run = String::new();
    let mut run_matched = false;
    for (i, c) in text.chars().enumerate() {
        let is = u32::try_from(i).is_ok_and(|i| indices.binary_search(&(i + offset)).is_ok());
        if is != run_matched && !run.is_empty() {
            spans.push(Span::styled(
                std::mem::take(&mut run),
                if run_matched { matched } else { base },
            ));
        }
        run_matched = is;
        run.push(c);
    }
    if !run.is_empty() {
        spans.push(Span::styled(run, if run_matched { matched } else { base }));
    }
    Line::from(spans)
}

/// A bordered block in the theme's border style with a title.
pub fn pane<'a>(app: &App, title: impl Into<Line<'a>>) -> Block<'a> {
    let theme = app.sh.theme();
    Block::bordered()
        .border_style(theme.border())
        .title(title.into().style(theme.title()))
}

/// A table with a selected row in the house style (selection bar, `›` marker), its rows from
/// `offset` on.
pub fn render_selectable(
    app: &App,
    table: Table,
    offset: usize,
    selected: usize,
    area: Rect,
    buf: &mut Buffer,
) {
    let table = table
        .column_spacing(1)
        .row_highlight_style(app.sh.theme().selection())
        .highlight_symbol("› ");
    let mut state = TableState::default()
        .with_offset(offset)
        .with_selected(Some(selected));
    StatefulWidget::render(table, area, buf, &mut state);
}
