//! Generation runs started from the TUI: the new-run dialog's choices (endpoint profiles,
//! sessions to replay) and the run itself, through `pipeline::run` on a background thread,
//! every event and every streamed piece of text sent back as an [`Action`].

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::Sender;

use anyhow::Context as _;

use super::action::{Action, Delivered};
use super::evals::short_date;
use super::jobs::EvalSetup;
use super::runs::RunSetup;
use crate::dataset::Dataset;
use crate::llm::Params;
use crate::pipeline::prompts::Prompts;
use crate::pipeline::providers::{self, ProviderChoice};
use crate::pipeline::public_tests::PublicTestsMode;
use crate::pipeline::run::{self as pipeline_run, RunRequest, Update};
use crate::pipeline::schedule::ScheduleMode;
use crate::session::store;

/// The config's endpoint profiles, and the generation sessions under `root` (newest first)
/// as (label, directory).
pub fn choices(root: &Path) -> (Vec<String>, Vec<(String, PathBuf)>) {
    // The config loaded at startup (a malformed one stopped classlab before the TUI opened).
    let endpoints = crate::config::current().endpoints.keys().cloned().collect();
    let replays = store::list(root)
        .into_iter()
        .filter(|(_, meta)| meta.kind == "run")
        .map(|(dir, meta)| {
            let label = format!(
                "{} · {} · {}",
                meta.model.as_deref().unwrap_or("?"),
                meta.strategy.as_deref().unwrap_or("?"),
                short_date(&meta.created)
            );
            (label, dir)
        })
        .collect();
    (endpoints, replays)
}

/// The provider and sampling parameters of the dialog's run, as `classlab run` makes them from
/// `--endpoint --base-url --model --api-key-env --temperature --max-tokens --seed`.
pub fn run_parameters(run: &RunSetup) -> (ProviderChoice, Params) {
    let choice = ProviderChoice {
        kind: run.provider.clone(),
        endpoint: run.endpoint.clone(),
        base_url: run.base_url.clone(),
        model: run.model.clone(),
        api_key_env: run.api_key_env.clone(),
        replay_from: run.replay_from.clone(),
    };
    let mut params = Params::default();
    if let Some(t) = run.temperature {
        params.temperature = t;
    }
    params.max_tokens = run.max_tokens;
    params.seed = run.seed;
    (choice, params)
}

/// Generate with `run` on `dataset` as a new session, sending every event and streamed text;
/// the session directory when it ends (finished or stopped through `cancel`).
pub fn generate(
    setup: &EvalSetup,
    run: &RunSetup,
    dataset: &Dataset,
    cancel: &AtomicBool,
    tx: &Sender<Action>,
) -> anyhow::Result<PathBuf> {
    let (choice, params) = run_parameters(run);
    let provider = providers::build(
        &choice,
        dataset,
        crate::config::current(),
        &crate::config::shown_path(),
    )
    .map_err(anyhow::Error::msg)?;
    let schedule: ScheduleMode = run.schedule.parse().map_err(anyhow::Error::msg)?;
    let public_tests: PublicTestsMode = run
        .public_tests
        .parse()
        .map_err(|e: String| anyhow::anyhow!("public tests: {e}"))?;
    // As `classlab run` does: `<config dir>/prompts` overrides the embedded templates.
    let user_prompts = crate::config::config_dir().map(|d| d.join("prompts"));
    let prompts = Prompts::load(user_prompts.filter(|d| d.is_dir()).as_deref())
        .context("cannot read the prompt templates")?;
    for w in &prompts.warnings {
        let _ = tx.send(Action::EvalNotice(format!("prompts: {w}")));
    }
    let exec = super::jobs::executor(setup, tx)?;
    let req = RunRequest {
        tasks: run.tasks.clone(),
        jobs: run.jobs,
        max_repairs: run.max_repairs,
        schedule,
        public_tests,
        prompts,
        params,
        provider_choice: Some(choice),
        budget: setup.timeout,
        ..RunRequest::new(dataset, run.strategy, provider, setup.sessions_root.clone())
    };
    // Called from the run's worker threads: everything goes over the channel, in order.
    let on_update = |u: Update<'_>| {
        let action = match u {
            Update::Event(event, _) => Action::EvalEvent(Delivered::new(event.clone())),
            Update::Delta {
                task_id,
                sample,
                call,
                text,
            } => Action::RunDelta {
                task_id: task_id.to_string(),
                sample,
                call,
                text: text.to_string(),
            },
        };
        let _ = tx.send(action);
    };
    let outcome = pipeline_run::run(&req, exec, cancel, &on_update)?;
    Ok(outcome.dir)
}
