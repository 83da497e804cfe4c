//! The result channel and the verdict: parse the harness's records (checking nonce and order),
//! read the launcher's status lines, and turn both into a
//! [`SuiteResult`](crate::model::results::SuiteResult). Pure: no I/O.

use serde_json::Value;

use crate::model::results::{Evidence, EvidenceSource, Origin, Outcome, TestResult};

mod assemble;
pub(crate) use assemble::{Observed, Status, Stop, assemble};

/// Largest result stream accepted (a harness run of thousands of tests stays far below).
pub(crate) const MAX_CHANNEL_BYTES: usize = 16 << 20;

/// A record the harness sent, once its nonce and sequence number were checked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Record {
    Start,
    Test(TestResult),
    Import {
        exc_type: String,
        message: String,
        line: Option<usize>,
        traceback: Option<String>,
        env: bool,
        origin: Option<Origin>,
    },
    Missing {
        class: String,
        why: String,
    },
    Tamper(Vec<String>),
    /// Signs of tampering the split harness collected (see [`Evidence`]).
    Evidence(Vec<Evidence>),
    /// Instrumentation (`classlab validate`), read by `probe::ProbeReport`.
    Probe(Value),
    Final {
        count: u64,
    },
}

/// The result channel as received: authenticated records and every violation seen.
///
/// Test verdicts are paced by tokens: each must carry the token issued for it, and the next
/// token is issued (put in [`Channel::outbox`], which the run loop writes to the harness) only
/// once the verdict is accepted. Verdicts written ahead of the tests carry no valid token; a
/// verdict forged for the running test is followed by the harness's own, which then carries a
/// spent token. Either is a violation.
pub(crate) struct Channel {
    nonce: String,
    next_seq: u64,
    buf: Vec<u8>,
    total: usize,
    overflowed: bool,
    pub records: Vec<Record>,
    pub violations: Vec<String>,
    pub finished: bool,
    /// The token the next verdict must carry.
    token: String,
    /// Token and test id of the last accepted verdict (a further fail/error record of the same
    /// test may carry it: unittest reports every error of a test).
    last: Option<(String, String)>,
    new_token: Box<dyn FnMut() -> String + Send>,
    /// Tokens issued and not yet written to the harness.
    pub outbox: Vec<String>,
}

impl std::fmt::Debug for Channel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Channel")
            .field("records", &self.records)
            .field("violations", &self.violations)
            .field("finished", &self.finished)
            .finish_non_exhaustive()
    }
}

impl Channel {
    /// A channel for a run with this nonce; `new_token` makes each verdict's token.
    pub fn new(nonce: &str, mut new_token: Box<dyn FnMut() -> String + Send>) -> Channel {
        let token = new_token();
        Channel {
            nonce: nonce.to_string(),
            next_seq: 0,
            buf: Vec::new(),
            total: 0,
            overflowed: false,
            records: Vec::new(),
            violations: Vec::new(),
            finished: false,
            token,
            last: None,
            new_token,
            outbox: Vec::new(),
        }
    }

    /// What the harness reads first: the nonce and the first verdict's token, one per line.
    pub fn greeting(&self) -> String {
        format!("{}\n{}\n", self.nonce, self.token)
    }

    /// Is this test verdict paced by its token? Issues the next token when it is.
    fn paced(&mut self, value: &Value) -> bool {
        let token = value.get("k").and_then(Value::as_str).unwrap_or("");
        let id = value.get("id").and_then(Value::as_str).unwrap_or("");
        if !token.is_empty() && token == self.token {
            self.last = Some((self.token.clone(), id.to_string()));
            self.token = (self.new_token)();
            self.outbox.push(self.token.clone());
            return true;
        }
        let worse = matches!(
            value.get("o").and_then(Value::as_str),
            Some("fail" | "error" | "tampered")
        );
        matches!(&self.last, Some((t, i)) if t == token && i == id && worse)
    }

