//! The review queue: the filtered tasks with their status and finding counts; beside them the
//! selected task's findings and blocking gates above its code (one part at a time) with the
//! offending lines marked; a small input for reasons, notes and the rule filter.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Clear, Paragraph, Row, Table, Widget};

use super::state::ReviewUi;
use crate::analysis::lint::{Part, Severity};
use crate::curate::Status;
use crate::curate::review::Validation;
use crate::curate::targets::Target;
use crate::tui::screens::review::{Ask, PARTS, counts};
use crate::tui::shared::Shared;
use crate::tui::widgets::{fit_lines, pane, render_selectable, truncate};

pub struct ReviewView<'a> {
    pub sh: &'a Shared,
    pub st: &'a ReviewUi,
}

/// Width of the queue's columns other than the task id: highlight symbol, status, the
/// validation mark, three counts, the spacing between columns and the borders.
const QUEUE_FIXED: u16 = 2 + 10 + 1 + 3 * 2 + 5 + 2;

/// The longest task id of the dataset (capped), so that the queue shows ids whole.
pub fn id_width(sh: &Shared) -> u16 {
    let longest = sh
        .data
        .dataset
        .tasks
        .iter()
        .map(|t| t.id.chars().count())
        .max()
        .unwrap_or(8);
    u16::try_from(longest.clamp(8, 24)).unwrap_or(24)
}

/// The queue on the left (wide enough for ids of `id_width` characters while the task keeps
/// half of the screen), the selected task on the right.
pub fn split(body: Rect, id_width: u16) -> (Rect, Rect) {
    let base = if body.width >= 120 { 44 } else { 34 };
    let left = base
        .max(id_width + QUEUE_FIXED)
        .min(base.max(body.width / 2))
        .min(body.width);
    let [table, detail] =
        Layout::horizontal([Constraint::Length(left), Constraint::Min(0)]).areas(body);
    (table, detail)
}

/// Rows of tasks the queue shows.
pub fn page(body: Rect) -> usize {
    usize::from(split(body, 0).0.height.saturating_sub(3)).max(1)
}

impl Widget for &ReviewView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let (table, detail) = split(area, id_width(self.sh));
        render_queue(self.sh, self.st, table, buf);
        render_detail(self.sh, self.st, detail, buf);
        if let Some(p) = &self.st.promote {
            super::promote_view::render(self.sh, p, area, buf);
        }
        if let Some(input) = &self.st.input {
            let label = match input.ask {
                Ask::Reject { bulk: false } => "reject: reason",
                Ask::Reject { bulk: true } => "reject all filtered: reason",
                Ask::Note => "note",
                Ask::Override => "override the failing gates: reason",
                Ask::Rule => "rule code (empty: any)",
            };
            let h = 3.min(area.height);
            let box_area = Rect::new(area.x, area.bottom().saturating_sub(h), area.width, h);
            Clear.render(box_area, buf);
            let block = pane(self.sh, format!(" {label} (Enter: ok · Esc: cancel) "));
            let inner = block.inner(box_area);
            block.render(box_area, buf);
            let width = usize::from(inner.width).saturating_sub(1);
            let shown: String = {
                let n = input.text.chars().count();
                input.text.chars().skip(n.saturating_sub(width)).collect()
            };
            Paragraph::new(format!("{shown}█")).render(inner, buf);
        }
    }
}

fn status_style(sh: &Shared, status: Status) -> Style {
    let theme = sh.theme();
    match status {
        Status::Unreviewed => theme.muted(),
        Status::NeedsWork => theme.warn(),
        Status::Approved => theme.ok(),
        Status::Rejected => theme.error(),
    }
}

