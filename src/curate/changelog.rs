//! The changelog of an export: per task, who approved it, what was overridden, which findings
//! the edits resolved, the notes, and a unified diff of every edited field.

use std::fmt::Write;

use similar::TextDiff;

use super::edits::original_value;
use super::export::{Export, ExportedTask};
use super::review::Status;
use super::store::CurationStore;
use crate::dataset::Dataset;

/// The Markdown changelog of `export`.
pub fn changelog(dataset: &Dataset, store: &CurationStore, export: &Export, now: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Curation changelog: {}\n", dataset.name);
    let edited = export
        .tasks
        .iter()
        .filter(|t| !t.record.review.edits.is_empty())
        .count();
    let count = |s: Status| {
        dataset
            .tasks
            .iter()
            .filter(|t| store.review(&t.id).status == s)
            .count()
    };
    let _ = writeln!(
        out,
        "Exported {now} from `{}`: {} of {} tasks approved and exported ({edited} edited); \
{} rejected, {} need work, {} unreviewed.\n",
        dataset.origin,
        export.tasks.len(),
        dataset.tasks.len(),
        count(Status::Rejected),
        count(Status::NeedsWork),
        count(Status::Unreviewed),
    );
    for task in &export.tasks {
        task_section(&mut out, task);
    }
    let left_out: Vec<String> = dataset
        .tasks
        .iter()
        .filter_map(|t| {
            let review = store.review(&t.id);
            match review.status {
                Status::Approved => None,
                Status::Unreviewed if review.history.is_empty() => None,
                status => Some(match review.reason {
                    Some(reason) => format!("- {}: {status}: {}", t.id, one_line(&reason)),
                    None => format!("- {}: {status}", t.id),
                }),
            }
        })
        .chain(
            export
                .skipped
                .iter()
                .map(|(id, why)| format!("- {id}: approved but not exported: {why}")),
        )
        .collect();
    if !left_out.is_empty() {
        let _ = writeln!(out, "## Not exported\n\n{}\n", left_out.join("\n"));
    }
    out
}

fn task_section(out: &mut String, t: &ExportedTask) {
    let review = &t.record.review;
    let _ = writeln!(out, "## {} ({})\n", t.edited.id, t.edited.class_name);
    let _ = write!(out, "Approved by {} on {}", t.reviewer, t.reviewed);
    match &review.reason {
        Some(comment) => {
            let _ = writeln!(out, ": {}\n", one_line(comment));
        }
        None => out.push_str(".\n\n"),
    }
    for (gate, o) in &review.overrides {
        let _ = writeln!(
            out,
            "- Gate `{gate}` overridden by {} on {}: {}",
            o.who,
            o.when,
            one_line(&o.reason)
        );
    }
    for f in &t.resolved {
        let _ = writeln!(
            out,
            "- Resolved `{}` ({}): {}",
            f.key,
            f.severity,
            one_line(&f.message)
        );
    }
    for n in &review.notes {
        let _ = writeln!(
            out,
            "- Note by {} on {}: {}",
            n.who,
            n.when,
            one_line(&n.text)
        );
    }
    out.push('\n');
    for (path, new) in review.edits.fields() {
        let old = original_value(&t.original, &path).unwrap_or_default();
        let diff = TextDiff::from_lines(old.as_str(), new)
            .unified_diff()
            .context_radius(3)
            .header(&format!("original/{path}"), &format!("edited/{path}"))
            .to_string();
        let fence = fence_for(&diff);
        let _ = writeln!(out, "### `{path}`\n\n{fence}diff\n{diff}{fence}\n");
    }
}

/// A code fence longer than any run of backticks in `text`, so the diff cannot close it.
fn fence_for(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

/// Text on one line, for a list item.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_outgrow_the_backticks_inside() {
        assert_eq!(fence_for("plain"), "```");
        assert_eq!(fence_for("a ```` b"), "`````");
    }

    #[test]
    fn list_items_stay_on_one_line() {
        assert_eq!(one_line(" a\n  b\tc "), "a b c");
    }
}
