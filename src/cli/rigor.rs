//! `classlab rigor`: branch coverage and mutation analysis of each task's reference under its
//! own tests (docs/rigor.md); `classlab rigor merge OUT IN...` joins shard stores.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::bail;
use serde_json::{Map, Value, json};

use super::eval::executor_and_cancel;
use super::table::Table;
use super::{Context, Outcome, Output, print_json};
use crate::corpus::Shard;
use crate::model::{Task, TaskIndex};
use crate::rigor::plan::{self, Event, RunConfig};
use crate::rigor::store::{self, Store};
use crate::rigor::{Options, Runner, Summary, TaskRigor, summarize};

#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct RigorArgs {
    #[command(subcommand)]
    pub command: Option<RigorCommand>,
    /// Only these tasks (comma-separated ids).
    #[arg(long, value_name = "ID,…", value_delimiter = ',')]
    pub tasks: Vec<String>,
    /// Tasks analysed at once (default: one per core).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Seconds per task after which its remaining mutants are left `not_run`.
    #[arg(long, value_name = "SECS")]
    pub task_budget: Option<f64>,
    /// Recompute tasks the store already holds.
    #[arg(long)]
    pub no_cache: bool,
    /// Analyse only the K-th of N disjoint shards of the tasks (by a hash of each id).
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// The results store (default: rigor.db in classlab's data directory).
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
    /// The mutant runner: `schemata` (warm, covering tests first) or `plain` (the benchmark's
    /// straightforward baseline: a fork importing each mutant, the whole suite in order).
    #[arg(long, value_name = "RUNNER", default_value = "schemata", hide = true)]
    pub runner: String,
}

#[derive(Debug, clap::Subcommand)]
pub enum RigorCommand {
    /// Merge rigor stores (e.g. shards) into OUT.
    Merge {
        out: PathBuf,
        #[arg(required = true, value_name = "IN")]
        inputs: Vec<PathBuf>,
    },
}

pub(crate) fn run(ctx: &Context, args: &RigorArgs) -> anyhow::Result<Outcome> {
    if let Some(RigorCommand::Merge { out, inputs }) = &args.command {
        let n = store::merge(out, inputs)?;
        match ctx.output {
            Output::Json => print_json(&json!({"out": out, "rows": n}))?,
            Output::Human => println!("{n} results merged into {}", out.display()),
        }
        return Ok(Outcome::clean());
    }
    let (dataset, problems) = ctx.dataset()?;
    let missing = TaskIndex::of(&dataset.tasks).missing(&args.tasks);
    if !missing.is_empty() {
        bail!("no such task(s) in the dataset: {}", missing.join(", "));
    }
    let wanted: HashSet<&String> = args.tasks.iter().collect();
    let tasks: Vec<&Task> = dataset
        .tasks
        .iter()
        .filter(|t| wanted.is_empty() || wanted.contains(&t.id))
        .collect();
    let runner = match args.runner.as_str() {
        "schemata" => Runner::Schemata,
        "plain" => Runner::Plain,
        other => bail!("--runner {other}: expected schemata or plain"),
    };
    let task_budget = match args.task_budget {
        Some(s) if !(s > 0.0 && s.is_finite()) => bail!("--task-budget {s}: expected seconds > 0"),
        s => s.map(Duration::from_secs_f64),
    };
    let store_path = args.store.clone().unwrap_or_else(store::default_path);
    let store = Store::open(&store_path)?;
    let (exec, cancel) = executor_and_cancel(ctx, true)?;
    let sandbox = exec.sandbox()?;
    let cfg = RunConfig {
        options: Options {
            task_budget,
            runner,
            ..Options::default()
        },
        jobs: args.jobs.unwrap_or(0),
        no_cache: args.no_cache,
        shard: args.shard,
        keep_order: false,
    };
    let human = ctx.output == Output::Human;
    let total = tasks
        .iter()
        .filter(|t| args.shard.is_none_or(|s| s.holds(&t.id)))
        .count();
    let bar = super::progress::Progress::new(total, "tasks");
    let t0 = Instant::now();
    let (mut done, mut cached, mut computed_mutants) = (0usize, 0usize, 0usize);
    let mut failed: Vec<(String, String)> = Vec::new();
    let results = plan::run(
        &tasks,
        &sandbox,
        Some(&store),
        &cfg,
        &cancel,
        &mut |e| match e {
            Event::Done { result, cached: c } => {
                done += 1;
                cached += usize::from(c);
                if !c {
                    computed_mutants += result.mutants.len();
                }
                bar.inc();
                if human {
                    bar.line(&format!("[{done:>4}/{total}] {}", task_line(result, c)));
                }
            }
            Event::Failed { task_id, error } => {
                done += 1;
                bar.inc();
                eprintln!("classlab: error: {task_id}: {error}");
                failed.push((task_id.to_string(), error));
            }
            Event::Mutant { .. } => {}
        },
    )?;
    drop(bar);
    let elapsed = t0.elapsed().as_secs_f64();
    let summary = summarize(&results);
    let complete = !cancel.load(Ordering::SeqCst) && failed.is_empty() && results.len() == total;
    let run = json!({
        "elapsed_s": elapsed,
        "computed": results.len() - cached,
        "cached": cached,
        "failed": failed.iter().map(|(t, e)| json!({"task": t, "error": e})).collect::<Vec<_>>(),
        "mutants_per_s": (computed_mutants > 0).then(|| computed_mutants as f64 / elapsed),
        "runner": cfg.options.runner,
        "jobs": cfg.jobs,
        "store": store_path,
        "complete": complete,
    });
    match ctx.output {
        Output::Json => {
            let mut by_task = Map::new();
            for r in &results {
                by_task.insert(r.task_id.clone(), r.json());
            }
            let mut s = serde_json::to_value(&summary)?;
            if let (Value::Object(s), Value::Object(run)) = (&mut s, run) {
                s.extend(run);
            }
            print_json(&json!({"tasks": by_task, "summary": s}))?;
        }
        Output::Human => {
            if results.len() <= 20 {
                for r in &results {
                    print_survivors(r);
                }
            }
            print_summary(&summary);
            println!(
                "{} tasks in {elapsed:.1} s ({} computed, {cached} from {}){}",
                results.len(),
                results.len() - cached,
                store_path.display(),
                if computed_mutants > 0 {
                    format!(", {:.1} mutants/s", computed_mutants as f64 / elapsed)
                } else {
                    String::new()
                }
            );
            if !complete {
                println!("incomplete: rerun to finish (finished tasks are kept in the store)");
            }
        }
    }
    Ok(Outcome { problems })
}