fn render_queue(sh: &Shared, st: &ReviewUi, area: Rect, buf: &mut Buffer) {
    let r = &st;
    let filters = r.filter_label();
    let title = match (&r.data, filters.is_empty()) {
        (None, _) => " Review queue · loading… ".to_string(),
        (Some(_), true) => format!(" Review queue · {} ", r.visible.len()),
        (Some(_), false) => format!(" Review · {} · {filters} ", r.visible.len()),
    };
    let block = pane(
        sh,
        truncate(&title, usize::from(area.width).saturating_sub(2)),
    );
    let header = Row::new(["task", "status", "V", "E", "W", "I"]).style(sh.theme().header());
    let rows = r.visible.iter().map(|&i| {
        let id = sh.data.dataset.tasks.get(i).map_or("", |t| t.id.as_str());
        let status = r.status_of(id);
        let [e, w, n] = counts(r.findings(i));
        let num = |n: usize| Cell::from(Line::from(n.to_string()).right_aligned());
        let (mark, style) = validation_mark(sh, st, i, id);
        Row::new([
            Cell::from(id.to_string()),
            Cell::from(Span::styled(status.as_str(), status_style(sh, status))),
            Cell::from(Span::styled(mark, style)),
            num(e),
            num(w),
            num(n),
        ])
    });
    let table = Table::new(
        rows,
        [
            Constraint::Min(8),
            Constraint::Length(10),
            Constraint::Length(1),
            Constraint::Length(2),
            Constraint::Length(2),
            Constraint::Length(2),
        ],
    )
    .header(header)
    .block(block);
    render_selectable(sh, table, r.offset, r.selected, area, buf);
}

/// The queue's validation column: validating, passed, failed, stale (edited since), never.
fn validation_mark(sh: &Shared, st: &ReviewUi, idx: usize, id: &str) -> (&'static str, Style) {
    let theme = sh.theme();
    if st.validating.contains_key(id) {
        return ("…", theme.warn());
    }
    match st.validation.get(idx) {
        Some(Validation::Passed) => ("✓", theme.ok()),
        Some(Validation::Failed(_)) => ("✗", theme.error()),
        Some(Validation::Stale) => ("~", theme.warn()),
        _ => ("·", theme.muted()),
    }
}

fn pct(p: Option<f64>) -> String {
    p.map_or("-".into(), |p| format!("{p:.1}%"))
}

/// The validation of task `idx`: its state with the reference's counts and the findings
/// validation made (why it failed is the gate's line), then the coverage of the class and of
/// the selected method.
fn validation_lines(sh: &Shared, st: &ReviewUi, idx: usize, id: &str) -> Vec<Line<'static>> {
    let theme = sh.theme();
    let r = &st;
    let record = r.validation_record(id);
    let (state, style) = if r.validating.contains_key(id) {
        ("running in the background…", theme.warn())
    } else {
        match r.validation.get(idx) {
            Some(Validation::Passed) => ("passed", theme.ok()),
            Some(Validation::Failed(_)) => ("failed", theme.error()),
            Some(Validation::Stale) => ("stale, edited since (v: validate)", theme.warn()),
            _ => ("not run yet (v: validate)", theme.muted()),
        }
    };
    let mut facts = Vec::new();
    if let Some(v) = record {
        if let Some(c) = v.private {
            facts.push(format!("private {}/{}", c.passed, c.total));
        }
        if let Some(c) = v.public {
            facts.push(format!("public {}/{}", c.passed, c.total));
        }
        if !v.findings.is_empty() {
            facts.push(format!("found {}", v.findings.join(" ")));
        }
    }
    let mut first = vec![
        Span::styled("validation ", theme.muted()),
        Span::styled(state.to_string(), style),
    ];
    if !facts.is_empty() {
        let last = if matches!(r.validation.get(idx), Some(Validation::Stale)) {
            " · last run "
        } else {
            " · "
        };
        first.push(Span::styled(
            format!("{last}{}", facts.join(" · ")),
            theme.muted(),
        ));
    }
    let mut lines = vec![Line::from(first)];
    if let Some(v) = record.filter(|v| v.private.is_some()) {
        let mut cov = format!("coverage: class {}", pct(v.class_coverage));
        if let Some(m) = st.review_method(sh) {
            let c = v.method_coverage.get(m).copied().flatten();
            cov.push_str(&format!(" · {m} {} by its public tests", pct(c)));
        }
        lines.push(Line::styled(cov, theme.muted()));
    }
    lines
}

fn severity_letter(s: Severity) -> &'static str {
    match s {
        Severity::Error => "E",
        Severity::Warning => "W",
        Severity::Info => "I",
    }
}

