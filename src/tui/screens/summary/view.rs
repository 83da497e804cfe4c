//! The dataset-wide dependency summary (domain.md §4): overall / with deps / no deps, and the
//! tasks whose order violates a true edge. Without predictions it compares the dataset's
//! annotation (as truth) with the extracted graph (as prediction).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use crate::depcheck::DepCheck;
use crate::metrics::deps::Metrics;
use crate::tui::shared::Shared;
use crate::tui::widgets::{fit_lines, histogram, layout, pane};

pub struct SummaryView<'a> {
    pub sh: &'a Shared,
    pub scroll: usize,
}

/// The check shown and a title saying what it compares.
fn subject(sh: &Shared) -> Option<(&DepCheck, String)> {
    Some(match &sh.data.check {
        Some(check) => (
            check,
            format!(
                "Predictions {} vs ground truth ({})",
                crate::tui::widgets::short_path(&sh.data.predictions.as_ref().map(|p| p.file.clone()).unwrap_or_default()),
                check.ground_truth
            ),
        ),
        None => (
            sh.data.agreement.as_ref()?,
            "Annotation vs code (no predictions loaded): truth = annotated method_dependencies, prediction = extracted graph".into(),
        ),
    })
}

fn pct(x: f64) -> String {
    format!("{x:.1}")
}

fn num(x: f64) -> String {
    format!("{x:.3}")
}

/// (column label, value) for one regime; counts of tasks carry their denominator: the
/// regime's tasks for fully correct ones, all scored tasks (`all`) for violations, which are
/// counted per task whatever the regime.
fn columns(m: &Metrics, all: usize) -> Vec<(&'static str, String)> {
    vec![
        ("methods", m.methods.to_string()),
        ("exact %", pct(m.exact_pct)),
        ("missing-only %", pct(m.missing_only_pct)),
        ("extra-only %", pct(m.extra_only_pct)),
        ("wrong %", pct(m.wrong_pct)),
        ("macro P", num(m.macro_avg.precision)),
        ("macro R", num(m.macro_avg.recall)),
        ("macro F1", num(m.macro_avg.f1)),
        ("micro P", num(m.micro.precision)),
        ("micro R", num(m.micro.recall)),
        ("micro F1", num(m.micro.f1)),
        ("class accuracy", num(m.class_accuracy)),
        (
            "fully correct tasks",
            format!("{}/{}", m.fully_correct_tasks, m.tasks),
        ),
        (
            "tasks with violations",
            format!("{}/{}", m.tasks_with_violations, all),
        ),
    ]
}

/// Two-line headers for the wide table, one per column of [`columns`].
const HEADERS: [(&str, &str); 14] = [
    ("methods", ""),
    ("exact", "%"),
    ("missing", "only %"),
    ("extra", "only %"),
    ("wrong", "%"),
    ("macro", "P"),
    ("macro", "R"),
    ("macro", "F1"),
    ("micro", "P"),
    ("micro", "R"),
    ("micro", "F1"),
    ("class", "accuracy"),
    ("fully", "correct"),
    ("tasks w/", "violations"),
];
const LABEL: usize = 11;
const COLUMN: usize = 9;

fn table_lines(sh: &Shared, check: &DepCheck, width: usize) -> Vec<Line<'static>> {
    let theme = sh.theme();
    let r = &check.report;
    let regimes = [
        ("overall", &r.metrics),
        ("with deps", &r.by_regime.with_deps),
        ("no deps", &r.by_regime.no_deps),
    ];
    let mut lines = Vec::new();
    if width >= usize::from(layout::SUMMARY_WIDE_WIDTH) - 2 {
        let cell = |i: usize, text: &str| {
            let w = if i + 1 == HEADERS.len() {
                COLUMN + 2
            } else {
                COLUMN
            };
            format!("{text:>w$}")
        };
        for row in 0..2 {
            let mut header = " ".repeat(LABEL);
            for (i, h) in HEADERS.iter().enumerate() {
                header.push_str(&cell(i, if row == 0 { h.0 } else { h.1 }));
            }
            lines.push(Line::styled(header, theme.header()));
        }
        for (name, m) in regimes {
            let mut row = vec![Span::styled(format!("{name:<LABEL$}"), theme.accent())];
            for (i, (_, v)) in columns(m, r.metrics.tasks).into_iter().enumerate() {
                row.push(Span::raw(cell(i, &v)));
            }
            lines.push(Line::from(row));
        }
        lines.push(Line::styled(
            "micro = edge-level; class accuracy = mean over tasks of the exact share",
            theme.muted(),
        ));
    } else {
        lines.push(Line::styled(
            format!(
                "{:<22}{:>10}{:>11}{:>10}",
                "", "overall", "with deps", "no deps"
            ),
            theme.header(),
        ));
        let cols: Vec<Vec<(&str, String)>> = regimes
            .iter()
            .map(|(_, m)| columns(m, r.metrics.tasks))
            .collect();
        for (i, (label, _)) in cols[0].iter().enumerate() {
            lines.push(Line::from(vec![
                Span::styled(format!("{label:<22}"), theme.muted()),
                Span::raw(format!(
                    "{:>10}{:>11}{:>10}",
                    cols[0][i].1, cols[1][i].1, cols[2][i].1
                )),
            ]));
        }
    }
    lines
}