fn pct(p: Option<f64>) -> String {
    p.map_or("-".into(), |p| format!("{p:.1}%"))
}

fn task_line(r: &TaskRigor, cached: bool) -> String {
    let c = r.counts();
    let cov = r.coverage.as_ref();
    let mut line = format!(
        "{:<18} line {:>6} branch {:>6}  mutants {:>3} killed {:>3} survived {:>3} equivalent {:>2} score {}  {:.1} s{}",
        r.task_id,
        pct(cov.and_then(|c| c.line)),
        pct(cov.and_then(|c| c.branch)),
        c.mutants,
        c.killed,
        c.survived,
        c.equivalent,
        c.score().map_or("-".into(), |s| format!("{s:.3}")),
        r.wall_s,
        if cached { " (stored)" } else { "" }
    );
    if let Some(e) = &r.error {
        line.push_str(&format!("  [{e}]"));
    }
    line
}

fn print_survivors(r: &TaskRigor) {
    let mut t = Table::new(&["line", "operator", "before", "after"]).right(&[0]);
    for m in r.survivors() {
        t.row(vec![
            m.diff.line.to_string(),
            m.mutant.op.to_string(),
            m.diff.before.clone(),
            m.diff.after.clone(),
        ]);
    }
    let c = r.counts();
    println!(
        "{}: {} surviving mutants of {}",
        r.task_id, c.survived, c.mutants
    );
    if c.survived > 0 {
        print!("{}", t.render());
    }
    if !r.excluded.is_empty() {
        let names: Vec<String> = r
            .excluded
            .iter()
            .map(|(t, o)| format!("{t} ({o})"))
            .collect();
        println!(
            "  left out (not passing on the reference): {}",
            names.join(", ")
        );
    }
}

fn print_summary(s: &Summary) {
    let mut t =
        Table::new(&["figure", "tasks", "mean", "median", "95% CI of mean"]).right(&[1, 2, 3]);
    let row =
        |t: &mut Table, name: &str, d: &Option<crate::rigor::summary::Distribution>, scale: f64| {
            if let Some(d) = d {
                t.row(vec![
                    name.into(),
                    d.n.to_string(),
                    format!("{:.1}", d.mean * scale),
                    format!("{:.1}", d.median * scale),
                    d.ci95.map_or("-".into(), |(a, b)| {
                        format!("{:.1}–{:.1}", a * scale, b * scale)
                    }),
                ]);
            }
        };
    row(&mut t, "line coverage %", &s.line, 1.0);
    row(&mut t, "branch coverage %", &s.branch, 1.0);
    row(&mut t, "mutation score %", &s.score, 100.0);
    print!("{}", t.render());
    let c = &s.totals;
    println!(
        "mutants {} · killed {} (timeouts {}) · survived {} · equivalent {} · not run {} · {} tasks without branches · {} tests left out",
        c.mutants,
        c.killed,
        c.timeouts,
        c.survived,
        c.equivalent,
        c.not_run,
        s.no_branches,
        s.excluded_tests
    );
    let slow: Vec<String> = s
        .slowest
        .iter()
        .map(|x| format!("{} {:.1} s", x.task, x.seconds))
        .collect();
    println!("slowest: {}", slow.join(", "));
    for (t, e) in &s.errors {
        println!("not analysed: {t}: {e}");
    }
}
