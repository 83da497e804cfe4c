//! `classlab validate`: run each task's reference against its private and public tests twice
//! in the sandbox (fresh directories, two hash seeds) and report T11/T5/T8/T9/I2 findings and
//! line coverage. Findings are results, not errors: the exit code is 0 (3 when the dataset had
//! loading problems). With a curation store, the tasks are validated as edited there and the
//! outcomes are recorded for the approval gate.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::bail;
use serde_json::json;

use super::eval::executor_and_cancel;
use super::table::Table;
use super::{Context, Outcome, Output, print_json};
use crate::curate::validate::{self, Summary, TaskValidation, ValidateOptions};
use crate::curate::{edited_task, record_validations, store};
use crate::model::{Task, TaskIndex};
use crate::pipeline::testless;
use crate::text::Escaped;

#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// Only these tasks (comma-separated ids).
    #[arg(long, value_name = "ID,…", value_delimiter = ',')]
    pub tasks: Vec<String>,
    /// Suites run at once (default: one per core).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Time budget of each test class, in seconds. Tracing and coverage slow tests down, so
    /// the default is four times the evaluator's 5 s (ClassEval_35's search needs over 10 s).
    #[arg(long, value_name = "SECS", default_value_t = 20.0)]
    pub timeout: f64,
    /// Do not measure line coverage.
    #[arg(long)]
    pub no_coverage: bool,
    /// Start a fresh interpreter per suite instead of forking a warm one.
    #[arg(long)]
    pub cold: bool,
    /// The curation store whose edited tasks to validate and where to record the outcomes
    /// (for the approval gate). Default: the dataset's store in classlab's data directory
    /// (see `classlab curate`).
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
    /// (`split`: the suites run uninstrumented; calls, left files and coverage are measured
    /// in-process only.)
    #[command(flatten)]
    pub harness: super::eval::HarnessArg,
}

pub(crate) fn run(ctx: &Context, args: &ValidateArgs) -> anyhow::Result<Outcome> {
    let (dataset, mut problems) = ctx.dataset()?;
    let missing = TaskIndex::of(&dataset.tasks).missing(&args.tasks);
    if !missing.is_empty() {
        bail!("no such task(s) in the dataset: {}", missing.join(", "));
    }
    let wanted: std::collections::HashSet<&String> = args.tasks.iter().collect();
    let selected = dataset
        .tasks
        .iter()
        .filter(|t| wanted.is_empty() || wanted.contains(&t.id));
    // A reference with no test to pass has not passed anything: tasks without tests are not
    // validated (none at all is refused, nothing recorded).
    let (originals, without_tests) = testless::split(selected);
    if originals.is_empty() && !without_tests.is_empty() {
        bail!(
            "{}",
            testless::none_has_tests(&without_tests, "validate", "nothing was recorded")
        );
    }
    if !without_tests.is_empty() {
        eprintln!(
            "classlab: warning: {}",
            Escaped(&testless::skipped_warning(
                &without_tests,
                originals.len() + without_tests.len()
            ))
        );
        problems += 1;
    }
    // With a curation store, the tasks as edited there are what the gate asks about.
    // The store is classlab's own (the data directory, or the sessions directory for the
    // sample) unless --store says otherwise: the results are always recorded there.
    let store_path = Some(store::default_path(
        args.store.as_deref(),
        ctx.dataset_path.as_deref(),
        &crate::dataset::digest(&dataset),
        ctx.sessions.as_deref(),
    ));
    let edited: Vec<Task> = match &store_path {
        Some(path) => {
            let st = store::load(path)?;
            originals.iter().map(|t| edited_task(&st, t)).collect()
        }
        None => originals.iter().map(|t| (*t).clone()).collect(),
    };
    let tasks: Vec<&Task> = edited.iter().collect();
    let (exec, cancel) = executor_and_cancel(ctx, args.cold)?;
    let sandbox = exec.sandbox()?;
    let opts = ValidateOptions {
        jobs: args.jobs.unwrap_or(0),
        budget: Duration::from_secs_f64(args.timeout.clamp(0.1, 3600.0)),
        coverage: !args.no_coverage,
        // References are trusted and their probe needs them in the tests' process.
        harness: args
            .harness
            .harness
            .unwrap_or(crate::exec::VALIDATE_HARNESS),
        ..ValidateOptions::default()
    };
    let t0 = Instant::now();
    let total = tasks.len();
    let mut done = 0;
    let human = ctx.output == Output::Human;
    let bar = super::progress::Progress::new(total, "tasks");
    let results = validate::validate(&tasks, &sandbox, &opts, &cancel, &mut |v| {
        done += 1;
        bar.inc();
        if human {
            bar.line(&format!("[{done:>4}/{total}] {}", progress_line(v)));
        }
    });
    if cancel.load(Ordering::SeqCst) {
        bar.interrupted();
    }
    drop(bar);
    let validated: std::collections::HashSet<&str> =
        results.iter().map(|r| r.task_id.as_str()).collect();
    let methods: usize = tasks
        .iter()
        .filter(|t| validated.contains(t.id.as_str()))
        .map(|t| t.methods.len())
        .sum();
    let summary = validate::summarize(&results, methods, t0.elapsed().as_secs_f64());
    let cancelled = cancel.load(Ordering::SeqCst);
    if let Some(path) = &store_path {
        let stale = record_validations(path, &originals, &edited, &results)?;
        for id in stale {
            eprintln!(
                "classlab: warning: {} was edited while it was validated: not recorded",
                Escaped(&id)
            );
        }
        if human {
            eprintln!(
                "validation recorded in {}",
                Escaped(&path.display().to_string())
            );
        }
    }
    match ctx.output {
        Output::Json => print_json(&json!({
            "tasks": results,
            "summary": summary,
            "complete": !cancelled && results.len() == total,
            "store": store_path,
        }))?,
        Output::Human => {
            for v in &results {
                print_task(v);
            }
            print_summary(&summary);
            if cancelled {
                println!(
                    "stopped before the end: {} of {total} tasks validated",
                    results.len()
                );
            }
        }
    }
    Ok(Outcome { problems })
}

