//! `classlab sessions` (list them) and `classlab sessions rm ID…` (delete them).

use serde_json::{Value, json};

use super::eval::{pct_env, resolve_session};
use super::table::Table;
use super::{Context, Outcome, Output, print_json};
use crate::session::store::{self, sessions_root};
use crate::session::{EvalState, SessionLog};
use crate::text::Escaped;

#[derive(Debug, clap::Args)]
pub struct SessionsArgs {
    #[command(subcommand)]
    pub command: Option<SessionsCommand>,
}

#[derive(Debug, clap::Subcommand)]
pub enum SessionsCommand {
    /// Join evaluation shards (`eval --shard K/N`) into one session OUT (a new directory):
    /// the inputs must be finished evaluations of the same dataset, outputs file, model and
    /// configuration, with no task in two of them.
    Merge {
        /// The merged session's directory (its name is the session id).
        #[arg(value_name = "OUT")]
        out: std::path::PathBuf,
        /// Session ids or directories of the shards.
        #[arg(required = true, value_name = "IN")]
        inputs: Vec<String>,
    },
    /// Delete sessions (their whole directory). A session being written is refused.
    Rm {
        /// Session ids or directories.
        #[arg(required = true, value_name = "SESSION")]
        ids: Vec<String>,
    },
}

pub(crate) fn run(ctx: &Context, args: &SessionsArgs) -> anyhow::Result<Outcome> {
    match &args.command {
        None => list_sessions(ctx),
        Some(SessionsCommand::Rm { ids }) => remove(ctx, ids),
        Some(SessionsCommand::Merge { out, inputs }) => merge(ctx, out, inputs),
    }
}

fn merge(ctx: &Context, out: &std::path::Path, inputs: &[String]) -> anyhow::Result<Outcome> {
    let root = sessions_root(ctx.sessions.as_deref());
    let dirs = inputs
        .iter()
        .map(|id| resolve_session(&root, id))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let m = crate::session::merge::merge(out, &dirs)?;
    match ctx.output {
        Output::Json => print_json(&m)?,
        Output::Human => println!(
            "merged {} sessions ({} tasks, {} events) into {}",
            m.inputs.len(),
            m.tasks,
            m.events,
            m.dir.display()
        ),
    }
    Ok(Outcome::clean())
}

/// Every id is resolved before anything is deleted: a typo deletes nothing.
fn remove(ctx: &Context, ids: &[String]) -> anyhow::Result<Outcome> {
    let root = sessions_root(ctx.sessions.as_deref());
    let dirs = ids
        .iter()
        .map(|id| resolve_session(&root, id))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut removed = Vec::new();
    for dir in &dirs {
        store::remove(dir)?;
        removed.push(dir.display().to_string());
        if ctx.output == Output::Human {
            println!("deleted {}", Escaped(&dir.display().to_string()));
        }
    }
    if ctx.output == Output::Json {
        print_json(&json!({ "deleted": removed }))?;
    }
    Ok(Outcome::clean())
}

pub(crate) fn list_sessions(ctx: &Context) -> anyhow::Result<Outcome> {
    let root = sessions_root(ctx.sessions.as_deref());
    let mut rows = Vec::new();
    for (dir, meta) in store::list(&root) {
        let log = SessionLog::open(&dir).ok();
        let state = log
            .as_ref()
            .map(|l| EvalState::from_events(&l.events))
            .unwrap_or_default();
        let (done, total) = state.progress();
        let status = state.run_end().label();
        let m = state.metrics();
        let env = state.env_err();
        rows.push((dir, meta, done, total, status, m, env));
    }
    match ctx.output {
        Output::Json => {
            let list: Vec<Value> = rows
                .iter()
                .map(|(dir, meta, done, total, status, m, env)| {
                    json!({"session": meta.id, "dir": dir, "kind": meta.kind, "model": meta.model, "strategy": meta.strategy,
                           "dataset": meta.dataset.name, "created": meta.created, "status": status,
                           "progress": {"done": done, "total": total}, "class_success": m.class_success, "fun_success": m.fun_success,
                           "env_err": env})
                })
                .collect();
            print_json(&list)?;
        }
        Output::Human => {
            let mut t = Table::new(&[
                "session",
                "kind",
                "model",
                "strategy",
                "dataset",
                "progress",
                "status",
                "class_success",
            ]);
            for (_, meta, done, total, status, m, env) in &rows {
                t.row(vec![
                    meta.id.clone(),
                    meta.kind.clone(),
                    meta.model.clone().unwrap_or_default(),
                    meta.strategy.clone().unwrap_or_default(),
                    meta.dataset.name.clone(),
                    format!("{done}/{total}"),
                    status.to_string(),
                    pct_env(m.class_success, env.tasks),
                ]);
            }
            print!("{}", t.render());
            println!(
                "{} sessions in {}",
                rows.len(),
                Escaped(&root.display().to_string())
            );
        }
    }
    Ok(Outcome::clean())
}
