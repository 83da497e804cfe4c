//! TDD runs through the real client against a local OpenAI-compatible server that scripts a
//! model: some methods pass at once, some are repaired in round 1 or 2, some exhaust the
//! repair budget, and some dependency predictions miss or add edges. The session must hold
//! every event kind, and the report must equal the values computed by hand below.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use classlab::dataset::Dataset;
use classlab::llm::{Call, Message, Params, Provider, Purpose};
use classlab::pipeline::providers::Reference;
use common::mock_llm::{MockLlm, MockReply, MockRequest};
use common::reference_model;
use serde_json::Value;

/// How many first attempts of a method fail before the reference comes (99: never).
type Failures = BTreeMap<(&'static str, &'static str), u32>;
/// A task's scripted dependency answer (replaces the reference's).
type DepAnswers = BTreeMap<&'static str, &'static str>;

/// The text between the first `` `{after}`` and the next backtick.
fn quoted_after<'t>(text: &'t str, after: &str) -> Option<&'t str> {
    let start = text.find(after)? + after.len();
    let rest = &text[start..];
    Some(&rest[..rest.find('`')?])
}

/// A broken method with the same name and decorators: every call raises.
fn broken(reference: &str, method: &str) -> String {
    let decorators: Vec<&str> = reference
        .lines()
        .map(str::trim)
        .take_while(|l| l.starts_with('@') || l.starts_with("```"))
        .filter(|l| l.starts_with('@'))
        .collect();
    let params = if decorators.contains(&"@staticmethod") {
        "*args, **kwargs"
    } else if decorators.contains(&"@classmethod") {
        "cls, *args, **kwargs"
    } else {
        "self, *args, **kwargs"
    };
    format!(
        "```python\n{}def {method}({params}):\n    raise RuntimeError('scripted failure')\n```",
        decorators
            .iter()
            .map(|d| format!("{d}\n"))
            .collect::<String>()
    )
}

/// The scripted model: recognises the prompt, answers as the script says.
fn model(dataset: &Dataset, failures: Failures, deps: DepAnswers) -> MockLlm {
    let reference = Reference::new(dataset);
    let classes: BTreeMap<String, String> = dataset
        .tasks
        .iter()
        .map(|t| (t.class_name.clone(), t.id.clone()))
        .collect();
    MockLlm::start(move |req: &MockRequest| {
        let messages = req.messages();
        let system = messages
            .iter()
            .find(|m| m.role == "system")
            .map_or("", |m| m.content.as_str());
        let user = req.last_user_text();
        let class = quoted_after(&user, "class `").unwrap_or_default();
        let Some(task_id) = classes.get(class) else {
            return MockReply::status(400, "unknown class");
        };
        let ask = |purpose: Purpose| {
            let call = Call {
                task_id: task_id.clone(),
                purpose,
                messages: vec![Message::user("")],
                params: Params::default(),
            };
            reference
                .complete(&call, &mut |_| {}, &AtomicBool::new(false))
                .map(|c| c.text)
                .unwrap_or_default()
        };
        let fails = |method: &str| {
            failures
                .iter()
                .find(|((t, m), _)| t == task_id && *m == method)
                .map_or(0, |(_, n)| *n)
        };
        if system.contains("senior software architect") {
            return MockReply::Text(match deps.get(task_id.as_str()) {
                Some(answer) => answer.to_string(),
                None => ask(Purpose::DependencyAnalysis),
            });
        }
        if let Some(method) = quoted_after(&user, "Implement the method `") {
            let good = ask(Purpose::Method {
                method: method.into(),
            });
            return MockReply::Text(if fails(method) > 0 {
                broken(&good, method)
            } else {
                good
            });
        }
        if let Some(method) = quoted_after(&user, "The method `") {
            let round: u32 = user
                .split("This is repair round ")
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            let good = ask(Purpose::Method {
                method: method.into(),
            });
            let patch = if round >= fails(method) {
                good
            } else {
                broken(&good, method)
            };
            return MockReply::Text(format!(
                "### Failure analysis\nLogic error: round {round} of `{method}` raises.\n\n\
                 ### Code region\nThe body of `{method}`.\n\n\
                 ### Repair plan\nImplement it as the docstring says.\n\n### Patch\n{patch}"
            ));
        }
        MockReply::status(400, "unrecognised prompt")
    })
}

