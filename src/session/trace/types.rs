//! What the fold of a generation run holds per task: the predicted dependencies, the
//! schedule, every model call, every method's rounds, and each method as it stands in the
//! judged class.

use serde::Serialize;

use crate::metrics::fingerprint::Bucket;
use crate::model::chat::{Message, Params, Purpose, Usage};
use crate::model::{DepMap, SuiteResult, camel_case};
use crate::session::event::{FailureRecord, LeftOutTest, MethodStatus, TaskSummary};

/// What the model predicted for one task (TDD step 1).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PredictionTrace {
    pub raw: String,
    pub methods: Vec<String>,
    pub graph: DepMap,
    pub order: Vec<String>,
    pub problems: Vec<String>,
    pub parsed: bool,
    pub truth: DepMap,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScheduleTrace {
    pub mode: String,
    pub order: Vec<String>,
    pub violations: Vec<[String; 2]>,
}

/// One model call: the request, and the response once it is in.
#[derive(Debug, Clone, PartialEq)]
pub struct CallTrace {
    pub call: u32,
    pub purpose: Purpose,
    pub provider: String,
    pub model: String,
    pub messages: Vec<Message>,
    pub params: Params,
    /// Text streamed so far (live runs only; the response replaces it).
    pub streamed: String,
    pub response: Option<ResponseTrace>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ResponseTrace {
    pub text: String,
    pub usage: Option<Usage>,
    pub latency_s: f64,
    pub retries: u32,
    pub retry_log: Vec<String>,
    pub failure: Option<FailureRecord>,
    pub prompt_changed: bool,
}

/// The reflective-repair parts of a round (domain.md §2 step 3).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReflectionTrace {
    pub analysis: String,
    pub region: String,
    pub plan: String,
    pub problems: Vec<String>,
}

/// One round of a method: round 0 is the first try, round n follows the n-th reflection.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RoundTrace {
    pub round: u32,
    /// Index into `TaskTrace::calls`.
    pub call: Option<usize>,
    pub reflection: Option<ReflectionTrace>,
    pub patch: Option<String>,
    /// The method's code this round, as extracted.
    pub code: Option<String>,
    pub notes: Vec<String>,
    pub public: Option<SuiteResult>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MethodTrace {
    pub name: String,
    pub index: usize,
    /// `None` while the method is being generated.
    pub status: Option<MethodStatus>,
    pub repairs: u32,
    pub rounds: Vec<RoundTrace>,
    /// TDD: the public tests checked against the reference (`None`: not checked).
    pub public_check: Option<PublicCheck>,
}

/// A method's public tests as checked against the reference before it was written.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PublicCheck {
    pub source: String,
    pub used: Vec<String>,
    pub left_out: Vec<LeftOutTest>,
}

impl MethodTrace {
    /// The round with this number, created on first mention.
    pub(super) fn round_mut(&mut self, round: u32) -> &mut RoundTrace {
        let at = match self.rounds.iter().position(|r| r.round == round) {
            Some(at) => at,
            None => {
                self.rounds.push(RoundTrace {
                    round,
                    ..RoundTrace::default()
                });
                self.rounds.len() - 1
            }
        };
        &mut self.rounds[at]
    }
}

/// Everything generation did for one (task, sample).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TaskTrace {
    pub prediction: Option<PredictionTrace>,
    pub schedule: Option<ScheduleTrace>,
    /// In the order they were started.
    pub methods: Vec<MethodTrace>,
    pub calls: Vec<CallTrace>,
    /// A model request failed: the task ended without a class (kept out of repair cost).
    pub not_generated: bool,
    /// Each target method in the judged class — where it is, its tests, its outcome —
    /// derived when the task finishes (every strategy).
    pub in_class: Vec<ClassMethod>,
    /// The methods were written together (holistic): `methods` holds entries derived from
    /// the class, not rounds of a loop (kept out of repair cost).
    pub whole_class: bool,
}

/// One target method as it stands in the judged class.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassMethod {
    pub name: String,
    /// Lines (1-based, inclusive) of its definition in the class code; `None`: not defined.
    pub lines: Option<(usize, usize)>,
    /// Its definition's text, as in the class.
    pub code: Option<String>,
    /// The test class its tests belong to (ClassEval's `<Class>Test<Method>`), when found.
    pub test_class: Option<String>,
    /// The private suite's results of those tests (the suite's failure kept).
    pub tests: SuiteResult,
    /// Its outcome bucket, judged on its own test class (`None`: nothing to judge).
    pub outcome: Option<Bucket>,
}

