//! Which of a task's modules the evaluation interpreter cannot import: the evidence an
//! `EnvErr` for a missing module needs (`metrics::fingerprint`, environment errors).
//!
//! A trusted query outside the sandbox, like `exec::PythonInfo::query`: a fixed probe runs
//! `importlib.util.find_spec` on top-level names given as arguments (never as code), in
//! isolated mode (`-I`: no user site, no `PYTHON*` variables, no current directory on the
//! path — what the sandboxed suites see, minus the suite's own directory). Answers are cached
//! per interpreter for the life of the process: an interpreter is asked again only about names
//! it was never asked about, so an evaluation makes a handful of queries (the first tasks bring
//! most names), never one per test. The interpreter is the one evaluations run in, recorded by
//! [`use_interpreter`] when their sandbox is set up.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, PoisonError};

use crate::metrics::fingerprint::EnvContext;
use crate::model::{Task, TestLayout};

/// Prints the names among its arguments that have no spec (one JSON list).
const PROBE: &str = r#"
import importlib.util, json, sys
missing = []
for name in sys.argv[1:]:
    try:
        found = importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        missing.append(name)
print(json.dumps(missing))
"#;

/// What one interpreter said: name → importable.
type Answers = BTreeMap<String, bool>;

struct State {
    /// The interpreter evaluations use (the last sandbox set up).
    current: Option<PathBuf>,
    answers: BTreeMap<PathBuf, Answers>,
}

static STATE: Mutex<State> = Mutex::new(State {
    current: None,
    answers: BTreeMap::new(),
});

fn state() -> std::sync::MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Record the interpreter evaluations run in (called where their sandbox is set up).
pub fn use_interpreter(python: &Path) {
    state().current = Some(python.to_path_buf());
}

/// The interpreter recorded by [`use_interpreter`], if any.
pub fn interpreter() -> Option<PathBuf> {
    state().current.clone()
}

/// A top-level module name the probe may be asked about (an identifier; anything else is
/// never a module a task imports).
fn is_module_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// Ask `python` which of `names` it cannot import (uncached).
fn query(python: &Path, names: &[&str]) -> Result<BTreeSet<String>, String> {
    let out = Command::new(python)
        .args(["-I", "-c", PROBE])
        .args(names)
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("{}: {e}", python.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} failed: {}",
            python.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("{}: unexpected answer ({e})", python.display()))
}

/// The names among `modules` (top-level names) that `python` cannot import. Only names it was
/// never asked about are asked, all at once; the answers are kept for the process. Names that
/// are not identifiers are never missing. An interpreter that cannot be asked is an error (and
/// nothing is cached, so a later call asks again).
pub fn missing_modules<'a, I>(python: &Path, modules: I) -> Result<BTreeSet<String>, String>
where
    I: IntoIterator<Item = &'a str>,
{
    let wanted: BTreeSet<&str> = modules.into_iter().filter(|m| is_module_name(m)).collect();
    let unknown: Vec<&str> = {
        let st = state();
        let known = st.answers.get(python);
        wanted
            .iter()
            .copied()
            .filter(|m| known.is_none_or(|k| !k.contains_key(*m)))
            .collect()
    };
    if !unknown.is_empty() {
        // Asked without the lock held: a slow interpreter does not stall other lookups.
        let missing = query(python, &unknown)?;
        let mut st = state();
        let known = st.answers.entry(python.to_path_buf()).or_default();
        for m in &unknown {
            known.insert(m.to_string(), !missing.contains(*m));
        }
    }
    let st = state();
    let known = st.answers.get(python);
    Ok(wanted
        .into_iter()
        .filter(|m| known.and_then(|k| k.get(*m)) == Some(&false))
        .map(str::to_string)
        .collect())
}

/// What the environment provides a task, verified against the evaluation interpreter
/// ([`use_interpreter`]): see [`context_in`].
pub fn task_context(task: &Task) -> EnvContext {
    context_in(task, interpreter().as_deref())
}

