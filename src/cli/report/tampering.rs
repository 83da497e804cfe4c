//! `report`'s tampering section in its document formats (Markdown, HTML, CSV): each
//! session's tampering rate with its Wilson interval — said to be a lower bound — and the
//! samples with attempts, each with its evidence. The terminal shows the same through
//! `eval`'s table (`print_attempts`); `--json` carries `tampering_rate`/`tampering_attempts`.

use super::doc::ReportDoc;
use crate::cli::table::Rows;
use crate::session::attempts::{self, LOWER_BOUND};
use crate::text::escape_control;

pub const TITLE: &str = "Tampering attempts (a lower bound)";

/// The sentence under the title.
pub fn caveat() -> String {
    format!("Share of evaluated samples whose code attempted tampering: {LOWER_BOUND}.")
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// One row per session: samples with attempts, the rate with its interval, and which
/// sources saw them.
pub fn rate_rows(doc: &ReportDoc) -> Rows {
    let mut rows = Rows::new(
        [
            "session",
            "samples with attempts",
            "rate [95% Wilson]",
            "runner",
            "host",
            "static",
            "never scanned",
        ]
        .map(String::from)
        .to_vec(),
    );
    for (i, s) in doc.sessions.iter().enumerate() {
        let r = &s.tampering_rate;
        let label = doc.labels.get(i).map_or(s.session.as_str(), String::as_str);
        let rate = match (r.rate, r.ci95) {
            (Some(x), Some((lo, hi))) => format!("{} [{}, {}]", pct(x), pct(lo), pct(hi)),
            _ => "n/a".into(),
        };
        rows.row(vec![
            escape_control(label).into_owned(),
            format!("{} of {}", r.attempted, r.samples),
            rate,
            r.by_source.runner.to_string(),
            r.by_source.host.to_string(),
            r.by_source.static_.to_string(),
            r.unscanned.to_string(),
        ]);
    }
    rows
}

/// A sample's id and its evidence, described.
pub type SampleLines = (String, Vec<String>);

/// Per session with attempts: its label and, per sample, the id and each evidence described
/// (control characters escaped: details quote the code).
pub fn attempt_lists(doc: &ReportDoc) -> Vec<(String, Vec<SampleLines>)> {
    doc.sessions
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.tampering_attempts.is_empty())
        .map(|(i, s)| {
            let label = doc.labels.get(i).map_or(s.session.as_str(), String::as_str);
            let samples = s
                .tampering_attempts
                .iter()
                .map(|a| {
                    let id = format!("{} (sample {})", a.task_id, a.sample);
                    let ev = attempts::described(&a.evidence)
                        .iter()
                        .map(|line| escape_control(line).into_owned())
                        .collect();
                    (escape_control(&id).into_owned(), ev)
                })
                .collect();
            (escape_control(label).into_owned(), samples)
        })
        .collect()
}

/// A CSV row's fields for a session's rate (the columns of `report --format csv`).
pub fn csv_fields(doc: &ReportDoc, i: usize) -> Option<[String; 11]> {
    let s = doc.sessions.get(i)?;
    let r = &s.tampering_rate;
    let (x, (lo, hi)) = (r.rate?, r.ci95?);
    Some([
        s.session.clone(),
        doc.labels.get(i).cloned().unwrap_or_default(),
        "tampering_rate (lower bound)".into(),
        "all".into(),
        x.to_string(),
        lo.to_string(),
        hi.to_string(),
        String::new(),
        String::new(),
        r.samples.to_string(),
        "wilson".into(),
    ])
}

/// The LaTeX metrics table's row of the rate: `p [lo, hi]` per session, `--` without samples.
pub fn latex_row(doc: &ReportDoc) -> String {
    let mut row = String::from("Tampering rate (lower bound)");
    for s in &doc.sessions {
        let r = &s.tampering_rate;
        row += &match (r.rate, r.ci95) {
            (Some(x), Some((lo, hi))) => format!(
                " & {:.1} {{\\scriptsize[{:.1}, {:.1}]}}",
                100.0 * x,
                100.0 * lo,
                100.0 * hi
            ),
            _ => " & --".into(),
        };
    }
    row + " \\\\\n"
}
