//! Session events: everything a run does, one JSON object per line of `events.jsonl`.
//!
//! Events are facts, never derived state: the views and reports fold them (see `reduce`).
//! New kinds may be added; a reader skips kinds it does not know and reports them.

use serde::{Deserialize, Serialize};

use crate::analysis::tamper::Indicator;
use crate::metrics::fingerprint::{Bucket, ExceptionHistogram};
use crate::metrics::functional::SampleCounts;
use crate::model::chat::{FailureKind, Message, Params, Purpose, Usage};
use crate::model::{DepMap, SuiteResult};

/// How a method's generation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MethodStatus {
    /// Its public tests pass.
    Passed,
    /// Still failing after the last repair round.
    Exhausted,
    /// No public tests to run: kept as generated.
    Untested,
    /// The model gave no usable code (an empty answer, or no definition of the method).
    NoCode,
    /// Not generated: a model request failed (connection, timeout, HTTP error …) after its
    /// retries. Not the model's failure: kept out of every metric; `--resume` asks again.
    NotGenerated,
    /// Its public tests failed for the environment (a module the task needs is missing):
    /// not repaired (no round can fix the environment) and kept out of the repair cost.
    EnvErr,
}

impl MethodStatus {
    /// As views and reports name it.
    pub fn label(self) -> &'static str {
        match self {
            MethodStatus::Passed => "passed",
            MethodStatus::Exhausted => "exhausted",
            MethodStatus::Untested => "untested",
            MethodStatus::NoCode => "no code",
            MethodStatus::NotGenerated => "not generated",
            MethodStatus::EnvErr => "EnvErr",
        }
    }
}

/// A model request that failed, as recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailureRecord {
    pub kind: FailureKind,
    pub message: String,
}

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
    /// Each target method's test class (method → test class, as the task names them), so
    /// that every view finds a method's tests without guessing from names. Older logs have
    /// none (views then guess by ClassEval's `<Class>Test<Method>`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub method_tests: Vec<(String, String)>,
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
    /// The reference solution: against a method's public tests, before the method is written
    /// (a public test the reference fails is no test, see `public_tests_checked`); or, with no
    /// method, on the private suite a candidate failed, as the evidence its `EnvErr` needs
    /// (`pipeline::reference`).
    Reference,
}

