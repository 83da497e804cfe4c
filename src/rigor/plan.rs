//! Planning and running a dataset: each task's mutants and key, stored results reused, the
//! rest run in batches (`batch.rs`: one sandbox program each, every core busy), the biggest
//! tasks first, each result stored the moment it is complete.

use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::json;

use super::batch::{DRIVER, Progress, analyze_many};
use super::generate::mutants;
use super::mutant::Mutant;
use super::operators::Operator;
use super::result::TaskRigor;
use super::run::{Options, Subject};
use super::store::{Store, StoreError};
use crate::corpus::Shard;
use crate::exec::Sandbox;
use crate::model::Task;

/// Subjects per sandbox program (a corpus is analysed in batches of this many).
const BATCH: usize = 256;

/// Bumped whenever generation changes what mutants a reference gets.
pub const GENERATOR_VERSION: u32 = 2;

fn sha256(text: &str) -> String {
    crate::corpus::extract::sha256_hex(text.as_bytes())
}

/// Digest of a subject alone (its code, tests and layout).
pub fn subject_digest(s: &Subject) -> String {
    sha256(
        &json!([
            s.code,
            s.tests,
            s.code_module,
            s.test_file,
            s.concatenated,
            s.pytest
        ])
        .to_string(),
    )
}

/// Digest of everything that decides a task's result: the subject, the operators and the
/// generator, the driver, the interpreter and the options.
pub fn key(subject: &Subject, class_name: &str, interpreter: &str, opts: &Options) -> String {
    let ops: Vec<&str> = Operator::ALL.iter().map(|o| o.name()).collect();
    sha256(
        &json!({
            "subject": subject_digest(subject),
            "class": class_name,
            "operators": ops,
            "generator": GENERATOR_VERSION,
            "driver": sha256(DRIVER),
            "interpreter": interpreter,
            "options": opts,
        })
        .to_string(),
    )
}

/// The interpreter as keys name it: its path and version.
pub fn interpreter_id(sandbox: &Sandbox) -> String {
    let p = &sandbox.isolation().python;
    format!("{} {}", p.executable.display(), p.version)
}

/// How to run a dataset.
#[derive(Debug, Clone, Default)]
pub struct RunConfig {
    pub options: Options,
    /// Children running tests at once (0: one per core).
    pub jobs: usize,
    /// Recompute even what the store holds.
    pub no_cache: bool,
    pub shard: Option<Shard>,
    /// Run the tasks in the order given (the TUI's: what the user looks at first), not the
    /// biggest first.
    pub keep_order: bool,
}

/// What happened to one task.
#[derive(Debug)]
pub enum Event<'a> {
    /// Its result, from the store (`cached`) or just computed (and stored).
    Done { result: &'a TaskRigor, cached: bool },
    /// It could not be analysed (the driver failed); nothing stored, a rerun tries again.
    Failed { task_id: &'a str, error: String },
    /// A mutant of a task in flight was decided.
    Mutant { task_id: &'a str },
}

struct Item<'t> {
    task: &'t Task,
    subject: Subject,
    /// Generated only for the tasks that run.
    mutants: Vec<Mutant>,
    key: String,
    subject_digest: String,
}

/// The tasks of `shard` (all without one), with their keys.
fn items<'t>(tasks: &[&'t Task], interpreter: &str, cfg: &RunConfig) -> Vec<Item<'t>> {
    tasks
        .iter()
        .filter(|t| cfg.shard.is_none_or(|s| s.holds(&t.id)))
        .map(|t| {
            let subject = Subject::of_task(t);
            Item {
                task: t,
                key: key(&subject, &t.class_name, interpreter, &cfg.options),
                subject_digest: subject_digest(&subject),
                subject,
                mutants: Vec::new(),
            }
        })
        .collect()
}

