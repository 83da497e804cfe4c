//! The OpenAI-compatible client against the local mock server: answers, retries, timeouts,
//! concurrency and cancellation. Retry waits are tiny so the file runs in seconds.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use classlab::llm::client::{OpenAiClient, RESTART};
use classlab::llm::endpoint::Endpoint;
use classlab::llm::retry::RetryPolicy;
use classlab::llm::{Call, Completion, Failure, FailureKind, Message, Params, Provider, Purpose};
use common::mock_llm::{MockLlm, MockReply, word_pieces};

const ANSWER: &str = "class Stack:\n    def push(self, x):\n        self.items.append(x)\n";

fn endpoint(llm: &MockLlm) -> Endpoint {
    let mut e = Endpoint::new("mock", llm.base_url(), "mock-model");
    e.request_timeout = Duration::from_secs(5);
    e.idle_timeout = Duration::from_secs(5);
    e.connect_timeout = Duration::from_secs(2);
    e.retry = RetryPolicy {
        max_retries: 3,
        base: Duration::from_millis(10),
        cap: Duration::from_millis(50),
        max_retry_after: Duration::from_secs(2),
    };
    e
}

fn client(endpoint: Endpoint) -> OpenAiClient {
    OpenAiClient::new(endpoint).expect("client builds")
}

fn call(stream: bool) -> Call {
    Call {
        task_id: "ClassEval_0".into(),
        purpose: Purpose::Holistic,
        messages: vec![
            Message::system("You write Python."),
            Message::user("Write the Stack class please"),
        ],
        params: Params {
            stream,
            ..Params::default()
        },
    }
}

/// Complete `call`; the result and every delta seen.
fn run(client: &OpenAiClient, call: &Call) -> (Result<Completion, Failure>, Vec<String>) {
    let mut deltas = Vec::new();
    let result = client.complete(
        call,
        &mut |d| deltas.push(d.to_string()),
        &AtomicBool::new(false),
    );
    (result, deltas)
}

fn assert_has(text: &str, needle: &str) {
    assert!(text.contains(needle), "{text:?} lacks {needle:?}");
}

fn ok(result: Result<Completion, Failure>) -> Completion {
    result.unwrap_or_else(|f| panic!("expected an answer, got {:?}: {f}", f.kind))
}

fn err(result: Result<Completion, Failure>) -> Failure {
    match result {
        Ok(c) => panic!("expected a failure, got {c:?}"),
        Err(f) => f,
    }
}

#[test]
fn plain_reply_and_request_body() {
    let llm = MockLlm::scripted(vec![MockReply::text(ANSWER)]);
    let c = client(endpoint(&llm));
    assert_eq!((c.kind(), c.model().as_str()), ("openai", "mock-model"));
    let mut request = call(false);
    request.params.seed = Some(42);
    request.params.stop = vec!["\nclass ".into()];
    request.params.max_tokens = Some(512);
    let (result, deltas) = run(&c, &request);
    let done = ok(result);
    assert_eq!(done.text, ANSWER);
    assert_eq!(
        deltas,
        [ANSWER],
        "a whole answer reaches on_delta as one piece"
    );
    assert_eq!(done.finish_reason.as_deref(), Some("stop"));
    let usage = done.usage.expect("usage");
    let answer_words = ANSWER.split_whitespace().count() as u64;
    assert_eq!(
        (usage.prompt_tokens, usage.completion_tokens),
        (8, answer_words)
    );
    assert_eq!((done.retries, done.retry_log.len()), (0, 0));
    assert!(done.latency_s > 0.0);

    let seen = llm.requests();
    assert_eq!(seen.len(), 1);
    let r = &seen[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1/chat/completions")
    );
    assert_eq!(r.header("authorization"), None);
    assert_eq!(r.body["model"], "mock-model");
    assert_eq!(r.body["temperature"].as_f64(), Some(0.0));
    assert_eq!(r.body["stream"], false);
    assert_eq!(r.body["seed"], 42);
    assert_eq!(r.body["max_tokens"], 512);
    assert_eq!(r.body["stop"], serde_json::json!(["\nclass "]));
    assert!(r.body.get("stream_options").is_none());
    assert_eq!(r.messages(), request.messages);
    assert_eq!(r.last_user_text(), "Write the Stack class please");
}

