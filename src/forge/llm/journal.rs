//! The session a `forge --llm` records: every prompt and reply as `llm_request` /
//! `llm_response` events of a `forge` session (the same events a generation run writes), so a
//! researcher can open it, a resumed forge asks no question twice, and a forge replayed from
//! it (`--llm-replay`) gets the same answers.
//!
//! Recorded answers are served before the model is asked: for a task, the first recorded
//! exchange whose prompt is the same as the one about to be sent. Prompts are deterministic
//! (the forge is), so a resumed task gets the answers it got before, in order.

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use crate::llm::{Call, Completion, Failure, FailureKind, Message, Params, Provider, Purpose};
use crate::session::event::FailureRecord;
use crate::session::store::{
    DatasetRef, Meta, Resumable, SCHEMA, SessionLog, SessionWriter, new_id, now_rfc3339,
};
use crate::session::{EventBody, store};

/// The file in the forge's `--out` naming its session directory (`llm-session-K-of-N` for
/// shard K of N: shards sharing `--out` keep a session each).
pub fn session_file(shard: Option<(u32, u32)>) -> String {
    match shard {
        Some((k, n)) => format!("llm-session-{k}-of-{n}"),
        None => "llm-session".into(),
    }
}

type Answer = Result<Completion, Failure>;

/// Recorded exchanges per task, in the order they were asked: prompt, answer, and whether
/// this session's own log holds it (else the replayed session's).
type Recorded = BTreeMap<String, VecDeque<(Vec<Message>, Answer, bool)>>;

/// Who answers, and where the exchanges are recorded.
pub struct Journal {
    /// `None`: `--llm-replay`, every answer comes from the replayed session.
    provider: Option<Arc<dyn Provider>>,
    model: String,
    params: Params,
    writer: Mutex<SessionWriter>,
    /// Answers this session (resumed) or the replayed one already holds.
    recorded: Mutex<Recorded>,
    /// Next call number per task (continues a resumed session's numbering).
    calls: Mutex<BTreeMap<String, u32>>,
}

/// Who answers the prompts.
pub enum Answerer {
    /// A model (`--llm PROFILE`).
    Model(Arc<dyn Provider>),
    /// The answers a recorded forge session holds (`--llm-replay SESSION`).
    Replay(PathBuf),
}

/// What the session is about, for its `meta.json`.
pub struct SessionInfo<'a> {
    pub sessions_root: &'a Path,
    pub out: &'a Path,
    /// `--shard K/N`, if any.
    pub shard: Option<(u32, u32)>,
    pub dataset: DatasetRef,
    pub config: serde_json::Value,
    pub tasks: Vec<String>,
}

impl Journal {
    /// Open the forge's session (resumed when `--out` names one) or create it.
    pub fn open(
        answerer: Answerer,
        params: Params,
        info: SessionInfo<'_>,
    ) -> anyhow::Result<Journal> {
        let mut recorded = Recorded::new();
        let mut calls = BTreeMap::new();
        let (provider, model, kind) = match answerer {
            Answerer::Model(p) => {
                let (model, kind) = (p.model(), p.kind().to_string());
                (Some(p), model, kind)
            }
            Answerer::Replay(from) => {
                let log = SessionLog::open(&from)?;
                read_exchanges(&log, &mut recorded, &mut BTreeMap::new(), false);
                (
                    None,
                    log.meta.model.unwrap_or_else(|| "?".into()),
                    "replay".into(),
                )
            }
        };
        let marker = info.out.join(session_file(info.shard));
        let existing = std::fs::read_to_string(&marker)
            .ok()
            .map(|s| PathBuf::from(s.trim()))
            .filter(|d| d.join(store::META_FILE).is_file());
        let writer = match existing {
            Some(dir) => {
                let resumable = Resumable::open(&dir)?;
                if resumable.log.meta.kind != "forge" {
                    anyhow::bail!(
                        "{}: names session {}, a `{}` session, not a forge's",
                        marker.display(),
                        resumable.log.meta.id,
                        resumable.log.meta.kind
                    );
                }
                let (mut w, log) = resumable.into_writer()?;
                // Its own answers come before the replayed session's (matched by prompt).
                let mut own = Recorded::new();
                read_exchanges(&log, &mut own, &mut calls, true);
                for (task, answers) in own {
                    let queue = recorded.entry(task).or_default();
                    for a in answers.into_iter().rev() {
                        queue.push_front(a);
                    }
                }
                w.append(EventBody::RunResumed {
                    remaining: info.tasks,
                    continues: true,
                })?;
                w
            }
            None => {
                let meta = Meta {
                    schema: SCHEMA,
                    id: new_id("forge", &model),
                    kind: "forge".into(),
                    created: now_rfc3339(),
                    tool_version: env!("CARGO_PKG_VERSION").into(),
                    dataset: info.dataset,
                    model: Some(model.clone()),
                    strategy: Some("forge-llm".into()),
                    source: Some(kind),
                    harness: None,
                    harness_caveat: None,
                };
                std::fs::create_dir_all(info.sessions_root)?;
                let mut w = SessionWriter::create(info.sessions_root, &meta)?;
                w.append(EventBody::RunStarted {
                    tool_version: meta.tool_version.clone(),
                    tasks: info.tasks,
                    samples: 1,
                    config: info.config,
                })?;
                let dir = std::fs::canonicalize(w.dir())?;
                store::write_atomic(&marker, format!("{}\n", dir.display()).as_bytes())?;
                w
            }
        };
        Ok(Journal {
            provider,
            model,
            params,
            writer: Mutex::new(writer),
            recorded: Mutex::new(recorded),
            calls: Mutex::new(calls),
        })
    }

