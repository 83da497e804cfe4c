//! What the probe saw in two runs of one suite → T5 (files left behind), T8 (a method's test
//! never invokes it) and T9 (a public test invokes other target methods). Pure.

use std::collections::{BTreeMap, BTreeSet};

use super::compare::{Builder, method_of};
use super::{Severity, SuiteKey, SuiteRun};

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
pub(super) fn leftover_findings(bld: &mut Builder<'_>) {
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
    per_test(
        bld,
        ("T5", Severity::Warning),
        &by_test,
        "tests leave files in the work dir (nothing removes them)",
        |id, files| format!("{id} ({files})"),
    );
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
pub(super) fn call_findings(
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
    // Not instrumented at all (the split harness: the code runs out of the probe's reach):
    // nothing to say about calls; the validation says why once.
    if s.runs.iter().all(|r| !r.probe.complete) {
        return;
    }
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
            Severity::Info,
        ),
    ] {
        for (method, tests) in bld.grouped(tests) {
            let name = method.clone().unwrap_or_default();
            let line = bld.first_line(&tests);
            // What they call instead: a copied test, or a test class mapped to the wrong method.
            let instead: BTreeSet<&str> = tests
                .iter()
                .filter_map(|id| traced(id, |r| &r.probe.calls))
                .flatten()
                .filter(|m| targets.contains(m))
                .collect();
            let instead = if instead.is_empty() {
                String::new()
            } else {
                let list: Vec<&str> = instead.into_iter().collect();
                format!("; they call {}", list.join(", "))
            };
            let msg = format!(
                "tests {how} `{name}` (traced): {}{instead}",
                tests.join(", ")
            );
            bld.push("T8", severity, method, (bld.part, line), msg);
        }
    }
    per_test(
        bld,
        ("T9", Severity::Warning),
        &others,
        "public tests invoke other target methods (not unit tests; traced)",
        |id, called| format!("{id} → {called}"),
    );
}

/// One finding per target method for tests that each come with a list (files, methods):
/// `lead: <shown test>; <shown test>`.
fn per_test(
    bld: &mut Builder<'_>,
    (code, severity): (&'static str, Severity),
    lists: &BTreeMap<&str, Vec<&str>>,
    lead: &str,
    show: impl Fn(&str, &str) -> String,
) {
    let ids: Vec<&str> = lists.keys().copied().collect();
    for (method, tests) in bld.grouped(&ids) {
        let shown: Vec<String> = tests
            .iter()
            .map(|id| {
                let list = lists.get(id.as_str()).map(|v| v.join(", "));
                show(id, &list.unwrap_or_default())
            })
            .collect();
        let line = bld.first_line(&tests);
        let msg = format!("{lead}: {}", shown.join("; "));
        bld.push(code, severity, method, (bld.part, line), msg);
    }
}
