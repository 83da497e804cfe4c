//! The OpenAI-compatible chat client: `POST <base_url>/chat/completions`, streamed (server-sent
//! events) or whole, with bounded concurrency, timeouts, retries and cancellation.
//!
//! [`Provider`] is blocking because the pipeline runs tasks on plain threads: the client owns
//! a small tokio runtime and each [`Provider::complete`] blocks on it, so many threads may call
//! one client at once. Their requests share the endpoint's `max_concurrent` permits (held only
//! while a request is in flight, not during backoff).
//!
//! Timeouts: `connect_timeout` for the TCP/TLS connection; `request_timeout` for a whole
//! non-streamed request, and for a streamed one until its response headers; `idle_timeout`
//! for silence (no new bytes) while streaming. A stream that keeps producing may run longer
//! than `request_timeout`. A non-streamed answer reaches `on_delta` as one piece.
//!
//! Call [`Provider::complete`] from plain threads: inside a tokio runtime (including its
//! `spawn_blocking` threads) it refuses with `FailureKind::Unavailable` instead of panicking.
//!
//! # Restarts and `on_delta`
//!
//! A stream cut off mid-answer (the connection closes before `[DONE]` and before any
//! `finish_reason`) is a connection failure and is retried from scratch. Before that retry the
//! client calls `on_delta(`[`RESTART`]`)` — the empty string, which is never a real delta —
//! so a live view drops the text it has shown; the retry log records it. Malformed answers
//! are retried once (see [`retry::MAX_PROTOCOL_RETRIES`]); an empty answer is a success.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once};
use std::time::{Duration, Instant, SystemTime};

use reqwest::header::{self, HeaderMap, HeaderValue};
use serde::Serialize;
use tokio::sync::Semaphore;

use super::endpoint::Endpoint;
use super::retry::{self, AttemptError, Decision};
use super::sse::{self, Delta};
use super::{Call, Completion, Failure, FailureKind, Message, Provider};

/// Connect (TCP) to the host and port of `base_url`: any of its addresses will do.
pub fn check_reachable(base_url: &str, timeout: Duration) -> Result<(), String> {
    use std::net::{TcpStream, ToSocketAddrs};
    let url = reqwest::Url::parse(base_url).map_err(|e| format!("not a URL: {e}"))?;
    let host = url.host_str().ok_or("the URL names no host")?;
    let port = url.port_or_known_default().ok_or("the URL names no port")?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let addrs: Vec<_> = (host, port)
        .to_socket_addrs()
        .map_err(|e| format!("{host}: {e}"))?
        .collect();
    let mut last = format!("{host}: no address");
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, timeout) {
            Ok(_) => return Ok(()),
            Err(e) => last = format!("{addr}: {e}"),
        }
    }
    Err(last)
}

/// What `on_delta` receives when the text streamed so far is void because the request is
/// being retried from scratch.
pub const RESTART: &str = "";

/// How often a waiting call looks at its cancel flag.
const CANCEL_POLL: Duration = Duration::from_millis(50);

/// Why a client could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientError {
    #[error(
        "endpoint {endpoint:?} takes its API key from the environment variable {var}, \
         which is not set (or empty, or not valid in a header)"
    )]
    MissingApiKey { endpoint: String, var: String },
    #[error("endpoint {endpoint:?}: {message}")]
    Setup { endpoint: String, message: String },
}

/// A chat client for one [`Endpoint`].
pub struct OpenAiClient {
    endpoint: Endpoint,
    url: String,
    http: reqwest::Client,
    permits: Arc<Semaphore>,
    /// `Option` only so `Drop` can take it and shut it down without blocking.
    runtime: Option<tokio::runtime::Runtime>,
}

