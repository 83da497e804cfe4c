//! The app loop's hands: effects that read sessions from disk or run an evaluation or a
//! generation run are carried out here on background threads, and their results come back as
//! [`Action`]s over a channel (the UI thread never blocks on them). `tui` itself spawns no
//! processes: an evaluation runs through `pipeline::eval`, a generation run through
//! `pipeline::run` (see `jobs_run`), whose sandbox does.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use anyhow::Context as _;

use super::action::{Action, Delivered};
use super::app::Effect;
use super::evals::{EvalSession, SessionRow};
use crate::dataset::{Dataset, outputs};
use crate::exec::Executor;

use crate::pipeline::eval::{self, EvalRequest};
use crate::session::{SessionLog, store};

/// Where evaluations go and what runs them.
#[derive(Clone)]
pub struct EvalSetup {
    pub sessions_root: PathBuf,
    /// The interpreter for the suites (`None`: config `python`, else `python3`).
    pub python: Option<PathBuf>,
    /// The execution service every evaluation, run and validation goes through (its sandbox
    /// is set up on first use).
    pub exec: Arc<Executor>,
    /// Suites at once (0: one per core).
    pub jobs: usize,
    /// Time budget per test class (ClassEval's 5 s).
    pub timeout: Duration,
    /// Directories listed in the new-evaluation dialog (the working directory unless the
    /// caller adds more, see [`EvalSetup::with_prediction_dirs`]).
    pub prediction_dirs: Vec<PathBuf>,
    /// The rigor store the Rigor tab and the review queue's gates read and write (default:
    /// rigor.db in classlab's data directory; tests give a temporary one).
    pub rigor_store: PathBuf,
}

impl EvalSetup {
    pub fn new(sessions_root: PathBuf, python: Option<PathBuf>) -> EvalSetup {
        EvalSetup {
            sessions_root,
            exec: Arc::new(Executor::new(python.clone(), true)),
            python,
            jobs: 0,
            timeout: Duration::from_secs(5),
            prediction_dirs: vec![PathBuf::from(".")],
            rigor_store: crate::rigor::store::default_path(),
        }
    }

    /// Read and write rigor results in the store at `path`.
    pub fn with_rigor_store(mut self, path: PathBuf) -> EvalSetup {
        self.rigor_store = path;
        self
    }

    /// Execute through `exec` (the caller's service) rather than one of our own.
    pub fn with_executor(mut self, exec: Arc<Executor>) -> EvalSetup {
        self.python = exec.python().map(Path::to_path_buf);
        self.exec = exec;
        self
    }

    /// List these directories too in the new-evaluation dialog.
    pub fn with_prediction_dirs(mut self, dirs: impl IntoIterator<Item = PathBuf>) -> EvalSetup {
        for dir in dirs {
            if !self.prediction_dirs.contains(&dir) {
                self.prediction_dirs.push(dir);
            }
        }
        self
    }

    /// The defaults without flags: `./sessions` or the XDG data directory, and the config's
    /// interpreter.
    pub fn from_config() -> EvalSetup {
        let python = crate::config::current().python.clone();
        EvalSetup::new(crate::session::sessions_root(None), python)
    }
}

/// Every session under `root`, summarised (newest first).
pub fn load_sessions(root: &Path) -> Vec<SessionRow> {
    store::list(root)
        .into_iter()
        .map(|(dir, meta)| {
            let log = SessionLog::open(&dir).map_err(|e| e.to_string());
            SessionRow::summarize(&dir, &meta, log)
        })
        .collect()
}

/// One session folded for the evaluation screen.
pub fn open_session(dir: &Path) -> Result<EvalSession, String> {
    SessionLog::open(dir)
        .map(EvalSession::from_log)
        .map_err(|e| e.to_string())
}

/// Files that may hold model outputs (`*.json`, `*.jsonl`, `*.csv`) in `dirs`, each directory
/// sorted by name; paths as given (relative stays relative).
pub fn prediction_files(dirs: &[PathBuf]) -> Vec<String> {
    let mut out = Vec::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .filter(|p| {
                p.extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| matches!(e, "json" | "jsonl" | "csv"))
            })
            .collect();
        found.sort();
        out.extend(
            found
                .into_iter()
                .map(|p| p.strip_prefix(".").unwrap_or(&p).display().to_string()),
        );
    }
    out
}

