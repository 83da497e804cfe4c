//! A task's only way out: every event it records, every model call and every suite goes
//! through [`TaskIo`]. On `--resume` a task is run again from the start against its journal
//! (the events recorded before the stop): an event that is already in the journal is not
//! written again, and a model answer or suite result that is in the journal is served from
//! it, so a resumed run neither repeats a model call nor duplicates an event.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;

use super::reference::ReferenceRuns;
use super::run::{RunError, RunRequest, Update};
use crate::exec::{Sandbox, SuiteSpec};
use crate::llm::{Call, Completion, Failure, Message, Params, Purpose};
use crate::model::{SuiteResult, Task};
use crate::session::event::{EventBody, FailureRecord, Scope};
use crate::session::{EvalState, SessionWriter};

/// The session writer and the live fold, shared by the workers.
pub struct Sink<'a> {
    inner: Mutex<(SessionWriter, EvalState)>,
    on_update: &'a (dyn Fn(Update<'_>) + Sync),
}

impl<'a> Sink<'a> {
    pub fn new(
        writer: SessionWriter,
        state: EvalState,
        on_update: &'a (dyn Fn(Update<'_>) + Sync),
    ) -> Self {
        Sink {
            inner: Mutex::new((writer, state)),
            on_update,
        }
    }

    /// Append (fsync) and fold one event, then tell the watcher.
    pub fn emit(&self, body: EventBody) -> Result<(), RunError> {
        let mut guard = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let (writer, state) = &mut *guard;
        let event = writer.append(body)?;
        state.apply(&event);
        (self.on_update)(Update::Event(&event, state));
        Ok(())
    }

    pub fn delta(&self, task_id: &str, sample: u32, call: u32, text: &str) {
        (self.on_update)(Update::Delta {
            task_id,
            sample,
            call,
            text,
        });
    }

    pub fn with_state<T>(&self, f: impl FnOnce(&EvalState) -> T) -> T {
        let guard = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        f(&guard.1)
    }

    pub fn into_state(self) -> EvalState {
        self.inner.into_inner().unwrap_or_else(|e| e.into_inner()).1
    }
}

pub struct TaskIo<'r, 's> {
    pub task: &'r Task,
    pub sample: u32,
    pub req: &'r RunRequest<'r>,
    journal: VecDeque<EventBody>,
    sink: &'s Sink<'s>,
    sandbox: &'r Sandbox,
    cancel: &'r AtomicBool,
    next_call: u32,
}

impl<'r, 's> TaskIo<'r, 's> {
    pub fn new(
        task: &'r Task,
        sample: u32,
        journal: VecDeque<EventBody>,
        sink: &'s Sink<'s>,
        req: &'r RunRequest<'r>,
        sandbox: &'r Sandbox,
        cancel: &'r AtomicBool,
    ) -> Self {
        TaskIo {
            task,
            sample,
            req,
            journal,
            sink,
            sandbox,
            cancel,
            next_call: 0,
        }
    }

    /// What the environment provides this task in the interpreter its suites run in (the
    /// evidence an `EnvErr` needs).
    pub fn env_context(&self) -> crate::metrics::fingerprint::EnvContext {
        super::envcheck::context_in(self.task, Some(&self.sandbox.isolation().python.executable))
    }

