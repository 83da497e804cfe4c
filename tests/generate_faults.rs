//! `classlab run --strategy tdd` against a mock OpenAI server that answers like the reference
//! solution but misbehaves on purpose: rate limits, server errors, resets, cut streams,
//! prose instead of JSON, empty answers and answers slower than the timeout. Each run must
//! finish (exit 0, `run_finished` last with cancelled=false), record the retries or the
//! failure in its `llm_response` events, and count the retries in its report.

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use classlab::llm::{Call, Purpose};
use common::mock_llm::{MockLlm, MockReply};
use common::reference_model::{ReferenceModel, events, only_session, run_report};
use serde_json::{Value, json};

/// ShoppingCart: five methods, three depending on `_unit_price`.
const CART: &str = "Sample_1";
/// ContactStore: five independent methods; `remove` is generated last.
const CONTACTS: &str = "Sample_4";

/// A mock server answering like the reference, except where `fault` (given the call, the
/// reference's answer and the request's 0-based number) says otherwise.
fn model(
    fault: impl Fn(&Call, &str, usize) -> Option<MockReply> + Send + Sync + 'static,
) -> MockLlm {
    let reference = ReferenceModel::sample();
    let count = AtomicUsize::new(0);
    MockLlm::start(move |req| {
        let n = count.fetch_add(1, Ordering::SeqCst);
        let (call, answer) = reference.call_and_answer(req);
        fault(&call, &answer, n).unwrap_or(MockReply::Text(answer))
    })
}

/// What a finished `classlab run --json` left.
struct Run {
    report: Value,
    events: Vec<Value>,
}

impl Run {
    fn of_kind(&self, kind: &str) -> Vec<&Value> {
        self.events.iter().filter(|e| e["kind"] == kind).collect()
    }

    /// The one event of `kind` where every `(key, value)` of `fields` matches.
    fn one(&self, kind: &str, fields: &[(&str, Value)]) -> &Value {
        let found: Vec<&Value> = self
            .of_kind(kind)
            .into_iter()
            .filter(|e| fields.iter().all(|(k, v)| &e[*k] == v))
            .collect();
        assert_eq!(
            found.len(),
            1,
            "one `{kind}` event with {fields:?}, got {found:#?}"
        );
        found[0]
    }

    /// The response to the request made for `purpose` of `task`.
    fn response_for(&self, task: &str, purpose: Value) -> &Value {
        let request = self.one(
            "llm_request",
            &[("task_id", json!(task)), ("purpose", purpose)],
        );
        self.one(
            "llm_response",
            &[("task_id", json!(task)), ("call", request["call"].clone())],
        )
    }

    fn method_status(&self, task: &str, method: &str) -> (String, u64) {
        let e = self.one(
            "method_finished",
            &[("task_id", json!(task)), ("method", json!(method))],
        );
        (
            e["status"].as_str().unwrap().to_string(),
            e["repairs"].as_u64().unwrap(),
        )
    }
}

/// `classlab run --strategy tdd --provider openai --model scripted --tasks <tasks> --json`
/// against `llm`, with a private config directory holding `config` (when given: the run then
/// uses `--endpoint mock`, a profile that must point at `llm`). Checks what every fault run
/// must satisfy and returns the report and the events.
fn run(llm: &MockLlm, tasks: &[&str], config: Option<&str>) -> Run {
    let home = tempfile::tempdir().unwrap();
    let config_dir = home.path().join("config");
    std::fs::create_dir_all(config_dir.join("classlab")).unwrap();
    if let Some(text) = config {
        std::fs::write(config_dir.join("classlab/config.toml"), text).unwrap();
    }
    let sessions = tempfile::tempdir().unwrap();
    let mut cmd = assert_cmd::Command::cargo_bin("classlab").unwrap();
    cmd.env("HOME", home.path())
        .env("XDG_CONFIG_HOME", &config_dir)
        .env("NO_COLOR", "1")
        .args(["run", "--strategy", "tdd", "--provider", "openai"])
        .args(["--model", "scripted", "--jobs", "1", "--json", "--sessions"])
        .arg(sessions.path())
        .arg("--tasks")
        .arg(tasks.join(","));
    match config {
        Some(_) => cmd.args(["--endpoint", "mock"]),
        None => cmd.args(["--base-url", &llm.base_url()]),
    };
    let out = cmd.timeout(Duration::from_secs(180)).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "classlab run failed ({:?}): {stderr}",
        out.status
    );
    assert!(!stderr.contains("panicked"), "a panic on stderr: {stderr}");
    let report = run_report(&out.stdout);
    let run = Run {
        report,
        events: events(&only_session(sessions.path())),
    };
    check_complete(&run, llm, tasks);
    run
}

