//! The chat API's wire format: one server-sent-event `data:` payload of a streamed answer
//! (a `chat.completion.chunk`, or `[DONE]`), a whole non-streamed `chat.completion`, and the
//! error message inside an HTTP error body; and [`read_stream`], which reads a whole event
//! stream under the idle timeout.
//!
//! Parsing is lenient about what does not matter (extra fields, `null` content, chunks that
//! carry only a role or only usage) and strict about what does (JSON that does not parse, an
//! `error` object where an answer should be).

use std::time::Duration;

use eventsource_stream::{EventStreamError, Eventsource};
use futures_util::StreamExt;
use serde_json::Value;

use super::retry::{self, AttemptError};
use super::{FailureKind, Usage};

/// What one chunk (or a whole completion) contributes to the answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Delta {
    /// New text; empty for role-only and usage-only chunks.
    pub content: String,
    pub usage: Option<Usage>,
    pub finish_reason: Option<String>,
}

/// One parsed `data:` payload.
#[derive(Debug, Clone, PartialEq)]
pub enum SseData {
    /// `data: [DONE]`: the stream is complete.
    Done,
    Chunk(Delta),
}

/// The server answered something that is not the chat API.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ProtocolError(pub String);

/// Longest excerpt of a foreign payload quoted in an error message (characters).
pub const EXCERPT_CHARS: usize = 200;

/// At most `max` characters of `text` on one line, with "…" when cut.
pub fn excerpt(text: &str, max: usize) -> String {
    let flat: String = text
        .trim()
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    match flat.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &flat[..cut]),
        None => flat,
    }
}

