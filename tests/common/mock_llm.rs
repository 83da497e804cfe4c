//! A local OpenAI-compatible chat server for tests (std only: a thread per connection,
//! HTTP/1.1, `Connection: close`).
//!
//! ```ignore
//! let llm = MockLlm::start(|req| MockReply::Text(format!("echo {}", req.last_user_text())));
//! let endpoint = Endpoint::new("mock", llm.base_url(), "m");
//! ```
//!
//! The handler sees every request (`POST /v1/chat/completions` or anything else) and says how
//! to answer. `Text` answers in the request's mode: a server-sent-event stream (a role chunk,
//! one chunk per word, a `finish_reason` chunk, a usage chunk when `stream_options` asks for
//! it, `[DONE]`) or one JSON completion. Usage counts whitespace-separated words.
//!
//! The server never panics on odd input: a request it cannot parse is answered 400, and a
//! handler that panics gets a 500 — and the panic is raised again when the `MockLlm` is
//! dropped, so an assertion inside a handler still fails its test.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use classlab::llm::Message;
use serde_json::{Value, json};

/// One request as the server received it.
#[derive(Debug, Clone, PartialEq)]
pub struct MockRequest {
    pub method: String,
    pub path: String,
    /// Names lower-cased, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The JSON body (`Value::Null` when empty or not JSON; see `raw_body`).
    pub body: Value,
    pub raw_body: String,
}

