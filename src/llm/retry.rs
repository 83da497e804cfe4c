//! When to try a chat request again, and how long to wait first.
//!
//! Pure functions (the random source and the clock are parameters) so the policy is tested
//! without a server; `client` drives them.

use std::time::{Duration, SystemTime};

use super::{FailureKind, sse};

/// How often and how patiently a request is retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts beyond the first.
    pub max_retries: u32,
    /// Backoff before retry `n` (0-based) is uniform in `[0, min(cap, base · 2ⁿ)]`.
    pub base: Duration,
    pub cap: Duration,
    /// A server's `Retry-After` is honoured up to this long.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 4,
            base: Duration::from_secs(1),
            cap: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

/// Why one attempt failed, as the retry decision needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct AttemptError {
    pub kind: FailureKind,
    /// The HTTP status for `FailureKind::Status`.
    pub status: Option<u16>,
    /// What went wrong, for the failure message and the retry log.
    pub message: String,
    /// The server's `Retry-After`, already parsed.
    pub retry_after: Option<Duration>,
}

impl AttemptError {
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Self {
        AttemptError {
            kind,
            status: None,
            message: message.into(),
            retry_after: None,
        }
    }

    /// Short reason for the retry log ("HTTP 429", "timeout", …).
    pub fn short_reason(&self) -> String {
        match (self.kind, self.status) {
            (FailureKind::Status, Some(code)) => format!("HTTP {code}"),
            (FailureKind::Connection, _) => "connection failed".into(),
            (FailureKind::Timeout, _) => "timeout".into(),
            (FailureKind::Protocol, _) => "malformed answer".into(),
            (FailureKind::Cancelled, _) => "cancelled".into(),
            _ => "error".into(),
        }
    }
}

/// Statuses worth another try: the server is busy or broken for now. 400/401/403/404/422
/// (and every other 4xx) say the request itself is wrong, so repeating it cannot help.
pub fn status_is_retryable(status: u16) -> bool {
    matches!(status, 408 | 429 | 500..=599)
}

/// Malformed answers are retried this often: one retry cures a proxy hiccup, more would only
/// hammer a server that is not speaking the chat API at all (a wrong base URL).
pub const MAX_PROTOCOL_RETRIES: u32 = 1;

/// Whether an attempt that failed this way may be retried, given the protocol errors already
/// retried in this call.
pub fn is_retryable(err: &AttemptError, protocol_retries: u32) -> bool {
    match err.kind {
        FailureKind::Connection | FailureKind::Timeout => true,
        FailureKind::Status => err.status.is_some_and(status_is_retryable),
        FailureKind::Protocol => protocol_retries < MAX_PROTOCOL_RETRIES,
        FailureKind::Cancelled | FailureKind::Unavailable => false,
    }
}

/// Full-jitter backoff before retry `retry` (0-based): `unit` (uniform in `[0, 1)`) times the
/// capped exponential. Full jitter spreads many clients hitting one busy server.
pub fn backoff_delay(policy: &RetryPolicy, retry: u32, unit: f64) -> Duration {
    let factor = 2f64.powi(retry.min(62) as i32);
    let ceiling = (policy.base.as_secs_f64() * factor).min(policy.cap.as_secs_f64());
    Duration::from_secs_f64((ceiling * unit.clamp(0.0, 1.0)).max(0.0))
}

/// What to do after a failed attempt.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Wait this long, then try again; `because` ends the retry-log line.
    Retry {
        wait: Duration,
        because: String,
    },
    GiveUp,
}

/// Decide after attempt number `retries + 1` failed. `unit` is a uniform random in `[0, 1)`.
pub fn decide(
    policy: &RetryPolicy,
    err: &AttemptError,
    retries: u32,
    protocol_retries: u32,
    unit: f64,
) -> Decision {
    if retries >= policy.max_retries || !is_retryable(err, protocol_retries) {
        return Decision::GiveUp;
    }
    match err.retry_after {
        Some(asked) if asked > policy.max_retry_after => Decision::Retry {
            wait: policy.max_retry_after,
            because: format!(
                "Retry-After {:.1} s capped at {:.1} s",
                asked.as_secs_f64(),
                policy.max_retry_after.as_secs_f64()
            ),
        },
        Some(asked) => Decision::Retry {
            wait: asked,
            because: "Retry-After".into(),
        },
        None => Decision::Retry {
            wait: backoff_delay(policy, retries, unit),
            because: "backoff".into(),
        },
    }
}