#[test]
fn streamed_reply_in_order_with_usage() {
    let llm = MockLlm::scripted(vec![MockReply::text(ANSWER)]);
    let mut e = endpoint(&llm);
    e.base_url.push('/'); // a trailing slash is tolerated
    let (result, deltas) = run(&client(e), &call(true));
    let done = ok(result);
    assert_eq!(done.text, ANSWER);
    assert_eq!(deltas, word_pieces(ANSWER));
    assert!(deltas.len() > 3, "{deltas:?}");
    assert_eq!(done.finish_reason.as_deref(), Some("stop"));
    let answer_words = ANSWER.split_whitespace().count() as u64;
    assert_eq!(done.usage.map(|u| u.completion_tokens), Some(answer_words));

    let r = &llm.requests()[0];
    assert_eq!(r.path, "/v1/chat/completions");
    assert!(r.stream());
    assert_eq!(r.body["stream_options"]["include_usage"], true);
    assert_eq!(r.header("accept"), Some("text/event-stream"));
    assert!(r.body.get("seed").is_none() && r.body.get("stop").is_none());
}

#[test]
fn api_key_from_the_named_environment_variable() {
    const VAR: &str = "CLASSLAB_LLM_CLIENT_TEST_KEY";
    // SAFETY: only this test touches this variable, and it is set before any client of this
    // test reads it; nothing else in the process reads it concurrently.
    unsafe { std::env::set_var(VAR, "sk-test-123") };
    let llm = MockLlm::scripted(vec![MockReply::text("ok")]);
    let mut e = endpoint(&llm);
    e.api_key_env = Some(VAR.into());
    ok(run(&client(e), &call(true)).0);
    assert_eq!(
        llm.requests()[0].header("Authorization"),
        Some("Bearer sk-test-123")
    );

    let mut e = endpoint(&llm);
    e.api_key_env = Some("CLASSLAB_LLM_CLIENT_TEST_UNSET".into());
    let error = OpenAiClient::new(e)
        .err()
        .expect("a missing key is an error");
    assert!(
        error.to_string().contains("CLASSLAB_LLM_CLIENT_TEST_UNSET"),
        "{error}"
    );
}

#[test]
fn too_many_requests_waits_for_retry_after() {
    let llm = MockLlm::scripted(vec![
        MockReply::Status {
            code: 429,
            retry_after: Some("1".into()),
            body: r#"{"error":{"message":"slow down"}}"#.into(),
        },
        MockReply::text(ANSWER),
    ]);
    let started = Instant::now();
    let done = ok(run(&client(endpoint(&llm)), &call(true)).0);
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(done.text, ANSWER);
    assert_eq!(done.retries, 1);
    assert_eq!(
        done.retry_log,
        ["attempt 1: HTTP 429, waiting 1.0 s (Retry-After)"]
    );
    assert!(done.latency_s >= 1.0);
    assert_eq!(llm.requests().len(), 2);
}

#[test]
fn transient_failures_then_success() {
    let half_body = MockReply::CutStream {
        text: ANSWER.into(),
        after_chunks: 0,
    };
    let table = [
        (MockReply::status(500, "boom"), false, "attempt 1: HTTP 500"),
        (
            MockReply::status(502, "bad gateway"),
            true,
            "attempt 1: HTTP 502",
        ),
        (
            MockReply::status(408, "too slow"),
            false,
            "attempt 1: HTTP 408",
        ),
        (MockReply::Reset, false, "attempt 1: connection failed"),
        (MockReply::Reset, true, "attempt 1: connection failed"),
        (half_body, false, "attempt 1: connection failed"),
    ];
    for (first, stream, want) in table {
        let llm = MockLlm::scripted(vec![first, MockReply::text(ANSWER)]);
        let done = ok(run(&client(endpoint(&llm)), &call(stream)).0);
        assert_eq!((done.text.as_str(), done.retries), (ANSWER, 1), "{want}");
        assert!(done.retry_log[0].starts_with(want), "{:?}", done.retry_log);
    }
}

#[test]
fn stream_cut_mid_answer_restarts() {
    let llm = MockLlm::scripted(vec![
        MockReply::CutStream {
            text: ANSWER.into(),
            after_chunks: 3,
        },
        MockReply::text(ANSWER),
    ]);
    let (result, deltas) = run(&client(endpoint(&llm)), &call(true));
    let done = ok(result);
    assert_eq!((done.text.as_str(), done.retries), (ANSWER, 1));
    let pieces = word_pieces(ANSWER);
    let mut want: Vec<String> = pieces[..3].to_vec();
    want.push(RESTART.to_string());
    want.extend(pieces);
    assert_eq!(
        deltas, want,
        "the cut text, the restart signal, the whole answer"
    );
    assert_has(&done.retry_log[0], "discarded");
}