/// The session tells a whole story: numbered without gaps, every task finished, every
/// request answered or failed once, `run_finished` last; and the report and the mock agree
/// with the recorded retries.
fn check_complete(run: &Run, llm: &MockLlm, tasks: &[&str]) {
    for (i, e) in run.events.iter().enumerate() {
        assert_eq!(e["seq"], json!(i), "seq numbers 0..n: {e}");
    }
    assert_eq!(run.events[0]["kind"], "run_started");
    let last = run.events.last().unwrap();
    assert_eq!(
        (&last["kind"], &last["cancelled"]),
        (&json!("run_finished"), &json!(false)),
        "the run finished normally, last"
    );
    assert_eq!(run.of_kind("run_finished").len(), 1);
    assert!(
        run.of_kind("error").is_empty(),
        "no error events: {:#?}",
        run.of_kind("error")
    );
    for task in tasks {
        run.one("task_finished", &[("task_id", json!(task))]);
    }
    let requests = run.of_kind("llm_request");
    let responses = run.of_kind("llm_response");
    assert_eq!(
        requests.len(),
        responses.len(),
        "each request has one response"
    );
    for r in &requests {
        run.one(
            "llm_response",
            &[
                ("task_id", r["task_id"].clone()),
                ("call", r["call"].clone()),
            ],
        );
    }
    let mut retries = 0;
    for r in &responses {
        let n = r["retries"].as_u64().unwrap();
        let log = r["retry_log"].as_array().map_or(0, Vec::len) as u64;
        assert_eq!(log, n, "one retry-log line per retry: {r}");
        retries += n;
    }
    let usage = &run.report["usage"];
    assert_eq!(usage["requests"], json!(responses.len()), "report: {usage}");
    assert_eq!(usage["retries"], json!(retries), "report: {usage}");
    assert_eq!(
        llm.requests().len() as u64,
        responses.len() as u64 + retries,
        "every attempt reached the mock"
    );
    assert_eq!(run.report["provider"], "openai");
    assert_eq!(run.report["model"], "scripted");
}

fn method(name: &str) -> Value {
    json!({"purpose": "method", "method": name})
}

fn dependency_analysis() -> Value {
    json!({"purpose": "dependency_analysis"})
}

fn retry_log(response: &Value) -> Vec<String> {
    serde_json::from_value(response["retry_log"].clone()).unwrap_or_default()
}

/// Every method of the cart passed its public tests at once and the class is perfect.
fn assert_cart_perfect(run: &Run) {
    for m in [
        "add_item",
        "remove_item",
        "line_total",
        "total",
        "_unit_price",
    ] {
        assert_eq!(run.method_status(CART, m), ("passed".into(), 0), "{m}");
    }
    let summary = &run.one("task_finished", &[("task_id", json!(CART))])["summary"];
    assert_eq!(summary["outcome"], "Perfect", "{summary}");
    assert_eq!(run.report["metrics"]["class_success"], json!(1.0));
}