/// The retry-log line for a retry: "attempt 1: HTTP 429, waiting 2.0 s (Retry-After)".
pub fn log_line(attempt: u32, err: &AttemptError, wait: Duration, because: &str) -> String {
    format!(
        "attempt {attempt}: {}, waiting {:.1} s ({because})",
        err.short_reason(),
        wait.as_secs_f64()
    )
}

/// Parse a `Retry-After` value: delta-seconds (`"120"`) or an HTTP-date
/// (`"Wed, 21 Oct 2015 07:28:00 GMT"`, relative to `now`; a past date means "now").
/// `None` when it is neither.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        // Absurdly long digit strings overflow u64: treat them as "very long".
        return Some(Duration::from_secs(
            value.parse::<u64>().unwrap_or(u64::MAX),
        ));
    }
    // Not in RFC 9110, but some servers send fractional seconds.
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(now).unwrap_or(Duration::ZERO))
}

/// An HTTP error status as an attempt error: "HTTP 404 Not Found: <the body's message>",
/// with the `Retry-After` the server asked for.
pub fn status_error(
    code: u16,
    reason: Option<&str>,
    retry_after: Option<&str>,
    body: &str,
    now: SystemTime,
) -> AttemptError {
    let mut message = format!("HTTP {code}");
    if let Some(reason) = reason {
        message.push(' ');
        message.push_str(reason);
    }
    let detail = sse::error_message(body);
    if !detail.is_empty() {
        message.push_str(": ");
        message.push_str(&detail);
    }
    AttemptError {
        kind: FailureKind::Status,
        status: Some(code),
        message,
        retry_after: retry_after.and_then(|v| parse_retry_after(v, now)),
    }
}

/// A transport error (connect, reset, timeout) as an attempt error, with its causes:
/// "sending the request: error sending request for url (…): connection refused".
pub fn transport_error(err: &reqwest::Error, doing: &str) -> AttemptError {
    let kind = if err.is_timeout() {
        FailureKind::Timeout
    } else {
        FailureKind::Connection
    };
    let mut text = format!("{doing}: {err}");
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        // hyper repeats its cause inside its own message.
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    AttemptError::new(kind, text)
}