    /// The session's directory.
    pub fn dir(&self) -> PathBuf {
        lock(&self.writer).dir().to_path_buf()
    }

    /// The model's name, as the session records it.
    pub fn model(&self) -> String {
        self.model.clone()
    }

    /// Ask for `messages` on behalf of `task_id` (a recorded answer to the same prompt is
    /// served instead), recording what was sent and what came back. `None` when cancelled.
    pub fn ask(
        &self,
        task_id: &str,
        round: u32,
        messages: Vec<Message>,
        cancel: &AtomicBool,
    ) -> anyhow::Result<Option<Answer>> {
        let recorded = {
            let mut rec = lock(&self.recorded);
            rec.get_mut(task_id).and_then(|q| {
                let at = q.iter().position(|(m, ..)| *m == messages)?;
                q.remove(at).map(|(_, a, own)| (a, own))
            })
        };
        let from_own_log = recorded.as_ref().is_some_and(|r| r.1);
        let answer = match (recorded, &self.provider) {
            (Some((a, _)), _) => a,
            (None, None) => Err(Failure {
                kind: FailureKind::Unavailable,
                message: format!(
                    "the replayed session recorded no answer to this prompt for {task_id}"
                ),
                retries: 0,
                retry_log: Vec::new(),
                latency_s: 0.0,
            }),
            (None, Some(provider)) => {
                let call = Call {
                    task_id: task_id.to_string(),
                    purpose: Purpose::ForgeTests { round },
                    messages: messages.clone(),
                    params: self.params.clone(),
                };
                provider.complete(&call, &mut |_| {}, cancel)
            }
        };
        if matches!(&answer, Err(f) if f.kind == FailureKind::Cancelled) {
            return Ok(None); // says nothing about the model: a rerun asks again
        }
        if from_own_log {
            // Already in this session's log (a resumed forge): not written twice.
            return Ok(Some(answer));
        }
        let call = {
            let mut calls = lock(&self.calls);
            let n = calls.entry(task_id.to_string()).or_insert(0);
            *n += 1;
            *n - 1
        };
        let request = EventBody::LlmRequest {
            task_id: task_id.to_string(),
            sample: 0,
            call,
            purpose: Purpose::ForgeTests { round },
            provider: self.provider.as_ref().map_or("replay", |p| p.kind()).into(),
            model: self.model.clone(),
            messages,
            params: self.params.clone(),
        };
        let response = response_event(task_id, call, &answer);
        let mut w = lock(&self.writer);
        w.append(request)?;
        w.append(response)?;
        Ok(Some(answer))
    }

