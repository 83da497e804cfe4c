//! Forging one task: plan, explore in the sandbox, write the suite, validate it on the
//! reference under the harness `eval` uses (several runs: hash seeds, test-class orders, fresh
//! directories), drop what fails, and return the task with its tests and evidence.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use serde::Serialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::explored::{Explored, Report};
use super::mutation::{self, Score};
use super::plan::{PlanError, plan};
use super::write::{Suite, write};
use crate::exec::{Harness, Limits, Program, Sandbox};
use crate::model::{Outcome, Task};
use crate::pipeline::eval::suite_for;

/// The explorer's files, placed beside the reference in the sandbox's work dir.
pub const EXPLORER: [(&str, &str); 5] = [
    (
        "forge_explore.py",
        include_str!("../../assets/forge/forge_explore.py"),
    ),
    (
        "forge_mutants.py",
        include_str!("../../assets/forge/forge_mutants.py"),
    ),
    (
        "forge_runner.py",
        include_str!("../../assets/forge/forge_runner.py"),
    ),
    (
        "forge_select.py",
        include_str!("../../assets/forge/forge_select.py"),
    ),
    (
        "forge_values.py",
        include_str!("../../assets/forge/forge_values.py"),
    ),
];

// The reference may have closed stdout: leave without flushing it (`os._exit`).
const BOOTSTRAP: &str = "import os, sys\nsys.path.insert(0, os.getcwd())\nimport forge_explore\n\
     os._exit(forge_explore.main(sys.argv[1]))\n";

/// The generator's identity, recorded in every task it forges: the crate version and a digest
/// of the explorer's source (a change to either is a new generator).
pub fn generator_version() -> String {
    let mut h = Sha256::new();
    for (name, src) in EXPLORER {
        h.update(name.as_bytes());
        h.update(src.as_bytes());
    }
    h.update(super::write::HELPERS.as_bytes());
    let d = h.finalize();
    format!(
        "classlab {} forge {}",
        env!("CARGO_PKG_VERSION"),
        d.iter()
            .take(6)
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    )
}

/// How to forge.
#[derive(Debug, Clone, Serialize)]
pub struct Settings {
    pub seed: u64,
    /// Exploration rounds (sequences extended and tried).
    pub iterations: u32,
    /// Further rounds spent on mutants still alive.
    pub mutant_iterations: u32,
    /// Most calls after the constructor in one sequence.
    pub max_calls: u32,
    /// Budget of one call on the reference.
    pub call_timeout_s: f64,
    /// Wall-clock cap of one exploration (hitting it is recorded: the result is then not
    /// reproducible).
    pub deadline_s: f64,
    /// Validation runs of the written suite on the reference (each a fresh directory, another
    /// hash seed; odd runs reverse the order of the test classes).
    pub validation_runs: u32,
    /// Time each test class gets in validation and evaluation (ClassEval's 5 s).
    pub class_budget: Duration,
    /// The harness the validation runs use (`eval --harness`).
    #[serde(skip)]
    pub harness: Harness,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            seed: 1,
            iterations: 600,
            mutant_iterations: 300,
            max_calls: 6,
            call_timeout_s: 0.5,
            deadline_s: 60.0,
            validation_runs: 5,
            class_budget: Duration::from_secs(5),
            harness: crate::exec::DEFAULT_HARNESS,
        }
    }
}

/// What became of a class.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Forged {
    /// The task with its generated tests (`None`: dropped, see `dropped`).
    #[serde(skip)]
    pub task: Option<Task>,
    /// Funnel reason code when dropped (`skeleton`, `import`, `explorer`, `undefined_name`,
    /// `abstract`, `no_tests`, `unstable`).
    pub dropped: Option<(&'static str, String)>,
    pub evidence: Evidence,
}

/// Per task: what the suite is and how strong.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Evidence {
    pub tests: usize,
    pub sequences: usize,
    pub calls: usize,
    /// Line coverage (coverage.py, percent) of the reference under the final suite.
    pub line: Option<f64>,
    /// Branch coverage (percent); `None` until measured, or without branches.
    pub branch: Option<f64>,
    /// Mutation score 0–1 (rigor's analysis of the written suite); `None` until measured.
    pub mutation: Option<f64>,
    /// Rigor's counts and the surviving mutants.
    pub mutants: Option<Score>,
    /// Covered and total branches (coverage.py).
    pub branches: (u64, u64),
    /// Arcs of the reference no test takes (coverage.py's missing branches).
    pub missing_arcs: Vec<(i64, i64)>,
    /// Why coverage could not be measured.
    pub coverage_error: Option<String>,
    /// Arcs the explorer reached on the reference (its own tracer).
    pub arcs_reached: usize,
    pub methods_without_test: Vec<String>,
    /// Tests dropped by validation, with the reason.
    pub dropped_tests: Vec<String>,
    /// Assertions dropped or sequences discarded because values varied.
    pub unstable: usize,
    /// Assertions dropped because their value depends on `random` (it varied when the
    /// sequence was replayed under other seeds).
    #[serde(default)]
    pub random_dependent: usize,
    pub explored: u64,
    pub deadline_hit: bool,
    /// Where the plan came from when not the skeleton.
    pub plan_note: Option<String>,
    /// Seconds the exploration took (not recorded in the task: it would vary).
    #[serde(skip)]
    pub explore_s: f64,
}

