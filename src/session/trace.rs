//! The fold of a generation run's story, per task: the predicted dependencies, the schedule,
//! every model call, and every method's rounds (code, public tests, reflection, patch).
//! The run screen, the step-through view and `report` read it; `EvalState` keeps it current.

use std::collections::BTreeMap;

use serde::Serialize;

use super::event::{EventBody, FailureRecord, LeftOutTest, MethodStatus, Scope};
use crate::llm::{Message, Params, Purpose, Usage};
use crate::metrics::fingerprint::Bucket;
use crate::model::{DepMap, SuiteResult, camel_case};

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
    fn round_mut(&mut self, round: u32) -> &mut RoundTrace {
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
    /// The class as assembled and judged (every strategy), from its extraction until the
    /// task finishes (then `in_class` holds what the step-through needs of it).
    pub class_code: Option<String>,
    /// The private suite's result on that class, as long as `class_code`.
    pub private: Option<SuiteResult>,
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
/// class is the one named `…Test<Method>` as ClassEval names them.
pub fn class_methods(
    code: &str,
    suite: Option<&SuiteResult>,
    outcomes: &[(String, Option<Bucket>)],
) -> Vec<ClassMethod> {
    let module = crate::analysis::parse::parse_module(code);
    // The first definition of each name (a later class may reuse it).
    let mut defs: std::collections::HashMap<&str, &crate::analysis::parse::MethodDef> =
        std::collections::HashMap::new();
    for d in module.classes.iter().flat_map(|c| c.methods.iter()) {
        defs.entry(d.name.as_str()).or_insert(d);
    }
    outcomes
        .iter()
        .map(|(name, outcome)| {
            let def = defs.get(name.as_str()).copied();
            let suffix = format!("Test{}", camel_case(name));
            let mut tests = SuiteResult::new(Vec::new(), suite.and_then(|s| s.failure.clone()));
            let mut test_class = None;
            for t in suite.map(|s| s.tests.as_slice()).unwrap_or_default() {
                let Some(class) = t.test_class() else {
                    continue;
                };
                let class = class.rsplit('.').next().unwrap_or(class);
                if class.ends_with(&suffix) {
                    test_class.get_or_insert_with(|| class.to_string());
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

    /// The task finished: derive each method's entry in the judged class. A strategy that
    /// wrote no method on its own (holistic) gets a method entry per target method too, so
    /// the run screen lists them and the step-through opens on them.
    fn finish(&mut self, outcomes: &[(String, Option<Bucket>)]) {
        // Kept only until now: the task's run holds them (see `EvalState`).
        let (Some(code), private) = (self.class_code.take(), self.private.take()) else {
            return;
        };
        self.in_class = class_methods(&code, private.as_ref(), outcomes);
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

    fn method_mut(&mut self, name: &str) -> &mut MethodTrace {
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

    fn call_mut(&mut self, call: u32) -> Option<&mut CallTrace> {
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

/// Generation traces of every (task, sample) of a run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Trace {
    pub tasks: BTreeMap<(String, u32), TaskTrace>,
    pub usage: UsageTotals,
}

impl Trace {
    pub fn task(&self, task_id: &str, sample: u32) -> Option<&TaskTrace> {
        self.tasks.get(&(task_id.to_string(), sample))
    }

    /// Forget a (task, sample) that starts again from scratch.
    /// A resumed run asks again what was not generated.
    pub fn resume_not_generated(&mut self) {
        for t in self.tasks.values_mut() {
            t.not_generated = false;
        }
    }

    pub fn reset(&mut self, task_id: &str, sample: u32) {
        self.tasks.remove(&(task_id.to_string(), sample));
    }

    /// Live streamed text of a call in flight (not an event: the response records the text).
    /// An empty delta means the client is retrying from scratch: the text so far is dropped.
    pub fn push_delta(&mut self, task_id: &str, sample: u32, call: u32, text: &str) {
        if let Some(c) = self
            .tasks
            .get_mut(&(task_id.to_string(), sample))
            .and_then(|t| t.call_mut(call))
            .filter(|c| c.response.is_none())
        {
            if text.is_empty() {
                c.streamed.clear();
            } else {
                c.streamed.push_str(text);
            }
        }
    }

    /// Fold one event; events of other kinds are ignored.
    pub fn apply(&mut self, body: &EventBody) {
        let Some((task_id, sample)) = body.task() else {
            return;
        };
        let key = (task_id.to_string(), sample);
        match body {
            EventBody::DependencyPrediction {
                raw,
                methods,
                graph,
                order,
                problems,
                parsed,
                truth,
                ..
            } => {
                self.tasks.entry(key).or_default().prediction = Some(PredictionTrace {
                    raw: raw.clone(),
                    methods: methods.clone(),
                    graph: graph.clone(),
                    order: order.clone(),
                    problems: problems.clone(),
                    parsed: *parsed,
                    truth: truth.clone(),
                });
            }
            EventBody::Schedule {
                mode,
                order,
                violations,
                ..
            } => {
                self.tasks.entry(key).or_default().schedule = Some(ScheduleTrace {
                    mode: mode.clone(),
                    order: order.clone(),
                    violations: violations.clone(),
                });
            }
            EventBody::MethodStarted { method, index, .. } => {
                let m = self.tasks.entry(key).or_default().method_mut(method);
                m.index = *index;
            }
            EventBody::LlmRequest {
                call,
                purpose,
                provider,
                model,
                messages,
                params,
                ..
            } => {
                let t = self.tasks.entry(key).or_default();
                t.calls.push(CallTrace {
                    call: *call,
                    purpose: purpose.clone(),
                    provider: provider.clone(),
                    model: model.clone(),
                    messages: messages.clone(),
                    params: params.clone(),
                    streamed: String::new(),
                    response: None,
                });
                let at = t.calls.len() - 1;
                let (method, round) = match purpose {
                    Purpose::Method { method } => (method, 0),
                    Purpose::Repair { method, round } => (method, *round),
                    _ => return,
                };
                t.method_mut(method).round_mut(round).call = Some(at);
            }
            EventBody::LlmResponse {
                call,
                text,
                usage,
                latency_s,
                retries,
                retry_log,
                failure,
                prompt_changed,
                ..
            } => {
                self.usage.requests += 1;
                self.usage.retries += u64::from(*retries);
                self.usage.seconds += latency_s;
                if let Some(u) = usage {
                    self.usage.prompt_tokens += u.prompt_tokens;
                    self.usage.completion_tokens += u.completion_tokens;
                }
                if let Some(c) = self.tasks.entry(key).or_default().call_mut(*call) {
                    c.streamed.clear();
                    c.response = Some(ResponseTrace {
                        text: text.clone(),
                        usage: *usage,
                        latency_s: *latency_s,
                        retries: *retries,
                        retry_log: retry_log.clone(),
                        failure: failure.clone(),
                        prompt_changed: *prompt_changed,
                    });
                }
            }
            EventBody::CodeExtracted {
                code, method: None, ..
            } => {
                let t = self.tasks.entry(key).or_default();
                t.class_code = Some(code.clone());
                t.private = None;
            }
            EventBody::TestRun {
                method: None,
                result,
                scope: Scope::Private,
                ..
            } => {
                self.tasks.entry(key).or_default().private = Some(result.clone());
            }
            EventBody::TaskFinished { summary, .. } => {
                self.tasks.entry(key).or_default().finish(&summary.methods);
            }
            EventBody::CodeExtracted {
                code,
                notes,
                method: Some(method),
                round,
                ..
            } => {
                let r = self
                    .tasks
                    .entry(key)
                    .or_default()
                    .method_mut(method)
                    .round_mut(round.unwrap_or(0));
                r.code = Some(code.clone());
                r.notes = notes.clone();
            }
            EventBody::TestRun {
                method: Some(method),
                round,
                result,
                scope: Scope::Public,
                ..
            } => {
                self.tasks
                    .entry(key)
                    .or_default()
                    .method_mut(method)
                    .round_mut(round.unwrap_or(0))
                    .public = Some(result.clone());
            }
            EventBody::Reflection {
                method,
                round,
                analysis,
                region,
                plan,
                problems,
                ..
            } => {
                self.tasks
                    .entry(key)
                    .or_default()
                    .method_mut(method)
                    .round_mut(*round)
                    .reflection = Some(ReflectionTrace {
                    analysis: analysis.clone(),
                    region: region.clone(),
                    plan: plan.clone(),
                    problems: problems.clone(),
                });
            }
            EventBody::Patch {
                method,
                round,
                code,
                ..
            } => {
                self.tasks
                    .entry(key)
                    .or_default()
                    .method_mut(method)
                    .round_mut(*round)
                    .patch = Some(code.clone());
            }
            EventBody::MethodFinished {
                method,
                status,
                repairs,
                ..
            } => {
                let m = self.tasks.entry(key).or_default().method_mut(method);
                m.status = Some(*status);
                m.repairs = *repairs;
            }
            EventBody::PublicTestsChecked {
                method,
                source,
                used,
                left_out,
                ..
            } => {
                self.tasks
                    .entry(key)
                    .or_default()
                    .method_mut(method)
                    .public_check = Some(PublicCheck {
                    source: source.clone(),
                    used: used.clone(),
                    left_out: left_out.clone(),
                });
            }
            EventBody::TaskNotGenerated { .. } => {
                self.tasks.entry(key).or_default().not_generated = true;
            }
            _ => {}
        }
    }

    /// Repair cost over finished methods; `None` when no method was generated one by one
    /// through the TDD loop (no `method_finished` at all).
    pub fn repair_cost(&self) -> Option<RepairCost> {
        let classes: Vec<Vec<u32>> = self
            .tasks
            .values()
            .filter(|t| !t.not_generated && !t.whole_class)
            .map(|t| {
                t.methods
                    .iter()
                    .filter(|m| m.status.is_some_and(|s| s != MethodStatus::NotGenerated))
                    .map(|m| m.repairs)
                    .collect::<Vec<u32>>()
            })
            .filter(|m| !m.is_empty())
            .collect();
        let rounds: Vec<u32> = classes.iter().flatten().copied().collect();
        if rounds.is_empty() {
            return None;
        }
        let repaired: Vec<u32> = rounds.iter().copied().filter(|&r| r > 0).collect();
        let mean = |xs: &[u32]| {
            if xs.is_empty() {
                0.0
            } else {
                xs.iter().map(|&x| f64::from(x)).sum::<f64>() / xs.len() as f64
            }
        };
        let per_class: Vec<u32> = classes.iter().map(|c| c.iter().sum()).collect();
        Some(RepairCost {
            avg_rounds_per_method: mean(&rounds),
            methods_repaired: repaired.len(),
            avg_rounds_when_repaired: mean(&repaired),
            avg_rounds_per_class: mean(&per_class),
            classes_repaired: per_class.iter().filter(|&&r| r > 0).count(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finished(task: &str, method: &str, repairs: u32) -> EventBody {
        EventBody::MethodFinished {
            task_id: task.into(),
            sample: 0,
            method: method.into(),
            status: if repairs < 3 {
                MethodStatus::Passed
            } else {
                MethodStatus::Exhausted
            },
            repairs,
        }
    }

    #[test]
    fn repair_cost_follows_domain_definitions() {
        let mut t = Trace::default();
        assert_eq!(t.repair_cost(), None);
        for e in [
            finished("A", "a", 0),
            finished("A", "b", 2),
            finished("A", "c", 1),
            finished("B", "x", 0),
            finished("B", "y", 3),
            finished("C", "z", 0),
        ] {
            t.apply(&e);
        }
        let c = t.repair_cost().unwrap();
        assert_eq!(c.avg_rounds_per_method, 1.0); // 6 rounds / 6 methods
        assert_eq!(c.methods_repaired, 3);
        assert_eq!(c.avg_rounds_when_repaired, 2.0); // (2+1+3)/3
        assert_eq!(c.avg_rounds_per_class, 2.0); // (3+3+0)/3
        assert_eq!(c.classes_repaired, 2);
    }

    #[test]
    fn rounds_collect_call_code_tests_reflection_and_patch() {
        let mut t = Trace::default();
        let req = |call, purpose| EventBody::LlmRequest {
            task_id: "A".into(),
            sample: 0,
            call,
            purpose,
            provider: "openai".into(),
            model: "m".into(),
            messages: vec![Message::user("hi")],
            params: Params::default(),
        };
        t.apply(&EventBody::MethodStarted {
            task_id: "A".into(),
            sample: 0,
            method: "f".into(),
            index: 0,
        });
        t.apply(&req(0, Purpose::Method { method: "f".into() }));
        t.push_delta("A", 0, 0, "def f");
        t.push_delta("A", 0, 0, "(self):");
        assert_eq!(t.task("A", 0).unwrap().calls[0].streamed, "def f(self):");
        t.apply(&req(
            1,
            Purpose::Repair {
                method: "f".into(),
                round: 1,
            },
        ));
        t.apply(&EventBody::Reflection {
            task_id: "A".into(),
            sample: 0,
            method: "f".into(),
            round: 1,
            analysis: "logic".into(),
            region: "line 2".into(),
            plan: "fix".into(),
            problems: vec![],
        });
        t.apply(&EventBody::Patch {
            task_id: "A".into(),
            sample: 0,
            method: "f".into(),
            round: 1,
            code: "def f(self): return 1".into(),
        });
        let m = t.task("A", 0).unwrap().method("f").unwrap();
        assert_eq!(m.rounds.len(), 2);
        assert_eq!(m.rounds[0].call, Some(0));
        assert_eq!(m.rounds[1].call, Some(1));
        assert_eq!(m.rounds[1].reflection.as_ref().unwrap().analysis, "logic");
        assert_eq!(m.rounds[1].patch.as_deref(), Some("def f(self): return 1"));
        assert_eq!(m.status, None);
    }

    #[test]
    fn a_holistic_class_gets_per_method_entries_with_regions_tests_and_outcomes() {
        use crate::model::{Outcome, TestResult};
        let code = "class Calc:\n    def __init__(self):\n        self.n = 0\n\n    def add(self, x):\n        self.n += x\n        return self.n\n\n    def sub(self, x):\n        return 0\n";
        let mut suite = SuiteResult {
            tests: vec![
                TestResult::new("CalcTestAdd.test_add_1", Outcome::Pass),
                TestResult::new("CalcTestAdd.test_add_2", Outcome::Pass),
                TestResult::new("CalcTestSub.test_sub_1", Outcome::Fail),
                TestResult::new("CalcTestMain.test_main", Outcome::Fail),
            ],
            failure: None,
            stdout: String::new(),
            stderr: String::new(),
            stdout_dropped: 0,
            stderr_dropped: 0,
            wall_s: 0.0,
            leftovers: Vec::new(),
        };
        let mut t = Trace::default();
        t.apply(&EventBody::CodeExtracted {
            task_id: "A".into(),
            sample: 0,
            code: code.into(),
            notes: vec![],
            method: None,
            round: None,
        });
        t.apply(&EventBody::TestRun {
            task_id: "A".into(),
            sample: 0,
            scope: Scope::Private,
            method: None,
            round: None,
            result: suite.clone(),
        });
        let summary = crate::session::event::TaskSummary {
            outcome: Some(Bucket::Weak),
            passed: 2,
            judged: 4,
            test_classes: Default::default(),
            exceptions: Default::default(),
            env_exceptions: Default::default(),
            methods: vec![
                ("add".into(), Some(Bucket::Perfect)),
                ("sub".into(), Some(Bucket::Fail)),
                ("mul".into(), Some(Bucket::SyntaxErr)),
            ],
        };
        t.apply(&EventBody::TaskFinished {
            task_id: "A".into(),
            sample: 0,
            summary,
        });
        let task = t.task("A", 0).unwrap();
        let add = task.in_class("add").unwrap();
        assert_eq!(add.lines, Some((5, 7)));
        assert_eq!(
            add.code.as_deref(),
            Some("    def add(self, x):\n        self.n += x\n        return self.n")
        );
        assert_eq!(add.test_class.as_deref(), Some("CalcTestAdd"));
        assert_eq!(add.tests.tests.len(), 2);
        assert_eq!(add.outcome, Some(Bucket::Perfect));
        let sub = task.in_class("sub").unwrap();
        assert_eq!(sub.lines, Some((9, 10)));
        assert_eq!(sub.tests.tests[0].id, "CalcTestSub.test_sub_1");
        assert_eq!(sub.outcome, Some(Bucket::Fail));
        let mul = task.in_class("mul").unwrap();
        assert_eq!((mul.lines, mul.code.as_deref()), (None, None));
        assert!(mul.tests.tests.is_empty());
        // Holistic: one method entry per target method, as the run screen lists them …
        assert!(task.whole_class);
        let names: Vec<_> = task
            .methods
            .iter()
            .map(|m| (m.name.as_str(), m.status))
            .collect();
        assert_eq!(
            names,
            [
                ("add", Some(MethodStatus::Untested)),
                ("sub", Some(MethodStatus::Untested)),
                ("mul", Some(MethodStatus::NoCode)),
            ]
        );
        // … kept out of repair cost (no loop ran).
        assert_eq!(t.repair_cost(), None);

        // A strategy that wrote methods one by one keeps its entries and gains the class's.
        let mut t = Trace::default();
        t.apply(&finished("A", "add", 1));
        suite.tests.truncate(2);
        t.apply(&EventBody::CodeExtracted {
            task_id: "A".into(),
            sample: 0,
            code: code.into(),
            notes: vec![],
            method: None,
            round: None,
        });
        t.apply(&EventBody::TaskFinished {
            task_id: "A".into(),
            sample: 0,
            summary: crate::session::event::TaskSummary {
                outcome: None,
                passed: 0,
                judged: 0,
                test_classes: Default::default(),
                exceptions: Default::default(),
                env_exceptions: Default::default(),
                methods: vec![("add".into(), None)],
            },
        });
        let task = t.task("A", 0).unwrap();
        assert!(!task.whole_class);
        assert_eq!(task.methods.len(), 1);
        assert_eq!(task.in_class("add").unwrap().lines, Some((5, 7)));
        assert!(t.repair_cost().is_some());
    }
}