/// What the environment provides a task: the modules its reference, skeleton and tests import
/// (a module the given skeleton imports is the task's need, not the model's choice; the code's
/// own module, which the tests of a pytest layout import, is not one), and which of them
/// `python` lacks. Without an interpreter, or one that cannot be asked, nothing is verified
/// missing (so no missing module is the environment's, where the harness told the origin).
pub fn context_in(task: &Task, python: Option<&Path>) -> EnvContext {
    let mut ctx = EnvContext::from_sources(task.imports.iter().map(String::as_str).chain([
        task.test_module.as_str(),
        task.solution.as_str(),
        task.skeleton.as_str(),
    ]));
    if let TestLayout::Module { code_module, .. } = &task.test_layout {
        ctx.task_modules.remove(code_module);
    }
    let Some(python) = python else {
        return ctx;
    };
    let missing =
        missing_modules(python, ctx.task_modules.iter().map(String::as_str)).unwrap_or_default();
    ctx.with_missing_modules(missing)
}

/// The project's Python environments (`scripts/setup-python.sh`), by the kind of dataset they
/// serve: ClassEval's task packages alone, or those plus RealClassEval's imports. Kept apart so
/// that RealClassEval's packages never change a ClassEval verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProjectEnv {
    ClassEval,
    RealClassEval,
}

impl ProjectEnv {
    /// The environment for a dataset given by path (`None`: the bundled sample, ClassEval's
    /// kind). A RealClassEval folder is recognised as `dataset::load` does: by its CSV; a
    /// dataset `forge` wrote, by the environment its tests were validated in (each task
    /// records its interpreter: a forged RealClassEval class runs where it was validated).
    pub fn for_dataset(dataset: Option<&Path>) -> ProjectEnv {
        match dataset {
            Some(p) if p.is_dir() && p.join("classes_full_docstr.csv").is_file() => {
                ProjectEnv::RealClassEval
            }
            Some(p) if p.is_file() => forged_in(p).unwrap_or(ProjectEnv::ClassEval),
            _ => ProjectEnv::ClassEval,
        }
    }

    /// The environment an interpreter path belongs to (`…/.python/<name>/bin/python`).
    fn of_python(executable: &str) -> Option<ProjectEnv> {
        [ProjectEnv::ClassEval, ProjectEnv::RealClassEval]
            .into_iter()
            .find(|env| Path::new(executable).ends_with(env.rel_dir().join("bin/python")))
    }

    pub fn name(self) -> &'static str {
        match self {
            ProjectEnv::ClassEval => "classeval",
            ProjectEnv::RealClassEval => "realclasseval",
        }
    }

    /// Where it lives below a checkout: `.python/<name>`.
    pub fn rel_dir(self) -> PathBuf {
        Path::new(".python").join(self.name())
    }

    /// The command that provisions it.
    pub fn setup_command(self) -> String {
        format!("scripts/setup-python.sh {}", self.name())
    }

    /// Its interpreter, if it exists: `.python/<name>/bin/python` below the current directory,
    /// else below the checkout classlab was built from. The path is absolute but its symlinks
    /// are kept (a venv is recognised by its `bin/python`, not by what that links to).
    pub fn python(self) -> Option<PathBuf> {
        let rel = self.rel_dir().join("bin/python");
        let cwd = std::env::current_dir().ok().map(|d| d.join(&rel));
        let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).join(&rel);
        cwd.into_iter().chain([checkout]).find(|p| p.is_file())
    }
}

/// The project environment a forged dataset's first task was validated in
/// (`provenance.forge.python.executable`); `None` for any other file, or one that does not
/// read as a classlab dataset (the loader reports that).
fn forged_in(path: &Path) -> Option<ProjectEnv> {
    #[derive(serde::Deserialize)]
    struct Dataset {
        tasks: Vec<serde_json::Value>,
    }
    let file = std::fs::File::open(path).ok()?;
    let ds: Dataset = serde_json::from_reader(std::io::BufReader::new(file)).ok()?;
    let exe = ds
        .tasks
        .first()?
        .pointer("/provenance/forge/python/executable")?;
    ProjectEnv::of_python(exe.as_str()?)
}

