//! Session events: everything a run does, one JSON object per line of `events.jsonl`.
//!
//! Events are facts, never derived state: the views and reports fold them (see `reduce`).
//! New kinds may be added; a reader skips kinds it does not know and reports them.

use serde::{Deserialize, Serialize};

use crate::metrics::fingerprint::{Bucket, ExceptionHistogram};
use crate::metrics::functional::SampleCounts;
use crate::model::SuiteResult;

/// The verdicts of one evaluated class (one task, one sample).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskSummary {
    /// The outcome bucket (domain.md §5); `None` when there was nothing to judge.
    pub outcome: Option<Bucket>,
    pub passed: usize,
    /// Tests judged (skips excluded).
    pub judged: usize,
    /// ClassEval's per-test-class counts, under the official rules.
    pub test_classes: SampleCounts,
    /// Failing tests by exception kind: the model's, and the environment's.
    pub exceptions: ExceptionHistogram,
    pub env_exceptions: ExceptionHistogram,
    /// The outcome bucket of each target method, judged on its own test class.
    #[serde(default)]
    pub methods: Vec<(String, Option<Bucket>)>,
}

/// One line of `events.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// 0, 1, 2 … with no gaps: a resumed run continues the numbering.
    pub seq: u64,
    /// Seconds since the Unix epoch.
    pub ts: f64,
    #[serde(flatten)]
    pub body: EventBody,
}

/// Which tests a suite ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Guidance tests seen during generation.
    Public,
    /// The held-out tests of the final evaluation.
    Private,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EventBody {
    /// The run's full configuration, so a session explains itself.
    RunStarted {
        tool_version: String,
        /// Every task the run will cover, in order.
        tasks: Vec<String>,
        /// Samples per task (pass@k needs n).
        samples: u32,
        config: serde_json::Value,
    },
    /// A resumed run picks up here (`--resume`).
    RunResumed {
        remaining: Vec<String>,
    },
    TaskStarted {
        task_id: String,
        sample: u32,
    },
    /// The code that will be run, as extracted from the raw completion.
    CodeExtracted {
        task_id: String,
        sample: u32,
        code: String,
        #[serde(default)]
        notes: Vec<String>,
    },
    /// One sandboxed suite: every test's outcome.
    TestRun {
        task_id: String,
        sample: u32,
        scope: Scope,
        /// The method whose tests these are, for method-level runs.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        method: Option<String>,
        result: SuiteResult,
    },
    TaskFinished {
        task_id: String,
        sample: u32,
        /// What the run established, snapshotted so any view can fold the session alone.
        summary: TaskSummary,
    },
    /// Something went wrong that is not a test outcome (bad input, an internal failure).
    Error {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        task_id: Option<String>,
        message: String,
    },
    RunFinished {
        /// True when the run was stopped before covering every task.
        cancelled: bool,
    },
}

impl EventBody {
    /// The (task, sample) this event belongs to, if any.
    pub fn task(&self) -> Option<(&str, u32)> {
        match self {
            EventBody::TaskStarted { task_id, sample }
            | EventBody::CodeExtracted {
                task_id, sample, ..
            }
            | EventBody::TestRun {
                task_id, sample, ..
            }
            | EventBody::TaskFinished {
                task_id, sample, ..
            } => Some((task_id, *sample)),
            _ => None,
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            EventBody::RunStarted { .. } => "run_started",
            EventBody::RunResumed { .. } => "run_resumed",
            EventBody::TaskStarted { .. } => "task_started",
            EventBody::CodeExtracted { .. } => "code_extracted",
            EventBody::TestRun { .. } => "test_run",
            EventBody::TaskFinished { .. } => "task_finished",
            EventBody::Error { .. } => "error",
            EventBody::RunFinished { .. } => "run_finished",
        }
    }
}
