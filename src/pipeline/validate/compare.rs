//! Two runs of one suite → counts and findings (T11, I2, T5, T8, T9). Pure.

use std::collections::{BTreeMap, BTreeSet};

use super::{Count, Finding, Severity, SuiteKey, SuiteRun, SuiteRuns};
use crate::analysis::parse_module;
use crate::model::{Outcome, SuiteFailure, SuiteResult, Task};

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
fn outcomes(r: &SuiteResult) -> BTreeMap<&str, &crate::model::TestResult> {
    let mut m: BTreeMap<&str, &crate::model::TestResult> = BTreeMap::new();
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
    })
}

fn clip(s: &str, n: usize) -> String {
    let line = s.lines().next().unwrap_or("").trim();
    if line.chars().count() <= n {
        return line.to_string();
    }
    let cut: String = line.chars().take(n).collect();
    format!("{cut}…")
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
fn method_of(task: &Task, key: &SuiteKey, id: &str) -> Option<String> {
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
struct Builder<'a> {
    task: &'a Task,
    runs: &'a SuiteRuns,
    part: &'static str,
    out: Vec<Finding>,
}

impl Builder<'_> {
    fn grouped(&self, ids: &[&str]) -> BTreeMap<Option<String>, Vec<String>> {
        let mut g: BTreeMap<Option<String>, Vec<String>> = BTreeMap::new();
        for id in ids {
            g.entry(method_of(self.task, &self.runs.key, id))
                .or_default()
                .push(id.to_string());
        }
        g
    }

    fn push(
        &mut self,
        code: &'static str,
        severity: Severity,
        method: Option<String>,
        at: (&'static str, Option<usize>),
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

    fn first_line(&self, ids: &[String]) -> Option<usize> {
        ids.iter()
            .find_map(|id| test_line(&self.runs.tests_text, id))
    }

    fn suite_name(&self) -> String {
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
        SuiteKey::Private => "tests",
        SuiteKey::Public(_) => "public_tests",
    };
    let mut bld = Builder {
        task,
        runs: s,
        part,
        out: Vec::new(),
    };
    let get =
        |m: &BTreeMap<&str, &crate::model::TestResult>, id: &str| m.get(id).map(|t| t.outcome);
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
            ("solution", line)
        } else {
            (part, None)
        };
        let msg = format!("the reference's {} {e} in both runs", bld.suite_name());
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
    for (method, tests) in bld.grouped(&failing) {
        let mut code_line = None;
        let shown: Vec<String> = tests
            .iter()
            .map(|id| match oa.get(id.as_str()) {
                Some(t) => {
                    code_line = code_line.or(t.code_line);
                    let why = match (&t.exc_type, &t.message) {
                        (Some(e), Some(m)) if !m.is_empty() => format!("{e}: {}", clip(m, 120)),
                        (Some(e), _) => e.clone(),
                        _ => outcome_word(Some(t.outcome)).to_string(),
                    };
                    format!("{id} ({why})")
                }
                None => format!("{id} (not run)"),
            })
            .collect();
        let at = match code_line {
            Some(l) => ("solution", Some(l)),
            None => (part, bld.first_line(&tests)),
        };
        let msg = format!(
            "the reference fails {} of its {} in both runs: {}",
            tests.len(),
            bld.suite_name(),
            shown.join(", ")
        );
        bld.push("I2", Severity::Error, method, at, msg);
    }

    leftover_findings(&mut bld);
    let mut notes = Vec::new();
    call_findings(&mut bld, &ids, targets, &both_pass, &mut notes);
    SuiteOutcome {
        count,
        agree,
        findings: bld.out,
        notes,
    }
}

/// Files at the end that the suite was not given (Python's own caches aside).
fn left_behind(run: &SuiteRun, initial: &[String]) -> Vec<String> {
    let Some(files) = &run.probe.final_files else {
        return Vec::new();
    };
    files
        .iter()
        .filter(|f| !initial.contains(f) && !f.split('/').any(|p| p == "__pycache__"))
        .cloned()
        .collect()
}

/// T5: files left in the work dir (by the test that created them when known), and whatever
/// the sandbox found outside it.
fn leftover_findings(bld: &mut Builder<'_>) {
    let s = bld.runs;
    let mut files: BTreeSet<String> = BTreeSet::new();
    for r in &s.runs {
        files.extend(left_behind(r, &s.initial_files));
    }
    let mut by_test: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut unowned: Vec<&str> = Vec::new();
    for f in &files {
        let owners: BTreeSet<&str> = s
            .runs
            .iter()
            .flat_map(|r| &r.probe.created)
            .filter(|(_, made)| made.contains(f))
            .map(|(id, _)| id.as_str())
            .collect();
        if owners.is_empty() {
            unowned.push(f);
        }
        for id in owners {
            by_test.entry(id).or_default().push(f);
        }
    }
    let ids: Vec<&str> = by_test.keys().copied().collect();
    for (method, tests) in bld.grouped(&ids) {
        let shown: Vec<String> = tests
            .iter()
            .map(|id| {
                let fs = by_test
                    .get(id.as_str())
                    .map(|v| v.join(", "))
                    .unwrap_or_default();
                format!("{id} ({fs})")
            })
            .collect();
        let line = bld.first_line(&tests);
        let msg = format!(
            "tests leave files in the work dir (nothing removes them): {}",
            shown.join("; ")
        );
        bld.push("T5", Severity::Warning, method, (bld.part, line), msg);
    }
    if !unowned.is_empty() {
        let msg = format!(
            "the {} leave files in the work dir outside any test (module or class set-up/tear-down): {}",
            bld.suite_name(),
            unowned.join(", ")
        );
        bld.push("T5", Severity::Warning, None, (bld.part, None), msg);
    }
    let outside: BTreeSet<&String> = s.runs.iter().flat_map(|r| &r.result.leftovers).collect();
    for l in outside {
        let msg = format!("the {} left something behind: {l}", bld.suite_name());
        bld.push("T5", Severity::Warning, None, (bld.part, None), msg);
    }
}

/// T8 (a test of A never invokes A) and T9 (a public test of A invokes other target methods),
/// from the traced calls of the tests that passed in both runs.
fn call_findings(
    bld: &mut Builder<'_>,
    ids: &[&str],
    targets: &[&str],
    both_pass: &dyn Fn(&str) -> bool,
    notes: &mut Vec<String>,
) {
    let s = bld.runs;
    let traced = |id: &str, which: fn(&SuiteRun) -> &BTreeMap<String, BTreeSet<String>>| {
        let per_run: Vec<&BTreeSet<String>> =
            s.runs.iter().filter_map(|r| which(r).get(id)).collect();
        (!per_run.is_empty()).then(|| {
            per_run
                .into_iter()
                .flatten()
                .map(String::as_str)
                .collect::<BTreeSet<&str>>()
        })
    };
    let ran: Vec<&str> = ids.iter().copied().filter(|id| both_pass(id)).collect();
    if !ran.is_empty()
        && ran
            .iter()
            .all(|id| traced(id, |r| &r.probe.calls).is_none())
    {
        notes.push(format!(
            "calls not traced in the {}: class `{}` not found where the tests run",
            bld.suite_name(),
            bld.task.class_name
        ));
        return;
    }
    // Never ran at all / ran only through other methods the test called.
    let (mut never, mut indirect): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
    let mut others: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for id in &ran {
        let (Some(method), Some(called)) = (
            method_of(bld.task, &s.key, id),
            traced(id, |r| &r.probe.calls),
        ) else {
            continue;
        };
        if !called.contains(method.as_str()) {
            let reached = traced(id, |r| &r.probe.reached).unwrap_or_default();
            if reached.contains(method.as_str()) {
                indirect.push(id);
            } else {
                never.push(id);
            }
        }
        if matches!(s.key, SuiteKey::Public(_)) {
            let extra: Vec<&str> = targets
                .iter()
                .copied()
                .filter(|t| *t != method && called.contains(t))
                .collect();
            if !extra.is_empty() {
                others.insert(id, extra);
            }
        }
    }
    for (tests, how, severity) in [
        (&never, "never invoke", Severity::Error),
        (
            &indirect,
            "reach only through other methods (never call directly)",
            Severity::Warning,
        ),
    ] {
        for (method, tests) in bld.grouped(tests) {
            let name = method.clone().unwrap_or_default();
            let line = bld.first_line(&tests);
            let msg = format!("tests {how} `{name}` (traced): {}", tests.join(", "));
            bld.push("T8", severity, method, (bld.part, line), msg);
        }
    }
    let ids: Vec<&str> = others.keys().copied().collect();
    for (method, tests) in bld.grouped(&ids) {
        let shown: Vec<String> = tests
            .iter()
            .map(|id| {
                let extra = others
                    .get(id.as_str())
                    .map(|v| v.join(", "))
                    .unwrap_or_default();
                format!("{id} → {extra}")
            })
            .collect();
        let line = bld.first_line(&tests);
        let msg = format!(
            "public tests invoke other target methods (not unit tests; traced): {}",
            shown.join("; ")
        );
        bld.push("T9", Severity::Warning, method, (bld.part, line), msg);
    }
}