/// The whole summary document for an inner width.
pub fn doc(sh: &Shared, width: usize) -> Vec<Line<'static>> {
    let theme = sh.theme();
    let Some((check, title)) = subject(sh) else {
        let progress = sh.data.loading().map_or(String::new(), |l| {
            format!(" ({} of {} tasks so far)", l.analysed, l.tasks())
        });
        let mut lines = vec![Line::styled(
            format!("Waiting for the analysis of every task{progress}…"),
            theme.muted(),
        )];
        lines.extend(rigor_lines(sh, width));
        return fit_lines(lines, width);
    };
    let r = &check.report;
    let mut lines: Vec<Line<'static>> = match title.split_once(": ") {
        Some((head, tail)) if title.chars().count() > width => vec![
            Line::styled(format!("{head}:"), theme.accent()),
            Line::styled(format!("  {tail}"), theme.accent()),
        ],
        _ => vec![Line::styled(title, theme.accent())],
    };
    lines.push(Line::styled(
        format!(
            "{} of {} tasks scored · {} methods · {} true edges, {} predicted, {} correct",
            r.metrics.tasks,
            sh.data.dataset.tasks.len(),
            r.metrics.methods,
            r.metrics.edges_truth,
            r.metrics.edges_predicted,
            r.metrics.edges_correct
        ),
        theme.muted(),
    ));
    if !r.unscored_tasks.is_empty() {
        lines.push(Line::styled(
            format!(
                "{} task(s) without a prediction (not scored): {}",
                r.unscored_tasks.len(),
                r.unscored_tasks.join(", ")
            ),
            theme.warn(),
        ));
    }
    if !check.unknown_tasks.is_empty() {
        lines.push(Line::styled(
            format!(
                "predictions name unknown task(s): {}",
                check.unknown_tasks.join(", ")
            ),
            theme.warn(),
        ));
    }
    if !r.unknown_names.is_empty() {
        lines.push(Line::styled(
            format!(
                "{} unknown method name(s) in the predictions (see `classlab depcheck`)",
                r.unknown_names.len()
            ),
            theme.warn(),
        ));
    }
    lines.push(Line::default());
    lines.extend(table_lines(sh, check, width));
    lines.push(Line::default());
    lines.push(Line::styled(
        format!("Tasks with order violations ({})", r.violations.len()),
        theme.header(),
    ));
    if r.violations.is_empty() {
        lines.push(Line::styled("  none", theme.ok()));
    }
    for v in &r.violations {
        let edges: Vec<String> = v
            .violated_edges
            .iter()
            .map(|[a, b]| format!("{a} → {b}"))
            .collect();
        lines.push(Line::from(vec![
            Span::styled(format!("  {}", v.task_id), theme.accent()),
            Span::raw(format!("  {}", edges.join(", "))),
        ]));
        if !v.missing_from_order.is_empty() {
            lines.push(Line::styled(
                format!(
                    "      not in the order: {}",
                    v.missing_from_order.join(", ")
                ),
                theme.muted(),
            ));
        }
    }
    lines.extend(rigor_lines(sh, width));
    fit_lines(lines, width)
}

/// Test-suite rigor of the dataset: branch coverage and mutation score histograms, filled in
/// as tasks arrive from the background (`classlab rigor`'s store, or computed).
fn rigor_lines(sh: &Shared, width: usize) -> Vec<Line<'static>> {
    let theme = sh.theme();
    let ui = &sh.rigor;
    let h = &ui.hist;
    let total = sh.data.dataset.tasks.len();
    let mut lines = vec![Line::default()];
    let state = if ui.running {
        format!(", measuring in the background ({} to go)", ui.pending.len())
    } else if let Some(e) = &ui.error {
        format!(", stopped: {e}")
    } else {
        String::new()
    };
    lines.push(Line::styled(
        format!("Test-suite rigor: {} of {total} tasks measured{state}", h.measured),
        theme.header(),
    ));
    if h.measured == 0 {
        return lines;
    }
    let tenths: Vec<String> = (0..10)
        .map(|i| if i == 9 { "90–100".to_string() } else { format!("{}–{}", i * 10, i * 10 + 10) })
        .collect();
    let with = h.with_branches();
    let mean = |sum: f64, n: usize| if n == 0 { "-".to_string() } else { format!("{:.1}", sum / n as f64) };
    lines.push(Line::styled(
        format!(
            "branch coverage % of the reference by its tests ({with} tasks, mean {}; {} without branches)",
            mean(h.branch_sum, with),
            h.no_branches
        ),
        theme.muted(),
    ));
    lines.extend(histogram::lines(&tenths, &h.branch, width, theme.accent(), theme.muted()));
    lines.push(Line::styled(
        format!(
            "mutation score % ({} tasks, mean {})",
            h.scored,
            mean(h.score_sum * 100.0, h.scored)
        ),
        theme.muted(),
    ));
    lines.extend(histogram::lines(&tenths, &h.score, width, theme.accent(), theme.muted()));
    lines
}

pub fn line_count(sh: &Shared, width: u16) -> usize {
    doc(sh, usize::from(width.saturating_sub(2))).len()
}

impl Widget for &SummaryView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let sh = self.sh;
        let doc = doc(sh, usize::from(area.width.saturating_sub(2)));
        let scroll = self.scroll.min(doc.len().saturating_sub(1));
        let mut block = pane(sh, " Dependency summary (domain §4) ");
        if let Some(pos) = crate::tui::widgets::deps_view::position_label(
            scroll,
            layout::inner_page(area),
            doc.len(),
        ) {
            block = block.title_top(Line::styled(pos, sh.theme().muted()).right_aligned());
        }
        Paragraph::new(doc)
            .block(block)
            .scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0))
            .render(area, buf);
    }
}