/// The explorer's reason for an assertion whose value varied under other seeds of `random`
/// (`stabilise` in `assets/forge/forge_select.py`).
const RANDOM_DEPENDENT: &str = "value depends on `random`";

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

impl Evidence {
    /// coverage.py's figures of the suite as written (percent to one decimal).
    pub(crate) fn set_coverage(&mut self, c: crate::rigor::Coverage) {
        self.line = c.line.map(round1);
        self.branch = c.branch.map(round1);
        self.branches = (c.branches.0 as u64, c.branches.1 as u64);
        self.missing_arcs = c.missing_arcs;
        self.coverage_error = None;
    }
}

fn digest(text: &str) -> String {
    let d = Sha256::digest(text.as_bytes());
    d.iter().map(|b| format!("{b:02x}")).collect()
}

fn dropped(code: &'static str, why: String, evidence: Evidence) -> Forged {
    Forged {
        task: None,
        dropped: Some((code, why)),
        evidence,
    }
}

/// Forge `task` (only its skeleton and reference are read).
pub fn forge_task(
    sandbox: &Sandbox,
    task: &Task,
    settings: &Settings,
    cancel: &AtomicBool,
) -> Forged {
    let mut ev = Evidence::default();
    // A skeleton that does not parse (ClassEval_5's opens an unterminated string) leaves the
    // reference's own signatures, led by the docstrings cut out of the skeleton's text: the
    // plan is read from them instead, and says so.
    let p = match plan(&task.skeleton, &task.solution, &task.class_name) {
        Ok(p) => p,
        Err(first) => {
            match super::graft::graft_docstrings(&task.skeleton, &task.solution, &task.class_name)
                .and_then(|g| plan(&g, &task.solution, &task.class_name).ok())
            {
                Some(p) => {
                    ev.plan_note = Some(format!(
                        "{first}; planned from the reference with the skeleton's docstrings"
                    ));
                    p
                }
                None => match plan(&task.solution, &task.solution, &task.class_name) {
                    Ok(p) => {
                        ev.plan_note = Some(format!("{first}; planned from the reference"));
                        p
                    }
                    Err(e @ (PlanError::Skeleton(_) | PlanError::NoClass(_))) => {
                        return dropped("skeleton", format!("{first}; reference: {e}"), ev);
                    }
                },
            }
        }
    };
    let (mutants, mutant_error) = mutation::mutants_of(&task.solution, &task.class_name);
    let hunted = json!({"mutants": mutation::explorer_input(&mutants)});
    let report = match explore(sandbox, task, &p, settings, hunted, cancel) {
        Ok(r) => r,
        Err((code, why)) => return dropped(code, why, ev),
    };
    ev.arcs_reached = report.arcs_reached.len();
    ev.line = report.coverage.line.map(round1);
    ev.branch = report.coverage.branch.map(round1);
    ev.branches = report.coverage.branches;
    ev.missing_arcs = report.coverage.missing_arcs.clone();
    ev.coverage_error = report.coverage.error.clone();
    ev.methods_without_test = report.methods_without_test.clone();
    ev.unstable = report.unstable.len();
    let kept_drops = report.tests.iter().flat_map(|t| t.dropped.iter());
    let unstable_drops = report
        .unstable
        .iter()
        .filter_map(|u| u.get("dropped")?.as_array())
        .flatten();
    ev.random_dependent = kept_drops
        .chain(unstable_drops)
        .filter(|d| d.get("reason").and_then(Value::as_str) == Some(RANDOM_DEPENDENT))
        .count();
    ev.explored = report.explored;
    ev.deadline_hit = report.deadline_hit;
    ev.explore_s = report.seconds;
    if let Some(e) = report.load_error {
        return dropped("import", e, ev);
    }
    let methods: Vec<String> = p.methods.iter().map(|m| m.name.clone()).collect();
    let discarded = report.discarded;
    let mut kept: Vec<Explored> = report.tests;
    let tables = super::tables::constant_tables(&task.solution, &task.class_name);
    super::tables::unassert_tables(&mut kept, &tables);
    // Validate; a test failing in any run is dropped, and the rest validated again.
    let mut suite = write(&task.class_name, &methods, &p.kinds, &kept);
    for _round in 0..3 {
        if kept.is_empty() {
            break;
        }
        let failing = validate(sandbox, task, &suite, settings, cancel);
        if failing.is_empty() {
            break;
        }
        let ids: Vec<String> = suite.traces.iter().map(|t| t.id.clone()).collect();
        let mut next = Vec::new();
        for (t, id) in kept.into_iter().zip(&ids) {
            match failing.get(id) {
                Some(why) => ev.dropped_tests.push(format!("{id}: {why}")),
                None => next.push(t),
            }
        }
        kept = next;
        suite = write(&task.class_name, &methods, &p.kinds, &kept);
    }
    if kept.is_empty() {
        if !ev.dropped_tests.is_empty() {
            return dropped(
                "unstable",
                "no test passes on the reference every time".into(),
                ev,
            );
        }
        let why = match discarded.first() {
            Some((reason, n)) => {
                format!("no sequence became a test; {n} runs failed with {reason}")
            }
            None => "no sequence became a test".into(),
        };
        if let Some(name) = discarded.first().and_then(|(r, _)| undefined_name(r)) {
            // A name the class uses that its module never defines (RealClassEval's snippets
            // come without their module): no input can help, and the funnel says so.
            return dropped(
                "undefined_name",
                format!("the class uses `{name}`, which its module does not define; {why}"),
                ev,
            );
        }
        if discarded
            .first()
            .is_some_and(|(r, _)| r.starts_with("TypeError: Can't instantiate abstract class"))
        {
            // An abstract class cannot be built; its tests would need a concrete subclass of
            // the candidate's class, which the split harness cannot carry.
            return dropped("abstract", why, ev);
        }
        return dropped("no_tests", why, ev);
    }
    // Rigor scores the suite as written: coverage.py's figures and the mutation score.
    let (score, coverage) = mutation::score(
        sandbox,
        &with_tests(task, &suite.module, &suite),
        &mutants,
        cancel,
    );
    ev.mutation = score.score;
    ev.mutants = Some(Score {
        error: score.error.clone().or(mutant_error),
        ..score
    });
    if let Some(c) = coverage {
        ev.set_coverage(c);
    } else if !ev.dropped_tests.is_empty() {
        // Coverage again, of the sequences that stayed.
        let replay: Vec<&super::explored::Sequence> = kept.iter().map(|t| &t.seq).collect();
        match explore(
            sandbox,
            task,
            &p,
            settings,
            json!({"replay": replay}),
            cancel,
        ) {
            Ok(r) => {
                ev.line = r.coverage.line.map(round1);
                ev.branch = r.coverage.branch.map(round1);
                ev.branches = r.coverage.branches;
                ev.missing_arcs = r.coverage.missing_arcs;
                ev.coverage_error = r.coverage.error;
            }
            Err((_, why)) => {
                (ev.line, ev.branch) = (None, None);
                ev.coverage_error = Some(why);
            }
        }
    }
    ev.tests = suite.traces.len();
    ev.sequences = kept.len();
    ev.calls = kept.iter().map(|t| t.seq.calls.len() + 1).sum();
    let forged = forged_task(task, &suite, settings, &ev, sandbox);
    Forged {
        task: Some(forged),
        dropped: None,
        evidence: ev,
    }
}