/// `classlab run --strategy tdd` against the mock; the report and the session's events.
fn run(mock: &MockLlm, sessions: &Path, extra: &[&str]) -> (Value, Vec<Value>) {
    let out = assert_cmd::Command::cargo_bin("classlab")
        .unwrap()
        .args(["run", "--json", "--strategy", "tdd", "--provider", "openai"])
        .args(["--base-url", &mock.base_url(), "--model", "scripted"])
        .arg("--sessions")
        .arg(sessions)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "run failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = reference_model::run_report(&out.stdout);
    (
        report,
        reference_model::events(&reference_model::only_session(sessions)),
    )
}

fn close(a: &Value, b: f64, what: &str) {
    let a = a.as_f64().unwrap_or(f64::NAN);
    assert!((a - b).abs() < 1e-9, "{what}: {a} != {b}");
}

/// Repairs per method, as `method_finished` recorded them.
fn repairs(events: &[Value]) -> BTreeMap<String, (String, u64)> {
    events
        .iter()
        .filter(|e| e["kind"] == "method_finished")
        .map(|e| {
            (
                format!(
                    "{}.{}",
                    e["task_id"].as_str().unwrap(),
                    e["method"].as_str().unwrap()
                ),
                (
                    e["status"].as_str().unwrap().to_string(),
                    e["repairs"].as_u64().unwrap(),
                ),
            )
        })
        .collect()
}

#[test]
fn streamed_tdd_run_over_the_sample_matches_hand_computed_figures() {
    let dataset = classlab::dataset::sample();
    let failures = Failures::from([
        (("Sample_0", "count_words"), 1),
        (("Sample_0", "top_words"), 2),
        (("Sample_0", "add_stopword"), 99),
        (("Sample_6", "from_roman"), 1),
    ]);
    let deps = DepAnswers::from([
        // top_words misses count_words; add_stopword gains tokenize. Order respects the truth.
        (
            "Sample_0",
            "Here is the analysis.\n```json\n{\"dependencies\": {\"report\": [\"top_words\"], \
             \"top_words\": [], \"count_words\": [\"tokenize\"], \"tokenize\": [], \
             \"add_stopword\": [\"tokenize\"],}, \"order\": [\"tokenize\", \"count_words\", \
             \"top_words\", \"report\", \"add_stopword\"]}\n```",
        ),
        // is_canonical: from_roman right, to_roman missing, symbol_value extra.
        (
            "Sample_6",
            "{\"dependencies\": {\"to_roman\": [], \"from_roman\": [\"symbol_value\"], \
             \"symbol_value\": [], \"is_canonical\": [\"from_roman\", \"symbol_value\"]}, \
             \"order\": [\"symbol_value\", \"to_roman\", \"from_roman\", \"is_canonical\"]}",
        ),
    ]);
    let mock = model(&dataset, failures, deps);
    let sessions = tempfile::tempdir().unwrap();
    let (report, events) = run(&mock, sessions.path(), &["--jobs", "2"]);

    // Every event kind is in the session (`run_resumed` needs a resume; `error` and
    // `task_not_generated` a fault).
    let kinds: std::collections::BTreeSet<&str> =
        events.iter().filter_map(|e| e["kind"].as_str()).collect();
    for kind in classlab::session::event::KINDS {
        if !["run_resumed", "error", "task_not_generated"].contains(kind) {
            assert!(kinds.contains(kind), "no `{kind}` event");
        }
    }
    // Streamed: every request asked for a stream.
    assert!(mock.requests().iter().all(|r| r.stream()));

    let r = repairs(&events);
    assert_eq!(r.len(), 36);
    assert_eq!(r["Sample_0.count_words"], ("passed".into(), 1));
    assert_eq!(r["Sample_0.top_words"], ("passed".into(), 2));
    assert_eq!(r["Sample_0.add_stopword"], ("exhausted".into(), 3));
    assert_eq!(r["Sample_6.from_roman"], ("passed".into(), 1));
    let others = r
        .iter()
        .filter(|(_, (status, n))| status == "passed" && *n == 0)
        .count();
    assert_eq!(others, 32);

    // Repair cost: 1 + 2 + 3 + 1 = 7 rounds over 36 methods; 4 repaired; per class
    // Sample_0 has 6, Sample_6 1, the other six 0.
    let repair = &report["repair"];
    close(
        &repair["avg_rounds_per_method"],
        7.0 / 36.0,
        "rounds/method",
    );
    assert_eq!(repair["methods_repaired"], 4);
    close(
        &repair["avg_rounds_when_repaired"],
        7.0 / 4.0,
        "rounds when repaired",
    );
    close(&repair["avg_rounds_per_class"], 7.0 / 8.0, "rounds/class");
    assert_eq!(repair["classes_repaired"], 2);

    // Dependencies: 36 methods, 3 not exact (top_words missing-only, add_stopword
    // extra-only, is_canonical wrong). Macro F1: (33 + 0 + 0 + 0.5) / 36. Micro: 17 truth
    // edges, 17 predicted, 15 right. Class accuracy (3/5 + 3/4 + 6) / 8. No violations.
    let m = &report["dependency"]["metrics"];
    assert_eq!(m["methods"], 36);
    close(&m["exact_pct"], 100.0 * 33.0 / 36.0, "exact");
    close(&m["missing_only_pct"], 100.0 / 36.0, "missing-only");
    close(&m["extra_only_pct"], 100.0 / 36.0, "extra-only");
    close(&m["wrong_pct"], 100.0 / 36.0, "wrong");
    close(&m["macro"]["f1"], 33.5 / 36.0, "macro F1");
    close(&m["micro"]["precision"], 15.0 / 17.0, "micro precision");
    close(&m["micro"]["recall"], 15.0 / 17.0, "micro recall");
    close(
        &m["class_accuracy"],
        (0.6 + 0.75 + 6.0) / 8.0,
        "class accuracy",
    );
    assert_eq!(m["fully_correct_tasks"], 6);
    assert_eq!(m["tasks_with_violations"], 0);

    // Functional: add_stopword stays broken, so WordFrequencyReportTestAddStopword (4
    // tests) and WordFrequencyReportTestMain (1 test) error; 42 of the sample's 44 test
    // classes succeed; 7 of 8 classes. Sample_0 passes 17 of 22 tests: Strong.
    let f = &report["metrics"];
    assert_eq!(f["test_classes"], 44);
    close(&f["fun_success"], 42.0 / 44.0, "fun_success");
    close(
        &f["fun_partial_success"],
        42.0 / 44.0,
        "fun_partial_success",
    );
    close(&f["class_success"], 7.0 / 8.0, "class_success");
    close(
        &f["class_partial_success"],
        7.0 / 8.0,
        "class_partial_success",
    );
    assert_eq!(report["fingerprint"]["spectrum"]["Perfect"], 7);
    assert_eq!(report["fingerprint"]["spectrum"]["Strong"], 1);

    // Usage: 8 analyses + 36 first tries + 7 repairs, each answered once.
    assert_eq!(report["usage"]["requests"], 51);
    assert_eq!(report["usage"]["retries"], 0);
    assert_eq!(mock.requests().len(), 51);
    assert!(report["usage"]["completion_tokens"].as_u64().unwrap() > 0);
    assert_eq!(report["provider"], "openai");
    assert_eq!(report["model"], "scripted");
}

