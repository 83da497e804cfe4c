//! Two runs of one suite → counts and findings: T11 and I2 from the outcomes here, T5, T8 and
//! T9 from what the probe saw in `traces`. Pure.

use std::collections::{BTreeMap, BTreeSet};

use super::{Count, Finding, Part, Severity, SuiteKey, SuiteRuns, traces};
use crate::analysis::parse_module;
use crate::metrics::fingerprint::{EnvCause, trusted_import_cause, trusted_test_cause};
use crate::model::{Outcome, SuiteFailure, SuiteResult, Task, TestResult};
use crate::pipeline::eval::env_context;

/// What one suite's two runs say.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SuiteOutcome {
    pub count: Count,
    pub agree: bool,
    pub findings: Vec<Finding>,
    pub notes: Vec<String>,
}

fn passing(o: Outcome) -> bool {
    matches!(o, Outcome::Pass | Outcome::Skip | Outcome::Xfail)
}

/// Each test's outcome; a test reported more than once (an error in tearDown after the test)
/// keeps its worst.
fn outcomes(r: &SuiteResult) -> BTreeMap<&str, &TestResult> {
    let mut m: BTreeMap<&str, &TestResult> = BTreeMap::new();
    for t in &r.tests {
        match m.get(t.id.as_str()) {
            Some(prev) if !passing(prev.outcome) => {}
            _ => {
                m.insert(t.id.as_str(), t);
            }
        }
    }
    m
}

fn outcome_word(o: Option<Outcome>) -> &'static str {
    match o {
        Some(Outcome::Pass) => "pass",
        Some(Outcome::Fail) => "fail",
        Some(Outcome::Error) => "error",
        Some(Outcome::Skip) => "skip",
        Some(Outcome::Xfail) => "xfail",
        Some(Outcome::Xpass) => "xpass",
        Some(Outcome::NotRun) | None => "not run",
        Some(Outcome::Tampered) => "tampered",
    }
}

/// How a suite ended, in words (`None`: normally).
fn ending(f: Option<&SuiteFailure>) -> Option<String> {
    Some(match f? {
        SuiteFailure::Import {
            exc_type, message, ..
        } => format!("did not import ({exc_type}: {})", clip(message, 160)),
        SuiteFailure::Timeout { limit_s } => format!("timed out after {limit_s:.0} s"),
        SuiteFailure::Memory => "ran out of memory".into(),
        SuiteFailure::Crashed { detail, .. } => format!("crashed ({})", clip(detail, 160)),
        SuiteFailure::Protocol { detail } => {
            format!("disturbed the harness ({})", clip(detail, 160))
        }
        SuiteFailure::Tampered { detail } => {
            format!("tampered with the harness ({})", clip(detail, 160))
        }
    })
}

/// Tracing and coverage slow tests down: a timeout may be theirs.
const TIMEOUT_HINT: &str =
    " (the runs are instrumented: retry with a larger --timeout, or --no-coverage)";

/// The first line that says something (nltk's messages open with a line of asterisks).
fn clip(s: &str, n: usize) -> String {
    let line = s
        .lines()
        .find(|l| l.chars().any(char::is_alphanumeric))
        .unwrap_or("")
        .trim();
    if line.chars().count() <= n {
        return line.to_string();
    }
    let cut: String = line.chars().take(n).collect();
    format!("{cut}…")
}

/// Why a failure is the environment's (a missing module or nltk resource, no network, a
/// removed API), in words; `None` when it is the task's own. A note on the reference, which
/// is trusted code: read off its exception (`metrics::fingerprint::env_cause`), never a
/// verdict on a model's code.
fn env_note(cause: Option<EnvCause>) -> Option<String> {
    Some(match cause? {
        EnvCause::MissingModule(m) => format!("missing module {m}"),
        EnvCause::MissingData(d) => format!("missing data {d}"),
        EnvCause::Network => "no network".into(),
        EnvCause::IncompatibleVersion(m) => format!("the installed {m} lacks this API"),
        EnvCause::Reference(_) => return None,
    })
}