#[test]
fn persistent_server_errors_give_up_after_max_retries() {
    let llm = MockLlm::scripted(vec![MockReply::status(503, "overloaded")]);
    let failure = err(run(&client(endpoint(&llm)), &call(true)).0);
    assert_eq!(failure.kind, FailureKind::Status);
    assert_eq!(failure.retries, 3);
    assert_eq!(failure.retry_log.len(), 3);
    assert_eq!(llm.requests().len(), 4);
    assert_has(&failure.message, "503");
    assert_has(&failure.message, "overloaded");
    assert_has(&failure.message, "after 3 retries");
}

#[test]
fn client_errors_are_not_retried() {
    for code in [400, 401, 404, 422] {
        let llm = MockLlm::scripted(vec![MockReply::status(code, "model 'x' does not exist")]);
        let failure = err(run(&client(endpoint(&llm)), &call(false)).0);
        assert_eq!((failure.kind, failure.retries), (FailureKind::Status, 0));
        assert_eq!(llm.requests().len(), 1, "HTTP {code}");
        assert!(
            failure.message.starts_with(&format!("HTTP {code}")),
            "{}",
            failure.message
        );
        assert_has(&failure.message, "model 'x' does not exist");
    }
}

#[test]
fn malformed_answers_are_protocol_failures() {
    let llm = MockLlm::scripted(vec![MockReply::Raw("{\"choices\": [oops".into())]);
    let failure = err(run(&client(endpoint(&llm)), &call(false)).0);
    assert_eq!(failure.kind, FailureKind::Protocol);
    assert_has(&failure.message, "[oops");
    assert_eq!(llm.requests().len(), 2, "retried once");

    let bad_chunk = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\
                     Connection: close\r\n\r\ndata: {\"choices\":[{\"delta\":\r\n\r\n";
    let llm = MockLlm::scripted(vec![MockReply::Wire(bad_chunk.into())]);
    let failure = err(run(&client(endpoint(&llm)), &call(true)).0);
    assert_eq!(failure.kind, FailureKind::Protocol);
    assert_has(&failure.message, "not valid JSON");

    // A wrong base URL serving a web page: quoted, not mistaken for an empty stream.
    let page = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n\r\n\
                <html>Welcome to nginx</html>";
    let llm = MockLlm::scripted(vec![MockReply::Wire(page.into())]);
    let failure = err(run(&client(endpoint(&llm)), &call(true)).0);
    assert_eq!(failure.kind, FailureKind::Protocol);
    assert_has(&failure.message, "Welcome to nginx");
}

#[test]
fn a_whole_answer_to_a_stream_request_is_taken() {
    let whole = serde_json::json!({"choices": [{"message": {"role": "assistant",
        "content": "hi there"}, "finish_reason": "stop"}]});
    let llm = MockLlm::scripted(vec![MockReply::Raw(whole.to_string())]);
    let (result, deltas) = run(&client(endpoint(&llm)), &call(true));
    assert_eq!(ok(result).text, "hi there");
    assert_eq!(deltas, ["hi there"]);
}

#[test]
fn empty_answers_are_answers() {
    for stream in [false, true] {
        let llm = MockLlm::scripted(vec![MockReply::text("")]);
        let (result, deltas) = run(&client(endpoint(&llm)), &call(stream));
        let done = ok(result);
        assert_eq!((done.text.as_str(), done.retries), ("", 0));
        assert!(deltas.is_empty(), "{deltas:?}");
    }
}

#[test]
fn slow_replies_time_out_after_retries() {
    let llm = MockLlm::scripted(vec![MockReply::slow(
        Duration::from_secs(3),
        MockReply::text(ANSWER),
    )]);
    let mut e = endpoint(&llm);
    e.request_timeout = Duration::from_millis(400);
    e.retry.max_retries = 1;
    let started = Instant::now();
    let failure = err(run(&client(e), &call(false)).0);
    assert_eq!((failure.kind, failure.retries), (FailureKind::Timeout, 1));
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_has(&failure.message, "request timeout");

    // Streaming: a stall after the first words trips the idle timeout.
    let llm = MockLlm::scripted(vec![MockReply::Stall {
        text: ANSWER.into(),
        after_chunks: 2,
        stall: Duration::from_secs(3),
    }]);
    let mut e = endpoint(&llm);
    e.idle_timeout = Duration::from_millis(400);
    e.retry.max_retries = 1;
    let started = Instant::now();
    let (result, deltas) = run(&client(e), &call(true));
    let failure = err(result);
    assert_eq!((failure.kind, failure.retries), (FailureKind::Timeout, 1));
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_has(&failure.message, "no new bytes");
    assert!(deltas.contains(&RESTART.to_string()), "{deltas:?}");
}

#[test]
fn unreachable_server_is_a_connection_failure() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let mut e = Endpoint::new("gone", format!("http://127.0.0.1:{port}/v1"), "m");
    e.retry = RetryPolicy {
        max_retries: 2,
        base: Duration::from_millis(5),
        cap: Duration::from_millis(5),
        max_retry_after: Duration::from_secs(1),
    };
    let failure = err(run(&client(e), &call(true)).0);
    assert_eq!(
        (failure.kind, failure.retries),
        (FailureKind::Connection, 2)
    );
}