impl OpenAiClient {
    /// Build a client. Reads the API key now, so a missing key fails before any request.
    pub fn new(endpoint: Endpoint) -> Result<Self, ClientError> {
        let setup = |message: String| ClientError::Setup {
            endpoint: endpoint.name.clone(),
            message,
        };
        let mut headers = HeaderMap::new();
        if let Some(var) = &endpoint.api_key_env {
            let key = std::env::var(var)
                .ok()
                .filter(|k| !k.trim().is_empty())
                .and_then(|k| HeaderValue::from_str(&format!("Bearer {}", k.trim())).ok());
            let Some(mut value) = key else {
                return Err(ClientError::MissingApiKey {
                    endpoint: endpoint.name.clone(),
                    var: var.clone(),
                });
            };
            value.set_sensitive(true);
            headers.insert(header::AUTHORIZATION, value);
        }
        install_crypto_provider();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("classlab-llm")
            .enable_all()
            .build()
            .map_err(|e| setup(format!("cannot start the network runtime: {e}")))?;
        let http = {
            let _inside = runtime.enter();
            reqwest::Client::builder()
                .connect_timeout(endpoint.connect_timeout)
                .default_headers(headers)
                .build()
                .map_err(|e| setup(format!("cannot build the HTTP client: {e}")))?
        };
        Ok(OpenAiClient {
            url: endpoint.chat_url(),
            permits: Arc::new(Semaphore::new(endpoint.max_concurrent.max(1))),
            endpoint,
            http,
            runtime: Some(runtime),
        })
    }

    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }
}

impl Drop for OpenAiClient {
    fn drop(&mut self) {
        // A plain drop blocks, and panics inside another runtime.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl Provider for OpenAiClient {
    fn kind(&self) -> &'static str {
        "openai"
    }

    fn base_url(&self) -> Option<String> {
        Some(self.endpoint.base_url.clone())
    }

    /// A TCP connection to the endpoint's host within the connect timeout (skipped when a
    /// proxy is configured: then the proxy is what requests reach).
    fn reachable(&self) -> Result<(), String> {
        let proxied = [
            "HTTPS_PROXY",
            "https_proxy",
            "HTTP_PROXY",
            "http_proxy",
            "ALL_PROXY",
            "all_proxy",
        ]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()));
        if proxied {
            return Ok(());
        }
        let base = &self.endpoint.base_url;
        check_reachable(base, self.endpoint.connect_timeout).map_err(|why| {
            format!(
                "the model endpoint {base} cannot be reached ({why}); no run was started. \
                 Is the server running? (--base-url, --endpoint)"
            )
        })
    }

    fn model(&self) -> String {
        self.endpoint.model.clone()
    }

    fn complete(
        &self,
        call: &Call,
        on_delta: &mut dyn FnMut(&str),
        cancel: &AtomicBool,
    ) -> Result<Completion, Failure> {
        let unavailable = |message: &str| Failure {
            kind: FailureKind::Unavailable,
            message: message.into(),
            retries: 0,
            retry_log: Vec::new(),
            latency_s: 0.0,
        };
        // block_on panics inside a runtime; the pipeline calls from plain threads.
        if tokio::runtime::Handle::try_current().is_ok() {
            return Err(unavailable(
                "OpenAiClient::complete was called from inside an async runtime",
            ));
        }
        let Some(runtime) = &self.runtime else {
            return Err(unavailable("the client is shutting down"));
        };
        runtime.block_on(self.run(call, on_delta, cancel))
    }
}

/// Install ring as rustls' process-wide provider once (reqwest is built without one). If
/// another part of the process installed a provider first, that one is used.
fn install_crypto_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// The request body. Serialized from a struct (not a `json!` value) so an `f32` temperature
/// is written as `0.7`, not `0.699999988079071`.
#[derive(Serialize)]
struct RequestBody<'a> {
    model: &'a str,
    messages: &'a [Message],
    temperature: f32,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    stop: &'a [String],
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<StreamOptions>,
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

fn request_body(model: &str, call: &Call) -> Result<Vec<u8>, serde_json::Error> {
    let p = &call.params;
    serde_json::to_vec(&RequestBody {
        model,
        messages: &call.messages,
        temperature: p.temperature,
        max_tokens: p.max_tokens,
        seed: p.seed,
        stop: &p.stop,
        stream: p.stream,
        stream_options: p.stream.then_some(StreamOptions {
            include_usage: true,
        }),
    })
}

