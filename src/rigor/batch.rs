//! Subjects through the driver (`assets/rigor/driver.py`) in ONE sandbox program: its root
//! process runs a task process per subject and hands out `jobs` run slots, so every core stays
//! busy to the end (the last task alone gets them all). Each subject's analysis is handed on
//! the moment its last record arrives, for the caller to store: a run killed in the middle
//! keeps every finished subject.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use serde_json::{Value, json};

use super::coverage::Coverage;
use super::mutant::Mutant;
use super::run::{Analysis, Options, Outcome, RunError, Status, Subject};
use crate::exec::{Limits, Program, Sandbox};

/// The in-sandbox driver.
pub const DRIVER: &str = include_str!("../../assets/rigor/driver.py");

/// News from a batch.
// One `Finished` per subject, handed over by value: boxing the analysis would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Progress<'a> {
    /// A mutant of subject `subject` was decided.
    Mutant {
        subject: usize,
        mutant: usize,
        outcome: &'a Outcome,
    },
    /// A subject is complete (or could not be analysed).
    Finished {
        subject: usize,
        result: Result<Analysis, RunError>,
    },
}

/// How long one subject may take in all (the driver kills its task process then).
fn task_wall(opts: &Options, mutants: usize) -> Duration {
    match opts.task_budget {
        Some(b) => b + Duration::from_secs(180),
        None => Duration::from_secs(600 + 10 * mutants as u64),
    }
}

fn subject_input(dir: &str, s: &Subject, mutants: &[Mutant]) -> Value {
    json!({
        "dir": dir,
        "layout": if s.concatenated { "concatenated" } else { "module" },
        "code_module": s.code_module,
        "code_file": format!("{}.py", s.code_module),
        "test_file": s.test_file,
        "test_module": s.test_module,
        "test_kind": if s.pytest { "pytest" } else { "unittest" },
        "expected": s.expected,
        "mutants": mutants.iter().enumerate().map(|(i, m)| json!({
            "id": i, "start": m.start, "end": m.end, "text": m.replacement,
            "lines": [m.lines.0, m.lines.1], "scope": m.scope.map(|(a, b)| [a, b]),
        })).collect::<Vec<_>>(),
    })
}

