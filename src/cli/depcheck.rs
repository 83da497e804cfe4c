//! `classlab depcheck`: predicted dependencies scored against the ground truth (domain.md §4).

use std::path::Path;

use super::table::{Table, list};
use super::{Context, Outcome, Output, print_json, warn_all};
use crate::dataset::predictions;
use crate::depcheck::{DepCheck, GroundTruth, check};
use crate::metrics::deps::Metrics;

pub(crate) fn run(ctx: &Context, predictions_path: &Path, gt: &str) -> anyhow::Result<Outcome> {
    let (dataset, mut problems) = ctx.dataset()?;
    let preds = predictions::load_any(predictions_path, ctx.sessions.as_deref())?;
    problems += warn_all(&preds.problems);
    let truth = match gt {
        "extracted" => GroundTruth::Extracted,
        "annotated" => GroundTruth::Annotated,
        path => {
            let file = predictions::load(Path::new(path))?;
            problems += warn_all(&file.problems);
            GroundTruth::File(file)
        }
    };
    refuse_if_nothing_to_score(&preds, &dataset)?;
    let analyses = Context::analyses(&dataset);
    let result = check(&dataset.tasks, &analyses, &preds, &truth);
    // Everything that could not be matched is a problem of the input: say so on stderr too.
    for id in &result.unknown_tasks {
        eprintln!(
            "classlab: warning: {}: task {id}: not in the dataset ({}); not scored",
            preds.file, dataset.origin
        );
    }
    for u in &result.report.unknown_names {
        eprintln!(
            "classlab: warning: {}: task {}: `{}` ({}) is not a target method",
            preds.file, u.task_id, u.name, u.context
        );
    }
    for u in &result.truth_unknown_names {
        eprintln!(
            "classlab: warning: {}: task {}: `{}` is not in the dataset (kept in scoring)",
            truth.label(),
            u.task_id,
            u.name
        );
    }
    problems += result.unknown_tasks.len()
        + result.report.unknown_names.len()
        + result.truth_unknown_names.len();
    match ctx.output {
        Output::Json => print_json(&result)?,
        Output::Human => print_human(&result),
    }
    Ok(Outcome { problems })
}

/// Predictions of which no task is in the dataset would print a table of 0/0: refused, with
/// the reason (an empty file, or another dataset's tasks: a forgotten `--dataset`).
fn refuse_if_nothing_to_score(
    preds: &predictions::DepFile,
    dataset: &crate::dataset::Dataset,
) -> anyhow::Result<()> {
    let index = crate::model::TaskIndex::of(&dataset.tasks);
    if preds.tasks.keys().any(|id| index.contains(id)) {
        return Ok(());
    }
    if preds.tasks.is_empty() {
        anyhow::bail!(
            "{}: no valid prediction to score ({} entries unusable); nothing scored",
            preds.file,
            preds.problems.len()
        );
    }
    let shown: Vec<&str> = preds.tasks.keys().take(3).map(String::as_str).collect();
    let more = if preds.tasks.len() > shown.len() {
        ", …"
    } else {
        ""
    };
    anyhow::bail!(
        "{}: none of its {} tasks ({}{more}) is a task of the dataset {}; give the dataset the \
         predictions are for with --dataset; nothing scored",
        preds.file,
        preds.tasks.len(),
        shown.join(", "),
        dataset.origin
    )
}

fn metrics_row(label: &str, m: &Metrics) -> Vec<String> {
    // Over no method (a regime nothing falls in, every reply unreadable): `n/a`, not 0.
    let na = |s: String| if m.scored() { s } else { "n/a".into() };
    let f = |x: f64| na(format!("{x:.3}"));
    let p = |x: f64| na(format!("{x:.1}"));
    vec![
        label.into(),
        m.methods.to_string(),
        p(m.exact_pct),
        p(m.missing_only_pct),
        p(m.extra_only_pct),
        p(m.wrong_pct),
        f(m.macro_avg.precision),
        f(m.macro_avg.recall),
        f(m.macro_avg.f1),
        f(m.micro.precision),
        f(m.micro.recall),
        f(m.micro.f1),
        f(m.class_accuracy),
        format!("{}/{}", m.fully_correct_tasks, m.tasks),
    ]
}

pub(crate) fn print_human(r: &DepCheck) {
    let rep = &r.report;
    println!("ground truth: {}", r.ground_truth);
    let mut t = Table::new(&[
        "",
        "methods",
        "exact%",
        "miss%",
        "extra%",
        "wrong%",
        "P",
        "R",
        "F1",
        "microP",
        "microR",
        "microF1",
        "class acc",
        "fully correct",
    ])
    .right(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    t.row(metrics_row("overall", &rep.metrics));
    t.row(metrics_row("with deps", &rep.by_regime.with_deps));
    t.row(metrics_row("no deps", &rep.by_regime.no_deps));
    print!("{}", t.render());
    println!("(P/R/F1 macro over methods; micro = edge level)");
    println!(
        "\ntopological violations: {} of {} tasks",
        rep.metrics.tasks_with_violations, rep.metrics.tasks
    );
    for v in &rep.violations {
        let edges = list(v.violated_edges.iter().map(|[a, b]| format!("{a}->{b}")));
        print!("  {}: {edges}", v.task_id);
        if !v.missing_from_order.is_empty() {
            print!("  (missing from order: {})", list(&v.missing_from_order));
        }
        println!();
    }
    if !rep.unscored_tasks.is_empty() {
        println!(
            "\nnot in the predictions (not scored): {}",
            list(&rep.unscored_tasks)
        );
    }
    if !r.tasks_without_truth.is_empty() {
        println!("no ground truth for: {}", list(&r.tasks_without_truth));
    }
}