/// The interpreter a dataset gets when neither `--python` nor the config names one: the
/// project's environment for its kind, when provisioned (`None`: `python3` on `PATH`).
pub fn project_python(dataset: Option<&Path>) -> Option<PathBuf> {
    ProjectEnv::for_dataset(dataset).python()
}

/// The modules a dataset's tasks import (reference, skeleton, tests; see [`context_in`]) that
/// `python` cannot import, each with the tasks that import it. An interpreter that cannot be
/// asked is an error.
pub fn dataset_missing(
    python: &Path,
    tasks: &[Task],
) -> Result<BTreeMap<String, Vec<String>>, String> {
    let needs: Vec<(String, EnvContext)> = tasks
        .iter()
        .map(|t| (t.id.clone(), context_in(t, None)))
        .collect();
    let missing = missing_modules(
        python,
        needs
            .iter()
            .flat_map(|(_, c)| c.task_modules.iter().map(String::as_str)),
    )?;
    let mut by_module: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (task, ctx) in &needs {
        for m in ctx.task_modules.intersection(&missing) {
            by_module.entry(m.clone()).or_default().push(task.clone());
        }
    }
    Ok(by_module)
}

/// `module (task, task, …)` items, the task lists cut after `max_tasks`.
pub fn describe_missing(missing: &BTreeMap<String, Vec<String>>, max_tasks: usize) -> String {
    missing
        .iter()
        .map(|(m, tasks)| {
            let mut shown = tasks
                .iter()
                .take(max_tasks)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ");
            if tasks.len() > max_tasks {
                shown.push_str(&format!(", … {} more", tasks.len() - max_tasks));
            }
            format!("{m} ({shown})")
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The warning an evaluation gives before it starts when its interpreter lacks modules the
/// dataset's tasks import (their suites would end in `EnvErr`, which scores nothing), with the
/// fix; `None` when nothing is missing or the interpreter cannot be asked.
pub fn missing_warning(python: &Path, dataset: &crate::dataset::Dataset) -> Option<String> {
    missing_warning_for(python, dataset, &dataset.tasks)
}

/// [`missing_warning`] about only `tasks` (those a command will run: an evaluation of three
/// tasks says nothing about the dataset's others).
pub fn missing_warning_for(
    python: &Path,
    dataset: &crate::dataset::Dataset,
    tasks: &[crate::model::Task],
) -> Option<String> {
    let missing = dataset_missing(python, tasks).ok()?;
    if missing.is_empty() {
        return None;
    }
    let env = match dataset.format {
        crate::dataset::Format::RealClassEval => ProjectEnv::RealClassEval,
        _ => ProjectEnv::ClassEval,
    };
    let tasks: BTreeSet<&String> = missing.values().flatten().collect();
    // Already the project's environment: provisioning it again would not help. Its lock
    // follows the benchmark's own evaluator, which lacked these too.
    let fix = if python.ancestors().any(|d| d.ends_with(env.rel_dir())) {
        format!(
            "{} is locked to the benchmark evaluator's packages, which lack them too \
             (`metrics_official` counts these tasks as failures, as the published figures \
             do); give --python an interpreter that has them to score them",
            env.rel_dir().display()
        )
    } else {
        format!(
            "Fix: `{}` provisions the project's environment {}, which classlab then uses \
             by default (or give --python an interpreter that has them)",
            env.setup_command(),
            env.rel_dir().display()
        )
    };
    Some(format!(
        "{} cannot import {} module{} the tasks import, so the tests of {} task{} cannot \
         pass here (EnvErr): {}. {fix}",
        python.display(),
        missing.len(),
        if missing.len() == 1 { "" } else { "s" },
        tasks.len(),
        if tasks.len() == 1 { "" } else { "s" },
        describe_missing(&missing, 3),
    ))
}

#[cfg(test)]
mod tests;
