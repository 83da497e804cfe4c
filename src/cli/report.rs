//! `classlab report`: functional (with a 95 % interval on every metric), dependency,
//! repair-cost and usage tables of sessions side by side; with several sessions every pair
//! compared (Holm-adjusted); `--by PROPERTY` slices by a task property; `--format` writes
//! Markdown, HTML, CSV, LaTeX or JSON for a paper.

pub(crate) mod doc;
mod html;
mod svg;
mod tampering;
pub(crate) mod text;

use std::path::PathBuf;

use anyhow::{Context as _, bail};

use super::eval::{load_folded, print_human as print_functional};
use super::table::Table;
use super::{Context, Outcome, Output, print_json};
use crate::session::report::RunReport;
use crate::session::{EvalState, SessionLog};

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// Session ids or directories.
    #[arg(required = true, value_name = "SESSION")]
    pub ids: Vec<String>,
    /// Slice the metrics by a task property: methods, loc, dep_edges, dep_depth,
    /// docstring_coverage, branch_coverage, line_coverage, mutation_score (the strength of
    /// the task's tests, from `classlab rigor`'s store), an Understand metric of a
    /// RealClassEval task (e.g. CountLine), or first_seen (by year of the class's first
    /// commit: `corpus dates`, carried by `corpus export`).
    #[arg(long, value_name = "PROPERTY")]
    pub by: Option<String>,
    /// With `--by first_seen` (implied): split the results into classes first seen on or
    /// before DATE (a model's training cut-off, YYYY-MM-DD) and after it.
    #[arg(long, value_name = "DATE")]
    pub cutoff: Option<String>,
    /// The rigor store `--by branch_coverage|line_coverage|mutation_score` reads (default:
    /// rigor.db in classlab's data directory, as `classlab rigor` writes it).
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
    /// Quantile bins of `--by`.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub bins: usize,
    /// md | html | csv | latex | json (default: tables on the terminal; `--json` is json).
    #[arg(
        long,
        value_name = "FORMAT",
        value_parser = ["md", "markdown", "html", "csv", "latex", "tex", "json"],
        ignore_case = true
    )]
    pub format: Option<String>,
    /// Write the report here instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

pub(crate) fn report_cmd(ctx: &Context, args: &ReportArgs) -> anyhow::Result<Outcome> {
    let format = match (args.format.as_deref(), ctx.output) {
        (Some(f), _) => f.to_ascii_lowercase(),
        (None, Output::Json) => "json".into(),
        (None, Output::Human) => "text".into(),
    };
    if ![
        "text", "md", "markdown", "html", "csv", "latex", "tex", "json",
    ]
    .contains(&format.as_str())
    {
        bail!("unknown --format `{format}` (md, html, csv, latex or json)");
    }
    let (loaded, mut problems) = load_folded(ctx, &args.ids)?;
    let doc = doc::build(ctx, &loaded, args, &mut problems)?;
    let rendered = match format.as_str() {
        "text" => {
            let rows: Vec<_> = loaded
                .iter()
                .zip(&doc.sessions)
                .map(|((l, s), r)| (l, s, r))
                .collect();
            print_reports(&rows);
            text::print_extras(&doc);
            return Ok(Outcome { problems });
        }
        "json" => {
            if args.out.is_none() {
                print_json(&doc)?;
                return Ok(Outcome { problems });
            }
            serde_json::to_string_pretty(&doc)? + "\n"
        }
        "md" | "markdown" => text::markdown(&doc),
        "csv" => text::csv(&doc)?,
        "latex" | "tex" => text::latex(&doc),
        _ => html::html(&doc),
    };
    match &args.out {
        Some(path) => {
            std::fs::write(path, rendered)
                .with_context(|| format!("cannot write {}", path.display()))?;
            eprintln!("classlab: wrote {}", path.display());
        }
        None => print!("{rendered}"),
    }
    Ok(Outcome { problems })
}

/// A dependency figure of a TDD run (`None` for other strategies); `n/a` when no method was
/// scored (every reply unreadable: unscored, not perfect).
fn dep(r: &RunReport, f: fn(&crate::metrics::deps::Metrics) -> String) -> Option<String> {
    r.dependency.as_ref().map(|d| {
        if d.report.metrics.scored() {
            f(&d.report.metrics)
        } else {
            "n/a".into()
        }
    })
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// The functional table (as `fingerprint` prints it), then dependency, repair and usage.
pub(crate) fn print_reports(rows: &[(&SessionLog, &EvalState, &RunReport)]) {
    let functional: Vec<_> = rows.iter().map(|(l, s, _)| (*l, *s)).collect();
    print_functional(&functional);
    let mut header = vec![String::new()];
    header.extend(rows.iter().map(|(l, _, _)| l.meta.id.clone()));
    let refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let right: Vec<usize> = (1..header.len()).collect();
    let mut t = Table::new(&refs).right(&right);
    let row = |label: &str, f: &dyn Fn(&RunReport) -> String| {
        let mut r = vec![label.to_string()];
        r.extend(rows.iter().map(|(_, _, rep)| f(rep)));
        r
    };
    t.row(row("provider", &|r| {
        r.provider.clone().unwrap_or_else(|| "-".into())
    }));
    type Cell = fn(&RunReport) -> Option<String>;
    let cells: [(&str, Cell); 17] = [
        ("deps scored tasks", |r| {
            r.dependency.as_ref().map(|d| {
                let unscored = d.report.unscored_tasks.len();
                let scored = d.report.metrics.tasks;
                match unscored {
                    0 => scored.to_string(),
                    n => format!("{scored} ({n} unreadable, unscored)"),
                }
            })
        }),
        ("deps exact", |r| dep(r, |m| pct(m.exact_pct / 100.0))),
        ("deps macro F1", |r| {
            dep(r, |m| format!("{:.3}", m.macro_avg.f1))
        }),
        ("deps micro F1", |r| {
            dep(r, |m| format!("{:.3}", m.micro.f1))
        }),
        ("deps class accuracy", |r| dep(r, |m| pct(m.class_accuracy))),
        ("deps fully correct", |r| {
            dep(r, |m| m.fully_correct_tasks.to_string())
        }),
        ("order violations", |r| {
            dep(r, |m| m.tasks_with_violations.to_string())
        }),
        ("repair rounds/method", |r| {
            r.repair.map(|c| format!("{:.2}", c.avg_rounds_per_method))
        }),
        ("methods repaired", |r| {
            r.repair.map(|c| c.methods_repaired.to_string())
        }),
        ("rounds when repaired", |r| {
            r.repair
                .map(|c| format!("{:.2}", c.avg_rounds_when_repaired))
        }),
        ("repair rounds/class", |r| {
            r.repair.map(|c| format!("{:.2}", c.avg_rounds_per_class))
        }),
        ("classes repaired", |r| {
            r.repair.map(|c| c.classes_repaired.to_string())
        }),
        ("requests", |r| Some(r.usage.requests.to_string())),
        ("retries", |r| Some(r.usage.retries.to_string())),
        ("prompt tokens", |r| Some(r.usage.prompt_tokens.to_string())),
        ("completion tokens", |r| {
            Some(r.usage.completion_tokens.to_string())
        }),
        ("model seconds", |r| Some(format!("{:.1}", r.usage.seconds))),
    ];
    for (label, cell) in cells {
        t.row(row(label, &|r| cell(r).unwrap_or_else(|| "-".into())));
    }
    print!("{}", t.render());
}