#[test]
fn rate_limited_first_request_waits_retry_after_then_goes_on() {
    let llm = model(|_, _, n| {
        (n == 0).then(|| MockReply::Status {
            code: 429,
            retry_after: Some("1".into()),
            body: json!({"error": {"message": "slow down", "type": "rate_limit"}}).to_string(),
        })
    });
    let run = run(&llm, &[CART], None);
    let response = run.response_for(CART, dependency_analysis());
    assert_eq!(response["retries"], 1);
    assert_eq!(
        retry_log(response),
        ["attempt 1: HTTP 429, waiting 1.0 s (Retry-After)"]
    );
    assert!(response["failure"].is_null(), "{response}");
    assert!(
        response["latency_s"].as_f64().unwrap() >= 1.0,
        "the latency includes the wait: {response}"
    );
    assert_eq!(run.report["usage"]["retries"], 1);
    let prediction = run.one("dependency_prediction", &[("task_id", json!(CART))]);
    assert_eq!(prediction["parsed"], true);
    assert_eq!(prediction["graph"], prediction["truth"]);
    assert_cart_perfect(&run);
}

#[test]
fn server_error_then_correct_answer() {
    let llm = model(|_, _, n| (n == 0).then(|| MockReply::status(500, "internal error")));
    let run = run(&llm, &[CART], None);
    let response = run.response_for(CART, dependency_analysis());
    assert_eq!(response["retries"], 1);
    let log = retry_log(response);
    assert!(
        log[0].starts_with("attempt 1: HTTP 500, waiting ") && log[0].ends_with("(backoff)"),
        "{log:?}"
    );
    assert_eq!(run.report["usage"]["retries"], 1);
    assert_cart_perfect(&run);
}

#[test]
fn connection_reset_then_correct_answer() {
    // The reset hits a method request (the second request of the run).
    let llm = model(|_, _, n| (n == 1).then_some(MockReply::Reset));
    let run = run(&llm, &[CART], None);
    let first = run.one(
        "llm_request",
        &[("task_id", json!(CART)), ("call", json!(1))],
    );
    let response = run.response_for(CART, first["purpose"].clone());
    assert_eq!(response["retries"], 1);
    let log = retry_log(response);
    assert!(
        log[0].starts_with("attempt 1: connection failed, waiting "),
        "{log:?}"
    );
    assert_eq!(run.report["usage"]["retries"], 1);
    assert_cart_perfect(&run);
}

#[test]
fn stream_cut_mid_answer_is_asked_again_and_recorded_whole() {
    let cut_once = AtomicBool::new(false);
    let cut_answer: Arc<Mutex<String>> = Arc::default();
    let seen = Arc::clone(&cut_answer);
    let llm = model(move |call, answer, _| {
        let first_method = matches!(call.purpose, Purpose::Method { .. });
        (first_method && !cut_once.swap(true, Ordering::SeqCst)).then(|| {
            *seen.lock().unwrap() = answer.to_string();
            MockReply::CutStream {
                text: answer.to_string(),
                after_chunks: 3,
            }
        })
    });
    let run = run(&llm, &[CART], None);
    let requests = llm.requests();
    assert!(
        requests.iter().all(|r| r.stream()),
        "streaming is the default"
    );
    let first = run.one(
        "llm_request",
        &[("task_id", json!(CART)), ("call", json!(1))],
    );
    let response = run.response_for(CART, first["purpose"].clone());
    assert_eq!(response["retries"], 1);
    let log = retry_log(response);
    assert!(
        log[0].starts_with("attempt 1: connection failed")
            && log[0].ends_with("; streamed text discarded"),
        "{log:?}"
    );
    assert_eq!(
        response["text"].as_str().unwrap(),
        cut_answer.lock().unwrap().as_str(),
        "the recorded text is the whole answer, without the cut attempt's words"
    );
    assert_eq!(
        requests[1].body, requests[2].body,
        "the retry asks the same again"
    );
    assert_eq!(run.report["usage"]["retries"], 1);
    assert_cart_perfect(&run);
}

