//! `classlab forge SOURCE [FILTER] --out DIR`: differential tests generated from each class's
//! reference, written as a classlab dataset (docs/forge.md).

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use serde_json::json;

use super::progress::Progress;
use super::{Context, Outcome, Output, print_json};
use crate::corpus::walk::Shard;
use crate::forge::gate::Gates;
use crate::forge::llm::Step;
use crate::forge::llm::journal::{Answerer, Journal, SessionInfo};
use crate::forge::run::{Job, Record, forge};
use crate::forge::sample::{self, DEFAULT_STRATA};
use crate::forge::source::{Source, closure_reason, from_store};
use crate::forge::task::Settings;
use crate::llm::Params;
use crate::llm::endpoint::EndpointFlags;
use crate::session::store::DatasetRef;
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
    /// Ask a model (an endpoint profile of the config file, `[endpoints.NAME]`) for tests of
    /// the arcs, lines and mutants each forged suite misses; a test is kept only if it passes
    /// on the reference every time and adds coverage or kills. Recorded as a `forge` session.
    #[arg(long, value_name = "PROFILE")]
    pub llm: Option<String>,
    /// Prompts per task under --llm (each names what is still missed).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub llm_rounds: u32,
    /// Take the model's answers from a recorded forge session (its id or directory) instead
    /// of asking a model: the same inputs give the same dataset.
    #[arg(long, value_name = "SESSION", conflicts_with = "llm")]
    pub llm_replay: Option<String>,
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
        llm: None,
    };
    let step = llm_step(ctx, args, &population, &job)?;
    let job = Job {
        llm: step.as_ref(),
        ..job
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
    let forged = forge(&sandbox, &job, &cancel, &done);
    if let Some(step) = &step {
        step.journal
            .finish(forged.is_err() || cancel.load(Ordering::SeqCst))?;
    }
    let mut summary = forged?;
    if let (Some(totals), Some(step)) = (summary.llm.as_mut(), &step) {
        totals.session = Some(step.journal.dir().display().to_string());
    }
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
            if let Some(l) = &summary.llm {
                println!(
                    "model-written tests: {} proposed, {} kept ({} tasks improved), dropped {}; session {}",
                    l.proposed,
                    l.kept,
                    l.tasks_improved,
                    json!(l.dropped),
                    escape_control(l.session.as_deref().unwrap_or("?"))
                );
            }
            match &summary.dataset {
                Some(p) => println!("dataset: {}", escape_control(&p.display().to_string())),
                None => println!("dataset not written yet: other shards are still to finish"),
            }
        }
    }
    Ok(Outcome { problems })
}

/// The `--llm` step: the endpoint profile's client (or the replayed session) and the forge's
/// session, opened (or resumed) under the sessions root.
fn llm_step(
    ctx: &Context,
    args: &ForgeArgs,
    population: &[crate::model::Task],
    job: &Job<'_>,
) -> anyhow::Result<Option<Step>> {
    let root = crate::session::store::sessions_root(ctx.sessions.as_deref());
    let answerer = match (&args.llm, &args.llm_replay) {
        (Some(profile), _) => {
            let (config, path) = (crate::config::current(), crate::config::shown_path());
            let flags = EndpointFlags {
                endpoint: Some(profile.clone()),
                base_url: None,
                model: None,
                api_key_env: None,
            };
            let client = crate::pipeline::providers::openai(&flags, config, &path)
                .map_err(anyhow::Error::msg)?;
            client.reachable().map_err(anyhow::Error::msg)?;
            Answerer::Model(client)
        }
        (None, Some(s)) => Answerer::Replay(super::eval::resolve_session(&root, s)?),
        (None, None) => {
            if args.llm_rounds != 1 {
                return Err(
                    super::UsageError("--llm-rounds needs --llm or --llm-replay".into()).into(),
                );
            }
            return Ok(None);
        }
    };
    // The dataset the session is about: the sampled tasks' ids and references.
    let mut digest_input = Vec::new();
    let mut tasks = Vec::new();
    for &i in &job.sample {
        let t = &population[i];
        for part in [&t.id, &t.solution] {
            digest_input.extend_from_slice(part.as_bytes());
            digest_input.push(0);
        }
        tasks.push(t.id.clone());
    }
    std::fs::create_dir_all(&args.out)?;
    let info = SessionInfo {
        sessions_root: &root,
        out: &args.out,
        shard: args.shard.map(|s| (s.k, s.n)),
        dataset: DatasetRef {
            origin: args.source.display().to_string(),
            name: job.name.clone(),
            tasks: tasks.len(),
            digest: crate::session::store::sha256_hex(&digest_input),
        },
        config: json!({
            "command": "forge", "llm": args.llm, "llm_replay": args.llm_replay,
            "llm_rounds": args.llm_rounds, "out": args.out, "seed": args.seed,
            "iterations": args.iterations, "prompt": "assets/prompts/forge-tests.md",
        }),
        tasks,
    };
    let journal = Journal::open(answerer, Params::default(), info)?;
    Ok(Some(Step {
        journal,
        rounds: args.llm_rounds,
    }))
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
