//! What the fold keeps per (task, sample), and the fingerprint as reports show it: plain data
//! that both the reducer and its derived counters read.

use std::collections::HashMap;

use serde::Serialize;

use super::event::TaskSummary;
use crate::analysis::tamper::Indicator;
use crate::metrics::fingerprint::{ExceptionHistogram, Spectrum};
use crate::model::{SuiteResult, TestResult};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Pending,
    Running,
    Done,
}

/// Everything known about one (task, sample).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRun {
    pub status: Status,
    pub code: Option<String>,
    pub notes: Vec<String>,
    /// The private (final) suite.
    pub private: Option<SuiteResult>,
    /// Public-test suites, in order (method-level runs).
    pub public: Vec<(Option<String>, SuiteResult)>,
    pub summary: Option<TaskSummary>,
    /// The static tampering indicators of the class code (`None`: not scanned, a session
    /// from before them).
    pub indicators: Option<Vec<Indicator>>,
    /// Set when the task ended without a class because a model request failed
    /// (`provider error: …`, prefixed with the method when one was being written). Such a
    /// task is `Done` but not finished: no metric counts it and `--resume` runs it again.
    pub not_generated: Option<String>,
    /// Test id → its first record in `private` (views look tests up per row and session).
    tests_by_id: HashMap<String, usize>,
}

impl TaskRun {
    pub(super) fn pending() -> Self {
        TaskRun {
            status: Status::Pending,
            code: None,
            notes: Vec::new(),
            private: None,
            public: Vec::new(),
            summary: None,
            indicators: None,
            not_generated: None,
            tests_by_id: HashMap::new(),
        }
    }

    /// A test of the private suite by id (its first record), in O(1).
    pub fn test(&self, id: &str) -> Option<&TestResult> {
        self.private.as_ref()?.tests.get(*self.tests_by_id.get(id)?)
    }

    pub(super) fn set_private(&mut self, result: &SuiteResult) {
        self.tests_by_id.clear();
        for (i, t) in result.tests.iter().enumerate() {
            self.tests_by_id.entry(t.id.clone()).or_insert(i);
        }
        self.private = Some(result.clone());
    }
}

/// A run's fingerprint as reports show it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct FingerprintView {
    /// Evaluated classes per outcome bucket.
    pub spectrum: Spectrum,
    /// Target methods per outcome bucket (each judged on its own test class).
    pub method_spectrum: Spectrum,
    /// Failing tests attributed to the model, by exception kind.
    pub exceptions: ExceptionHistogram,
    /// Failing tests attributed to the environment (never counted against the model).
    pub env_exceptions: ExceptionHistogram,
}
