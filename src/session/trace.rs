//! The fold of a generation run's story, per task: the predicted dependencies, the schedule,
//! every model call, and every method's rounds (code, public tests, reflection, patch).
//! The run screen, the step-through view and `report` read it; `EvalState` keeps it current.

use std::collections::BTreeMap;

use serde::Serialize;

use super::event::{EventBody, FailureRecord, LeftOutTest, MethodStatus};
use crate::llm::{Message, Params, Purpose, Usage};
use crate::model::{DepMap, SuiteResult};

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
}

impl TaskTrace {
    pub fn method(&self, name: &str) -> Option<&MethodTrace> {
        self.methods.iter().find(|m| m.name == name)
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
                scope: super::event::Scope::Public,
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
            .filter(|t| !t.not_generated)
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
}
