//! The providers a run can use besides a model: `reference` answers with the dataset's own
//! code and graph (a self-check of tasks and pipeline, labelled "reference" everywhere), and
//! `replay` serves the answers a session recorded, in order, flagging prompts that changed.
//! [`build`] makes any of the three from what the user chose.

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use serde_json::json;

use crate::analysis::{self, parse::parse_module};
use crate::config::Config;
use crate::dataset::Dataset;
use crate::llm::{Call, Completion, Failure, FailureKind, Message, Provider, Purpose};
use crate::session::{EventBody, SessionLog};

/// What the user chose (CLI flags or the new-run dialog).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct ProviderChoice {
    /// `openai` | `reference` | `replay`.
    pub kind: String,
    /// A config profile name (`[endpoints.NAME]`).
    pub endpoint: Option<String>,
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub api_key_env: Option<String>,
    /// The session `replay` serves answers from.
    pub replay_from: Option<PathBuf>,
}

pub const KINDS: [&str; 3] = ["openai", "reference", "replay"];

/// The client of an OpenAI-compatible endpoint as `flags` and the config's profiles say.
pub fn openai(
    flags: &crate::llm::endpoint::EndpointFlags,
    config: &Config,
    config_path: &str,
) -> Result<Arc<dyn Provider>, String> {
    let endpoint =
        crate::llm::endpoint::resolve(config, config_path, flags).map_err(|e| e.to_string())?;
    let client = crate::llm::client::OpenAiClient::new(endpoint).map_err(|e| e.to_string())?;
    Ok(Arc::new(client))
}

/// Build the chosen provider. `config` holds the endpoint profiles (read once at the edge;
/// `config_path` names it in messages). Errors are whole sentences for the user.
pub fn build(
    choice: &ProviderChoice,
    dataset: &Dataset,
    config: &Config,
    config_path: &str,
) -> Result<Arc<dyn Provider>, String> {
    match choice.kind.as_str() {
        "openai" => openai(
            &crate::llm::endpoint::EndpointFlags {
                endpoint: choice.endpoint.clone(),
                base_url: choice.base_url.clone(),
                model: choice.model.clone(),
                api_key_env: choice.api_key_env.clone(),
            },
            config,
            config_path,
        ),
        "reference" => Ok(Arc::new(Reference::new(dataset))),
        "replay" => {
            let from = choice
                .replay_from
                .as_ref()
                .ok_or("--provider replay needs --from <session>")?;
            Ok(Arc::new(Replay::open(from)?))
        }
        other => Err(format!(
            "unknown provider `{other}` (expected {})",
            KINDS.join(", ")
        )),
    }
}

/// The dataset's answers for one task.
struct RefTask {
    solution: String,
    /// Method name → its reference source (decorators included).
    methods: BTreeMap<String, String>,
    /// The dependency-analysis answer: the extracted graph and a topological order.
    dependencies: String,
}

/// Answers with the reference solution: holistic gets the class, a method its reference
/// code, dependency analysis the extracted ground truth, a repair the same reference.
pub struct Reference {
    tasks: BTreeMap<String, RefTask>,
}

