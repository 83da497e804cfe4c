//! Rigor in the background: the tasks asked for, read from the rigor store or computed through
//! `rigor::plan` (whose sandbox runs them), each sent back as it arrives. One job at a time: a
//! newer request stops the running one (the app's request lists what is still wanted, the
//! newest first).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::Sender;

use super::action::{Action, Delivered};
use super::jobs::EvalSetup;
use super::rigor::RigorNews;
use crate::model::Task;
use crate::rigor::plan::{self, Event, RunConfig};
use crate::rigor::store::Store;

fn send(tx: &Sender<Action>, news: RigorNews) {
    let _ = tx.send(Action::Rigor(Delivered::new(news)));
}

/// Look up or compute `tasks` (dataset index, task), in order.
pub fn run(setup: &EvalSetup, tasks: &[(usize, Task)], cancel: &AtomicBool, tx: &Sender<Action>) {
    let error = work(setup, tasks, cancel, tx).err();
    send(tx, RigorNews::Ended { error });
}

fn work(
    setup: &EvalSetup,
    tasks: &[(usize, Task)],
    cancel: &AtomicBool,
    tx: &Sender<Action>,
) -> Result<(), String> {
    let store = Store::open(&setup.rigor_store).map_err(|e| e.to_string())?;
    let sandbox = setup
        .exec
        .sandbox()
        .map_err(|e| format!("cannot set up the sandbox: {e}"))?;
    let refs: Vec<&Task> = tasks.iter().map(|(_, t)| t).collect();
    let by_id: std::collections::HashMap<&str, usize> =
        tasks.iter().map(|(i, t)| (t.id.as_str(), *i)).collect();
    let index_of = |id: &str| by_id.get(id).copied();
    let cfg = RunConfig {
        jobs: setup.jobs,
        keep_order: true,
        ..RunConfig::default()
    };
    plan::run(
        &refs,
        &sandbox,
        Some(&store),
        &cfg,
        cancel,
        &mut |e| match e {
            Event::Done { result, .. } => {
                if let Some(task) = index_of(&result.task_id) {
                    let result = Arc::new(result.clone());
                    send(tx, RigorNews::Result { task, result });
                }
            }
            Event::Failed { task_id, error } => {
                if let Some(task) = index_of(task_id) {
                    send(tx, RigorNews::Failed { task, error });
                }
            }
            Event::Mutant { task_id } => {
                if let Some(task) = index_of(task_id) {
                    send(tx, RigorNews::Mutant { task });
                }
            }
        },
    )
    .map(|_| ())
    .map_err(|e| e.to_string())
}