#[test]
fn concurrency_is_capped_per_client() {
    let llm = MockLlm::start(|req| {
        MockReply::slow(
            Duration::from_millis(250),
            MockReply::Text(format!("echo {}", req.last_user_text())),
        )
    });
    let mut e = endpoint(&llm);
    e.max_concurrent = 2;
    let c = Arc::new(client(e));
    let workers: Vec<_> = (0..6)
        .map(|i| {
            let c = Arc::clone(&c);
            thread::spawn(move || {
                let mut request = call(i % 2 == 0);
                request.messages = vec![Message::user(format!("n{i}"))];
                run(&c, &request).0.map(|done| done.text)
            })
        })
        .collect();
    for (i, worker) in workers.into_iter().enumerate() {
        let text = worker.join().expect("worker thread");
        assert_eq!(text.ok(), Some(format!("echo n{i}")));
    }
    assert_eq!(llm.requests().len(), 6);
    assert_eq!(llm.max_in_flight(), 2, "two at a time, never more");
}

#[test]
fn cancellation_is_prompt() {
    for (name, reply) in [
        (
            "slow reply",
            MockReply::slow(Duration::from_secs(5), MockReply::text(ANSWER)),
        ),
        (
            "backoff",
            MockReply::Status {
                code: 503,
                retry_after: Some("30".into()),
                body: String::new(),
            },
        ),
    ] {
        let llm = MockLlm::scripted(vec![reply]);
        let mut e = endpoint(&llm);
        e.retry.max_retry_after = Duration::from_secs(30);
        let c = client(e);
        let cancel = Arc::new(AtomicBool::new(false));
        let setter = {
            let cancel = Arc::clone(&cancel);
            thread::spawn(move || {
                thread::sleep(Duration::from_millis(300));
                cancel.store(true, Ordering::Relaxed);
                Instant::now()
            })
        };
        let result = c.complete(&call(true), &mut |_| {}, &cancel);
        let returned = Instant::now();
        let cancelled_at = setter.join().expect("setter thread");
        let failure = err(result);
        assert_eq!(failure.kind, FailureKind::Cancelled, "{name}");
        let lag = returned.saturating_duration_since(cancelled_at);
        assert!(
            lag < Duration::from_millis(500),
            "{name}: returned {lag:?} after the cancel"
        );
    }
}

/// An event stream delimited by the connection's close (no chunked encoding).
fn close_delimited_stream(payloads: &[&str]) -> MockReply {
    let mut wire = String::from(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n",
    );
    for payload in payloads {
        wire.push_str(&format!("data: {payload}\n\n"));
    }
    MockReply::Wire(wire)
}

#[test]
fn a_stream_needs_done_or_a_finish_reason() {
    let hello = r#"{"choices":[{"delta":{"content":"hello"}}]}"#;
    let stop = r#"{"choices":[{"delta":{},"finish_reason":"stop"}]}"#;
    // Closed cleanly but before the end of the answer: retried, then given up.
    let llm = MockLlm::scripted(vec![close_delimited_stream(&[hello])]);
    let failure = err(run(&client(endpoint(&llm)), &call(true)).0);
    assert_eq!(
        (failure.kind, failure.retries),
        (FailureKind::Connection, 3)
    );
    assert_has(&failure.message, "before [DONE]");
    // A finish_reason without [DONE] is a complete answer (some servers omit it).
    let llm = MockLlm::scripted(vec![close_delimited_stream(&[hello, stop])]);
    let done = ok(run(&client(endpoint(&llm)), &call(true)).0);
    assert_eq!(
        (done.text.as_str(), done.finish_reason.as_deref()),
        ("hello", Some("stop"))
    );
    assert_eq!(done.usage, None);
}