/// The name a discard reason `NameError: name 'X' is not defined` names.
fn undefined_name(reason: &str) -> Option<&str> {
    reason
        .strip_prefix("NameError: name '")?
        .strip_suffix("' is not defined")
        .filter(|n| !n.is_empty())
}

fn explore(
    sandbox: &Sandbox,
    task: &Task,
    p: &super::plan::Plan,
    s: &Settings,
    extra: Value,
    cancel: &AtomicBool,
) -> Result<Report, (&'static str, String)> {
    let mut input = serde_json::to_value(p).map_err(|e| ("explorer", e.to_string()))?;
    input["module_file"] = json!("reference.py");
    input["seed"] = json!(s.seed);
    input["iterations"] = json!(s.iterations);
    input["mutant_iterations"] = json!(s.mutant_iterations);
    input["max_calls"] = json!(s.max_calls);
    input["call_timeout_s"] = json!(s.call_timeout_s);
    input["deadline_s"] = json!(s.deadline_s);
    for (k, v) in extra.as_object().into_iter().flatten() {
        input[k.as_str()] = v.clone();
    }
    let mut files: Vec<(String, String)> = EXPLORER
        .iter()
        .map(|(n, src)| (n.to_string(), src.to_string()))
        .collect();
    files.push(("reference.py".into(), task.solution.clone()));
    let wall = Duration::from_secs_f64(s.deadline_s * 2.0 + 30.0);
    let program = Program {
        source: BOOTSTRAP.into(),
        files,
        input,
        limits: Limits {
            wall,
            cpu: wall,
            ..Limits::default()
        },
        hash_seed: None,
    };
    let mut report: Option<Value> = None;
    let run = sandbox.run_program(&program, cancel, &mut |v| report = Some(v));
    match report {
        Some(v) if run.ok() => {
            serde_json::from_value(v).map_err(|e| ("explorer", format!("unreadable report: {e}")))
        }
        _ => Err(("explorer", run.describe())),
    }
}