/// The 1-based line of `Class.test` (or a top-level `test`) in a test text.
pub fn test_line(text: &str, id: &str) -> Option<usize> {
    let module = parse_module(text);
    match id.rsplit_once('.') {
        Some((class, name)) => module.class(class)?.method(name).map(|m| m.start_line),
        None => None,
    }
}

/// The target method a test belongs to: the suite's method for public tests, the method whose
/// test class holds it for private tests.
pub(super) fn method_of(task: &Task, key: &SuiteKey, id: &str) -> Option<String> {
    match key {
        SuiteKey::Public(m) => Some(m.clone()),
        SuiteKey::Private => {
            let class = id.rsplit_once('.').map(|(c, _)| c)?;
            task.methods
                .iter()
                .find(|m| m.test_class.as_deref().map(str::trim) == Some(class))
                .map(|m| m.name.clone())
        }
    }
}

/// Findings of one suite, grouped by target method so that a test class yields one finding
/// per code, naming its tests.
pub(super) struct Builder<'a> {
    pub task: &'a Task,
    pub runs: &'a SuiteRuns,
    pub part: Part,
    pub out: Vec<Finding>,
}

impl Builder<'_> {
    pub fn grouped(&self, ids: &[&str]) -> BTreeMap<Option<String>, Vec<String>> {
        let mut g: BTreeMap<Option<String>, Vec<String>> = BTreeMap::new();
        for id in ids {
            g.entry(method_of(self.task, &self.runs.key, id))
                .or_default()
                .push(id.to_string());
        }
        g
    }

    pub fn push(
        &mut self,
        code: &'static str,
        severity: Severity,
        method: Option<String>,
        at: (Part, Option<usize>),
        message: String,
    ) {
        self.out.push(Finding {
            task_id: self.task.id.clone(),
            code,
            severity,
            method,
            part: at.0,
            line: at.1,
            message,
            fix: None,
        });
    }

    pub fn first_line(&self, ids: &[String]) -> Option<usize> {
        ids.iter()
            .find_map(|id| test_line(&self.runs.tests_text, id))
    }

    pub fn suite_name(&self) -> String {
        match &self.runs.key {
            SuiteKey::Private => "private tests".into(),
            SuiteKey::Public(m) => format!("public tests of `{m}`"),
        }
    }
}