/// Analyse `tasks`; every result (stored or computed) reaches `on_event` and the returned
/// list (in the order of `tasks`). A store error stops the run.
pub fn run(
    tasks: &[&Task],
    sandbox: &Sandbox,
    store: Option<&Store>,
    cfg: &RunConfig,
    cancel: &AtomicBool,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<Vec<TaskRigor>, StoreError> {
    let interpreter = interpreter_id(sandbox);
    let mut items = items(tasks, &interpreter, cfg);
    let mut results: Vec<Option<TaskRigor>> = vec![None; items.len()];
    let mut todo: Vec<usize> = Vec::new();
    for (i, it) in items.iter_mut().enumerate() {
        let stored = match store {
            Some(s) if !cfg.no_cache => s.get(&it.key)?,
            _ => None,
        };
        if let Some(r) = stored {
            on_event(Event::Done {
                result: &r,
                cached: true,
            });
            results[i] = Some(r);
            continue;
        }
        match mutants(&it.task.solution, &it.task.class_name) {
            Ok(m) => {
                it.mutants = m;
                todo.push(i);
            }
            Err(e) => {
                let mut r = TaskRigor::new(&it.task.id, "", Vec::new(), Default::default());
                r.error = Some(e.to_string());
                if let Some(s) = store {
                    s.put(&it.key, &it.subject_digest, &r)?;
                }
                on_event(Event::Done {
                    result: &r,
                    cached: false,
                });
                results[i] = Some(r);
            }
        }
    }
    // Biggest first (by the time the same subject took before, else mutants × tests): the
    // tail of the run is then made of small tasks.
    let history: Vec<f64> = match store {
        Some(s) => todo
            .iter()
            .map(|&i| {
                let it = &items[i];
                s.latest(&it.task.id, &it.subject_digest)
                    .ok()
                    .flatten()
                    .map_or(-1.0, |r| r.wall_s)
            })
            .collect(),
        None => vec![-1.0; todo.len()],
    };
    let mut order: Vec<(usize, f64)> = todo.iter().copied().zip(history).collect();
    order.sort_by(|(a, ha), (b, hb)| {
        if cfg.keep_order {
            return std::cmp::Ordering::Equal;
        }
        let size =
            |i: &usize| (items[*i].mutants.len() * items[*i].subject.expected.len().max(1)) as f64;
        hb.total_cmp(ha).then(size(b).total_cmp(&size(a)))
    });
    let mut store_error = None;
    for chunk in order.chunks(BATCH) {
        if cancel.load(Ordering::Relaxed) || store_error.is_some() {
            break;
        }
        let batch: Vec<(&Subject, &[Mutant])> = chunk
            .iter()
            .map(|&(i, _)| (&items[i].subject, items[i].mutants.as_slice()))
            .collect();
        analyze_many(
            sandbox,
            &batch,
            &cfg.options,
            cfg.jobs,
            cancel,
            &mut |p| match p {
                Progress::Mutant { subject, .. } => on_event(Event::Mutant {
                    task_id: &items[chunk[subject].0].task.id,
                }),
                Progress::Finished { subject, result } => {
                    let i = chunk[subject].0;
                    let it = &items[i];
                    match result {
                        _ if cancel.load(Ordering::Relaxed) => {} // a killed run is no result
                        Ok(a) => {
                            let r = TaskRigor::new(
                                &it.task.id,
                                &it.subject.code,
                                it.mutants.clone(),
                                a,
                            );
                            if store_error.is_none()
                                && let Some(s) = store
                                && let Err(e) = s.put(&it.key, &it.subject_digest, &r)
                            {
                                store_error = Some(e);
                            }
                            on_event(Event::Done {
                                result: &r,
                                cached: false,
                            });
                            results[i] = Some(r);
                        }
                        Err(e) => on_event(Event::Failed {
                            task_id: &it.task.id,
                            error: e.to_string(),
                        }),
                    }
                }
            },
        );
    }
    if let Some(e) = store_error {
        return Err(e);
    }
    Ok(results.into_iter().flatten().collect())
}