    pub fn cancelled(&self) -> bool {
        self.cancel.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Record an event, unless the journal already holds it.
    pub fn emit(&mut self, body: EventBody) -> Result<(), RunError> {
        if let Some(recorded) = self.journal.pop_front() {
            if recorded == body {
                return Ok(());
            }
            // The code changed since the stop (or the log did): the recorded prefix cannot be
            // continued. Say so; the task starts again from scratch (a new `task_started`).
            self.journal.clear();
            self.sink.emit(EventBody::Error {
                task_id: Some(self.task.id.clone()),
                message: format!(
                    "resume: recorded `{}` differs from the `{}` this run produced; the task starts again",
                    recorded.kind(),
                    body.kind()
                ),
            })?;
            return Err(RunError::Restart);
        }
        self.sink.emit(body)
    }

    /// Ask the provider (or the journal, on resume), recording request and response.
    /// A failed request is recorded and returned; the strategy decides what follows.
    pub fn ask(
        &mut self,
        purpose: Purpose,
        messages: Vec<Message>,
    ) -> Result<Result<Completion, Failure>, RunError> {
        let call = self.next_call;
        self.next_call += 1;
        let provider = &self.req.provider;
        let params: Params = self.req.params.clone();
        self.emit(EventBody::LlmRequest {
            task_id: self.task.id.clone(),
            sample: self.sample,
            call,
            purpose: purpose.clone(),
            provider: provider.kind().to_string(),
            model: provider.model(),
            messages: messages.clone(),
            params: params.clone(),
        })?;
        if let Some(EventBody::LlmResponse {
            call: c,
            text,
            usage,
            finish_reason,
            latency_s,
            retries,
            retry_log,
            failure,
            ..
        }) = self.journal.front()
            && *c == call
        {
            let answer = match failure {
                None => Ok(Completion {
                    text: text.clone(),
                    usage: *usage,
                    finish_reason: finish_reason.clone(),
                    latency_s: *latency_s,
                    retries: *retries,
                    retry_log: retry_log.clone(),
                }),
                Some(f) => Err(Failure {
                    kind: f.kind,
                    message: f.message.clone(),
                    retries: *retries,
                    retry_log: retry_log.clone(),
                    latency_s: *latency_s,
                }),
            };
            let recorded = self.journal.front().cloned();
            if let Some(body) = recorded {
                self.emit(body)?;
            }
            return Ok(answer);
        }
        let call_spec = Call {
            task_id: self.task.id.clone(),
            purpose,
            messages,
            params,
        };
        let prompt_changed = provider.prompt_differs(&call_spec);
        let (task_id, sample, sink) = (self.task.id.clone(), self.sample, self.sink);
        let mut on_delta = |text: &str| sink.delta(&task_id, sample, call, text);
        let answer = provider.complete(&call_spec, &mut on_delta, self.cancel);
        let body = match &answer {
            Ok(c) => EventBody::LlmResponse {
                task_id: self.task.id.clone(),
                sample: self.sample,
                call,
                text: c.text.clone(),
                usage: c.usage,
                finish_reason: c.finish_reason.clone(),
                latency_s: c.latency_s,
                retries: c.retries,
                retry_log: c.retry_log.clone(),
                failure: None,
                prompt_changed: prompt_changed.is_some(),
            },
            Err(f) => EventBody::LlmResponse {
                task_id: self.task.id.clone(),
                sample: self.sample,
                call,
                text: String::new(),
                usage: None,
                finish_reason: None,
                latency_s: f.latency_s,
                retries: f.retries,
                retry_log: f.retry_log.clone(),
                failure: Some(FailureRecord {
                    kind: f.kind,
                    message: f.message.clone(),
                }),
                prompt_changed: prompt_changed.is_some(),
            },
        };
        if matches!(&answer, Err(f) if f.kind == crate::llm::FailureKind::Cancelled) {
            // A cancelled call says nothing about the model: leave it unrecorded so that
            // `--resume` asks again.
            return Ok(answer);
        }
        self.emit(body)?;
        Ok(answer)
    }

    /// Run a suite (or take its result from the journal on resume) and record it.
    /// `None` when the run was cancelled while the suite ran.
    pub fn run_suite(
        &mut self,
        spec: &SuiteSpec,
        scope: Scope,
        method: Option<&str>,
        round: Option<u32>,
    ) -> Result<Option<SuiteResult>, RunError> {
        self.run_suite_cached(spec, scope, method, round, None)
    }

    /// The reference's run of the task's private suite (`pipeline::reference`), the evidence a
    /// candidate's `EnvErr` needs: from the journal on resume, else from the cache below the
    /// sessions root, else run (and cached); recorded as a `test_run` of scope `reference`.
    pub fn run_reference(&mut self, spec: &SuiteSpec) -> Result<Option<SuiteResult>, RunError> {
        let runs = ReferenceRuns::new(&self.req.sessions_root, &self.sandbox.isolation().python);
        self.run_suite_cached(spec, Scope::Reference, None, None, Some(&runs))
    }

    fn run_suite_cached(
        &mut self,
        spec: &SuiteSpec,
        scope: Scope,
        method: Option<&str>,
        round: Option<u32>,
        cache: Option<&ReferenceRuns>,
    ) -> Result<Option<SuiteResult>, RunError> {
        let recorded = match self.journal.front() {
            Some(EventBody::TestRun {
                scope: s,
                method: m,
                round: r,
                result,
                ..
            }) if *s == scope && m.as_deref() == method && *r == round => Some(result.clone()),
            _ => None,
        };
        let result = match recorded {
            Some(result) => result,
            None => {
                // Every suite of a run, public and private, through the run's harness.
                let spec = spec.clone().with_harness(self.req.harness);
                let key = cache.map(|c| c.key(&spec));
                match cache.zip(key.as_deref()).and_then(|(c, k)| c.cached(k)) {
                    Some(result) => result,
                    None => {
                        let result = self.sandbox.run_cancellable(&spec, self.cancel);
                        if self.cancelled() {
                            return Ok(None);
                        }
                        if let Some((c, k)) = cache.zip(key.as_deref()) {
                            c.store(k, &self.task.id, &result);
                        }
                        result
                    }
                }
            }
        };
        self.emit(EventBody::TestRun {
            task_id: self.task.id.clone(),
            sample: self.sample,
            scope,
            method: method.map(str::to_string),
            round,
            result: result.clone(),
        })?;
        Ok(Some(result))
    }
}