struct Running {
    cancel: Arc<AtomicBool>,
    handle: JoinHandle<()>,
}

/// Carries out effects; results arrive through [`Jobs::try_recv`].
pub struct Jobs {
    setup: EvalSetup,
    tx: Sender<Action>,
    rx: Receiver<Action>,
    run: Option<Running>,
    /// Background validations of review tasks, by task id (the newest request per task).
    validations: BTreeMap<String, Running>,
    /// The rigor job (the newest request replaces it).
    rigor: Option<Running>,
}

impl Jobs {
    pub fn new(setup: EvalSetup) -> Jobs {
        let (tx, rx) = mpsc::channel();
        Jobs {
            setup,
            tx,
            rx,
            run: None,
            validations: BTreeMap::new(),
            rigor: None,
        }
    }

    /// Whether a task's validation is under way.
    pub fn validating(&self) -> bool {
        self.validations.values().any(|r| !r.handle.is_finished())
    }

    /// Whether an evaluation thread is alive.
    pub fn running(&self) -> bool {
        self.run.as_ref().is_some_and(|r| !r.handle.is_finished())
    }

    pub fn try_recv(&self) -> Option<Action> {
        self.rx.try_recv().ok()
    }

    /// Start what an effect asks for. `Quit` is the loop's business and ignored here.
    pub fn execute(&mut self, effect: Effect, dataset: &Dataset) {
        let tx = self.tx.clone();
        match effect {
            // The app loop runs the editor itself (it owns the terminal).
            Effect::Quit | Effect::EditPart { .. } => {}
            Effect::LoadSessions { req } => {
                let root = self.setup.sessions_root.clone();
                thread::spawn(move || {
                    let rows = load_sessions(&root);
                    let _ = tx.send(Action::SessionsLoaded {
                        req,
                        root,
                        rows: Delivered::new(rows),
                    });
                });
            }
            Effect::OpenSession { req, dir } => {
                thread::spawn(move || {
                    let _ = tx.send(match open_session(&dir) {
                        Ok(session) => Action::SessionOpened {
                            req,
                            session: Delivered::new(session),
                        },
                        Err(message) => Action::LoadFailed { req, message },
                    });
                });
            }
            Effect::CompareSessions { req, dirs } => {
                thread::spawn(move || {
                    let loaded: Result<Vec<EvalSession>, String> =
                        dirs.iter().map(|d| open_session(d)).collect();
                    let _ = tx.send(match loaded {
                        Ok(sessions) => Action::ComparisonLoaded {
                            req,
                            sessions: Delivered::new(sessions),
                        },
                        Err(message) => Action::LoadFailed { req, message },
                    });
                });
            }
            Effect::ListPredictionFiles => {
                let dirs = self.setup.prediction_dirs.clone();
                thread::spawn(move || {
                    let _ = tx.send(Action::PredictionFiles(prediction_files(&dirs)));
                });
            }
            Effect::StartEval { predictions } => {
                let (setup, dataset) = (self.setup.clone(), dataset.clone());
                self.spawn("an evaluation", move |cancel, tx| {
                    evaluate(&setup, &dataset, &predictions, cancel, tx)
                });
            }
            Effect::LoadRunChoices => {
                let root = self.setup.sessions_root.clone();
                thread::spawn(move || {
                    let (endpoints, replays) = super::jobs_run::choices(&root);
                    let _ = tx.send(Action::RunChoices { endpoints, replays });
                });
            }
            Effect::StartRun(run) => {
                let (setup, dataset) = (self.setup.clone(), dataset.clone());
                self.spawn("a generation run", move |cancel, tx| {
                    super::jobs_run::generate(&setup, &run, &dataset, cancel, tx)
                });
            }
            Effect::LoadReview { req, path } => {
                let dataset = dataset.clone();
                let rigor_store = self.setup.rigor_store.clone();
                thread::spawn(move || {
                    let loaded = super::review::persist::load(&path, &dataset, &rigor_store);
                    let _ = tx.send(Action::ReviewLoaded {
                        req,
                        loaded: Delivered::new(loaded),
                    });
                });
            }
            Effect::ValidateTask { req, task_id, path } => {
                self.validate(req, task_id, path, dataset);
            }
            Effect::SaveReview { path, ops, stamp } => {
                let dataset = dataset.clone();
                let rigor_store = self.setup.rigor_store.clone();
                thread::spawn(move || {
                    let _ = tx.send(
                        match super::review::persist::save(
                            &path,
                            &dataset,
                            &ops,
                            &stamp,
                            &rigor_store,
                        ) {
                            Ok(store) => Action::ReviewSaved {
                                store: Some(Delivered::new(store)),
                                error: None,
                            },
                            Err(e) => Action::ReviewSaved {
                                store: None,
                                error: Some(e),
                            },
                        },
                    );
                });
            }
            Effect::DeleteSession { dir } => {
                thread::spawn(move || {
                    let error = crate::session::store::remove(&dir)
                        .err()
                        .map(|e| e.to_string());
                    let _ = tx.send(Action::SessionDeleted { dir, error });
                });
            }
            Effect::Rigor { tasks } => self.rigor(tasks, dataset),
            Effect::CancelEval => {
                if let Some(r) = &self.run {
                    r.cancel.store(true, Ordering::SeqCst);
                }
            }
        }
    }

