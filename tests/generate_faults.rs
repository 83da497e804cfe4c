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
    run_with(llm, tasks, config, &[])
}

/// [`run`] with more arguments.
fn run_with(llm: &MockLlm, tasks: &[&str], config: Option<&str>, extra: &[&str]) -> Run {
    let (out, sessions, _home) = invoke(llm, tasks, config, extra);
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

/// `classlab run` as [`run`] describes it, whatever its exit: its output, the sessions
/// directory and the home directory (which holds the config).
fn invoke(
    llm: &MockLlm,
    tasks: &[&str],
    config: Option<&str>,
    extra: &[&str],
) -> (std::process::Output, tempfile::TempDir, tempfile::TempDir) {
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
        .arg("run")
        .args(if extra.contains(&"--strategy") {
            &[][..]
        } else {
            &["--strategy", "tdd"][..]
        })
        .args(["--provider", "openai"])
        .args(["--model", "scripted", "--jobs", "1", "--json", "--sessions"])
        .arg(sessions.path())
        .arg("--tasks")
        .arg(tasks.join(","));
    match config {
        Some(_) => cmd.args(["--endpoint", "mock"]),
        None => cmd.args(["--base-url", &llm.base_url()]),
    };
    cmd.args(extra);
    let out = cmd.timeout(Duration::from_secs(180)).output().unwrap();
    (out, sessions, home)
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
    // The three callers of `_unit_price` come before it: the public tests that fail against
    // its stub fail the reference written so far too, so they are left out (saying why)
    // instead of costing repair rounds no code could win …
    for m in ["add_item", "line_total", "total"] {
        let checked = run.one(
            "public_tests_checked",
            &[("task_id", json!(CART)), ("method", json!(m))],
        );
        let left_out = checked["left_out"].as_array().unwrap();
        assert!(!left_out.is_empty(), "{checked}");
        for l in left_out {
            let reason = l["reason"].as_str().unwrap();
            assert!(
                reason.starts_with(&format!(
                    "the reference written up to `{m}` in this schedule fails it"
                )),
                "{reason}"
            );
        }
    }
    for m in [
        "add_item",
        "remove_item",
        "line_total",
        "total",
        "_unit_price",
    ] {
        let (status, repairs) = run.method_status(CART, m);
        assert_eq!(repairs, 0, "{m}");
        assert!(status == "passed" || status == "untested", "{m}: {status}");
    }
    // … and the finished class, with `_unit_price` in, is perfect.
    let summary = &run.one("task_finished", &[("task_id", json!(CART))])["summary"];
    assert_eq!(summary["outcome"], "Perfect", "{summary}");
    assert_eq!(run.report["repair"]["methods_repaired"], 0);
    assert_eq!(
        run.report["public_tests_left_out"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|l| l["task_id"] == CART)
            .count(),
        run.of_kind("public_tests_checked")
            .iter()
            .map(|c| c["left_out"].as_array().map_or(0, Vec::len))
            .sum::<usize>()
    );
    // A reply without JSON predicted nothing: unscored, out of every dependency metric
    // (issue 21 item 6), not a prediction of no edges.
    let deps = &run.report["dependency"]["metrics"];
    assert_eq!(deps["tasks"], 0, "{deps}");
    assert_eq!(deps["edges_truth"], 0, "{deps}");
    assert!(deps["exact_pct"].is_null(), "{deps}");
}

#[test]
fn empty_answer_is_a_failing_attempt_and_costs_a_repair_round() {
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
    let first = run.one(
        "code_extracted",
        &[
            ("task_id", json!(CONTACTS)),
            ("method", json!("remove")),
            ("round", json!(0)),
        ],
    );
    assert_eq!(first["code"], "");
    assert_eq!(first["notes"], json!(["the model answered nothing"]));
    assert!(
        run.of_kind("test_run")
            .iter()
            .all(|t| t["scope"] != "public" || t["method"] != "remove" || t["round"] != 0),
        "no public tests run without code"
    );
    // The reply that did not define `remove` is the round's failure, fed back to the model.
    let repair = run.one(
        "llm_request",
        &[
            ("task_id", json!(CONTACTS)),
            (
                "purpose",
                json!({"purpose": "repair", "method": "remove", "round": 1}),
            ),
        ],
    );
    let prompt = repair["messages"].to_string();
    assert!(
        prompt.contains("your reply did not define `remove`"),
        "{prompt}"
    );
    assert_eq!(
        run.method_status(CONTACTS, "remove"),
        ("passed".into(), 1),
        "the (reference) repair defines it: passed after one repair round"
    );
    for m in ["load", "save", "add", "find_by_domain"] {
        assert_eq!(run.method_status(CONTACTS, m), ("passed".into(), 0), "{m}");
    }
    assert_eq!(run.report["repair"]["methods_repaired"], 1);
    let summary = &run.one("task_finished", &[("task_id", json!(CONTACTS))])["summary"];
    assert_eq!(summary["outcome"], "Perfect", "{summary}");
}

#[test]
fn reply_without_the_method_spends_exactly_the_repair_budget() {
    let llm = model(|call, _, _| {
        let remove = matches!(&call.purpose,
            Purpose::Method { method } | Purpose::Repair { method, .. } if method == "remove");
        (call.task_id == CONTACTS && remove).then(|| MockReply::text(PROSE))
    });
    let run = run_with(&llm, &[CONTACTS], None, &["--max-repairs", "1"]);
    assert_eq!(
        run.method_status(CONTACTS, "remove"),
        ("no_code".into(), 1),
        "never any code for `remove`: no_code, after the one repair round allowed"
    );
    let repairs: Vec<&Value> = run
        .of_kind("llm_request")
        .into_iter()
        .filter(|r| r["purpose"]["purpose"] == "repair")
        .collect();
    assert_eq!(repairs.len(), 1, "exactly one repair request");
    assert!(
        repairs[0]["messages"]
            .to_string()
            .contains("your reply did not define `remove`")
    );
    let reflection = run.one("reflection", &[("task_id", json!(CONTACTS))]);
    assert_eq!(reflection["method"], "remove");
    assert_eq!(run.report["repair"]["methods_repaired"], 1);
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

/// `classlab run --resume <session> --json` with the home (config) of the first run.
fn resume(home: &tempfile::TempDir, sessions: &tempfile::TempDir) -> std::process::Output {
    let session = only_session(sessions.path());
    assert_cmd::Command::cargo_bin("classlab")
        .unwrap()
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("NO_COLOR", "1")
        .args(["run", "--json", "--sessions"])
        .arg(sessions.path())
        .arg("--resume")
        .arg(&session)
        .timeout(Duration::from_secs(180))
        .output()
        .unwrap()
}

#[test]
fn answer_slower_than_the_timeout_leaves_the_task_not_generated_and_resume_asks_again() {
    let healthy = Arc::new(AtomicBool::new(false));
    let cured = Arc::clone(&healthy);
    let llm = model(move |call, answer, _| {
        let remove = call.purpose
            == Purpose::Method {
                method: "remove".into(),
            };
        (call.task_id == CONTACTS && remove && !cured.load(Ordering::SeqCst))
            .then(|| MockReply::slow(Duration::from_secs(5), MockReply::text(answer)))
    });
    let config = format!(
        "[endpoints.mock]\nbase_url = \"{}\"\nmodel = \"scripted\"\n\
         request_timeout_s = 1\nidle_timeout_s = 1\nmax_retries = 1\n",
        llm.base_url()
    );
    let started = std::time::Instant::now();
    let (out, sessions, home) = invoke(&llm, &[CART, CONTACTS], Some(&config), &[]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "an incomplete run fails: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        stderr.contains("incomplete: 1 task not generated") && stderr.contains("--resume"),
        "{stderr}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "a timed-out call does not hold the run: {:?}",
        started.elapsed()
    );
    let run = Run {
        report: run_report(&out.stdout),
        events: events(&only_session(sessions.path())),
    };
    let response = run.response_for(CONTACTS, method("remove"));
    assert_eq!(response["failure"]["kind"], "timeout", "{response}");
    let message = response["failure"]["message"].as_str().unwrap();
    assert!(message.contains("gave up after 1 retries"), "{message}");
    assert_eq!(response["retries"], 1);
    assert!(
        retry_log(response)[0].starts_with("attempt 1: timeout, waiting "),
        "{response}"
    );
    let latency = response["latency_s"].as_f64().unwrap();
    assert!(
        (2.0..5.0).contains(&latency),
        "two attempts of 1 s and a backoff under 1 s: {latency}"
    );
    // Not the model's failure: the method and the task are not generated, nothing is judged.
    assert_eq!(
        run.method_status(CONTACTS, "remove"),
        ("not_generated".into(), 0)
    );
    let missing = run.one("task_not_generated", &[("task_id", json!(CONTACTS))]);
    assert_eq!(missing["method"], "remove");
    assert!(
        missing["reason"]
            .as_str()
            .unwrap()
            .starts_with("provider error: "),
        "{missing}"
    );
    assert!(
        run.of_kind("task_finished")
            .iter()
            .all(|t| t["task_id"] != CONTACTS),
        "no class judged"
    );
    let last = run.events.last().unwrap();
    assert_eq!(
        (&last["kind"], &last["cancelled"]),
        (&json!("run_finished"), &json!(false))
    );
    assert_eq!(run.report["status"], "incomplete");
    assert_eq!(run.report["not_generated"][0]["task_id"], CONTACTS);
    // Out of every denominator: the cart alone is scored.
    assert_eq!(run.report["metrics"]["class_success"], json!(1.0));
    assert_eq!(run.report["fingerprint"]["spectrum"]["Perfect"], json!(1));
    assert_eq!(
        run.report["repair"]["avg_rounds_per_method"],
        json!(0.0),
        "{}",
        run.report["repair"]
    );

    // The endpoint recovers: `--resume` asks exactly the failed request again.
    healthy.store(true, Ordering::SeqCst);
    let asked_before = llm.requests().len();
    let out = resume(&home, &sessions);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "the resumed run completes: {stderr}");
    let asked: Vec<String> = llm.requests()[asked_before..]
        .iter()
        .map(|r| r.last_user_text())
        .collect();
    assert_eq!(asked.len(), 1, "one request: {asked:#?}");
    assert!(
        asked[0].contains("Implement the method `remove`:"),
        "{asked:?}"
    );
    let report = run_report(&out.stdout);
    assert_eq!(report["status"], "finished");
    assert_eq!(report["not_generated"], json!([]));
    assert_eq!(report["metrics"]["class_success"], json!(1.0));
    assert_eq!(report["fingerprint"]["spectrum"]["Perfect"], json!(2));
    let all = events(&only_session(sessions.path()));
    let remove_done: Vec<&Value> = all
        .iter()
        .filter(|e| e["kind"] == "method_finished" && e["method"] == "remove")
        .collect();
    assert_eq!(remove_done.last().unwrap()["status"], "passed");
}

#[test]
fn holistic_request_refused_by_the_server_is_not_the_models_failure() {
    let sample = classlab::dataset::sample();
    let cart = sample.task(CART).unwrap().solution.clone();
    let contacts_class = sample.task(CONTACTS).unwrap().class_name.clone();
    let llm = MockLlm::start(move |req| {
        if req.last_user_text().contains(&contacts_class) {
            MockReply::status(400, "context length exceeded")
        } else {
            MockReply::text(format!("```python\n{cart}\n```"))
        }
    });
    let (out, sessions, _home) = invoke(&llm, &[CART, CONTACTS], None, &["--strategy", "holistic"]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("not generated"), "{stderr}");
    let report = run_report(&out.stdout);
    let events = events(&only_session(sessions.path()));
    let missing: Vec<&Value> = events
        .iter()
        .filter(|e| e["kind"] == "task_not_generated")
        .collect();
    assert_eq!(missing.len(), 1);
    assert_eq!(missing[0]["task_id"], CONTACTS);
    assert!(missing[0]["method"].is_null());
    assert!(
        missing[0]["reason"].as_str().unwrap().contains("HTTP 400"),
        "{}",
        missing[0]
    );
    assert_eq!(report["status"], "incomplete");
    // No empty skeleton scored: the one class generated is the only one counted.
    assert_eq!(report["metrics"]["class_success"], json!(1.0));
    assert_eq!(report["fingerprint"]["spectrum"]["Perfect"], json!(1));
    assert_eq!(report["fingerprint"]["exceptions"], json!({}), "{report}");
}

#[test]
fn dead_endpoint_is_refused_before_anything_starts() {
    let sessions = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = assert_cmd::Command::cargo_bin("classlab")
        .unwrap()
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("NO_COLOR", "1")
        .args(["run", "--strategy", "holistic", "--model", "x"])
        .args(["--base-url", "http://127.0.0.1:9/v1", "--sessions"])
        .arg(sessions.path())
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("http://127.0.0.1:9/v1 cannot be reached")
            && stderr.contains("no run was started"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_dir(sessions.path()).unwrap().count(),
        0,
        "no session was created"
    );
}