const PROSE: &str = "The cart looks straightforward: I would start with the simple \
    methods and build the totals last, since they rely on prices.";

#[test]
fn dependency_reply_without_json_falls_back_to_the_skeleton_order() {
    let llm = model(|call, _, _| {
        (call.purpose == Purpose::DependencyAnalysis).then(|| MockReply::text(PROSE))
    });
    let run = run(&llm, &[CART], None);
    let prediction = run.one("dependency_prediction", &[("task_id", json!(CART))]);
    assert_eq!(prediction["parsed"], false, "{prediction}");
    assert_eq!(prediction["raw"], PROSE);
    assert_eq!(prediction["graph"], json!({}));
    assert_eq!(prediction["order"], json!([]));
    let problems: Vec<String> = serde_json::from_value(prediction["problems"].clone()).unwrap();
    assert_eq!(problems, ["no JSON object in the reply"]);
    let skeleton_order = prediction["methods"].clone();
    assert_eq!(
        skeleton_order,
        json!([
            "add_item",
            "remove_item",
            "line_total",
            "total",
            "_unit_price"
        ])
    );
    let schedule = run.one("schedule", &[("task_id", json!(CART))]);
    assert_eq!(schedule["mode"], "predicted");
    assert_eq!(schedule["order"], skeleton_order, "the skeleton's order");
    // `add_item` comes before `_unit_price` it calls.
    assert_eq!(
        schedule["violations"],
        json!([
            ["add_item", "_unit_price"],
            ["line_total", "_unit_price"],
            ["total", "_unit_price"]
        ])
    );
    let started: Vec<&Value> = run
        .of_kind("method_started")
        .into_iter()
        .map(|e| &e["method"])
        .collect();
    assert_eq!(
        json!(started),
        skeleton_order,
        "methods generated in that order"
    );
    // The three callers of `_unit_price` come before it: their public tests fail against
    // its stub, whatever the (reference) repairs say, until the budget runs out …
    for (m, status) in [
        ("add_item", ("exhausted", 3)),
        ("remove_item", ("passed", 0)),
        ("line_total", ("exhausted", 3)),
        ("total", ("exhausted", 3)),
        ("_unit_price", ("passed", 0)),
    ] {
        assert_eq!(
            run.method_status(CART, m),
            (status.0.into(), status.1),
            "{m}"
        );
    }
    // … and the finished class, with `_unit_price` in, is perfect.
    let summary = &run.one("task_finished", &[("task_id", json!(CART))])["summary"];
    assert_eq!(summary["outcome"], "Perfect", "{summary}");
    assert_eq!(run.report["repair"]["methods_repaired"], 3);
    let deps = &run.report["dependency"]["metrics"];
    assert_eq!(deps["edges_predicted"], 0, "{deps}");
    assert_eq!(deps["edges_truth"], 3, "{deps}");
    assert_eq!(deps["tasks_with_violations"], 1, "{deps}");
}