/// Run the suite on the reference `settings.validation_runs` times; the ids of tests that did
/// not pass in some run, with the first reason.
pub(crate) fn validate(
    sandbox: &Sandbox,
    task: &Task,
    suite: &Suite,
    settings: &Settings,
    cancel: &AtomicBool,
) -> BTreeMap<String, String> {
    let mut failing = BTreeMap::new();
    for run in 0..settings.validation_runs {
        let module = if run % 2 == 1 {
            reversed(suite)
        } else {
            suite.module.clone()
        };
        let t = with_tests(task, &module, suite);
        let spec = suite_for(&t, &t.solution, settings.class_budget, Some(run + 1))
            .with_harness(settings.harness);
        let result = sandbox.run_cancellable(&spec, cancel);
        for r in &result.tests {
            if r.outcome != Outcome::Pass {
                failing.entry(r.id.clone()).or_insert_with(|| {
                    format!(
                        "{:?} in validation run {} ({})",
                        r.outcome,
                        run + 1,
                        r.exc_type.as_deref().unwrap_or("no exception")
                    )
                });
            }
        }
        if let Some(f) = &result.failure {
            for t in &suite.traces {
                failing
                    .entry(t.id.clone())
                    .or_insert_with(|| format!("suite failed in run {}: {f:?}", run + 1));
            }
        }
    }
    failing
}

/// The module with its test classes in reverse order (helpers first, as before).
fn reversed(suite: &Suite) -> String {
    let head_end = suite
        .classes
        .first()
        .and_then(|c| suite.module.find(&c.2))
        .unwrap_or(suite.module.len());
    let mut out = suite.module[..head_end].to_string();
    for c in suite.classes.iter().rev() {
        out.push_str(&c.2);
        out.push_str("\n\n");
    }
    out
}

/// The task with the forged suite as its tests. A forged module is written for ClassEval's
/// layout (the class is one of its globals), whatever the source's layout was: RealClassEval's
/// tests import the code as a module, and would not see the class.
fn with_tests(task: &Task, module: &str, suite: &Suite) -> Task {
    let mut t = task.clone();
    t.test_module = module.to_string();
    t.test_layout = crate::model::TestLayout::Concatenated;
    t.test_classes = suite.classes.iter().map(|c| c.0.clone()).collect();
    t
}

fn forged_task(
    task: &Task,
    suite: &Suite,
    settings: &Settings,
    ev: &Evidence,
    sandbox: &Sandbox,
) -> Task {
    let mut t = with_tests(task, &suite.module, suite);
    let by_method: BTreeMap<&str, (&str, &str)> = suite
        .classes
        .iter()
        .filter_map(|(name, m, src)| m.as_deref().map(|m| (m, (name.as_str(), src.as_str()))))
        .collect();
    for m in &mut t.methods {
        match by_method.get(m.name.as_str()) {
            Some((name, src)) => {
                m.test_class = Some(name.to_string());
                m.test_code = src.to_string();
            }
            None => {
                m.test_class = None;
                m.test_code = String::new();
            }
        }
        m.public_tests = None;
    }
    let python = &sandbox.isolation().python;
    let traces: BTreeMap<&str, &super::write::TestTrace> =
        suite.traces.iter().map(|tr| (tr.id.as_str(), tr)).collect();
    t.provenance.extra.insert(
        "forge".into(),
        json!({
            "generator": generator_version(),
            "seed": settings.seed,
            "reference_digest": digest(&task.solution),
            "python": {"executable": python.executable, "version": python.version},
            "evidence": ev,
            "traces": traces,
        }),
    );
    if t.provenance.original_id.is_none() {
        t.provenance.original_id = Some(task.id.clone());
    }
    t
}