/// "1.5 s".
pub fn seconds(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> RetryPolicy {
        RetryPolicy {
            max_retries: 3,
            base: Duration::from_millis(100),
            cap: Duration::from_millis(1000),
            max_retry_after: Duration::from_secs(5),
        }
    }

    fn status(code: u16, retry_after: Option<u64>) -> AttemptError {
        AttemptError {
            kind: FailureKind::Status,
            status: Some(code),
            message: format!("HTTP {code}"),
            retry_after: retry_after.map(Duration::from_secs),
        }
    }

    #[test]
    fn retryable_statuses() {
        let table = [
            (400, false),
            (401, false),
            (403, false),
            (404, false),
            (408, true),
            (409, false),
            (422, false),
            (429, true),
            (500, true),
            (502, true),
            (503, true),
            (504, true),
            (599, true),
            (200, false),
        ];
        for (code, want) in table {
            assert_eq!(status_is_retryable(code), want, "HTTP {code}");
        }
    }

    #[test]
    fn retryable_kinds() {
        let table = [
            (FailureKind::Connection, 0, true),
            (FailureKind::Timeout, 3, true),
            (FailureKind::Protocol, 0, true),
            (FailureKind::Protocol, 1, false),
            (FailureKind::Cancelled, 0, false),
            (FailureKind::Unavailable, 0, false),
        ];
        for (kind, protocol_retries, want) in table {
            let err = AttemptError::new(kind, "x");
            assert_eq!(is_retryable(&err, protocol_retries), want, "{kind:?}");
        }
        // A status error without a status code is not retried.
        assert!(!is_retryable(
            &AttemptError::new(FailureKind::Status, "x"),
            0
        ));
    }

    #[test]
    fn backoff_is_capped_exponential_times_jitter() {
        let p = policy();
        let table = [
            (0, 1.0, 100),
            (1, 1.0, 200),
            (2, 1.0, 400),
            (3, 1.0, 800),
            (4, 1.0, 1000),
            (40, 1.0, 1000),
            (1000, 1.0, 1000),
            (2, 0.5, 200),
            (2, 0.0, 0),
            (2, -3.0, 0),
        ];
        for (retry, unit, want_ms) in table {
            let got = backoff_delay(&p, retry, unit);
            assert_eq!(got.as_millis(), want_ms, "retry {retry}, unit {unit}");
        }
    }

    #[test]
    fn decisions() {
        let p = policy();
        let retry = |wait_ms: u64, because: &str| Decision::Retry {
            wait: Duration::from_millis(wait_ms),
            because: because.into(),
        };
        let table = [
            (status(429, Some(2)), 0, retry(2000, "Retry-After")),
            (
                status(503, Some(600)),
                0,
                retry(5000, "Retry-After 600.0 s capped at 5.0 s"),
            ),
            (status(500, None), 1, retry(100, "backoff")),
            (status(500, None), 3, Decision::GiveUp),
            (status(400, None), 0, Decision::GiveUp),
            (status(401, Some(1)), 0, Decision::GiveUp),
            (
                AttemptError::new(FailureKind::Timeout, "t"),
                2,
                retry(200, "backoff"),
            ),
            (
                AttemptError::new(FailureKind::Cancelled, "c"),
                0,
                Decision::GiveUp,
            ),
        ];
        for (err, retries, want) in table {
            assert_eq!(
                decide(&p, &err, retries, 0, 0.5),
                want,
                "{err:?} after {retries}"
            );
        }
        let garbled = AttemptError::new(FailureKind::Protocol, "bad json");
        assert!(matches!(
            decide(&p, &garbled, 0, 0, 0.5),
            Decision::Retry { .. }
        ));
        assert_eq!(decide(&p, &garbled, 1, 1, 0.5), Decision::GiveUp);
    }

    #[test]
    fn log_lines() {
        assert_eq!(
            log_line(
                1,
                &status(429, Some(2)),
                Duration::from_secs(2),
                "Retry-After"
            ),
            "attempt 1: HTTP 429, waiting 2.0 s (Retry-After)"
        );
        let err = AttemptError::new(FailureKind::Connection, "reset");
        assert_eq!(
            log_line(2, &err, Duration::from_millis(300), "backoff"),
            "attempt 2: connection failed, waiting 0.3 s (backoff)"
        );
    }

    #[test]
    fn status_errors() {
        let now = SystemTime::UNIX_EPOCH;
        let body = r#"{"error":{"message":"Rate limit reached"}}"#;
        let err = status_error(429, Some("Too Many Requests"), Some("3"), body, now);
        assert_eq!(
            err.message,
            "HTTP 429 Too Many Requests: Rate limit reached"
        );
        assert_eq!(
            (err.kind, err.status, err.retry_after),
            (FailureKind::Status, Some(429), Some(Duration::from_secs(3)))
        );
        let err = status_error(599, None, Some("later"), "", now);
        assert_eq!((err.message.as_str(), err.retry_after), ("HTTP 599", None));
    }

    #[test]
    fn retry_after_values() {
        let now = httpdate::parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT").unwrap();
        let table: [(&str, Option<Duration>); 10] = [
            ("0", Some(Duration::ZERO)),
            ("1", Some(Duration::from_secs(1))),
            (" 120 ", Some(Duration::from_secs(120))),
            ("1.5", Some(Duration::from_millis(1500))),
            (
                "99999999999999999999999",
                Some(Duration::from_secs(u64::MAX)),
            ),
            ("-1", None),
            ("", None),
            ("soon", None),
            (
                "Wed, 21 Oct 2015 07:28:30 GMT",
                Some(Duration::from_secs(30)),
            ),
            ("Wed, 21 Oct 2015 07:27:00 GMT", Some(Duration::ZERO)),
        ];
        for (value, want) in table {
            assert_eq!(parse_retry_after(value, now), want, "{value:?}");
        }
        assert_eq!(parse_retry_after("NaN", now), None);
        assert_eq!(parse_retry_after("inf", now), None);
    }
}