fn render_detail(sh: &Shared, st: &ReviewUi, area: Rect, buf: &mut Buffer) {
    let theme = sh.theme();
    let r = &st;
    let Some(idx) = r.selected_task() else {
        let text = if r.data.is_none() {
            "reading the curation store and linting…"
        } else {
            "no task matches the filters (s: status · f: severity · /: rule)"
        };
        Paragraph::new(Line::styled(text, theme.muted()))
            .block(pane(sh, " Task "))
            .render(area, buf);
        return;
    };
    let Some(task) = sh.data.dataset.tasks.get(idx) else {
        return;
    };
    let findings = r.findings(idx);
    let review = r
        .data
        .as_ref()
        .map(|d| d.store.review(&task.id))
        .unwrap_or_default();
    let width = usize::from(area.width.saturating_sub(2));

    let mut lines: Vec<Line<'static>> = Vec::new();
    let mut head = vec![Span::styled(
        review.status.as_str().to_string(),
        status_style(sh, review.status),
    )];
    if let Some(reason) = &review.reason {
        head.push(Span::raw(format!(": {reason}")));
    }
    if !review.notes.is_empty() {
        head.push(Span::styled(
            format!(" · {} notes", review.notes.len()),
            theme.muted(),
        ));
    }
    if !review.overrides.is_empty() {
        let gates: Vec<&str> = review.overrides.keys().map(|g| g.as_str()).collect();
        head.push(Span::styled(
            format!(" · overridden: {}", gates.join(", ")),
            theme.muted(),
        ));
    }
    lines.push(Line::from(head));
    lines.extend(validation_lines(sh, st, idx, &task.id));
    lines.extend(super::forge_view::forge_lines(sh, task));
    if let Some(note) = review.notes.last() {
        lines.push(Line::styled(format!("note: {}", note.text), theme.muted()));
    }
    for f in findings {
        let at = match f.line {
            Some(l) => format!("{} l.{l}", f.part.as_str()),
            None => f.part.as_str().to_string(),
        };
        let style = match f.severity {
            Severity::Error => theme.error(),
            Severity::Warning => theme.warn(),
            Severity::Info => theme.muted(),
        };
        lines.push(Line::from(vec![
            Span::styled(
                format!("{} {:<3} ", severity_letter(f.severity), f.code),
                style,
            ),
            Span::styled(format!("{at}: "), theme.muted()),
            Span::raw(f.message.clone()),
        ]));
    }
    if findings.is_empty() {
        lines.push(Line::styled("no findings", theme.ok()));
    }
    if review.status != Status::Approved {
        for b in st.review_blocking(sh, idx) {
            lines.push(Line::styled(format!("gate {b}"), theme.warn()));
        }
    }
    let top_h = (lines.len() as u16 + 2).min(area.height / 2).max(3);
    let [top, bottom] =
        Layout::vertical([Constraint::Length(top_h), Constraint::Min(0)]).areas(area);
    Paragraph::new(fit_lines(lines, width))
        .block(pane(sh, detail_title(sh, st, task, usize::from(top.width))))
        .render(top, buf);

    // The text of the chosen part, the offending lines of a task-level part marked.
    let Some(target) = st.review_target(sh) else {
        return;
    };
    let label = target.label();
    let (source, edited, original) = st.review_texts(sh, idx, &target);
    if edited && r.diff {
        let width = usize::from(bottom.width.saturating_sub(2));
        let lines = fit_lines(diff_lines(sh, &original, &source), width);
        let page = usize::from(bottom.height.saturating_sub(2));
        Paragraph::new(lines.into_iter().take(page).collect::<Vec<_>>())
            .block(pane(
                sh,
                format!(" {label} · diff against the original (d) "),
            ))
            .render(bottom, buf);
        return;
    }
    let marked: Vec<usize> = match PARTS.get(r.part) {
        Some(part) => findings
            .iter()
            .filter(|f| f.part == *part)
            .filter_map(|f| f.line)
            .collect(),
        None => mapped_marks(sh, st, idx, &target, findings, &source),
    };
    let page = usize::from(bottom.height.saturating_sub(2));
    let total = source.lines().count();
    let first = marked.iter().min().copied().unwrap_or(1);
    let start = first.saturating_sub(3).min(total.saturating_sub(page));
    let digits = total.max(1).to_string().len();
    let mut code: Vec<Line<'static>> = source
        .lines()
        .enumerate()
        .skip(start)
        .take(page)
        .map(|(i, text)| {
            let n = i + 1;
            let hit = marked.contains(&n);
            let mark = if hit { "▶" } else { " " };
            let body_style = if hit { theme.error() } else { Style::default() };
            Line::from(vec![
                Span::styled(mark.to_string(), theme.error()),
                Span::styled(format!("{n:>digits$} "), theme.line_number()),
                Span::styled(text.replace('\t', "    "), body_style),
            ])
        })
        .collect();
    if source.trim().is_empty() {
        let empty = match &target {
            Target::PublicTests(_) => {
                "no public tests (e: write · p: draft from doctests · P: promote private tests)"
            }
            _ => "empty (e: write it)",
        };
        code = vec![Line::styled(empty, theme.muted())];
    }
    let title = code_title(sh, st, &label, edited, usize::from(bottom.width));
    Paragraph::new(fit_lines(code, width))
        .block(pane(sh, title))
        .render(bottom, buf);
}