/// A public test left out of the TDD loop, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftOutTest {
    /// `Class.test_name`.
    pub test: String,
    pub reason: String,
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
        /// True when unfinished tasks continue from their recorded events (generation runs
        /// replay what was recorded); false when they start again from scratch (evaluation).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        continues: bool,
    },
    TaskStarted {
        task_id: String,
        sample: u32,
    },
    /// The code that will be run, as extracted from the raw completion. For method-level
    /// generation, `method` and `round` say which method and which round (0 = first try)
    /// the code is; the class code (no `method`) is what the private tests judge.
    CodeExtracted {
        task_id: String,
        sample: u32,
        code: String,
        #[serde(default)]
        notes: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        method: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        round: Option<u32>,
    },
    /// The static tampering indicators of the class code just extracted (method: None),
    /// read from its source outside the sandbox (`analysis::tamper`): evidence of an attempt,
    /// never a verdict. Sessions from before them have none.
    StaticIndicators {
        task_id: String,
        sample: u32,
        indicators: Vec<Indicator>,
    },
    /// One sandboxed suite: every test's outcome.
    TestRun {
        task_id: String,
        sample: u32,
        scope: Scope,
        /// The method whose tests these are, for method-level runs.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        method: Option<String>,
        /// The TDD round (0 = first try, n = after the n-th repair) of a public run.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        round: Option<u32>,
        result: SuiteResult,
    },
    /// TDD step 1: what the model predicted, beside the ground truth it is judged against.
    DependencyPrediction {
        task_id: String,
        sample: u32,
        /// The reply as received.
        raw: String,
        /// Target methods (`__init__` excluded), in skeleton order.
        methods: Vec<String>,
        /// Method → prerequisite methods, as parsed (empty when parsing failed).
        graph: DepMap,
        /// The generation order the model gave (completed with any method it left out).
        order: Vec<String>,
        /// What parsing had to repair or drop; an unparseable reply says why here.
        #[serde(default)]
        problems: Vec<String>,
        /// False when no graph could be read from the reply at all.
        parsed: bool,
        /// Dependencies extracted from the reference solution (domain.md §3).
        truth: DepMap,
    },
    /// The order methods will be generated in.
    Schedule {
        task_id: String,
        sample: u32,
        /// `predicted`, `repaired`, `ground-truth` or `skeleton`.
        mode: String,
        order: Vec<String>,
        /// Ground-truth edges [A, B] (A calls B) where B comes after A, or is missing.
        violations: Vec<[String; 2]>,
    },
    MethodStarted {
        task_id: String,
        sample: u32,
        method: String,
        /// 0-based position in the schedule.
        index: usize,
    },
    /// TDD: the method's public tests, checked against the reference solution (twice) before
    /// the method is written: what the loop uses, and what it leaves out and why (the
    /// reference fails it, or its outcome differs between the two runs).
    PublicTestsChecked {
        task_id: String,
        sample: u32,
        method: String,
        /// `dataset`, `doctest` or `split`.
        source: String,
        /// The tests the loop shows and runs (`Class.test_name`).
        used: Vec<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        left_out: Vec<LeftOutTest>,
    },
    /// What was sent to the model, exactly.
    LlmRequest {
        task_id: String,
        sample: u32,
        /// 0, 1, 2 … per (task, sample): matches the response and serves replay.
        call: u32,
        purpose: Purpose,
        provider: String,
        model: String,
        messages: Vec<Message>,
        params: Params,
    },
    /// What came back (or why nothing did).
    LlmResponse {
        task_id: String,
        sample: u32,
        call: u32,
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<Usage>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        finish_reason: Option<String>,
        latency_s: f64,
        retries: u32,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        retry_log: Vec<String>,
        /// Set when the request failed after the retry policy gave up.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        failure: Option<FailureRecord>,
        /// Replay only: the prompt differs from the recorded one.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        prompt_changed: bool,
    },
    /// A reflective repair's analysis (domain.md §2 step 3 a–c); the patch follows.
    Reflection {
        task_id: String,
        sample: u32,
        method: String,
        /// 1-based repair round.
        round: u32,
        analysis: String,
        region: String,
        plan: String,
        #[serde(default)]
        problems: Vec<String>,
    },
    /// Step 3 d: the revised method (empty when the reply held no usable code).
    Patch {
        task_id: String,
        sample: u32,
        method: String,
        round: u32,
        code: String,
    },
    MethodFinished {
        task_id: String,
        sample: u32,
        method: String,
        status: MethodStatus,
        /// Repair rounds used (0 when the first try passed or there were no tests).
        repairs: u32,
    },
    TaskFinished {
        task_id: String,
        sample: u32,
        /// What the run established, snapshotted so any view can fold the session alone.
        summary: TaskSummary,
    },
    /// The task ended without a class to judge because a model request failed (after its
    /// retries): not the model's failure, so it is kept out of every metric, the run ends
    /// `incomplete`, and `--resume` asks again from the failed request on.
    TaskNotGenerated {
        task_id: String,
        sample: u32,
        /// The method whose request failed (`None`: a class-level request).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        method: Option<String>,
        /// `provider error: …`, as the request's failure said.
        reason: String,
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

/// Every event kind, in the order a run's story usually tells them.
pub const KINDS: &[&str] = &[
    "run_started",
    "run_resumed",
    "task_started",
    "dependency_prediction",
    "schedule",
    "method_started",
    "public_tests_checked",
    "llm_request",
    "llm_response",
    "code_extracted",
    "static_indicators",
    "test_run",
    "reflection",
    "patch",
    "method_finished",
    "task_finished",
    "task_not_generated",
    "error",
    "run_finished",
];

impl EventBody {
    /// The (task, sample) this event belongs to, if any.
    pub fn task(&self) -> Option<(&str, u32)> {
        match self {
            EventBody::TaskStarted { task_id, sample }
            | EventBody::CodeExtracted {
                task_id, sample, ..
            }
            | EventBody::StaticIndicators {
                task_id, sample, ..
            }
            | EventBody::TestRun {
                task_id, sample, ..
            }
            | EventBody::TaskFinished {
                task_id, sample, ..
            }
            | EventBody::DependencyPrediction {
                task_id, sample, ..
            }
            | EventBody::Schedule {
                task_id, sample, ..
            }
            | EventBody::MethodStarted {
                task_id, sample, ..
            }
            | EventBody::PublicTestsChecked {
                task_id, sample, ..
            }
            | EventBody::LlmRequest {
                task_id, sample, ..
            }
            | EventBody::LlmResponse {
                task_id, sample, ..
            }
            | EventBody::Reflection {
                task_id, sample, ..
            }
            | EventBody::Patch {
                task_id, sample, ..
            }
            | EventBody::MethodFinished {
                task_id, sample, ..
            }
            | EventBody::TaskNotGenerated {
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
            EventBody::StaticIndicators { .. } => "static_indicators",
            EventBody::TestRun { .. } => "test_run",
            EventBody::TaskFinished { .. } => "task_finished",
            EventBody::DependencyPrediction { .. } => "dependency_prediction",
            EventBody::Schedule { .. } => "schedule",
            EventBody::MethodStarted { .. } => "method_started",
            EventBody::PublicTestsChecked { .. } => "public_tests_checked",
            EventBody::LlmRequest { .. } => "llm_request",
            EventBody::LlmResponse { .. } => "llm_response",
            EventBody::Reflection { .. } => "reflection",
            EventBody::Patch { .. } => "patch",
            EventBody::MethodFinished { .. } => "method_finished",
            EventBody::TaskNotGenerated { .. } => "task_not_generated",
            EventBody::Error { .. } => "error",
            EventBody::RunFinished { .. } => "run_finished",
        }
    }
}

/// Events numbered from 0, at time 0: a log for tests.
#[cfg(test)]
pub(crate) fn numbered(bodies: Vec<EventBody>) -> Vec<Event> {
    bodies
        .into_iter()
        .enumerate()
        .map(|(i, body)| Event {
            seq: i as u64,
            ts: 0.0,
            body,
        })
        .collect()
}
