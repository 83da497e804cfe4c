//! Validation of tasks by execution (domain.md §6, issue 5 item 2): the reference solution
//! runs its private tests and every method's public tests twice, each time in a fresh sandbox
//! directory with another `PYTHONHASHSEED`, instrumented (see [`crate::exec::Probe`]). Findings:
//!
//! * `T11` — a test's outcome differs between the two runs (nondeterministic);
//! * `T5` — files a test (or the suite's set-up) left in the work dir, or anything the sandbox
//!   found outside it;
//! * `T8` — a test of method A that never invokes A (traced, not read from the source; `info`
//!   when A runs only through other methods the test calls, e.g. the constructor);
//! * `T9` — a public test of A that invokes other target methods;
//! * `I2` — the reference fails a test in both runs, or a suite does not run at all (failures
//!   the environment causes — a missing module or nltk resource — are marked as such).
//!
//! Two runs catch nondeterminism only when it shows: a test failing by chance in both runs
//! is an `I2`, one failing in neither is not found.
//!
//! Line coverage (coverage.py inside the sandbox) of each method by its public tests and by
//! the private tests is reported beside the findings; the class's line and branch coverage
//! by the private tests are `classlab rigor`'s (the same code path: `rigor::analyze_many`
//! without mutants). Running is here; turning
//! two runs into findings and coverage is pure (`compare`, `coverage`) and unit-tested.

mod compare;
mod coverage;
#[cfg(test)]
mod tests;
mod traces;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use serde::Serialize;

pub use crate::analysis::lint::Severity;
use crate::exec::{Harness, Limits, Probe, ProbeReport, Sandbox, SuiteSpec, VALIDATE_HARNESS};
use crate::model::{SuiteResult, Task};
use crate::pipeline::eval::suite_for;
use crate::pipeline::public_tests::{PublicTestsMode, public_tests};
use crate::pipeline::tdd::public_suite;

pub use compare::{suite_findings, test_line};
pub use coverage::{CoverageOut, task_coverage};

/// Validation's findings are the linter's: same shape, same JSON. Their part is `tests` (the
/// private test module), `public_tests` (the method's public tests) or `solution`.
pub use crate::analysis::lint::{Finding, Part};

/// Which suite of a task: the private tests, or one method's public tests.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SuiteKey {
    Private,
    Public(String),
}

/// One run of one suite.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteRun {
    pub seed: u32,
    pub result: SuiteResult,
    pub probe: ProbeReport,
}

/// Both runs of one suite, with the files the suite started with.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteRuns {
    pub key: SuiteKey,
    /// The test text of this suite (private test module, or the method's public tests), for
    /// finding lines.
    pub tests_text: String,
    /// Work-dir files the suite was given (anything else at the end was left behind).
    pub initial_files: Vec<String>,
    pub runs: [SuiteRun; 2],
}

/// Passed / total tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Count {
    pub passed: usize,
    pub total: usize,
}

/// The reference's results: a test counts as passed when it passed in both runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Reference {
    pub private: Count,
    pub public: Count,
}

/// Everything validation says about one task.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskValidation {
    pub task_id: String,
    pub reference: Reference,
    /// Every test had the same outcome in both runs (and every suite ended the same way).
    pub runs_agree: bool,
    pub findings: Vec<Finding>,
    pub coverage: CoverageOut,
    /// Target methods without public tests in the dataset.
    pub no_public_tests: Vec<String>,
    /// What could not be measured, and why (coverage not importable, tracing unavailable …).
    pub notes: Vec<String>,
    /// Sandbox time of the task's suites, summed.
    pub suite_time_s: f64,
}

impl TaskValidation {
    /// The reference passed every test it has, twice, and the runs agree.
    pub fn passes_twice(&self) -> bool {
        let r = &self.reference;
        self.runs_agree && r.private.passed == r.private.total && r.public.passed == r.public.total
    }
}