    /// Feed bytes read from the pipe; complete lines are parsed at once.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.total += bytes.len();
        if self.total > MAX_CHANNEL_BYTES {
            if !self.overflowed {
                self.overflowed = true;
                self.violations
                    .push(format!("result channel over {MAX_CHANNEL_BYTES} bytes"));
            }
            return;
        }
        self.buf.extend_from_slice(bytes);
        while let Some(pos) = self.buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.buf.drain(..=pos).collect();
            self.line(&line[..line.len() - 1]);
        }
    }

    /// End of the stream: a trailing partial line is a violation.
    pub fn close(&mut self) {
        if !self.buf.is_empty() && !self.overflowed {
            let n = self.buf.len();
            self.buf.clear();
            self.violations
                .push(format!("{n} bytes after the last complete record"));
        }
    }

    fn line(&mut self, line: &[u8]) {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let value: Value = match serde_json::from_slice(line) {
            Ok(v) => v,
            Err(_) => {
                let shown = String::from_utf8_lossy(&line[..line.len().min(80)]).into_owned();
                self.violations
                    .push(format!("unparsable record: {shown:?}"));
                return;
            }
        };
        if value.get("n").and_then(Value::as_str) != Some(self.nonce.as_str()) {
            self.violations
                .push("record without the run's nonce".to_string());
            return;
        }
        let seq = value.get("s").and_then(Value::as_u64);
        if seq != Some(self.next_seq) {
            self.violations.push(format!(
                "record out of sequence (expected {}, got {})",
                self.next_seq,
                seq.map_or("none".to_string(), |s| s.to_string())
            ));
            return;
        }
        self.next_seq += 1;
        if self.finished {
            self.violations
                .push("record after the final record".to_string());
            return;
        }
        if value.get("t").and_then(Value::as_str) == Some("test") && !self.paced(&value) {
            let id = value.get("id").and_then(Value::as_str).unwrap_or("?");
            self.violations.push(format!(
                "verdict for {id} without the token issued for it (written ahead of the test, \
                 or a second verdict)"
            ));
            return;
        }
        match parse_record(&value) {
            Some(r) => {
                if matches!(r, Record::Final { .. }) {
                    self.finished = true;
                }
                self.records.push(r);
            }
            None => self.violations.push("malformed record".to_string()),
        }
    }
}

fn s(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(String::from)
}

fn parse_outcome(o: &str) -> Option<Outcome> {
    Some(match o {
        "pass" => Outcome::Pass,
        "fail" => Outcome::Fail,
        "error" => Outcome::Error,
        "skip" => Outcome::Skip,
        "xfail" => Outcome::Xfail,
        "xpass" => Outcome::Xpass,
        "tampered" => Outcome::Tampered,
        _ => return None,
    })
}

fn parse_origin(v: &Value) -> Option<Origin> {
    match v.get("origin")?.as_str()? {
        "code" => Some(Origin::Code),
        "tests" => Some(Origin::Tests),
        "library" => Some(Origin::Library),
        _ => None,
    }
}

fn parse_record(v: &Value) -> Option<Record> {
    Some(match v.get("t")?.as_str()? {
        "start" => Record::Start,
        "test" => Record::Test(TestResult {
            id: s(v, "id")?,
            outcome: parse_outcome(v.get("o")?.as_str()?)?,
            exc_type: s(v, "et"),
            message: s(v, "msg"),
            traceback: s(v, "tb").filter(|t| !t.is_empty()),
            code_line: v.get("line").and_then(Value::as_u64).map(|l| l as usize),
            duration_s: v.get("d").and_then(Value::as_f64).unwrap_or(0.0),
            origin: parse_origin(v),
        }),
        "import" => Record::Import {
            exc_type: s(v, "et")?,
            message: s(v, "msg").unwrap_or_default(),
            line: v.get("line").and_then(Value::as_u64).map(|l| l as usize),
            traceback: s(v, "tb").filter(|t| !t.is_empty()),
            env: v.get("env").and_then(Value::as_bool).unwrap_or(false),
            origin: parse_origin(v),
        },
        "missing" => Record::Missing {
            class: s(v, "cls").unwrap_or_default(),
            why: s(v, "why").unwrap_or_default(),
        },
        "tamper" => Record::Tamper(
            v.get("detail")?
                .as_array()?
                .iter()
                .filter_map(|d| d.as_str().map(String::from))
                .collect(),
        ),
        "evidence" => Record::Evidence(parse_evidence(v)?),
        "probe" => Record::Probe(v.clone()),
        "final" => Record::Final {
            count: v.get("count").and_then(Value::as_u64).unwrap_or(0),
        },
        _ => return None,
    })
}

/// Most evidence items kept per record, and longest detail.
const MAX_EVIDENCE: usize = 64;
const MAX_DETAIL: usize = 300;

fn parse_evidence(v: &Value) -> Option<Vec<Evidence>> {
    let source = match v.get("source")?.as_str()? {
        "runner" => EvidenceSource::Runner,
        "host" => EvidenceSource::Host,
        _ => return None,
    };
    let items = v.get("items")?.as_array()?;
    Some(
        items
            .iter()
            .take(MAX_EVIDENCE)
            .filter_map(|item| {
                let detail = item.get("detail")?.as_str()?;
                Some(Evidence {
                    source,
                    test: s(item, "test"),
                    detail: detail.chars().take(MAX_DETAIL).collect(),
                })
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests;
