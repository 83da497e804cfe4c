//! Talking to models: the OpenAI-compatible chat API (`client`, the `openai` provider) and
//! endpoint profiles (`endpoint`). The `replay` and `reference` providers answer from a
//! session or a dataset and live with the pipeline (`pipeline::providers`).
//!
//! Every provider answers the same [`Provider::complete`] call. The pipeline says *why* it
//! asks ([`Call`]) besides *what* it asks (the messages): a model only sees the messages, the
//! reference provider answers from the dataset by purpose, and replay serves what was recorded.

pub mod client;
pub mod endpoint;
pub mod retry;
pub mod sse;

use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// `system`, `user` or `assistant`.
    pub role: String,
    pub content: String,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Message {
            role: "system".into(),
            content: content.into(),
        }
    }
    pub fn user(content: impl Into<String>) -> Self {
        Message {
            role: "user".into(),
            content: content.into(),
        }
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Message {
            role: "assistant".into(),
            content: content.into(),
        }
    }
}

/// Sampling parameters of a request (the model name comes from the endpoint).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Params {
    pub temperature: f32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
    /// Ask for a server-sent-event stream (tokens as they come).
    pub stream: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            temperature: 0.0,
            max_tokens: None,
            seed: None,
            stop: Vec::new(),
            stream: true,
        }
    }
}

/// Why the pipeline asks: the step of the strategy this request serves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "purpose", rename_all = "snake_case")]
pub enum Purpose {
    /// TDD step 1: the method dependency graph and a generation order.
    DependencyAnalysis,
    /// The whole class in one completion.
    Holistic,
    /// One method (incremental, compositional, or the first round of a TDD method).
    Method { method: String },
    /// A TDD reflective repair round (1-based) of a method.
    Repair { method: String, round: u32 },
}

/// One request as the pipeline makes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub task_id: String,
    pub purpose: Purpose,
    pub messages: Vec<Message>,
    pub params: Params,
}

/// Tokens the server reported (absent when it reports none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

/// A finished answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Completion {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// Wall-clock seconds from the first attempt to the last byte, retries included.
    pub latency_s: f64,
    /// Attempts beyond the first.
    pub retries: u32,
    /// Why each retry happened ("429, waited 2.0 s as Retry-After asked", …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retry_log: Vec<String>,
}

/// A request that produced no answer, after the retry policy gave up.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct Failure {
    pub kind: FailureKind,
    pub message: String,
    pub retries: u32,
    pub retry_log: Vec<String>,
    pub latency_s: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// Could not connect, or the connection broke.
    Connection,
    /// No answer (or no new bytes) within the timeout.
    Timeout,
    /// An HTTP error status that retrying did not cure (or that is not worth retrying).
    Status,
    /// The server answered something that is not a chat completion.
    Protocol,
    /// The run was cancelled while waiting.
    Cancelled,
    /// The provider cannot answer this call (replay ran out of recorded answers, …).
    Unavailable,
}

/// Something that answers chat requests.
pub trait Provider: Send + Sync {
    /// `openai`, `replay` or `reference`.
    fn kind(&self) -> &'static str;
    /// The model name reports show ("reference" for the reference provider).
    fn model(&self) -> String;
    /// Answer one call. `on_delta` sees streamed text as it arrives (for live views);
    /// `cancel` set by another thread makes the call return `FailureKind::Cancelled` promptly.
    fn complete(
        &self,
        call: &Call,
        on_delta: &mut dyn FnMut(&str),
        cancel: &AtomicBool,
    ) -> Result<Completion, Failure>;

    /// Asked just before `complete`: does this request differ from the one the provider
    /// expected (replay serves recorded answers and flags changed prompts)? `None`: no opinion.
    fn prompt_differs(&self, _call: &Call) -> Option<String> {
        None
    }

    /// Asked once before a run starts: can requests reach the provider at all? `Err` says
    /// why not, in words for the user (a server that answers, even with an error, is
    /// reachable). Providers that ask no server are always reachable.
    fn reachable(&self) -> Result<(), String> {
        Ok(())
    }
}
