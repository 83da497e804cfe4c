//! A public test the reference fails is not a test (issue 12, A7): before a TDD method is
//! written, its public tests run against the reference solution; a test the reference does
//! not pass (a doctest whose expected output is cut short, one that needs a method scheduled
//! later) is left out of the loop, recorded with its reason, and listed in the summary. The
//! reference itself then spends no repair round.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::reference_model::{reference_tdd_run, report_and_events};
use serde_json::Value;

/// `classlab run --strategy tdd --provider reference` (doctest public tests) over `tasks`.
fn reference_run(dataset: Option<&Path>, tasks: &[&str], sessions: &Path) -> (Value, Vec<Value>) {
    let mut cmd = reference_tdd_run(sessions);
    cmd.args(["--public-tests", "doctest", "--jobs", "2"]);
    if let Some(d) = dataset {
        cmd.arg("--dataset").arg(d);
    }
    if !tasks.is_empty() {
        cmd.arg("--tasks").arg(tasks.join(","));
    }
    report_and_events(cmd.output().unwrap(), sessions)
}

fn of_kind<'e>(events: &'e [Value], kind: &str) -> Vec<&'e Value> {
    events.iter().filter(|e| e["kind"] == kind).collect()
}

/// Every method with public tests was checked once; what was used and left out are its
/// tests, apart; and no method needed a repair.
fn assert_checked_and_unrepaired(report: &Value, events: &[Value]) {
    let checked = of_kind(events, "public_tests_checked");
    assert!(!checked.is_empty());
    let mut seen = BTreeSet::new();
    for c in &checked {
        let key = (c["task_id"].to_string(), c["method"].to_string());
        assert!(seen.insert(key), "checked once: {c}");
        let used: BTreeSet<&str> = c["used"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        for l in c["left_out"].as_array().into_iter().flatten() {
            let test = l["test"].as_str().unwrap();
            assert!(!used.contains(test), "{c}");
            assert!(!l["reason"].as_str().unwrap().is_empty());
        }
    }
    for m in of_kind(events, "method_finished") {
        assert_eq!(m["repairs"], 0, "the reference needs no repair: {m}");
        assert!(m["status"] == "passed" || m["status"] == "untested", "{m}");
    }
    assert_eq!(report["repair"]["avg_rounds_per_method"], 0.0);
    assert_eq!(report["repair"]["methods_repaired"], 0);
}

#[test]
fn reference_tdd_on_classeval_leaves_out_the_tests_it_fails_and_repairs_nothing() {
    let sessions = tempfile::tempdir().unwrap();
    // AccessGatewayFilter (a doctest cut short), ArgumentParser (wrong doctests),
    // a dict whose `__len__` doctest needs `__setitem__`, ExpressionCalculator (an import
    // only the task's import statement has), and two skeletons in curly quotes.
    let tasks = [
        "ClassEval_0",
        "ClassEval_2",
        "ClassEval_18",
        "ClassEval_39",
        "ClassEval_43",
        "ClassEval_46",
    ];
    let (report, events) = reference_run(Some(&common::classeval_json()), &tasks, sessions.path());
    assert_checked_and_unrepaired(&report, &events);

    let left: Vec<&Value> = report["public_tests_left_out"]
        .as_array()
        .unwrap()
        .iter()
        .collect();
    let jwt = left
        .iter()
        .find(|l| l["task_id"] == "ClassEval_0" && l["method"] == "get_jwt_user")
        .unwrap_or_else(|| panic!("get_jwt_user's doctest is left out: {left:#?}"));
    let reason = jwt["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("the reference fails it (AssertionError"),
        "{reason}"
    );
    // The same, in the events.
    let checked = of_kind(&events, "public_tests_checked");
    let event = checked
        .iter()
        .find(|c| c["task_id"] == "ClassEval_0" && c["method"] == "get_jwt_user")
        .unwrap();
    assert_eq!(event["source"], "doctest");
    assert_eq!(event["left_out"][0]["test"], jwt["test"]);
    // Every class the reference wrote is judged as the reference is.
    for t in of_kind(&events, "task_finished") {
        let outcome = t["summary"]["outcome"].as_str().unwrap();
        assert!(
            ["Perfect", "NearPerf", "Strong"].contains(&outcome),
            "{}: {outcome}",
            t["task_id"]
        );
    }
}

#[test]
fn reference_tdd_on_the_sample_keeps_every_public_test() {
    let sessions = tempfile::tempdir().unwrap();
    let (report, events) = reference_run(None, &[], sessions.path());
    assert_checked_and_unrepaired(&report, &events);
    assert_eq!(report["public_tests_left_out"], serde_json::json!([]));
    for c in of_kind(&events, "public_tests_checked") {
        assert_eq!(c["source"], "dataset", "{c}");
        assert!(c["left_out"].is_null(), "{c}");
    }
}