/// Analyse `items` (each a subject and mutants of its code), `jobs` children at once (0: one
/// per core). Every subject ends in exactly one [`Progress::Finished`].
pub fn analyze_many(
    sandbox: &Sandbox,
    items: &[(&Subject, &[Mutant])],
    opts: &Options,
    jobs: usize,
    cancel: &AtomicBool,
    on: &mut dyn FnMut(Progress<'_>),
) {
    if items.is_empty() {
        return;
    }
    let jobs = match jobs {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let most = items.iter().map(|(_, m)| m.len()).max().unwrap_or(0);
    let per_task = task_wall(opts, most);
    let mut files = Vec::new();
    let mut subjects = Vec::new();
    for (i, (s, mutants)) in items.iter().enumerate() {
        let dir = format!("s{i}");
        files.push((format!("{dir}/{}.py", s.code_module), s.code.clone()));
        files.push((format!("{dir}/{}", s.test_file), s.tests.clone()));
        subjects.push(subject_input(&dir, s, mutants));
    }
    let rounds = items.len().div_ceil(jobs) as u32;
    let wall = per_task * rounds + Duration::from_secs(120);
    let program = Program {
        source: DRIVER.to_string(),
        files,
        input: json!({
            "subjects": subjects,
            "jobs": jobs,
            "mode": opts.runner,
            "coverage": opts.coverage,
            "test_budget_base": opts.test_budget_base.as_secs_f64(),
            "test_budget_factor": opts.test_budget_factor,
            "task_budget": opts.task_budget.map(|d| d.as_secs_f64()),
            "task_wall": per_task.as_secs_f64(),
        }),
        limits: Limits {
            wall,
            cpu: wall,
            memory_bytes: (3 << 29) * jobs as u64,
            pids: 128 * jobs as u32,
            disk_bytes: 512 << 20,
            open_files: 1024,
            ..Limits::default()
        },
        hash_seed: None,
    };
    let mut analyses: Vec<Option<Analysis>> = items
        .iter()
        .map(|(_, m)| {
            Some(Analysis {
                outcomes: vec![Outcome::not_run(); m.len()],
                ..Analysis::default()
            })
        })
        .collect();
    let run = sandbox.run_program(&program, cancel, &mut |v| {
        let Some(i) = v.get("task").and_then(Value::as_u64).map(|i| i as usize) else {
            return;
        };
        let Some(a) = analyses.get_mut(i).and_then(Option::as_mut) else {
            return;
        };
        match fold(a, &v) {
            Fold::Mutant(m) => {
                if let Some(outcome) = a.outcomes.get(m) {
                    on(Progress::Mutant {
                        subject: i,
                        mutant: m,
                        outcome,
                    });
                }
            }
            Fold::Done | Fold::Failed => {
                let a = analyses[i].take();
                let result = match (fold_failure(&v), a) {
                    (Some(e), _) => Err(e),
                    (None, Some(a)) => Ok(a),
                    (None, None) => return,
                };
                on(Progress::Finished { subject: i, result });
            }
            Fold::More => {}
        }
    });
    for (i, a) in analyses.iter_mut().enumerate() {
        if a.take().is_some() {
            let why = format!(
                "{} {}",
                run.describe(),
                run.stderr
                    .trim_end()
                    .lines()
                    .rev()
                    .take(3)
                    .collect::<Vec<_>>()
                    .join(" | ")
            );
            on(Progress::Finished {
                subject: i,
                result: Err(RunError::Driver(why.trim().to_string())),
            });
        }
    }
}

/// Analyse one subject (the library API; `forge` scores generated suites with it).
/// `on_mutant` hears of each outcome as it arrives (index into `mutants`).
pub fn analyze(
    sandbox: &Sandbox,
    subject: &Subject,
    mutants: &[Mutant],
    opts: &Options,
    cancel: &AtomicBool,
    on_mutant: &mut dyn FnMut(usize, &Outcome),
) -> Result<Analysis, RunError> {
    let mut out = None;
    analyze_many(
        sandbox,
        &[(subject, mutants)],
        opts,
        0,
        cancel,
        &mut |p| match p {
            Progress::Mutant {
                mutant, outcome, ..
            } => on_mutant(mutant, outcome),
            Progress::Finished { result, .. } => out = Some(result),
        },
    );
    out.unwrap_or_else(|| Err(RunError::Driver("no result".into())))
}

enum Fold {
    More,
    Mutant(usize),
    Done,
    Failed,
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(String::from)
}

/// A `fatal` record of the driver itself (not of the subject): no result to keep.
fn fold_failure(v: &Value) -> Option<RunError> {
    (v.get("kind").and_then(Value::as_str) == Some("fatal")
        && v.get("phase").and_then(Value::as_str) == Some("driver"))
    .then(|| RunError::Driver(text(v, "message").unwrap_or_default()))
}

/// One driver record into its subject's analysis.
fn fold(a: &mut Analysis, v: &Value) -> Fold {
    let kind = v.get("kind").and_then(Value::as_str).unwrap_or("");
    if let Some(s) = v.get("seconds").and_then(Value::as_f64)
        && kind != "mutant"
    {
        a.phases.insert(kind.to_string(), s);
    }
    if let Some(cpu) = v.get("cpu").and_then(Value::as_f64) {
        a.phases.insert("cpu".into(), cpu);
    }
    match kind {
        "warm" => a.reimport = text(v, "why"),
        "coverage" => {
            a.coverage_error = text(v, "error");
            if let Some(entry) = v.get("report").filter(|r| !r.is_null()) {
                match Coverage::from_report(entry) {
                    Ok(c) => a.coverage = Some(c),
                    Err(e) => a.coverage_error = Some(e),
                }
            }
        }
        "reference" => {
            for (id, r) in v
                .get("tests")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let outcome = r.get(0).and_then(Value::as_str).unwrap_or("?");
                let secs = r.get(1).and_then(Value::as_f64).unwrap_or(0.0);
                a.reference.insert(id.clone(), (outcome.to_string(), secs));
            }
        }
        "start" => {
            a.valid_tests = v.get("valid").and_then(Value::as_u64).unwrap_or(0) as usize;
            for (id, o) in v
                .get("excluded")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                a.excluded
                    .insert(id.clone(), o.as_str().unwrap_or("?").to_string());
            }
        }
        "mutant" => {
            let Some(i) = v.get("id").and_then(Value::as_u64).map(|i| i as usize) else {
                return Fold::More;
            };
            let status = match v.get("status").and_then(Value::as_str) {
                Some("killed") => Status::Killed,
                Some("timeout") => Status::Timeout,
                Some("survived") => Status::Survived,
                Some("equivalent") => Status::Equivalent,
                _ => Status::NotRun,
            };
            let outcome = Outcome {
                status,
                by: text(v, "by"),
                how: text(v, "how"),
                tests_run: v.get("tests_run").and_then(Value::as_u64).unwrap_or(0) as usize,
                seconds: v.get("seconds").and_then(Value::as_f64).unwrap_or(0.0),
            };
            if let Some(slot) = a.outcomes.get_mut(i) {
                *slot = outcome;
                return Fold::Mutant(i);
            }
        }
        "fatal" => {
            let msg = format!(
                "{}: {}",
                text(v, "phase").unwrap_or_default(),
                text(v, "message").unwrap_or_default()
            );
            a.error = Some(msg);
            return Fold::Failed;
        }
        "done" => {
            a.wall_s = v.get("seconds").and_then(Value::as_f64).unwrap_or(0.0);
            return Fold::Done;
        }
        _ => {}
    }
    Fold::More
}
