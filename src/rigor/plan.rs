//! Planning and running a dataset: each task's mutants and key, stored results reused,
//! the rest run on every core (the biggest tasks first, so the last ones to finish are
//! small), each result stored the moment it is complete.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use serde_json::json;

use super::generate::mutants;
use super::mutant::Mutant;
use super::operators::Operator;
use super::result::TaskRigor;
use super::run::{DRIVER, Options, RunError, Subject, analyze};
use super::store::{Store, StoreError};
use crate::corpus::Shard;
use crate::exec::Sandbox;
use crate::model::Task;

/// Bumped whenever generation changes what mutants a reference gets.
pub const GENERATOR_VERSION: u32 = 1;

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
    /// Tasks analysed at once (0: one per core).
    pub jobs: usize,
    /// Recompute even what the store holds.
    pub no_cache: bool,
    pub shard: Option<Shard>,
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
    mutants: Vec<Mutant>,
    generation_error: Option<String>,
    key: String,
    subject_digest: String,
}

/// The tasks of `shard` (all without one), with their mutants and keys.
fn items<'t>(tasks: &[&'t Task], interpreter: &str, cfg: &RunConfig) -> Vec<Item<'t>> {
    tasks
        .iter()
        .filter(|t| cfg.shard.is_none_or(|s| s.holds(&t.id)))
        .map(|t| {
            let subject = Subject::of_task(t);
            let (mutants, generation_error) = match mutants(&t.solution, &t.class_name) {
                Ok(m) => (m, None),
                Err(e) => (Vec::new(), Some(e.to_string())),
            };
            Item {
                task: t,
                key: key(&subject, &t.class_name, interpreter, &cfg.options),
                subject_digest: subject_digest(&subject),
                subject,
                mutants,
                generation_error,
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
    let items = items(tasks, &interpreter, cfg);
    let mut results: Vec<Option<TaskRigor>> = vec![None; items.len()];
    let mut todo: Vec<usize> = Vec::new();
    for (i, it) in items.iter().enumerate() {
        let stored = match store {
            Some(s) if !cfg.no_cache => s.get(&it.key)?,
            _ => None,
        };
        match (stored, &it.generation_error) {
            (Some(r), _) => {
                on_event(Event::Done {
                    result: &r,
                    cached: true,
                });
                results[i] = Some(r);
            }
            (None, Some(e)) => {
                let mut r = TaskRigor::new(&it.task.id, "", Vec::new(), Default::default());
                r.error = Some(e.clone());
                if let Some(s) = store {
                    s.put(&it.key, &it.subject_digest, &r)?;
                }
                on_event(Event::Done {
                    result: &r,
                    cached: false,
                });
                results[i] = Some(r);
            }
            (None, None) => todo.push(i),
        }
    }
    // Biggest first (mutants × tests): the tail of the run is then made of small tasks.
    todo.sort_by_key(|&i| {
        let it = &items[i];
        std::cmp::Reverse(it.mutants.len() * it.subject.expected.len().max(1))
    });
    let workers = match cfg.jobs {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
    .min(todo.len().max(1));
    let next = AtomicUsize::new(0);
    let mut store_error = None;
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, Option<Result<TaskRigor, RunError>>)>();
        for _ in 0..workers {
            let tx = tx.clone();
            let (todo, items, next) = (&todo, &items, &next);
            scope.spawn(move || {
                loop {
                    if cancel.load(Ordering::Relaxed) {
                        break;
                    }
                    let Some(&i) = todo.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        break;
                    };
                    let it = &items[i];
                    let mut on_mutant = |_: usize, _: &super::run::Outcome| {
                        let _ = tx.send((i, None));
                    };
                    let r = analyze(
                        sandbox,
                        &it.subject,
                        &it.mutants,
                        &cfg.options,
                        cancel,
                        &mut on_mutant,
                    )
                    .map(|a| TaskRigor::new(&it.task.id, &it.subject.code, it.mutants.clone(), a));
                    if tx.send((i, Some(r))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (i, r) in rx {
            let it = &items[i];
            match r {
                None => on_event(Event::Mutant {
                    task_id: &it.task.id,
                }),
                Some(_) if cancel.load(Ordering::Relaxed) => {} // a killed run is no result
                Some(Ok(r)) => {
                    if store_error.is_none()
                        && let Some(s) = store
                        && let Err(e) = s.put(&it.key, &it.subject_digest, &r)
                    {
                        store_error = Some(e);
                        cancel.store(true, Ordering::Relaxed);
                    }
                    on_event(Event::Done {
                        result: &r,
                        cached: false,
                    });
                    results[i] = Some(r);
                }
                Some(Err(e)) => on_event(Event::Failed {
                    task_id: &it.task.id,
                    error: e.to_string(),
                }),
            }
        }
    });
    if let Some(e) = store_error {
        return Err(e);
    }
    Ok(results.into_iter().flatten().collect())
}