    /// Run `work` (an evaluation or a generation run: one at a time) on its own thread with a
    /// cancel flag; its end, the session directory or why it failed, arrives as `EvalEnded`.
    fn spawn<F>(&mut self, what: &str, work: F)
    where
        F: FnOnce(&AtomicBool, &Sender<Action>) -> anyhow::Result<PathBuf> + Send + 'static,
    {
        if self.running() {
            let _ = self
                .tx
                .send(Action::EvalNotice(format!("{what} is already running")));
            return;
        }
        let cancel = Arc::new(AtomicBool::new(false));
        let tx = self.tx.clone();
        let flag = Arc::clone(&cancel);
        let handle = thread::spawn(move || {
            let (dir, error) = match work(&flag, &tx) {
                Ok(dir) => (Some(dir), None),
                Err(e) => {
                    let chain: Vec<String> = e.chain().map(|c| c.to_string()).collect();
                    (None, Some(chain.join(": ")))
                }
            };
            let _ = tx.send(Action::EvalEnded { dir, error });
        });
        self.run = Some(Running { cancel, handle });
    }

    /// Validate one review task on its own thread; a validation of the same task still
    /// running is stopped (its answer, for an older request, is ignored by the app).
    fn validate(&mut self, req: u64, task_id: String, path: PathBuf, dataset: &Dataset) {
        self.validations.retain(|_, r| !r.handle.is_finished());
        if let Some(old) = self.validations.remove(&task_id) {
            old.cancel.store(true, Ordering::SeqCst);
        }
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&cancel);
        // The task as the dataset has it (not a copy of the whole dataset).
        let original = crate::model::TaskIndex::of(&dataset.tasks)
            .get(&dataset.tasks, &task_id)
            .cloned();
        let (tx, exec) = (self.tx.clone(), Arc::clone(&self.setup.exec));
        let id = task_id.clone();
        let handle = thread::spawn(move || {
            let result = match original {
                Some(task) => super::review::validate::validate_task(&exec, &path, &task, &flag),
                None => Err(format!("{id} is not in the dataset")),
            };
            let _ = tx.send(Action::ReviewValidated {
                req,
                task_id: id,
                result,
            });
        });
        self.validations.insert(task_id, Running { cancel, handle });
    }

    /// Look up or compute tasks' rigor on a thread of its own, after stopping the job running.
    fn rigor(&mut self, tasks: Vec<usize>, dataset: &Dataset) {
        if let Some(old) = self.rigor.take() {
            old.cancel.store(true, Ordering::SeqCst);
        }
        let tasks: Vec<(usize, crate::model::Task)> = tasks
            .into_iter()
            .filter_map(|i| Some((i, dataset.tasks.get(i)?.clone())))
            .collect();
        let cancel = Arc::new(AtomicBool::new(false));
        let (flag, tx, setup) = (Arc::clone(&cancel), self.tx.clone(), self.setup.clone());
        let handle = thread::spawn(move || super::jobs_rigor::run(&setup, &tasks, &flag, &tx));
        self.rigor = Some(Running { cancel, handle });
    }

    /// Stop a running evaluation and the validations, and wait for them to end.
    pub fn shutdown(&mut self) {
        if let Some(r) = self.rigor.take() {
            r.cancel.store(true, Ordering::SeqCst);
        }
        let validations = std::mem::take(&mut self.validations);
        for r in validations.values() {
            r.cancel.store(true, Ordering::SeqCst);
        }
        if let Some(r) = self.run.take() {
            r.cancel.store(true, Ordering::SeqCst);
            let _ = r.handle.join();
        }
        for r in validations.into_values() {
            let _ = r.handle.join();
        }
    }
}