fn pct(p: Option<f64>) -> String {
    p.map_or("-".into(), |p| format!("{p:.1}%"))
}

/// `private 3/4 public 2/2`: tests passed in both runs, of all.
fn counts(v: &TaskValidation) -> String {
    let r = &v.reference;
    format!(
        "private {}/{} public {}/{}",
        r.private.passed, r.private.total, r.public.passed, r.public.total
    )
}

fn agree(v: &TaskValidation) -> &'static str {
    if v.runs_agree { "agree" } else { "DIFFER" }
}

fn progress_line(v: &TaskValidation) -> String {
    let codes: BTreeSet<&str> = v.findings.iter().map(|f| f.code).collect();
    let codes: Vec<&str> = codes.into_iter().collect();
    format!(
        "{:<16} {} {}  {}",
        v.task_id,
        counts(v),
        agree(v),
        codes.join(" ")
    )
    .trim_end()
    .to_string()
}

fn print_task(v: &TaskValidation) {
    println!(
        "{} — reference (tests passed in both runs): {}; runs {}; class coverage {} (branch {})",
        Escaped(&v.task_id),
        counts(v),
        agree(v),
        pct(v.coverage.class),
        pct(v.coverage.branch)
    );
    let mut t =
        Table::new(&["method", "public tests", "cov (public)", "cov (private)"]).right(&[2, 3]);
    for (m, c) in &v.coverage.methods {
        let has = if v.no_public_tests.contains(m) {
            "none"
        } else {
            "yes"
        };
        let private = v.coverage.private_methods.get(m).copied().flatten();
        t.row(vec![m.clone(), has.into(), pct(*c), pct(private)]);
    }
    print!("{}", t.render());
    if !v.findings.is_empty() {
        let mut f = Table::new(&["code", "severity", "method", "where", "message"]);
        for x in &v.findings {
            let whr = match x.line {
                Some(l) => format!("{}:{l}", x.part.as_str()),
                None => x.part.as_str().to_string(),
            };
            f.row(vec![
                x.code.into(),
                x.severity.as_str().into(),
                x.method.clone().unwrap_or_else(|| "-".into()),
                whr,
                x.message.clone(),
            ]);
        }
        print!("{}", f.render());
    }
    for n in &v.notes {
        println!("note: {}", Escaped(n));
    }
    println!();
}

fn print_summary(s: &Summary) {
    println!(
        "{} tasks validated in {:.1} s: {} pass every test twice with agreeing runs",
        s.tasks, s.wall_s, s.passed_twice
    );
    if !s.tasks_by_code.is_empty() {
        let mut t = Table::new(&["code", "findings", "tasks", "task ids"]).right(&[1, 2]);
        for (code, ids) in &s.tasks_by_code {
            let n = s.findings_by_code.get(code).copied().unwrap_or(0);
            t.row(vec![
                code.clone(),
                n.to_string(),
                ids.len().to_string(),
                ids.join(" "),
            ]);
        }
        print!("{}", t.render());
    }
    println!(
        "methods with public tests: {}, without: {}",
        s.methods_with_public_tests, s.methods_without_public_tests
    );
    println!(
        "class coverage by the private tests: mean {} over {} tasks",
        pct(s.mean_class_coverage),
        s.coverage_measured
    );
    for n in &s.notes {
        println!("note: {}", Escaped(n));
    }
}