#[test]
fn empty_answer_leaves_the_method_without_code_and_unrepaired() {
    let llm = model(|call, _, _| {
        let remove = call.purpose
            == Purpose::Method {
                method: "remove".into(),
            };
        (call.task_id == CONTACTS && remove).then(|| MockReply::text(""))
    });
    let run = run(&llm, &[CONTACTS], None);
    let response = run.response_for(CONTACTS, method("remove"));
    assert_eq!(response["text"], "", "{response}");
    assert!(
        response["failure"].is_null(),
        "an empty answer is an answer"
    );
    assert_eq!(response["retries"], 0);
    let code = run.one(
        "code_extracted",
        &[("task_id", json!(CONTACTS)), ("method", json!("remove"))],
    );
    assert_eq!(code["code"], "");
    assert_eq!(code["round"], 0);
    assert_eq!(code["notes"], json!(["the model answered nothing"]));
    assert!(
        run.of_kind("test_run")
            .iter()
            .all(|t| t["method"] != "remove"),
        "no public tests run without code"
    );
    assert_eq!(
        run.method_status(CONTACTS, "remove"),
        ("no_code".into(), 0),
        "no code on the first try: finished as no_code, no repair round"
    );
    assert!(
        run.of_kind("llm_request")
            .iter()
            .all(|r| r["purpose"]["purpose"] != "repair"),
        "nothing was repaired"
    );
    for m in ["load", "save", "add", "find_by_domain"] {
        assert_eq!(run.method_status(CONTACTS, m), ("passed".into(), 0), "{m}");
    }
    let class = run.one(
        "code_extracted",
        &[("task_id", json!(CONTACTS)), ("method", Value::Null)],
    );
    assert_eq!(
        class["notes"],
        json!(["remove: no usable code; the stub stays"])
    );
    assert_stub_fails_its_tests(&run);
}

/// The class kept `remove`'s stub: its private test class fails, the others pass.
fn assert_stub_fails_its_tests(run: &Run) {
    let summary = &run.one("task_finished", &[("task_id", json!(CONTACTS))])["summary"];
    let methods: Vec<(String, Option<String>)> =
        serde_json::from_value(summary["methods"].clone()).unwrap();
    for (name, bucket) in &methods {
        let perfect = bucket.as_deref() == Some("Perfect");
        assert_eq!(perfect, name != "remove", "{name}: {bucket:?} in {summary}");
    }
    assert_eq!(run.report["metrics"]["class_success"], json!(0.0));
}

#[test]
fn answer_slower_than_the_timeout_fails_after_retries_and_the_run_goes_on() {
    let llm = model(|call, answer, _| {
        let remove = call.purpose
            == Purpose::Method {
                method: "remove".into(),
            };
        (call.task_id == CONTACTS && remove)
            .then(|| MockReply::slow(Duration::from_secs(5), MockReply::text(answer)))
    });
    let config = format!(
        "[endpoints.mock]\nbase_url = \"{}\"\nmodel = \"scripted\"\n\
         request_timeout_s = 1\nidle_timeout_s = 1\nmax_retries = 1\n",
        llm.base_url()
    );
    let started = std::time::Instant::now();
    let run = run(&llm, &[CONTACTS], Some(&config));
    let response = run.response_for(CONTACTS, method("remove"));
    assert_eq!(response["failure"]["kind"], "timeout", "{response}");
    let message = response["failure"]["message"].as_str().unwrap();
    assert!(message.contains("gave up after 1 retries"), "{message}");
    assert_eq!(response["retries"], 1);
    let log = retry_log(response);
    assert!(
        log[0].starts_with("attempt 1: timeout, waiting "),
        "{log:?}"
    );
    assert_eq!(response["text"], "");
    let latency = response["latency_s"].as_f64().unwrap();
    assert!(
        (2.0..5.0).contains(&latency),
        "two attempts of 1 s and a backoff under 1 s: {latency}"
    );
    let remove_asks = llm
        .requests()
        .iter()
        .filter(|r| {
            r.last_user_text()
                .contains("Implement the method `remove`:")
        })
        .count();
    assert_eq!(remove_asks, 2, "the first attempt and one retry");
    let code = run.one(
        "code_extracted",
        &[("task_id", json!(CONTACTS)), ("method", json!("remove"))],
    );
    let notes: Vec<String> = serde_json::from_value(code["notes"].clone()).unwrap();
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0].starts_with("no answer: ") && notes[0].contains("gave up after 1 retries"),
        "{notes:?}"
    );
    assert_eq!(run.method_status(CONTACTS, "remove"), ("no_code".into(), 0));
    assert_eq!(run.report["usage"]["retries"], 1);
    assert_stub_fails_its_tests(&run);
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "a timed-out call does not hold the run: {:?}",
        started.elapsed()
    );
}
