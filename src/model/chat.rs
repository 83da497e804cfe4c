//! The chat types a session records (what was asked, with which parameters, why, what it
//! cost, how it failed): shared by `llm`, which speaks them, and `session`, which stores
//! them, so that the session schema depends on no client.

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
    /// `forge --llm`: tests for a forged task's uncovered arcs and surviving mutants (round
    /// 1-based).
    ForgeTests { round: u32 },
}

/// Tokens the server reported (absent when it reports none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

/// Why a request produced no answer.
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