/// Per-method entries of a judged class: each method's span in `code` (tree-sitter), the
/// tests of its test class in `suite`, and the outcome the summary gave it. A method's test
/// class is the one `test_classes` (method → test class, as the task-finished event recorded
/// it) names; for a method it does not name (sessions written before it was recorded), the
/// one named `…Test<Method>` as ClassEval names them.
pub fn class_methods(
    code: &str,
    suite: Option<&SuiteResult>,
    outcomes: &[(String, Option<Bucket>)],
    test_classes: &[(String, String)],
) -> Vec<ClassMethod> {
    let module = crate::analysis::parse::parse_module(code);
    // The first definition of each name (a later class may reuse it).
    let mut defs: std::collections::HashMap<&str, &crate::analysis::parse::MethodDef> =
        std::collections::HashMap::new();
    for d in module.classes.iter().flat_map(|c| c.methods.iter()) {
        defs.entry(d.name.as_str()).or_insert(d);
    }
    let recorded: std::collections::HashMap<&str, &str> = test_classes
        .iter()
        .map(|(m, c)| (m.as_str(), c.as_str()))
        .collect();
    outcomes
        .iter()
        .map(|(name, outcome)| {
            let def = defs.get(name.as_str()).copied();
            let recorded = recorded.get(name.as_str()).copied();
            let suffix = format!("Test{}", camel_case(name));
            let mut tests = SuiteResult::new(Vec::new(), suite.and_then(|s| s.failure.clone()));
            let mut test_class = recorded.map(str::to_string);
            for t in suite.map(|s| s.tests.as_slice()).unwrap_or_default() {
                let Some(class) = t.test_class() else {
                    continue;
                };
                let short = class.rsplit('.').next().unwrap_or(class);
                let belongs = match recorded {
                    Some(r) => class == r || short == r,
                    None => short.ends_with(&suffix),
                };
                if belongs {
                    test_class.get_or_insert_with(|| short.to_string());
                    tests.tests.push(t.clone());
                }
            }
            ClassMethod {
                name: name.clone(),
                lines: def.map(|d| (d.start_line, d.end_line)),
                code: def
                    .and_then(|d| code.get(line_start(code, d.start_line)..d.end_byte))
                    .map(str::to_string),
                test_class,
                tests,
                outcome: *outcome,
            }
        })
        .collect()
}

/// Byte offset where 1-based line `line` starts (its indentation kept).
fn line_start(code: &str, line: usize) -> usize {
    if line <= 1 {
        return 0;
    }
    code.match_indices('\n')
        .nth(line - 2)
        .map_or(code.len(), |(i, _)| i + 1)
}

impl TaskTrace {
    pub fn method(&self, name: &str) -> Option<&MethodTrace> {
        self.methods.iter().find(|m| m.name == name)
    }

    /// A method as it stands in the judged class, once the task finished.
    pub fn in_class(&self, name: &str) -> Option<&ClassMethod> {
        self.in_class.iter().find(|m| m.name == name)
    }

    /// The task finished: derive each method's entry in the judged class (`code`, judged by
    /// `private`, as the task's run holds them). A strategy that wrote no method on its own
    /// (holistic) gets a method entry per target method too, so the run screen lists them
    /// and the step-through opens on them.
    pub(super) fn finish(
        &mut self,
        code: Option<&str>,
        private: Option<&SuiteResult>,
        summary: &TaskSummary,
    ) {
        let Some(code) = code else {
            return;
        };
        self.in_class = class_methods(code, private, &summary.methods, &summary.method_tests);
        if !self.methods.is_empty() {
            return;
        }
        self.whole_class = true;
        let derived: Vec<(String, bool)> = self
            .in_class
            .iter()
            .map(|m| (m.name.clone(), m.code.is_some()))
            .collect();
        for (name, defined) in derived {
            let m = self.method_mut(&name);
            m.status = Some(if defined {
                MethodStatus::Untested
            } else {
                MethodStatus::NoCode
            });
        }
    }

    pub(super) fn method_mut(&mut self, name: &str) -> &mut MethodTrace {
        let at = match self.methods.iter().position(|m| m.name == name) {
            Some(at) => at,
            None => {
                self.methods.push(MethodTrace {
                    name: name.to_string(),
                    index: self.methods.len(),
                    status: None,
                    repairs: 0,
                    rounds: Vec::new(),
                    public_check: None,
                });
                self.methods.len() - 1
            }
        };
        &mut self.methods[at]
    }

    /// `forge --llm`'s questions about the task: (answered, asked).
    pub fn forge_rounds(&self) -> (usize, usize) {
        let forge = self
            .calls
            .iter()
            .filter(|c| matches!(c.purpose, Purpose::ForgeTests { .. }));
        forge.fold((0, 0), |(a, n), c| {
            (a + usize::from(c.response.is_some()), n + 1)
        })
    }

    pub(super) fn call_mut(&mut self, call: u32) -> Option<&mut CallTrace> {
        self.calls.iter_mut().rev().find(|c| c.call == call)
    }
}

/// Model usage over a run (`report`'s usage table).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct UsageTotals {
    pub requests: u64,
    pub retries: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Seconds spent waiting for the model (sum of call latencies).
    pub seconds: f64,
}

/// Repair cost (domain.md §5), over the methods that finished.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct RepairCost {
    pub avg_rounds_per_method: f64,
    pub methods_repaired: usize,
    pub avg_rounds_when_repaired: f64,
    pub avg_rounds_per_class: f64,
    pub classes_repaired: usize,
}