/// Parse one SSE `data:` payload of a streamed chat completion.
pub fn parse_data(data: &str) -> Result<SseData, ProtocolError> {
    let data = data.trim();
    if data == "[DONE]" {
        return Ok(SseData::Done);
    }
    let value = parse_json(data, "stream chunk")?;
    if let Some(message) = error_in(&value) {
        return Err(ProtocolError(format!("error in stream: {message}")));
    }
    if !value.is_object() {
        return Err(ProtocolError(format!(
            "stream chunk is not a JSON object: {}",
            excerpt(data, EXCERPT_CHARS)
        )));
    }
    // Chunks without choices (usage-only, server timings) contribute no text.
    let choice = value.pointer("/choices/0");
    Ok(SseData::Chunk(Delta {
        content: choice
            .and_then(|c| c.pointer("/delta/content"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        usage: usage_in(&value),
        finish_reason: choice.and_then(finish_reason_in),
    }))
}

/// Parse a whole (non-streamed) chat completion body.
pub fn parse_completion(body: &str) -> Result<Delta, ProtocolError> {
    let value = parse_json(body, "completion")?;
    if let Some(message) = error_in(&value) {
        return Err(ProtocolError(format!(
            "error instead of an answer: {message}"
        )));
    }
    let Some(choice) = value.pointer("/choices/0") else {
        return Err(ProtocolError(format!(
            "completion without choices: {}",
            excerpt(body, EXCERPT_CHARS)
        )));
    };
    let Some(message) = choice.get("message").filter(|m| m.is_object()) else {
        return Err(ProtocolError(format!(
            "completion choice without a message: {}",
            excerpt(body, EXCERPT_CHARS)
        )));
    };
    Ok(Delta {
        // `null` content (a refusal, a tool call) is an empty answer, not a malformed one.
        content: message
            .get("content")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        usage: usage_in(&value),
        finish_reason: finish_reason_in(choice),
    })
}

/// The human message of an HTTP error body: `error.message`, `error` as a string, `message`,
/// or the body itself; one line, at most [`EXCERPT_CHARS`] characters.
pub fn error_message(body: &str) -> String {
    let from_json = serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| error_in(&v).or_else(|| v.get("message")?.as_str().map(str::to_string)));
    excerpt(from_json.as_deref().unwrap_or(body), EXCERPT_CHARS)
}

/// Bytes of a streamed body, or why none came.
enum StreamFault {
    Transport(reqwest::Error),
    Idle,
}

/// Accumulate a server-sent-event stream until `[DONE]` (or its end after a
/// `finish_reason`), under the idle timeout; each non-empty delta goes to `on_delta`
/// (`emitted` records that one did). A stream that ends early is a connection failure.
pub async fn read_stream(
    response: reqwest::Response,
    idle: Duration,
    on_delta: &mut dyn FnMut(&str),
    emitted: &mut bool,
) -> Result<Delta, AttemptError> {
    // The idle timeout watches bytes, not events: keep-alive comments count as life.
    let bytes = futures_util::stream::unfold(
        Box::pin(response.bytes_stream()),
        move |mut inner| async move {
            match tokio::time::timeout(idle, inner.next()).await {
                Ok(Some(item)) => Some((item.map_err(StreamFault::Transport), inner)),
                Ok(None) => None,
                Err(_) => Some((Err(StreamFault::Idle), inner)),
            }
        },
    );
    let mut events = std::pin::pin!(bytes.eventsource());
    let mut answer = Delta::default();
    let mut done = false;
    let mut chunks = 0u32;
    let so_far = |answer: &Delta, chunks: u32| {
        format!(
            "after {chunks} chunks ({} characters)",
            answer.content.chars().count()
        )
    };
    while let Some(event) = events.next().await {
        let event = match event {
            Ok(event) => event,
            Err(EventStreamError::Transport(StreamFault::Idle)) => {
                let message = format!(
                    "no new bytes for {} while streaming, {}",
                    retry::seconds(idle),
                    so_far(&answer, chunks)
                );
                return Err(AttemptError::new(FailureKind::Timeout, message));
            }
            Err(EventStreamError::Transport(StreamFault::Transport(e))) => {
                let doing = format!("stream broke {}", so_far(&answer, chunks));
                return Err(retry::transport_error(&e, &doing));
            }
            Err(EventStreamError::Utf8(e)) => {
                let message = format!("the event stream is not UTF-8: {e}");
                return Err(AttemptError::new(FailureKind::Protocol, message));
            }
            Err(EventStreamError::Parser(e)) => {
                let message = format!(
                    "not an event stream: {}",
                    excerpt(&e.to_string(), EXCERPT_CHARS)
                );
                return Err(AttemptError::new(FailureKind::Protocol, message));
            }
        };
        if event.data.trim().is_empty() {
            continue;
        }
        let delta = match parse_data(&event.data) {
            Ok(SseData::Done) => {
                done = true;
                break;
            }
            Ok(SseData::Chunk(delta)) => delta,
            Err(e) => return Err(AttemptError::new(FailureKind::Protocol, e.0)),
        };
        chunks += 1;
        if !delta.content.is_empty() {
            *emitted = true;
            on_delta(&delta.content);
            answer.content.push_str(&delta.content);
        }
        answer.usage = delta.usage.or(answer.usage);
        answer.finish_reason = delta.finish_reason.or(answer.finish_reason);
    }
    if !done && answer.finish_reason.is_none() {
        let message = format!("the stream ended before [DONE] {}", so_far(&answer, chunks));
        return Err(AttemptError::new(FailureKind::Connection, message));
    }
    Ok(answer)
}

fn parse_json(text: &str, what: &str) -> Result<Value, ProtocolError> {
    serde_json::from_str(text).map_err(|e| {
        ProtocolError(format!(
            "{what} is not valid JSON ({e}): {}",
            excerpt(text, EXCERPT_CHARS)
        ))
    })
}

/// `{"error": {"message": …}}` or `{"error": "…"}`.
fn error_in(value: &Value) -> Option<String> {
    let error = value.get("error")?;
    if let Some(text) = error.as_str() {
        return Some(text.to_string());
    }
    match error.get("message").and_then(Value::as_str) {
        Some(text) => Some(text.to_string()),
        None if error.is_null() => None,
        None => Some(error.to_string()),
    }
}

fn usage_in(value: &Value) -> Option<Usage> {
    let usage = value.get("usage").filter(|u| u.is_object())?;
    let prompt = usage.get("prompt_tokens").and_then(Value::as_u64);
    let completion = usage.get("completion_tokens").and_then(Value::as_u64);
    if prompt.is_none() && completion.is_none() {
        return None;
    }
    Some(Usage {
        prompt_tokens: prompt.unwrap_or(0),
        completion_tokens: completion.unwrap_or(0),
    })
}

fn finish_reason_in(choice: &Value) -> Option<String> {
    choice
        .get("finish_reason")
        .and_then(Value::as_str)
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(content: &str, usage: Option<(u64, u64)>, finish: Option<&str>) -> SseData {
        SseData::Chunk(Delta {
            content: content.into(),
            usage: usage.map(|(p, c)| Usage {
                prompt_tokens: p,
                completion_tokens: c,
            }),
            finish_reason: finish.map(str::to_string),
        })
    }

    #[test]
    fn stream_payloads() {
        let table = [
            ("[DONE]", SseData::Done),
            (" [DONE]\n", SseData::Done),
            (
                r#"{"choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}"#,
                chunk("", None, None),
            ),
            (
                r#"{"choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}],"usage":null}"#,
                chunk("Hel", None, None),
            ),
            (
                r#"{"choices":[{"delta":{"content":null}}]}"#,
                chunk("", None, None),
            ),
            (
                r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
                chunk("", None, Some("stop")),
            ),
            (
                r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":5,"total_tokens":17}}"#,
                chunk("", Some((12, 5)), None),
            ),
            (
                r#"{"choices":[{"delta":{"content":"x"},"finish_reason":"length"}],"usage":{"completion_tokens":3}}"#,
                chunk("x", Some((0, 3)), Some("length")),
            ),
            (r#"{"timings":{"predicted_ms":3}}"#, chunk("", None, None)),
            (r#"{"usage":{"total_tokens":3}}"#, chunk("", None, None)),
        ];
        for (data, want) in table {
            assert_eq!(parse_data(data), Ok(want), "{data}");
        }
    }

    #[test]
    fn malformed_stream_payloads() {
        let table = [
            (r#"{"choices":[{"delta":{"content":"x"#, "not valid JSON"),
            ("<html>oops</html>", "<html>oops</html>"),
            ("42", "not a JSON object: 42"),
            (
                r#"{"error":{"message":"model overloaded"}}"#,
                "error in stream: model overloaded",
            ),
            (r#"{"error":"boom"}"#, "error in stream: boom"),
        ];
        for (data, needle) in table {
            let err = parse_data(data).unwrap_err();
            assert!(err.0.contains(needle), "{data}: {err}");
        }
        // The excerpt is bounded even for a huge payload.
        let huge = format!("{{\"a\":\"{}", "x".repeat(10_000));
        let err = parse_data(&huge).unwrap_err();
        assert!(err.0.chars().count() < EXCERPT_CHARS + 100, "{}", err.0);
        assert!(err.0.ends_with('…'));
    }

    #[test]
    fn whole_completions() {
        let body = r#"{"id":"c1","object":"chat.completion","choices":[{"index":0,
            "message":{"role":"assistant","content":"class A:\n    pass"},"finish_reason":"stop"}],
            "usage":{"prompt_tokens":7,"completion_tokens":4}}"#;
        assert_eq!(
            parse_completion(body),
            Ok(Delta {
                content: "class A:\n    pass".into(),
                usage: Some(Usage {
                    prompt_tokens: 7,
                    completion_tokens: 4
                }),
                finish_reason: Some("stop".into()),
            })
        );
        let empty = r#"{"choices":[{"message":{"role":"assistant","content":null}}]}"#;
        assert_eq!(parse_completion(empty), Ok(Delta::default()));

        let table = [
            ("{\"choices\": [", "not valid JSON"),
            ("{}", "without choices"),
            (r#"{"choices":[]}"#, "without choices"),
            (r#"{"choices":[{"text":"x"}]}"#, "without a message"),
            (
                r#"{"error":{"message":"bad key","type":"auth"}}"#,
                "error instead of an answer: bad key",
            ),
        ];
        for (body, needle) in table {
            let err = parse_completion(body).unwrap_err();
            assert!(err.0.contains(needle), "{body}: {err}");
        }
    }

    #[test]
    fn error_messages() {
        let table = [
            (
                r#"{"error":{"message":"Invalid model 'x'","type":"invalid_request_error"}}"#,
                "Invalid model 'x'",
            ),
            (r#"{"error":"Unauthorized"}"#, "Unauthorized"),
            (r#"{"message":"Not Found"}"#, "Not Found"),
            (r#"{"error":{"code":5}}"#, r#"{"code":5}"#),
            ("upstream\nconnect error", "upstream connect error"),
            ("", ""),
        ];
        for (body, want) in table {
            assert_eq!(error_message(body), want, "{body}");
        }
        assert_eq!(
            error_message(&"é".repeat(500)).chars().count(),
            EXCERPT_CHARS + 1
        );
    }

    #[test]
    fn excerpts() {
        assert_eq!(excerpt("  abc  ", 10), "abc");
        assert_eq!(excerpt("abcdef", 3), "abc…");
        assert_eq!(excerpt("a\tb\nc", 10), "a b c");
        assert_eq!(excerpt("ééé", 3), "ééé");
    }
}