/// Run `fut` unless `cancel` is set first (`None` then).
async fn until_cancelled<F: Future>(cancel: &AtomicBool, fut: F) -> Option<F::Output> {
    let watch = async {
        while !cancel.load(Ordering::Relaxed) {
            tokio::time::sleep(CANCEL_POLL).await;
        }
    };
    tokio::select! {
        biased;
        () = watch => None,
        out = fut => Some(out),
    }
}

/// The bookkeeping of one call across its attempts.
#[derive(Default)]
struct Tally {
    /// When the first attempt got its permit (queueing before that is not latency).
    started: Option<Instant>,
    retries: u32,
    protocol_retries: u32,
    log: Vec<String>,
}

impl Tally {
    fn latency_s(&self) -> f64 {
        self.started.map_or(0.0, |t| t.elapsed().as_secs_f64())
    }

    fn fail(self, kind: FailureKind, message: impl Into<String>) -> Result<Completion, Failure> {
        Err(Failure {
            kind,
            message: message.into(),
            latency_s: self.latency_s(),
            retries: self.retries,
            retry_log: self.log,
        })
    }

    fn answer(self, answer: Delta) -> Result<Completion, Failure> {
        Ok(Completion {
            text: answer.content,
            usage: answer.usage,
            finish_reason: answer.finish_reason,
            latency_s: self.latency_s(),
            retries: self.retries,
            retry_log: self.log,
        })
    }
}

const CANCELLED: &str = "cancelled";

impl OpenAiClient {
    /// One call: attempts, retries and their waits, all under the cancel flag.
    async fn run(
        &self,
        call: &Call,
        on_delta: &mut dyn FnMut(&str),
        cancel: &AtomicBool,
    ) -> Result<Completion, Failure> {
        let mut tally = Tally::default();
        let body = match request_body(&self.endpoint.model, call) {
            Ok(body) => body,
            Err(e) => {
                let message = format!("cannot encode the request: {e}");
                return tally.fail(FailureKind::Unavailable, message);
            }
        };
        loop {
            if cancel.load(Ordering::Relaxed) {
                return tally.fail(FailureKind::Cancelled, CANCELLED);
            }
            let permit = match until_cancelled(cancel, self.permits.acquire()).await {
                None => return tally.fail(FailureKind::Cancelled, CANCELLED),
                Some(Err(_closed)) => {
                    return tally.fail(FailureKind::Unavailable, "the client is shutting down");
                }
                Some(Ok(permit)) => permit,
            };
            tally.started.get_or_insert_with(Instant::now);
            let mut emitted = false;
            let attempt = self.attempt(&body, call.params.stream, &mut *on_delta, &mut emitted);
            let outcome = until_cancelled(cancel, attempt).await;
            drop(permit);
            let err = match outcome {
                None => return tally.fail(FailureKind::Cancelled, CANCELLED),
                Some(Ok(answer)) => return tally.answer(answer),
                Some(Err(err)) => err,
            };
            let policy = &self.endpoint.retry;
            let unit = fastrand::f64();
            match retry::decide(policy, &err, tally.retries, tally.protocol_retries, unit) {
                Decision::GiveUp => {
                    let mut message = err.message;
                    if tally.retries > 0 {
                        message.push_str(&format!(" (gave up after {} retries)", tally.retries));
                    }
                    return tally.fail(err.kind, message);
                }
                Decision::Retry { wait, because } => {
                    let mut line = retry::log_line(tally.retries + 1, &err, wait, &because);
                    if emitted {
                        on_delta(RESTART);
                        line.push_str("; streamed text discarded");
                    }
                    tally.log.push(line);
                    tally.retries += 1;
                    if err.kind == FailureKind::Protocol {
                        tally.protocol_retries += 1;
                    }
                    let waited = until_cancelled(cancel, tokio::time::sleep(wait)).await;
                    if waited.is_none() {
                        return tally.fail(FailureKind::Cancelled, CANCELLED);
                    }
                }
            }
        }
    }