impl Reference {
    pub fn new(dataset: &Dataset) -> Reference {
        let tasks = dataset
            .tasks
            .iter()
            .map(|task| {
                let module = parse_module(&task.solution);
                let methods: BTreeMap<String, String> = module
                    .class(&task.class_name)
                    .map(|c| {
                        c.methods
                            .iter()
                            .filter_map(|m| {
                                let src = task.solution.get(m.start_byte..m.end_byte)?;
                                Some((
                                    m.name.clone(),
                                    dedent_def(src, &task.solution, m.start_byte),
                                ))
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                let analysis = analysis::analyze_task(task);
                // Methods of the reference that are neither targets nor in the skeleton
                // (ClassEval_25, _49): every method answer brings them along, as a model
                // adds the helpers it needs.
                let in_skeleton = parse_module(&task.skeleton);
                let extras: Vec<String> = methods
                    .iter()
                    .filter(|(name, _)| {
                        name.as_str() != "__init__"
                            && task.method(name).is_none()
                            && in_skeleton
                                .class(&task.class_name)
                                .is_none_or(|c| c.method(name).is_none())
                    })
                    .map(|(_, src)| src.clone())
                    .collect();
                let methods = methods
                    .iter()
                    .map(|(name, src)| {
                        let mut answer = src.clone();
                        if task.method(name).is_some() {
                            for extra in &extras {
                                answer = format!("{}\n\n{}", answer.trim_end(), extra);
                            }
                        }
                        (name.clone(), answer)
                    })
                    .collect();
                let graph = analysis.graph;
                let dependencies = json!({
                    "dependencies": graph.deps,
                    "order": graph.topo_order(),
                });
                let text = serde_json::to_string_pretty(&dependencies).unwrap_or_default();
                (
                    task.id.clone(),
                    RefTask {
                        solution: task.solution.clone(),
                        methods,
                        dependencies: format!("```json\n{text}\n```"),
                    },
                )
            })
            .collect();
        Reference { tasks }
    }

    fn answer(&self, call: &Call) -> Option<String> {
        let task = self.tasks.get(&call.task_id)?;
        let fenced = |code: &str| format!("```python\n{}\n```", code.trim_end());
        Some(match &call.purpose {
            Purpose::DependencyAnalysis => task.dependencies.clone(),
            Purpose::Holistic => fenced(&task.solution),
            Purpose::Method { method } => fenced(task.methods.get(method)?),
            Purpose::Repair { method, .. } => format!(
                "### Failure analysis\nThe reference implementation is kept unchanged.\n\n\
                 ### Code region\nNone.\n\n### Repair plan\nNo change.\n\n### Patch\n{}",
                fenced(task.methods.get(method)?)
            ),
            Purpose::ForgeTests { .. } => return None,
        })
    }
}

/// A method's source with its first line's indentation removed from every line, so it reads
/// as a top-level definition (`start` is where the definition begins in `module`).
fn dedent_def(src: &str, module: &str, start: usize) -> String {
    let line_start = module[..start].rfind('\n').map_or(0, |i| i + 1);
    let indent = &module[line_start..start];
    if !indent.chars().all(char::is_whitespace) || indent.is_empty() {
        return src.to_string();
    }
    src.split_inclusive('\n')
        .map(|l| l.strip_prefix(indent).unwrap_or(l))
        .collect()
}

impl Provider for Reference {
    fn kind(&self) -> &'static str {
        "reference"
    }
    fn model(&self) -> String {
        "reference".into()
    }
    fn complete(
        &self,
        call: &Call,
        on_delta: &mut dyn FnMut(&str),
        _cancel: &AtomicBool,
    ) -> Result<Completion, Failure> {
        let text = self.answer(call).ok_or_else(|| Failure {
            kind: FailureKind::Unavailable,
            message: format!(
                "the reference has no answer for {:?} of {}",
                call.purpose, call.task_id
            ),
            retries: 0,
            retry_log: Vec::new(),
            latency_s: 0.0,
        })?;
        on_delta(&text);
        Ok(Completion {
            text,
            usage: None,
            finish_reason: Some("stop".into()),
            latency_s: 0.0,
            retries: 0,
            retry_log: Vec::new(),
        })
    }
}

/// One recorded exchange.
struct Recorded {
    messages: Vec<Message>,
    answer: Result<Completion, Failure>,
}

/// Serves a session's recorded answers per task, in the order they were asked.
pub struct Replay {
    model: String,
    source: String,
    queues: Mutex<BTreeMap<String, VecDeque<Recorded>>>,
}

impl Replay {
    pub fn open(dir: &std::path::Path) -> Result<Replay, String> {
        let log = SessionLog::open(dir).map_err(|e| e.to_string())?;
        if log.meta.kind != "run" {
            return Err(format!(
                "{}: a `{}` session has no model answers to replay",
                dir.display(),
                log.meta.kind
            ));
        }
        let mut requests: BTreeMap<(String, u32), Vec<Message>> = BTreeMap::new();
        let mut queues: BTreeMap<String, VecDeque<Recorded>> = BTreeMap::new();
        for e in &log.events {
            match &e.body {
                EventBody::LlmRequest {
                    task_id,
                    sample: 0,
                    call,
                    messages,
                    ..
                } => {
                    requests.insert((task_id.clone(), *call), messages.clone());
                }
                EventBody::LlmResponse {
                    task_id,
                    sample: 0,
                    call,
                    text,
                    usage,
                    finish_reason,
                    failure,
                    ..
                } => {
                    let messages = requests
                        .remove(&(task_id.clone(), *call))
                        .unwrap_or_default();
                    let answer = match failure {
                        None => Ok(Completion {
                            text: text.clone(),
                            usage: *usage,
                            finish_reason: finish_reason.clone(),
                            latency_s: 0.0,
                            retries: 0,
                            retry_log: Vec::new(),
                        }),
                        Some(f) => Err(Failure {
                            kind: f.kind,
                            message: format!("(replayed) {}", f.message),
                            retries: 0,
                            retry_log: Vec::new(),
                            latency_s: 0.0,
                        }),
                    };
                    queues
                        .entry(task_id.clone())
                        .or_default()
                        .push_back(Recorded { messages, answer });
                }
                _ => {}
            }
        }
        Ok(Replay {
            model: log.meta.model.unwrap_or_else(|| "?".into()),
            source: log.meta.id,
            queues: Mutex::new(queues),
        })
    }

    /// The session the answers come from.
    pub fn source(&self) -> &str {
        &self.source
    }
}

impl Provider for Replay {
    fn kind(&self) -> &'static str {
        "replay"
    }
    fn model(&self) -> String {
        self.model.clone()
    }
    fn prompt_differs(&self, call: &Call) -> Option<String> {
        let queues = self.queues.lock().unwrap_or_else(|e| e.into_inner());
        let next = queues.get(&call.task_id)?.front()?;
        (next.messages != call.messages).then(|| {
            format!(
                "the prompt differs from the one recorded in {} for {}",
                self.source, call.task_id
            )
        })
    }
    fn complete(
        &self,
        call: &Call,
        on_delta: &mut dyn FnMut(&str),
        _cancel: &AtomicBool,
    ) -> Result<Completion, Failure> {
        let next = self
            .queues
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_mut(&call.task_id)
            .and_then(VecDeque::pop_front);
        let Some(recorded) = next else {
            return Err(Failure {
                kind: FailureKind::Unavailable,
                message: format!(
                    "{} recorded no further answer for {}",
                    self.source, call.task_id
                ),
                retries: 0,
                retry_log: Vec::new(),
                latency_s: 0.0,
            });
        };
        if let Ok(c) = &recorded.answer {
            on_delta(&c.text);
        }
        recorded.answer
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::Params;

    fn call(task: &str, purpose: Purpose) -> Call {
        Call {
            task_id: task.into(),
            purpose,
            messages: vec![Message::user("x")],
            params: Params::default(),
        }
    }

    #[test]
    fn reference_answers_each_purpose_from_the_dataset() {
        let dataset = crate::dataset::sample();
        let task = &dataset.tasks[0];
        let reference = Reference::new(&dataset);
        let stop = AtomicBool::new(false);
        let ask = |p| reference.complete(&call(&task.id, p), &mut |_| {}, &stop);
        let holistic = ask(Purpose::Holistic).unwrap().text;
        assert!(holistic.contains(task.solution.trim()));
        let deps = ask(Purpose::DependencyAnalysis).unwrap().text;
        assert!(deps.contains("\"order\""), "{deps}");
        let m = &task.methods[0].name;
        let method = ask(Purpose::Method { method: m.clone() }).unwrap().text;
        assert!(method.contains(&format!("def {m}(")), "{method}");
        assert!(
            method
                .lines()
                .nth(1)
                .is_some_and(|l| !l.starts_with("    def"))
        );
        let missing = ask(Purpose::Method {
            method: "no_such".into(),
        });
        assert_eq!(missing.unwrap_err().kind, FailureKind::Unavailable);
        assert_eq!(reference.model(), "reference");
    }

    #[test]
    fn dedent_strips_the_class_indentation() {
        let module = "class A:\n    @staticmethod\n    def f():\n        return 1\n";
        let start = module.find("@").unwrap();
        let end = module.len();
        assert_eq!(
            dedent_def(&module[start..end], module, start),
            "@staticmethod\ndef f():\n    return 1\n"
        );
    }
}