/// How to validate.
#[derive(Debug, Clone)]
pub struct ValidateOptions {
    /// Suites run at once (0: one per core).
    pub jobs: usize,
    /// `PYTHONHASHSEED` of the first and of the second run.
    pub seeds: [u32; 2],
    /// Time budget of each test class (instrumentation slows tests down: more than the
    /// evaluator's 5 s by default).
    pub budget: Duration,
    /// Measure line coverage (when coverage.py is importable in the sandbox).
    pub coverage: bool,
    /// Which harness runs the suites. The split harness runs them uninstrumented (the probe
    /// instruments the code under test, which then runs out of its reach): outcomes,
    /// agreement between the runs and the reference's failures only.
    pub harness: Harness,
}

/// What a validation through the split harness does not measure, and why.
pub const SPLIT_UNPROBED: &str = "split harness: the calls each test makes, the files it leaves \
     and line coverage are not measured (they instrument the code under test, which runs out of \
     the harness's reach); `--harness inproc` measures them";

impl Default for ValidateOptions {
    fn default() -> Self {
        ValidateOptions {
            jobs: 0,
            seeds: [0, 1],
            budget: Duration::from_secs(20),
            coverage: true,
            harness: VALIDATE_HARNESS,
        }
    }
}

/// One suite to run (twice): its key, its spec without a seed, its test text.
struct Planned {
    key: SuiteKey,
    spec: SuiteSpec,
    tests_text: String,
}

/// The suites of a task, and the methods that have no public tests.
fn plan(task: &Task, budget: Duration) -> (Vec<Planned>, Vec<String>) {
    let mut suites = vec![Planned {
        key: SuiteKey::Private,
        spec: suite_for(task, &task.solution, budget, None),
        tests_text: task.test_module.clone(),
    }];
    let mut missing = Vec::new();
    for m in &task.methods {
        match public_tests(task, &m.name, PublicTestsMode::Dataset) {
            Some(p) => {
                // TDD's 5 s class budget, widened as for the private tests.
                let spec = public_suite(
                    &crate::pipeline::prepare::runnable(task, &task.solution),
                    &p,
                );
                let cpu = budget + Duration::from_secs(5);
                let limits = Limits {
                    class_timeout: Some(budget),
                    cpu,
                    wall: cpu * 2,
                    ..spec.limits.clone()
                };
                suites.push(Planned {
                    key: SuiteKey::Public(m.name.clone()),
                    spec: spec.with_limits(limits),
                    tests_text: p.code.clone(),
                })
            }
            None => missing.push(m.name.clone()),
        }
    }
    (suites, missing)
}

/// Everything about one task once both runs of all its suites are in (pure).
pub fn task_validation(
    task: &Task,
    suites: &[SuiteRuns],
    no_public: Vec<String>,
) -> TaskValidation {
    let targets: Vec<&str> = task.method_names();
    let mut findings = Vec::new();
    let mut notes = Vec::new();
    let mut reference = Reference::default();
    let mut runs_agree = true;
    let mut suite_time_s = 0.0;
    for s in suites {
        let out = suite_findings(task, s, &targets);
        runs_agree &= out.agree;
        let count = match s.key {
            SuiteKey::Private => &mut reference.private,
            SuiteKey::Public(_) => &mut reference.public,
        };
        count.passed += out.count.passed;
        count.total += out.count.total;
        findings.extend(out.findings);
        for n in out.notes {
            if !notes.contains(&n) {
                notes.push(n);
            }
        }
        suite_time_s += s.runs.iter().map(|r| r.result.wall_s).sum::<f64>();
    }
    let (coverage, cov_notes) = task_coverage(task, suites);
    for n in cov_notes {
        if !notes.contains(&n) {
            notes.push(n);
        }
    }
    TaskValidation {
        task_id: task.id.clone(),
        reference,
        runs_agree,
        findings,
        coverage,
        no_public_tests: no_public,
        notes,
        suite_time_s,
    }
}