/// The execution service of a run, set up if it was not, its isolation warnings sent as
/// notices.
pub(super) fn executor<'a>(
    setup: &'a EvalSetup,
    tx: &Sender<Action>,
) -> anyhow::Result<&'a Executor> {
    let sandbox = setup
        .exec
        .sandbox()
        .map_err(|e| anyhow::anyhow!("cannot set up the sandbox: {e}"))?;
    for w in &sandbox.isolation().warnings {
        let _ = tx.send(Action::EvalNotice(format!("sandbox: {w}")));
    }
    Ok(&setup.exec)
}

/// Evaluate `predictions` against `dataset` as a new session, sending every event.
fn evaluate(
    setup: &EvalSetup,
    dataset: &Dataset,
    predictions: &Path,
    cancel: &AtomicBool,
    tx: &Sender<Action>,
) -> anyhow::Result<PathBuf> {
    let outs = outputs::load(predictions, None)
        .with_context(|| format!("cannot read predictions {}", predictions.display()))?;
    for p in &outs.problems {
        let _ = tx.send(Action::EvalNotice(p.to_string()));
    }
    let exec = executor(setup, tx)?;
    let req = EvalRequest {
        jobs: setup.jobs,
        budget: setup.timeout,
        ..EvalRequest::new(dataset, &outs, setup.sessions_root.clone())
    };
    let outcome = eval::run(&req, exec, cancel, &mut |event, _| {
        let _ = tx.send(Action::EvalEvent(Delivered::new(event.clone())));
    })?;
    Ok(outcome.dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_prediction_files_by_extension() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["b.json", "a.csv", "c.jsonl", "notes.txt"] {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        std::fs::create_dir(dir.path().join("d.json")).unwrap();
        let files = prediction_files(&[dir.path().to_path_buf(), dir.path().join("missing")]);
        let names: Vec<&str> = files
            .iter()
            .map(|f| f.rsplit('/').next().unwrap_or(f))
            .collect();
        assert_eq!(names, ["a.csv", "b.json", "c.jsonl"]);
    }

    #[test]
    fn sessions_that_cannot_be_read_are_rows_with_an_error() {
        let root = tempfile::tempdir().unwrap();
        assert!(load_sessions(root.path()).is_empty());
        assert!(load_sessions(&root.path().join("nope")).is_empty());
        let dir = root.path().join("s1");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(
            dir.join("meta.json"),
            r#"{"schema":1,"id":"s1","kind":"eval","created":"2026-01-01T00:00:00Z","tool_version":"t",
               "dataset":{"origin":"x","name":"x","tasks":1,"digest":"0"},"model":null,"strategy":null,"source":null}"#,
        )
        .unwrap();
        let rows = load_sessions(root.path());
        assert_eq!(rows.len(), 1);
        assert!(rows[0].error.is_some(), "no events file: {rows:?}");
        assert!(open_session(&dir).is_err());
    }
}