    /// The forge ended (`cancelled`: stopped before every task was done).
    pub fn finish(&self, cancelled: bool) -> anyhow::Result<()> {
        lock(&self.writer).append(EventBody::RunFinished { cancelled })?;
        Ok(())
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn response_event(task_id: &str, call: u32, answer: &Answer) -> EventBody {
    let (text, usage, finish_reason, latency_s, retries, retry_log, failure) = match answer {
        Ok(c) => (
            c.text.clone(),
            c.usage,
            c.finish_reason.clone(),
            c.latency_s,
            c.retries,
            c.retry_log.clone(),
            None,
        ),
        Err(f) => (
            String::new(),
            None,
            None,
            f.latency_s,
            f.retries,
            f.retry_log.clone(),
            Some(FailureRecord {
                kind: f.kind,
                message: f.message.clone(),
            }),
        ),
    };
    EventBody::LlmResponse {
        task_id: task_id.to_string(),
        sample: 0,
        call,
        text,
        usage,
        finish_reason,
        latency_s,
        retries,
        retry_log,
        failure,
        prompt_changed: false,
    }
}

/// The exchanges of `log` that got an answer (a failed request is asked again), per task in
/// order; `calls` gets each task's next call number.
fn read_exchanges(
    log: &SessionLog,
    out: &mut Recorded,
    calls: &mut BTreeMap<String, u32>,
    own: bool,
) {
    let mut asked: BTreeMap<(String, u32), Vec<Message>> = BTreeMap::new();
    for e in &log.events {
        match &e.body {
            EventBody::LlmRequest {
                task_id,
                call,
                messages,
                ..
            } => {
                asked.insert((task_id.clone(), *call), messages.clone());
                let next = calls.entry(task_id.clone()).or_insert(0);
                *next = (*next).max(call + 1);
            }
            EventBody::LlmResponse {
                task_id,
                call,
                text,
                usage,
                finish_reason,
                failure: None,
                ..
            } => {
                let Some(messages) = asked.remove(&(task_id.clone(), *call)) else {
                    continue;
                };
                let answer = Ok(Completion {
                    text: text.clone(),
                    usage: *usage,
                    finish_reason: finish_reason.clone(),
                    latency_s: 0.0,
                    retries: 0,
                    retry_log: Vec::new(),
                });
                out.entry(task_id.clone())
                    .or_default()
                    .push_back((messages, answer, own));
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// Stands in for the model (the real client is exercised by tests/llm_client.rs and
    /// tests/forge_llm.rs): answers `reply N` and counts the calls.
    struct Counting(AtomicUsize);

    impl Provider for Counting {
        fn kind(&self) -> &'static str {
            "openai"
        }
        fn model(&self) -> String {
            "m".into()
        }
        fn complete(
            &self,
            _: &Call,
            _: &mut dyn FnMut(&str),
            _: &AtomicBool,
        ) -> Result<Completion, Failure> {
            let n = self.0.fetch_add(1, Ordering::SeqCst);
            Ok(Completion {
                text: format!("reply {n}"),
                usage: None,
                finish_reason: None,
                latency_s: 0.0,
                retries: 0,
                retry_log: Vec::new(),
            })
        }
    }

    fn open(root: &Path, out: &Path, answerer: Answerer) -> Journal {
        let info = SessionInfo {
            sessions_root: root,
            out,
            shard: None,
            dataset: DatasetRef {
                origin: "d".into(),
                name: "d".into(),
                tasks: 1,
                digest: "0".into(),
            },
            config: serde_json::Value::Null,
            tasks: vec!["T".into()],
        };
        Journal::open(answerer, Params::default(), info).unwrap()
    }

    fn text(j: &Journal, prompt: &str) -> String {
        let stop = AtomicBool::new(false);
        j.ask("T", 1, vec![Message::user(prompt)], &stop)
            .unwrap()
            .unwrap()
            .unwrap()
            .text
    }

    #[test]
    fn a_resumed_or_replayed_forge_gets_the_recorded_answers_without_asking() {
        let tmp = tempfile::tempdir().unwrap();
        let (root, out) = (tmp.path().join("sessions"), tmp.path().join("out"));
        std::fs::create_dir_all(&out).unwrap();
        let model = Arc::new(Counting(AtomicUsize::new(0)));
        let j = open(&root, &out, Answerer::Model(model.clone()));
        assert_eq!(text(&j, "a"), "reply 0");
        assert_eq!(text(&j, "b"), "reply 1");
        let dir = j.dir();
        drop(j);
        // Resumed in the same --out: the same prompts are answered from the log, in order;
        // a new one is asked.
        let j = open(&root, &out, Answerer::Model(model.clone()));
        assert_eq!(j.dir(), dir);
        assert_eq!(text(&j, "b"), "reply 1");
        assert_eq!(text(&j, "a"), "reply 0");
        assert_eq!(text(&j, "c"), "reply 2");
        assert_eq!(model.0.load(Ordering::SeqCst), 3);
        drop(j);
        let log = SessionLog::open(&dir).unwrap();
        let calls: Vec<u32> = log
            .events
            .iter()
            .filter_map(|e| match &e.body {
                EventBody::LlmRequest { call, .. } => Some(*call),
                _ => None,
            })
            .collect();
        assert_eq!(calls, [0, 1, 2], "nothing recorded twice");
        // Replayed into another --out: no model at all; an unrecorded prompt has no answer.
        let other = tmp.path().join("other");
        std::fs::create_dir_all(&other).unwrap();
        let r = open(&root, &other, Answerer::Replay(dir.clone()));
        assert_ne!(r.dir(), dir);
        assert_eq!(text(&r, "c"), "reply 2");
        let stop = AtomicBool::new(false);
        let missing = r
            .ask("T", 1, vec![Message::user("z")], &stop)
            .unwrap()
            .unwrap();
        assert_eq!(missing.unwrap_err().kind, FailureKind::Unavailable);
        assert_eq!(r.model(), "m");
    }
}