/// Counts and findings of one suite's two runs. `targets` are the task's target methods.
pub fn suite_findings(task: &Task, s: &SuiteRuns, targets: &[&str]) -> SuiteOutcome {
    let [a, b] = &s.runs;
    let (oa, ob) = (outcomes(&a.result), outcomes(&b.result));
    let ids: Vec<&str> = oa
        .keys()
        .chain(ob.keys())
        .copied()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let part = match s.key {
        SuiteKey::Private => Part::Tests,
        SuiteKey::Public(_) => Part::PublicTests,
    };
    let mut bld = Builder {
        task,
        runs: s,
        part,
        out: Vec::new(),
    };
    let get = |m: &BTreeMap<&str, &TestResult>, id: &str| m.get(id).map(|t| t.outcome);
    let both_pass =
        |id: &str| get(&oa, id).is_some_and(passing) && get(&ob, id).is_some_and(passing);
    let count = Count {
        passed: ids.iter().filter(|id| both_pass(id)).count(),
        total: ids.len(),
    };

    // T11: outcomes (or the suite's ending) that differ between the runs.
    let differ: Vec<&str> = ids
        .iter()
        .copied()
        .filter(|id| get(&oa, id) != get(&ob, id))
        .collect();
    let seeds = format!("PYTHONHASHSEED {} and {}", a.seed, b.seed);
    for (method, tests) in bld.grouped(&differ) {
        let shown: Vec<String> = tests
            .iter()
            .map(|id| {
                format!(
                    "{id} ({} → {})",
                    outcome_word(get(&oa, id)),
                    outcome_word(get(&ob, id))
                )
            })
            .collect();
        let line = bld.first_line(&tests);
        bld.push(
            "T11",
            Severity::Error,
            method,
            (part, line),
            format!(
                "outcome differs between two runs of the reference ({seeds}): {}",
                shown.join(", ")
            ),
        );
    }
    let (ea, eb) = (
        ending(a.result.failure.as_ref()),
        ending(b.result.failure.as_ref()),
    );
    let agree = differ.is_empty() && ea == eb;
    if ea != eb {
        let say = |e: &Option<String>| e.clone().unwrap_or_else(|| "ran to its end".into());
        let msg = format!(
            "the {} ended differently between two runs ({seeds}): {} / {}",
            bld.suite_name(),
            say(&ea),
            say(&eb)
        );
        bld.push("T11", Severity::Error, None, (part, None), msg);
    }

    // I2: a suite that did not run, tests that failed in both runs.
    if let (Some(e), true) = (&ea, ea == eb) {
        let line = match &a.result.failure {
            Some(SuiteFailure::Import { line: Some(l), .. }) => Some(*l),
            _ => None,
        };
        let at = if line.is_some() {
            (Part::Solution, line)
        } else {
            (part, None)
        };
        let env = match &a.result.failure {
            Some(f) => env_note(trusted_import_cause(f, &env_context(task))),
            None => None,
        };
        let env = env.map_or(String::new(), |n| format!(" (environment: {n})"));
        let hint = match a.result.failure {
            Some(SuiteFailure::Timeout { .. }) => TIMEOUT_HINT,
            _ => "",
        };
        let msg = format!(
            "the reference's {} {e} in both runs{env}{hint}",
            bld.suite_name()
        );
        bld.push("I2", Severity::Error, None, at, msg);
    }
    let failing: Vec<&str> = ids
        .iter()
        .copied()
        .filter(|id| {
            let (x, y) = (get(&oa, id), get(&ob, id));
            !x.is_some_and(passing)
                && !y.is_some_and(passing)
                && (x, y) != (Some(Outcome::NotRun), Some(Outcome::NotRun))
        })
        .collect();
    let env = env_context(task);
    for (method, tests) in bld.grouped(&failing) {
        let mut code_line = None;
        let mut env_caused = 0;
        let shown: Vec<String> = tests
            .iter()
            .map(|id| match oa.get(id.as_str()) {
                Some(t) => {
                    code_line = code_line.or(t.code_line);
                    let msg = t.message.as_deref().unwrap_or("");
                    let mut why = match &t.exc_type {
                        Some(e) if !msg.is_empty() => format!("{e}: {}", clip(msg, 120)),
                        Some(e) => e.clone(),
                        None => outcome_word(Some(t.outcome)).to_string(),
                    };
                    if let Some(n) = env_note(trusted_test_cause(t, &env)) {
                        env_caused += 1;
                        why = format!("{why}; environment: {n}");
                    }
                    format!("{id} ({why})")
                }
                None => format!("{id} (not run)"),
            })
            .collect();
        let at = match code_line {
            Some(l) => (Part::Solution, Some(l)),
            None => (part, bld.first_line(&tests)),
        };
        let timed_out = tests.iter().any(|id| {
            oa.get(id.as_str())
                .is_some_and(|t| t.exc_type.as_deref() == Some("Timeout"))
        });
        let msg = format!(
            "the reference fails {} of its {} in both runs{}: {}{}",
            tests.len(),
            bld.suite_name(),
            if env_caused == tests.len() {
                ", because of the environment"
            } else {
                ""
            },
            shown.join(", "),
            if timed_out { TIMEOUT_HINT } else { "" }
        );
        bld.push("I2", Severity::Error, method, at, msg);
    }

    traces::leftover_findings(&mut bld);
    let mut notes = Vec::new();
    traces::call_findings(&mut bld, &ids, targets, &both_pass, &mut notes);
    SuiteOutcome {
        count,
        agree,
        findings: bld.out,
        notes,
    }
}