    /// One HTTP request. `emitted` tells the caller whether `on_delta` saw any text.
    async fn attempt(
        &self,
        body: &[u8],
        stream: bool,
        on_delta: &mut dyn FnMut(&str),
        emitted: &mut bool,
    ) -> Result<Delta, AttemptError> {
        let mut request = self
            .http
            .post(&self.url)
            .header(header::CONTENT_TYPE, "application/json")
            .body(body.to_vec());
        if stream {
            request = request.header(header::ACCEPT, "text/event-stream");
        }
        let limit = self.endpoint.request_timeout;
        let timed_out = || {
            AttemptError::new(
                FailureKind::Timeout,
                format!(
                    "no answer within the request timeout ({})",
                    retry::seconds(limit)
                ),
            )
        };
        let headers = async {
            let response = request
                .send()
                .await
                .map_err(|e| retry::transport_error(&e, "sending the request"))?;
            check_status(response).await
        };
        let deadline = tokio::time::Instant::now() + limit;
        let response = tokio::time::timeout_at(deadline, headers)
            .await
            .map_err(|_| timed_out())??;
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("text/event-stream");
        if stream && content_type.contains("event-stream") {
            let idle = self.endpoint.idle_timeout;
            return sse::read_stream(response, idle, on_delta, emitted).await;
        }
        // A whole answer — or a server that ignored `stream: true`, or an HTML page from a
        // wrong base URL (a protocol error quoting it).
        let bytes = tokio::time::timeout_at(deadline, response.bytes())
            .await
            .map_err(|_| timed_out())?
            .map_err(|e| retry::transport_error(&e, "reading the answer"))?;
        let answer = sse::parse_completion(&String::from_utf8_lossy(&bytes))
            .map_err(|e| AttemptError::new(FailureKind::Protocol, e.0))?;
        // Live views get a whole answer as one delta.
        if !answer.content.is_empty() {
            *emitted = true;
            on_delta(&answer.content);
        }
        Ok(answer)
    }
}

/// Pass a success through; an error status becomes an [`AttemptError`].
async fn check_status(response: reqwest::Response) -> Result<reqwest::Response, AttemptError> {
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let retry_after = response
        .headers()
        .get(header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    // The body only explains; a broken one still leaves the status to report.
    let body = response.bytes().await.unwrap_or_default();
    Err(retry::status_error(
        status.as_u16(),
        status.canonical_reason(),
        retry_after.as_deref(),
        &String::from_utf8_lossy(&body),
        SystemTime::now(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{Params, Purpose};

    #[test]
    fn request_bodies() {
        let mut call = Call {
            task_id: "t".into(),
            purpose: Purpose::Holistic,
            messages: vec![Message::system("s"), Message::user("u")],
            params: Params::default(),
        };
        let body: serde_json::Value =
            serde_json::from_slice(&request_body("m", &call).unwrap()).unwrap();
        assert_eq!(
            body,
            serde_json::json!({
                "model": "m",
                "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
                "temperature": 0.0,
                "stream": true,
                "stream_options": {"include_usage": true},
            })
        );
        call.params = Params {
            temperature: 0.7,
            max_tokens: Some(64),
            seed: Some(7),
            stop: vec!["\n\n".into()],
            stream: false,
        };
        let text = String::from_utf8(request_body("m", &call).unwrap()).unwrap();
        assert!(text.contains("\"temperature\":0.7,"), "{text}");
        let body: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(body["max_tokens"], 64);
        assert_eq!(body["seed"], 7);
        assert_eq!(body["stop"], serde_json::json!(["\n\n"]));
        assert_eq!(body["stream"], false);
        assert!(body.get("stream_options").is_none());
    }

    #[test]
    fn missing_api_key_is_an_error_at_construction() {
        let mut endpoint = Endpoint::new("e", "http://127.0.0.1:9/v1", "m");
        endpoint.api_key_env = Some("CLASSLAB_TEST_SURELY_UNSET_KEY".into());
        let err = OpenAiClient::new(endpoint).err().unwrap();
        assert!(
            err.to_string().contains("CLASSLAB_TEST_SURELY_UNSET_KEY"),
            "{err}"
        );
    }
}
