//! What `classlab forge` recorded about a forged task (its provenance's `forge`): the gates it
//! passed or missed and the evidence behind them, beside the task in the review queue, so that
//! curation decides on a task kept below its gates with the numbers in view.

use ratatui::text::Line;
use serde_json::Value;

use crate::model::Task;
use crate::text::escape_control;
use crate::tui::shared::Shared;

/// Surviving mutants named before the rest are counted.
const SURVIVORS_SHOWN: usize = 2;

/// The forge's lines for `task`; none for a task the forge did not write.
pub(super) fn forge_lines(sh: &Shared, task: &Task) -> Vec<Line<'static>> {
    let Some(forge) = task.provenance.extra.get("forge") else {
        return Vec::new();
    };
    let theme = sh.theme();
    let gate = &forge["gate"];
    let below: Vec<String> = strings(&gate["below"]);
    let mut lines = vec![match gate["passed"].as_bool() {
        Some(true) => Line::styled("forge: passes its gates", theme.ok()),
        Some(false) => Line::styled(format!("forge: below gate · {}", below.join(" · ")), theme.warn()),
        None => Line::styled("forge: no gate recorded", theme.muted()),
    }];
    let ev = &forge["evidence"];
    let mut facts = vec![format!(
        "{} tests from {} sequences",
        count(&ev["tests"]),
        count(&ev["sequences"])
    )];
    if let Some(line) = ev["line"].as_f64() {
        facts.push(format!("line {line:.1}%"));
    }
    if let Some(branch) = ev["branch"].as_f64() {
        let of = &ev["branches"];
        facts.push(format!("branch {branch:.1}% ({}/{})", count(&of[0]), count(&of[1])));
    }
    let mutants = &ev["mutants"];
    if let Some(score) = ev["mutation"].as_f64() {
        facts.push(format!(
            "mutation {:.1}% ({} of {} killed)",
            score * 100.0,
            count(&mutants["killed"]),
            count(&mutants["mutants"])
        ));
    }
    lines.push(Line::styled(format!("evidence: {}", facts.join(" · ")), theme.muted()));
    let survived = mutants["survived"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    for m in survived.iter().take(SURVIVORS_SHOWN) {
        lines.push(Line::styled(
            format!(
                "survives l.{} {}: {} → {}",
                count(&m["line"]),
                escape_control(m["op"].as_str().unwrap_or("?")),
                escape_control(m["before"].as_str().unwrap_or("")),
                escape_control(m["after"].as_str().unwrap_or(""))
            ),
            theme.muted(),
        ));
    }
    if survived.len() > SURVIVORS_SHOWN {
        lines.push(Line::styled(
            format!("… {} more surviving mutants", survived.len() - SURVIVORS_SHOWN),
            theme.muted(),
        ));
    }
    lines
}

fn count(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|s| escape_control(s).into_owned())
        .collect()
}