impl MockRequest {
    /// The first header of that name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The chat messages of the body (entries that are not `{role, content}` are skipped).
    pub fn messages(&self) -> Vec<Message> {
        self.body["messages"]
            .as_array()
            .map(|all| {
                all.iter()
                    .filter_map(|m| serde_json::from_value(m.clone()).ok())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The content of the last `user` message ("" when there is none).
    pub fn last_user_text(&self) -> String {
        self.messages()
            .into_iter()
            .rev()
            .find(|m| m.role == "user")
            .map(|m| m.content)
            .unwrap_or_default()
    }

    /// Whether the client asked for a stream.
    pub fn stream(&self) -> bool {
        self.body["stream"].as_bool().unwrap_or(false)
    }
}

/// How to answer one request.
#[derive(Debug, Clone, PartialEq)]
pub enum MockReply {
    /// A successful answer with this text, streamed or whole as the request asks.
    Text(String),
    /// An HTTP error (`body` as is; JSON content type when it looks like JSON).
    Status {
        code: u16,
        retry_after: Option<String>,
        body: String,
    },
    /// Close the connection without answering (a TCP reset where the platform allows).
    Reset,
    /// Start a stream of `text` and close after `after_chunks` word chunks, without `[DONE]`.
    /// (A non-streaming request gets the headers and half a JSON body.)
    CutStream { text: String, after_chunks: usize },
    /// Start a stream of `text`, send `after_chunks` word chunks, then go silent for `stall`
    /// and close (tests idle timeouts).
    Stall {
        text: String,
        after_chunks: usize,
        stall: Duration,
    },
    /// Wait, then answer with `then`.
    Slow {
        delay: Duration,
        then: Box<MockReply>,
    },
    /// `200 OK`, `Content-Type: application/json`, and exactly this body (malformed JSON …).
    Raw(String),
    /// Exactly these bytes on the wire (status line and headers included), then close.
    Wire(String),
}

impl MockReply {
    pub fn text(text: impl Into<String>) -> Self {
        MockReply::Text(text.into())
    }

    /// An error status with an OpenAI-style JSON error body.
    pub fn status(code: u16, message: &str) -> Self {
        MockReply::Status {
            code,
            retry_after: None,
            body: json!({"error": {"message": message, "type": "mock_error"}}).to_string(),
        }
    }

    pub fn slow(delay: Duration, then: MockReply) -> Self {
        MockReply::Slow {
            delay,
            then: Box::new(then),
        }
    }
}

type Handler = dyn Fn(&MockRequest) -> MockReply + Send + Sync;

struct Shared {
    handler: Box<Handler>,
    requests: Mutex<Vec<MockRequest>>,
    panics: Mutex<Vec<String>>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    stopping: AtomicBool,
}

/// A running mock server; stops accepting when dropped.
pub struct MockLlm {
    port: u16,
    shared: Arc<Shared>,
}

impl MockLlm {
    /// Serve on `127.0.0.1:<free port>`, answering every request with `handler`.
    pub fn start(handler: impl Fn(&MockRequest) -> MockReply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a local port");
        let port = listener.local_addr().expect("local address").port();
        let shared = Arc::new(Shared {
            handler: Box::new(handler),
            requests: Mutex::new(Vec::new()),
            panics: Mutex::new(Vec::new()),
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
            stopping: AtomicBool::new(false),
        });
        let accept_shared = Arc::clone(&shared);
        thread::spawn(move || {
            for stream in listener.incoming() {
                if accept_shared.stopping.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let conn_shared = Arc::clone(&accept_shared);
                thread::spawn(move || serve(stream, &conn_shared));
            }
        });
        MockLlm { port, shared }
    }

    /// Answer with `replies` in order; once they run out the last one repeats (so
    /// `scripted(vec![status 500])` is a server that always fails). No replies: always 500.
    pub fn scripted(replies: Vec<MockReply>) -> Self {
        let next = AtomicUsize::new(0);
        MockLlm::start(move |_| {
            let i = next.fetch_add(1, Ordering::SeqCst);
            replies
                .get(i)
                .or(replies.last())
                .cloned()
                .unwrap_or_else(|| MockReply::status(500, "mock script is empty"))
        })
    }

    /// `http://127.0.0.1:<port>/v1`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<MockRequest> {
        lock(&self.shared.requests).clone()
    }

    /// The most requests that were ever received and not yet answered at one time.
    pub fn max_in_flight(&self) -> usize {
        self.shared.max_in_flight.load(Ordering::SeqCst)
    }
}

impl Drop for MockLlm {
    fn drop(&mut self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees `stopping`.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        let panics = lock(&self.shared.panics).clone();
        if !panics.is_empty() && !thread::panicking() {
            panic!("the mock LLM handler panicked: {}", panics.join("; "));
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Longest request head or body the server reads.
const MAX_REQUEST_BYTES: usize = 16 << 20;

/// Answer one connection; I/O errors (the client went away) just end it.
fn serve(stream: TcpStream, shared: &Shared) {
    if shared.stopping.load(Ordering::SeqCst) {
        return;
    }
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let _ = stream.set_nodelay(true);
    let request = match read_request(&stream) {
        Ok(Some(request)) => request,
        Ok(None) => return, // closed without a request (the shutdown wake-up)
        Err(_) => {
            let _ = write_response(&stream, 400, "text/plain", None, "malformed request");
            return;
        }
    };
    lock(&shared.requests).push(request.clone());
    let now = shared.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    shared.max_in_flight.fetch_max(now, Ordering::SeqCst);
    let reply = match catch_unwind(AssertUnwindSafe(|| (shared.handler)(&request))) {
        Ok(reply) => reply,
        Err(panic) => {
            let text = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "(non-string panic)".into());
            lock(&shared.panics).push(text.clone());
            MockReply::status(500, &format!("mock handler panicked: {text}"))
        }
    };
    // Errors mean the client went away; dropping the stream closes the connection (with a
    // reset after `MockReply::Reset`).
    let _ = answer(&stream, &request, reply, &shared.in_flight);
}

/// Parse a request head and its `Content-Length` body; `None` for a connection closed
/// before any byte.
fn read_request(stream: &TcpStream) -> std::io::Result<Option<MockRequest>> {
    let bad = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string());
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace().map(str::to_string);
    let (Some(method), Some(path)) = (parts.next(), parts.next()) else {
        return Err(bad("no request line"));
    };
    let mut headers = Vec::new();
    let mut head_bytes = line.len();
    loop {
        line.clear();
        let n = reader.read_line(&mut line)?;
        head_bytes += n;
        if n == 0 || head_bytes > MAX_REQUEST_BYTES {
            return Err(bad("unterminated head"));
        }
        let text = line.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            break;
        }
        if let Some((name, value)) = text.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    let length = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    if length > MAX_REQUEST_BYTES {
        return Err(bad("body too large"));
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let raw_body = String::from_utf8_lossy(&body).into_owned();
    Ok(Some(MockRequest {
        method,
        path,
        headers,
        body: serde_json::from_str(&raw_body).unwrap_or(Value::Null),
        raw_body,
    }))
}

fn answer(
    mut stream: &TcpStream,
    request: &MockRequest,
    reply: MockReply,
    in_flight: &AtomicUsize,
) -> std::io::Result<()> {
    let reply = unwrap_slow(reply);
    // Not in flight once answering: a client reading the end may already send the next.
    in_flight.fetch_sub(1, Ordering::SeqCst);
    match reply {
        MockReply::Text(text) if request.stream() => {
            let chunks = stream_chunks(request, &text);
            write_stream(stream, &chunks, chunks.len(), true)
        }
        MockReply::Text(text) => {
            let body = completion(request, &text).to_string();
            write_response(stream, 200, "application/json", None, &body)
        }
        MockReply::Status {
            code,
            retry_after,
            body,
        } => {
            let kind = match body.trim_start().starts_with('{') {
                true => "application/json",
                false => "text/plain",
            };
            write_response(stream, code, kind, retry_after.as_deref(), &body)
        }
        MockReply::Reset => {
            reset(stream);
            Ok(())
        }
        MockReply::CutStream { text, after_chunks } if request.stream() => {
            let chunks = stream_chunks(request, &text);
            // The role chunk is not an answer chunk: skip it in the count.
            write_stream(stream, &chunks, after_chunks.saturating_add(1), false)
        }
        MockReply::CutStream { text, .. } => {
            let body = completion(request, &text).to_string();
            let half = &body.as_bytes()[..body.len() / 2];
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n",
                body.len()
            );
            stream.write_all(head.as_bytes())?;
            stream.write_all(half)
        }
        MockReply::Stall {
            text,
            after_chunks,
            stall,
        } => {
            let chunks = stream_chunks(request, &text);
            write_stream(stream, &chunks, after_chunks.saturating_add(1), false)?;
            thread::sleep(stall);
            Ok(())
        }
        MockReply::Raw(body) => write_response(stream, 200, "application/json", None, &body),
        MockReply::Wire(bytes) => stream.write_all(bytes.as_bytes()),
        MockReply::Slow { .. } => unreachable!("unwrap_slow removed every Slow"),
    }
}

/// Sleep through (nested) `Slow` replies; the reply that remains.
fn unwrap_slow(mut reply: MockReply) -> MockReply {
    while let MockReply::Slow { delay, then } = reply {
        thread::sleep(delay);
        reply = *then;
    }
    reply
}

fn words(text: &str) -> u64 {
    text.split_whitespace().count() as u64
}

fn usage(request: &MockRequest, text: &str) -> Value {
    let prompt: u64 = request.messages().iter().map(|m| words(&m.content)).sum();
    json!({"prompt_tokens": prompt, "completion_tokens": words(text),
           "total_tokens": prompt + words(text)})
}

fn completion(request: &MockRequest, text: &str) -> Value {
    json!({
        "id": "chatcmpl-mock",
        "object": "chat.completion",
        "model": request.body["model"],
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                     "finish_reason": "stop"}],
        "usage": usage(request, text),
    })
}

/// The stream chunks of `text`: split after each whitespace character ("a b\nc" →
/// ["a ", "b\n", "c"]), so they join back to `text`.
pub fn word_pieces(text: &str) -> Vec<String> {
    text.split_inclusive(char::is_whitespace)
        .map(str::to_string)
        .collect()
}

/// The `data:` payloads of a streamed answer: role, one per word, finish, usage, `[DONE]`.
fn stream_chunks(request: &MockRequest, text: &str) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-mock", "object": "chat.completion.chunk",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        .to_string()
    };
    let mut chunks = vec![chunk(json!({"role": "assistant"}), Value::Null)];
    for piece in word_pieces(text) {
        chunks.push(chunk(json!({"content": piece}), Value::Null));
    }
    chunks.push(chunk(json!({}), json!("stop")));
    if request.body["stream_options"]["include_usage"] == true {
        let usage = json!({"id": "chatcmpl-mock", "object": "chat.completion.chunk",
                           "choices": [], "usage": usage(request, text)});
        chunks.push(usage.to_string());
    }
    chunks.push("[DONE]".into());
    chunks
}

