//! `classlab forge SOURCE [FILTER] --out DIR`: differential tests generated from each class's
//! reference, written as a classlab dataset (docs/forge.md).

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use serde_json::json;

use super::progress::Progress;
use super::{Context, Outcome, Output, print_json};
use crate::corpus::walk::Shard;
use crate::forge::gate::Gates;
use crate::forge::run::{Job, Record, forge};
use crate::forge::sample::{self, DEFAULT_STRATA};
use crate::forge::source::{Source, closure_reason, from_store};
use crate::forge::task::Settings;
use crate::text::escape_control;

#[derive(Debug, clap::Args)]
pub struct ForgeArgs {
    /// A dataset (ClassEval JSON, classlab dataset, RealClassEval folder): only each task's
    /// reference solution and skeleton are read, never its tests. Or a corpus store (`corpus
    /// build`'s .db): each class as its executable closure; one that is not self-contained
    /// is dropped with the closure's reason.
    #[arg(value_name = "SOURCE")]
    pub source: PathBuf,
    /// For a dataset, a task-id glob (`*` any run, `?` one character), e.g. `ClassEval_1*`;
    /// for a corpus store, a `corpus query` filter, e.g. `methods >= 3 and self_contained`.
    #[arg(value_name = "FILTER")]
    pub filter: Option<String>,
    /// Directory of the forged dataset (`dataset.json`, one record per class in `tasks/`,
    /// `evidence.json`); a rerun resumes in it.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Forge only the classes of shard K of N (disjoint by task-id hash); shards may share
    /// --out, and the last to finish writes the dataset.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Draw a stratified sample of N classes from the filtered population.
    #[arg(long, value_name = "N")]
    pub sample: Option<usize>,
    /// Metrics whose quartiles stratify the sample.
    #[arg(long, value_name = "METRICS", value_delimiter = ',', default_values_t = DEFAULT_STRATA.map(String::from))]
    pub stratify: Vec<String>,
    /// Seed of the sample and of the explorer.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Gates a task must pass (fractions): branch coverage (line coverage for a class without
    /// branches) and mutation score.
    #[arg(
        long,
        value_name = "branch=B,mutation=M",
        default_value = "branch=0.9,mutation=0.8"
    )]
    pub gate: Gates,
    /// Exploration rounds per class.
    #[arg(long, value_name = "N", default_value_t = 600)]
    pub iterations: u32,
    /// Classes forged at once (default: one per core).
    #[arg(long)]
    pub jobs: Option<usize>,
    #[command(flatten)]
    pub harness: super::eval::HarnessArg,
    /// Ask a model for tests of uncovered arcs and surviving mutants (not available yet).
    #[arg(long, value_name = "PROFILE")]
    pub llm: Option<String>,
}

/// `*` and `?` glob over a task id.
fn glob(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

pub(crate) fn run(ctx: &Context, args: &ForgeArgs) -> anyhow::Result<Outcome> {
    if args.llm.is_some() {
        anyhow::bail!("forge --llm is not implemented yet: forge without it");
    }
    let source = if crate::corpus::schema::is_store(&args.source) {
        from_store(&args.source, args.filter.as_deref(), &args.out)?
    } else {
        let ds = crate::dataset::load(Some(&args.source))?;
        Source {
            name: format!("forged {}", ds.name),
            tasks: ds
                .tasks
                .into_iter()
                .filter(|t| args.filter.as_deref().is_none_or(|g| glob(g, &t.id)))
                .collect(),
            predropped: Default::default(),
            left_out: Default::default(),
            problems: ds.problems,
        }
    };
    let problems = super::warn_all(&source.problems);
    let population = source.tasks;
    if population.is_empty() {
        anyhow::bail!(
            "{}: no task matches {}",
            args.source.display(),
            args.filter.as_deref().unwrap_or("*")
        );
    }
    let strata: Vec<&str> = args.stratify.iter().map(String::as_str).collect();
    for s in &strata {
        if crate::analysis::metrics::metric_index(s).is_none() {
            anyhow::bail!("--stratify {s}: not an Understand metric (e.g. CountDeclMethod)");
        }
    }
    let chosen = match args.sample {
        Some(n) => {
            let metrics: Vec<_> = population.iter().map(sample::metrics_of).collect();
            sample::stratified(&metrics, &strata, n, args.seed)
        }
        None => (0..population.len()).collect(),
    };
    let ctx_ds = Context {
        dataset_path: Some(args.source.clone()),
        output: ctx.output,
        sessions: ctx.sessions.clone(),
        python: ctx.python.clone(),
    };
    let (exec, cancel) = super::eval::executor_and_cancel(&ctx_ds, false)?;
    let sandbox = crate::pipeline::eval::sandbox_of(&exec)?;
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let job = Job {
        population: &population,
        sample: chosen,
        shard: args.shard,
        settings: Settings {
            seed: args.seed,
            iterations: args.iterations,
            harness: args.harness.choose(None)?,
            ..Settings::default()
        },
        gates: args.gate,
        jobs,
        out: &args.out,
        name: source.name,
        predropped: source.predropped,
    };
    let bar = Progress::new(job.sample.len(), "classes");
    let human = ctx.output == Output::Human;
    let done = |id: &str, rec: &Record| {
        bar.inc();
        if human {
            let what = match &rec.dropped {
                Some((code, why)) => format!("dropped ({code}): {why}"),
                None => {
                    let e = &rec.evidence;
                    format!(
                        "{} tests, line {}, branch {}",
                        e["tests"], e["line"], e["branch"]
                    )
                }
            };
            bar.line(&format!("{} {}", escape_control(id), escape_control(&what)));
        }
    };
    let mut summary = forge(&sandbox, &job, &cancel, &done)?;
    // Selected classes no module of their own can hold never became tasks: counted here.
    for (why, n) in &source.left_out {
        let n = usize::try_from(*n).unwrap_or(usize::MAX);
        *summary.dropped.entry(closure_reason(why)).or_default() += n;
        summary.classes += n;
    }
    drop(bar);
    if cancel.load(Ordering::SeqCst) {
        anyhow::bail!("interrupted: rerun the same command to resume");
    }
    match ctx.output {
        Output::Json => print_json(&summary)?,
        Output::Human => {
            println!(
                "{} classes, sample {}: {} gated, {} below gate, {} dropped {} in {:.0} s",
                summary.classes,
                summary.sample,
                summary.gated,
                summary.below_gate,
                summary.dropped.values().sum::<usize>(),
                json!(summary.dropped),
                summary.seconds
            );
            match &summary.dataset {
                Some(p) => println!("dataset: {}", escape_control(&p.display().to_string())),
                None => println!("dataset not written yet: other shards are still to finish"),
            }
        }
    }
    Ok(Outcome { problems })
}

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn globs_match_ids() {
        assert!(glob("ClassEval_1*", "ClassEval_17"));
        assert!(glob("*_8", "ClassEval_8"));
        assert!(!glob("*_8", "ClassEval_18x"));
        assert!(glob("ClassEval_?", "ClassEval_8"));
        assert!(!glob("ClassEval_?", "ClassEval_18"));
        assert!(glob("*", ""));
    }
}