/// One job: a task's suite in one of its two runs.
struct Job<'a> {
    task: usize,
    suite: usize,
    run: usize,
    spec: &'a SuiteSpec,
    /// `None`: uninstrumented (the split harness).
    probe: Option<&'a Probe>,
}

/// Validate `tasks` in the sandbox. `on_task` hears of each task as soon as all its runs are
/// in (in completion order); the result is in the order of `tasks`. Setting `cancel` stops
/// the runs: tasks not complete by then are left out.
pub fn validate(
    tasks: &[&Task],
    sandbox: &Sandbox,
    opts: &ValidateOptions,
    cancel: &AtomicBool,
    on_task: &mut dyn FnMut(&TaskValidation),
) -> Vec<TaskValidation> {
    let plans: Vec<(Vec<Planned>, Vec<String>)> =
        tasks.iter().map(|t| plan(t, opts.budget)).collect();
    let probes: Vec<Probe> = tasks
        .iter()
        .map(|t| Probe {
            coverage: opts.coverage,
            ..Probe::all(&t.class_name)
        })
        .collect();
    let mut jobs = Vec::new();
    let mut seeded: Vec<Vec<[SuiteSpec; 2]>> = Vec::new();
    for (suites, _) in &plans {
        seeded.push(
            suites
                .iter()
                .map(|p| {
                    opts.seeds.map(|seed| {
                        SuiteSpec {
                            hash_seed: Some(seed),
                            ..p.spec.clone()
                        }
                        .with_harness(opts.harness)
                    })
                })
                .collect(),
        );
    }
    for (ti, specs) in seeded.iter().enumerate() {
        for (si, pair) in specs.iter().enumerate() {
            for (run, spec) in pair.iter().enumerate() {
                jobs.push(Job {
                    task: ti,
                    suite: si,
                    run,
                    spec,
                    probe: (opts.harness == Harness::Inproc).then_some(&probes[ti]),
                });
            }
        }
    }
    // The class's coverage is rigor's (coverage.py on the reference module, a context per
    // test), measured for every task in one sandbox program before the suites run.
    let rigor_cov = if opts.coverage {
        rigor_coverage(tasks, sandbox, opts.jobs, cancel)
    } else {
        BTreeMap::new()
    };
    let workers = match opts.jobs {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
    .min(jobs.len().max(1));
    let next = AtomicUsize::new(0);
    let mut slots: Vec<Vec<[Option<SuiteRun>; 2]>> = plans
        .iter()
        .map(|(s, _)| s.iter().map(|_| [None, None]).collect())
        .collect();
    let mut left: Vec<usize> = plans.iter().map(|(s, _)| s.len() * 2).collect();
    let mut done: BTreeMap<usize, TaskValidation> = BTreeMap::new();
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, SuiteRun)>();
        for _ in 0..workers {
            let tx = tx.clone();
            let (jobs, next) = (&jobs, &next);
            scope.spawn(move || {
                loop {
                    if cancel.load(Ordering::Relaxed) {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    let (result, probe) = match job.probe {
                        Some(p) => sandbox.run_probed(job.spec, p, cancel),
                        None => (
                            sandbox.run_cancellable(job.spec, cancel),
                            ProbeReport::default(),
                        ),
                    };
                    let seed = job.spec.hash_seed.unwrap_or(0);
                    if tx
                        .send((
                            i,
                            SuiteRun {
                                seed,
                                result,
                                probe,
                            },
                        ))
                        .is_err()
                    {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (i, run) in rx {
            if cancel.load(Ordering::Relaxed) {
                continue; // a killed run is no evidence
            }
            let Some(job) = jobs.get(i) else { continue };
            slots[job.task][job.suite][job.run] = Some(run);
            left[job.task] -= 1;
            if left[job.task] > 0 {
                continue;
            }
            let (suites, missing) = &plans[job.task];
            let runs: Vec<SuiteRuns> = suites
                .iter()
                .zip(std::mem::take(&mut slots[job.task]))
                .filter_map(|(p, [a, b])| {
                    Some(SuiteRuns {
                        key: p.key.clone(),
                        tests_text: p.tests_text.clone(),
                        initial_files: p.spec.files.iter().map(|(f, _)| f.clone()).collect(),
                        runs: [a?, b?],
                    })
                })
                .collect();
            let mut v = task_validation(tasks[job.task], &runs, missing.clone());
            if opts.harness == Harness::Split {
                v.notes.push(SPLIT_UNPROBED.into());
            }
            if opts.coverage {
                let c = rigor_cov.get(&job.task);
                v.coverage.class = c.and_then(|c| c.line).map(coverage::round1);
                v.coverage.branch = c.and_then(|c| c.branch).map(coverage::round1);
                if c.is_none() {
                    v.notes
                        .push("class coverage not measured (rigor's coverage run failed)".into());
                }
            }
            on_task(&v);
            done.insert(job.task, v);
        }
    });
    done.into_values().collect()
}

/// Coverage of each task's reference by its private tests, by task index: `rigor`'s
/// measurement without mutants.
fn rigor_coverage(
    tasks: &[&Task],
    sandbox: &Sandbox,
    jobs: usize,
    cancel: &AtomicBool,
) -> BTreeMap<usize, crate::rigor::Coverage> {
    let subjects: Vec<crate::rigor::Subject> = tasks
        .iter()
        .map(|t| crate::rigor::Subject::of_task(t))
        .collect();
    let items: Vec<(&crate::rigor::Subject, &[crate::rigor::Mutant])> =
        subjects.iter().map(|s| (s, &[][..])).collect();
    let mut out = BTreeMap::new();
    let opts = crate::rigor::Options::default();
    crate::rigor::analyze_many(sandbox, &items, &opts, jobs, cancel, &mut |p| {
        if let crate::rigor::batch::Progress::Finished {
            subject,
            result: Ok(a),
        } = p
            && let Some(c) = a.coverage
        {
            out.insert(subject, c);
        }
    });
    out
}

/// Totals over validated tasks.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Summary {
    pub tasks: usize,
    /// Tasks whose reference passed every test twice, with the runs agreeing.
    pub passed_twice: usize,
    /// Task ids per finding code.
    pub tasks_by_code: BTreeMap<String, Vec<String>>,
    /// Findings per code.
    pub findings_by_code: BTreeMap<String, usize>,
    /// Mean class coverage by the private tests over the tasks where it was measured.
    pub mean_class_coverage: Option<f64>,
    /// Tasks with a class coverage figure.
    pub coverage_measured: usize,
    /// Methods with public tests / without.
    pub methods_with_public_tests: usize,
    pub methods_without_public_tests: usize,
    /// Every distinct note of the tasks (e.g. coverage not importable), once.
    pub notes: Vec<String>,
    pub wall_s: f64,
}

/// Totals over `results`; `methods_total` counts the target methods of the validated tasks.
pub fn summarize(results: &[TaskValidation], methods_total: usize, wall_s: f64) -> Summary {
    let mut s = Summary {
        tasks: results.len(),
        wall_s,
        ..Summary::default()
    };
    let mut cov = Vec::new();
    for r in results {
        s.passed_twice += usize::from(r.passes_twice());
        for f in &r.findings {
            *s.findings_by_code.entry(f.code.to_string()).or_default() += 1;
            let ids = s.tasks_by_code.entry(f.code.to_string()).or_default();
            if ids.last() != Some(&r.task_id) {
                ids.push(r.task_id.clone());
            }
        }
        if let Some(c) = r.coverage.class {
            cov.push(c);
        }
        s.methods_without_public_tests += r.no_public_tests.len();
        for n in &r.notes {
            if !s.notes.contains(n) {
                s.notes.push(n.clone());
            }
        }
    }
    s.methods_with_public_tests = methods_total.saturating_sub(s.methods_without_public_tests);
    s.coverage_measured = cov.len();
    if !cov.is_empty() {
        s.mean_class_coverage = Some(coverage::round1(cov.iter().sum::<f64>() / cov.len() as f64));
    }
    s
}
