//! The fold of a generation run's story, per task: the predicted dependencies, the schedule,
//! every model call, and every method's rounds (code, public tests, reflection, patch).
//! The run screen, the step-through view and `report` read it; `EvalState::apply` is the one
//! fold that keeps it current (there is no other way in).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::event::{EventBody, MethodStatus, Scope, TaskSummary};
use crate::model::SuiteResult;
use crate::model::chat::Purpose;

mod types;
pub use types::*;

/// Generation traces of every (task, sample) of a run. Folded by `EvalState::apply` only.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Trace {
    pub tasks: BTreeMap<(String, u32), TaskTrace>,
    pub usage: UsageTotals,
    /// Repair cost's running sums, and each task's part in them (updated when its methods
    /// change, so that reading the cost costs nothing).
    repair: RepairSums,
    repair_of: HashMap<(String, u32), RepairSums>,
    /// Tasks marked not generated (a resume asks them again).
    not_generated: BTreeSet<(String, u32)>,
    /// `forge --llm`'s questions: per task asked about, those still unanswered, and how many
    /// tasks have every question answered (kept by the fold: a frame reads two numbers).
    forge_pending: HashMap<(String, u32), u32>,
    forge_answered: usize,
}

/// Sums behind [`RepairCost`], for one task or a whole run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct RepairSums {
    methods: u64,
    rounds: u64,
    repaired: u64,
    repaired_rounds: u64,
    classes: u64,
    classes_repaired: u64,
}

impl RepairSums {
    /// One task's part: its finished methods (not generated ones aside), when they were
    /// generated one by one (not holistic) and the task is not marked not generated.
    fn of(t: &TaskTrace) -> Self {
        let mut s = RepairSums::default();
        if t.not_generated || t.whole_class {
            return s;
        }
        for m in &t.methods {
            // Not generated, or stopped by the environment: no round was the model's.
            if m.status
                .is_some_and(|s| !matches!(s, MethodStatus::NotGenerated | MethodStatus::EnvErr))
            {
                s.methods += 1;
                s.rounds += u64::from(m.repairs);
                if m.repairs > 0 {
                    s.repaired += 1;
                    s.repaired_rounds += u64::from(m.repairs);
                }
            }
        }
        if s.methods > 0 {
            s.classes = 1;
            s.classes_repaired = u64::from(s.rounds > 0);
        }
        s
    }

    fn add(&mut self, o: &RepairSums) {
        self.methods += o.methods;
        self.rounds += o.rounds;
        self.repaired += o.repaired;
        self.repaired_rounds += o.repaired_rounds;
        self.classes += o.classes;
        self.classes_repaired += o.classes_repaired;
    }

    fn sub(&mut self, o: &RepairSums) {
        self.methods = self.methods.saturating_sub(o.methods);
        self.rounds = self.rounds.saturating_sub(o.rounds);
        self.repaired = self.repaired.saturating_sub(o.repaired);
        self.repaired_rounds = self.repaired_rounds.saturating_sub(o.repaired_rounds);
        self.classes = self.classes.saturating_sub(o.classes);
        self.classes_repaired = self.classes_repaired.saturating_sub(o.classes_repaired);
    }
}

impl Trace {
    pub fn task(&self, task_id: &str, sample: u32) -> Option<&TaskTrace> {
        self.tasks.get(&(task_id.to_string(), sample))
    }

    /// A resumed run asks again what was not generated.
    pub(super) fn resume_not_generated(&mut self) {
        for key in std::mem::take(&mut self.not_generated) {
            if let Some(t) = self.tasks.get_mut(&key) {
                t.not_generated = false;
            }
            self.recount(&key);
        }
    }

    /// Forget a (task, sample) that starts again from scratch.
    pub(super) fn reset(&mut self, task_id: &str, sample: u32) {
        let key = (task_id.to_string(), sample);
        self.tasks.remove(&key);
        self.not_generated.remove(&key);
        self.recount(&key);
    }