/// The lines of a method's docstring or test class that findings point at: a finding of the
/// method in the skeleton or the test module marks the line with the same text.
fn mapped_marks(
    sh: &Shared,
    st: &ReviewUi,
    idx: usize,
    target: &Target,
    findings: &[crate::analysis::lint::Finding],
    shown: &str,
) -> Vec<usize> {
    let (part, whole) = match target {
        Target::Docstring(_) => (Part::Skeleton, Target::Skeleton),
        Target::TestClass(_) => (Part::Tests, Target::Tests),
        _ => return Vec::new(),
    };
    let whole = st.review_source(sh, idx, &whole).0;
    let whole: Vec<&str> = whole.lines().collect();
    findings
        .iter()
        .filter(|f| f.part == part && f.method.as_deref() == target.method())
        .filter_map(|f| {
            let text = whole.get(f.line?.checked_sub(1)?)?.trim();
            if text.is_empty() {
                return None;
            }
            shown.lines().position(|l| l.trim() == text).map(|i| i + 1)
        })
        .collect()
}

/// The code pane's title: every part with the shown one in brackets when that fits, else
/// just the shown one.
fn code_title(sh: &Shared, st: &ReviewUi, label: &str, edited: bool, width: usize) -> String {
    let r = &st;
    let edited = if edited { " · edited" } else { "" };
    let mut names: Vec<String> = PARTS.iter().map(|p| p.as_str().to_string()).collect();
    if let Some(m) = st.review_method(sh) {
        names.extend([
            format!("{m}: docstring"),
            "test class".into(),
            "public tests".into(),
        ]);
    }
    let tabs: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            if i == r.part {
                match n.split_once(": ") {
                    Some((m, n)) => format!("{m}: [{n}]"),
                    None => format!("[{n}]"),
                }
            } else {
                n.clone()
            }
        })
        .collect();
    let full = format!(
        " {}{edited} (Tab · ] method · e: edit · d: diff) ",
        tabs.join(" ")
    );
    if full.chars().count() + 2 <= width {
        full
    } else {
        format!(" [{label}]{edited} (Tab · e · d) ")
    }
}

/// The detail's title: the task, its class and the selected method, as much as fits.
fn detail_title(sh: &Shared, st: &ReviewUi, task: &crate::model::Task, width: usize) -> String {
    let (id, class) = (&task.id, &task.class_name);
    let Some(m) = st.review_method(sh) else {
        return format!(" {id} · {class} ");
    };
    [
        format!(" {id} · {class} · method {m} ([ ]) "),
        format!(" {id} · {class} · {m} "),
        format!(" {id} · {m} "),
    ]
    .into_iter()
    .find(|t| t.chars().count() + 2 <= width)
    .unwrap_or_else(|| format!(" {id} "))
}

/// The changes from `original` to `edited`, two lines of context around each.
fn diff_lines(sh: &Shared, original: &str, edited: &str) -> Vec<Line<'static>> {
    use similar::{ChangeTag, TextDiff};
    let theme = sh.theme();
    let diff = TextDiff::from_lines(original, edited);
    let mut out = Vec::new();
    for (i, group) in diff.grouped_ops(2).iter().enumerate() {
        if i > 0 {
            out.push(Line::styled("…", theme.muted()));
        }
        for op in group {
            for change in diff.iter_changes(op) {
                let (sign, style) = match change.tag() {
                    ChangeTag::Delete => ("-", theme.error()),
                    ChangeTag::Insert => ("+", theme.ok()),
                    ChangeTag::Equal => (" ", theme.muted()),
                };
                let text = change.value().trim_end_matches('\n').replace('\t', "    ");
                out.push(Line::styled(format!("{sign}{text}"), style));
            }
        }
    }
    out
}