#[test]
fn plain_tdd_run_over_ten_classeval_tasks_matches_hand_computed_figures() {
    let path = common::classeval_json();
    let dataset = classlab::dataset::load_path(&path).unwrap();
    let failures = Failures::from([
        (("ClassEval_1", "calculate_cylinder_area"), 99),
        (("ClassEval_3", "factorial"), 1),
        (("ClassEval_4", "get_gpa"), 2),
        (("ClassEval_7", "clear_expr"), 2),
        (("ClassEval_8", "transfer"), 1),
        (("ClassEval_9", "multiply"), 99),
    ]);
    // count's prerequisite factorial is missed, and the order puts it last.
    let deps = DepAnswers::from([(
        "ClassEval_3",
        "{\"dependencies\": {\"count\": [], \"count_all\": [\"count\"], \"select\": [], \
         \"select_all\": [\"select\"], \"factorial\": []}, \
         \"order\": [\"count\", \"count_all\", \"select\", \"select_all\", \"factorial\"]}",
    )]);
    let mock = model(&dataset, failures, deps);
    let sessions = tempfile::tempdir().unwrap();
    let tasks: Vec<String> = (0..10).map(|i| format!("ClassEval_{i}")).collect();
    let (report, events) = run(
        &mock,
        sessions.path(),
        &[
            "--dataset",
            path.to_str().unwrap(),
            "--tasks",
            &tasks.join(","),
            "--public-tests",
            "split:1",
            "--no-stream",
        ],
    );
    assert!(mock.requests().iter().all(|r| !r.stream()));

    let r = repairs(&events);
    assert_eq!(r.len(), 37);
    let expected = [
        // Scripted failures.
        ("ClassEval_1.calculate_cylinder_area", "exhausted", 3),
        ("ClassEval_9.multiply", "exhausted", 3),
        ("ClassEval_3.factorial", "passed", 1),
        ("ClassEval_4.get_gpa", "passed", 2),
        ("ClassEval_7.clear_expr", "passed", 2),
        ("ClassEval_8.transfer", "passed", 1),
        // The predicted order puts count (and count_all, which calls it) before factorial:
        // their first public test cannot pass whatever their code — the reference written
        // up to them fails it too — so it is left out and they go untested, unrepaired.
        ("ClassEval_3.count", "untested", 0),
        ("ClassEval_3.count_all", "untested", 0),
        // The truth order itself puts these first, and their first public test calls a
        // method written after them (the filter; interpret): left out the same way.
        ("ClassEval_0.set_current_user_info_and_log", "untested", 0),
        ("ClassEval_5.display", "untested", 0),
    ];
    let left_out: Vec<(String, String)> = report["public_tests_left_out"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                format!(
                    "{}.{}",
                    l["task_id"].as_str().unwrap(),
                    l["method"].as_str().unwrap()
                ),
                l["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let names: Vec<&str> = left_out.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(
        names,
        [
            "ClassEval_0.set_current_user_info_and_log",
            "ClassEval_3.count",
            "ClassEval_3.count_all",
            "ClassEval_5.display"
        ]
    );
    for (m, reason) in &left_out {
        assert!(
            reason.contains("in this schedule fails it"),
            "{m}: {reason}"
        );
    }
    for (method, status, rounds) in expected {
        assert_eq!(r[method], (status.to_string(), rounds), "{method}");
    }
    let at_once = r
        .iter()
        .filter(|(_, (status, n))| status == "passed" && *n == 0)
        .count();
    assert_eq!(at_once, 27);

    // 12 rounds over 37 methods; 6 repaired; per class 3+1+2+2+1+3 over 10, 6 repaired.
    let repair = &report["repair"];
    close(
        &repair["avg_rounds_per_method"],
        12.0 / 37.0,
        "rounds/method",
    );
    assert_eq!(repair["methods_repaired"], 6);
    close(
        &repair["avg_rounds_when_repaired"],
        2.0,
        "rounds when repaired",
    );
    close(&repair["avg_rounds_per_class"], 1.2, "rounds/class");
    assert_eq!(repair["classes_repaired"], 6);

    // Dependencies: only count is off (missing-only, F1 0); one class with a violation.
    let m = &report["dependency"]["metrics"];
    assert_eq!(m["methods"], 37);
    close(&m["exact_pct"], 100.0 * 36.0 / 37.0, "exact");
    close(&m["missing_only_pct"], 100.0 / 37.0, "missing-only");
    close(&m["macro"]["f1"], 36.0 / 37.0, "macro F1");
    close(&m["micro"]["precision"], 1.0, "micro precision");
    assert_eq!(
        m["edges_truth"].as_u64().unwrap() - m["edges_correct"].as_u64().unwrap(),
        1
    );
    close(&m["class_accuracy"], (9.0 + 0.8) / 10.0, "class accuracy");
    assert_eq!(m["fully_correct_tasks"], 9);
    assert_eq!(m["tasks_with_violations"], 1);

    // Functional: the cylinder and multiply test classes and their tasks' main test class
    // (one test each, calling the broken method) error: 42 of 46 classes succeed.
    // ClassEval_1 passes 20 of 26 tests (Strong), ClassEval_9 10 of 17 (Weak).
    let f = &report["metrics"];
    assert_eq!(f["test_classes"], 46);
    close(&f["fun_success"], 42.0 / 46.0, "fun_success");
    close(
        &f["fun_partial_success"],
        42.0 / 46.0,
        "fun_partial_success",
    );
    close(&f["class_success"], 0.8, "class_success");
    close(&f["class_partial_success"], 0.8, "class_partial_success");
    let spectrum = &report["fingerprint"]["spectrum"];
    assert_eq!(spectrum["Perfect"], 8);
    assert_eq!(spectrum["Strong"], 1);
    assert_eq!(spectrum["Weak"], 1);
    // The broken methods raise RuntimeError: the model's fault, in the histogram.
    assert!(
        report["fingerprint"]["exceptions"]["RuntimeError"]
            .as_u64()
            .unwrap()
            >= 13
    );

    // 10 analyses + 37 first tries + 12 repairs.
    assert_eq!(report["usage"]["requests"], 59);
    assert_eq!(mock.requests().len(), 59);
}