    /// The task finished: its methods as they stand in the judged class (see
    /// [`TaskTrace::finish`]).
    pub(super) fn finish(
        &mut self,
        key: &(String, u32),
        code: Option<&str>,
        private: Option<&SuiteResult>,
        summary: &TaskSummary,
    ) {
        self.tasks
            .entry(key.clone())
            .or_default()
            .finish(code, private, summary);
        self.recount(key);
    }

    /// Bring a task's part of the repair cost up to date.
    fn recount(&mut self, key: &(String, u32)) {
        let now = self.tasks.get(key).map(RepairSums::of).unwrap_or_default();
        let before = if now == RepairSums::default() {
            self.repair_of.remove(key)
        } else {
            self.repair_of.insert(key.clone(), now)
        };
        if let Some(before) = before {
            self.repair.sub(&before);
        }
        self.repair.add(&now);
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

    /// A `forge --llm` session's progress: (tasks whose every question was answered, tasks
    /// asked about); `None` where no question for tests was asked (a run, an evaluation).
    pub fn forge_progress(&self) -> Option<(usize, usize)> {
        (!self.forge_pending.is_empty()).then_some((self.forge_answered, self.forge_pending.len()))
    }

    /// Fold one event of a generation run's story; other kinds (and the judged class, which
    /// the task's run holds) are `EvalState`'s.
    pub(super) fn apply(&mut self, body: &EventBody) {
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
                if matches!(purpose, Purpose::ForgeTests { .. }) {
                    match self.forge_pending.get_mut(&key) {
                        Some(pending) => {
                            if *pending == 0 {
                                // Asked again after every earlier question was answered.
                                self.forge_answered = self.forge_answered.saturating_sub(1);
                            }
                            *pending += 1;
                        }
                        None => {
                            self.forge_pending.insert(key.clone(), 1);
                        }
                    }
                }
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
                let t = self.tasks.entry(key.clone()).or_default();
                if let Some(c) = t.call_mut(*call) {
                    // A forge question answered for the first time (a replayed answer counts
                    // once).
                    if c.response.is_none()
                        && matches!(c.purpose, Purpose::ForgeTests { .. })
                        && let Some(pending) = self.forge_pending.get_mut(&key)
                    {
                        *pending = pending.saturating_sub(1);
                        if *pending == 0 {
                            self.forge_answered += 1;
                        }
                    }
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
                let r = self.round_mut(key, method, round.unwrap_or(0));
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
                self.round_mut(key, method, round.unwrap_or(0)).public = Some(result.clone());
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
                self.round_mut(key, method, *round).reflection = Some(ReflectionTrace {
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
                self.round_mut(key, method, *round).patch = Some(code.clone());
            }
            EventBody::MethodFinished {
                method,
                status,
                repairs,
                ..
            } => {
                let m = self
                    .tasks
                    .entry(key.clone())
                    .or_default()
                    .method_mut(method);
                m.status = Some(*status);
                m.repairs = *repairs;
                self.recount(&key);
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
                self.tasks.entry(key.clone()).or_default().not_generated = true;
                self.not_generated.insert(key.clone());
                self.recount(&key);
            }
            _ => {}
        }
    }

    /// Round `round` of `method` in the trace of `key` (task, sample), created on first use.
    fn round_mut(&mut self, key: (String, u32), method: &str, round: u32) -> &mut RoundTrace {
        self.tasks
            .entry(key)
            .or_default()
            .method_mut(method)
            .round_mut(round)
    }

    /// Repair cost over finished methods; `None` when no method was generated one by one
    /// through the TDD loop (no `method_finished` at all). Kept current by the fold: O(1).
    pub fn repair_cost(&self) -> Option<RepairCost> {
        let s = &self.repair;
        if s.methods == 0 {
            return None;
        }
        let ratio = |n: u64, d: u64| if d == 0 { 0.0 } else { n as f64 / d as f64 };
        Some(RepairCost {
            avg_rounds_per_method: ratio(s.rounds, s.methods),
            methods_repaired: s.repaired as usize,
            avg_rounds_when_repaired: ratio(s.repaired_rounds, s.repaired),
            avg_rounds_per_class: ratio(s.rounds, s.classes),
            classes_repaired: s.classes_repaired as usize,
        })
    }
}

#[cfg(test)]
mod tests;