/// Send an event-stream response (chunked) with the first `count` payloads; `finish` ends
/// the chunked body properly, otherwise the connection is simply closed.
fn write_stream(
    mut stream: &TcpStream,
    payloads: &[String],
    count: usize,
    finish: bool,
) -> std::io::Result<()> {
    stream.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
          Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
    )?;
    for payload in payloads.iter().take(count) {
        let event = format!("data: {payload}\n\n");
        stream.write_all(format!("{:x}\r\n{event}\r\n", event.len()).as_bytes())?;
        stream.flush()?;
    }
    if finish {
        stream.write_all(b"0\r\n\r\n")?;
    }
    stream.flush()
}

fn write_response(
    mut stream: &TcpStream,
    code: u16,
    content_type: &str,
    retry_after: Option<&str>,
    body: &str,
) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {code} {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Connection: close\r\n",
        if code == 200 { "OK" } else { "Mock Status" }, // clients ignore the reason phrase
        body.len()
    );
    if let Some(value) = retry_after {
        head.push_str(&format!("Retry-After: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.as_bytes())?;
    stream.flush()
}

/// Close with a TCP reset (SO_LINGER 0) rather than an orderly FIN.
fn reset(stream: &TcpStream) {
    use std::os::fd::AsRawFd;
    let linger = libc::linger {
        l_onoff: 1,
        l_linger: 0,
    };
    // SAFETY: a valid socket fd owned by `stream`, and a correctly sized `linger` value.
    unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&linger as *const libc::linger).cast(),
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        );
    }
}
