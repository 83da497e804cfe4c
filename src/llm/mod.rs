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

// The chat types a session records live with the model, so that sessions need no `llm`.
pub use crate::model::chat::{FailureKind, Message, Params, Purpose, Usage};

/// One request as the pipeline makes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub task_id: String,
    pub purpose: Purpose,
    pub messages: Vec<Message>,
    pub params: Params,
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

    /// The base URL requests go to (`None`: the provider asks no server).
    fn base_url(&self) -> Option<String> {
        None
    }
}
