//! The digests of a session's inputs (dataset, model outputs, effective configuration),
//! kept in `meta.json` so that a resume with other inputs is refused with the difference named.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// One input of a session, as it was when the session started.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputRecord {
    /// Where it came from: a file or directory as given, or `None` (the configuration).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Hex SHA-256 of its content.
    pub sha256: String,
    /// What was digested, when it is small enough to keep (the configuration): a refusal
    /// can then name the setting that changed, not only the digest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Value>,
}

impl InputRecord {
    /// A file (or dataset) whose content digest is already known.
    pub fn file(path: impl Into<String>, sha256: impl Into<String>) -> Self {
        InputRecord {
            path: Some(path.into()),
            sha256: sha256.into(),
            values: None,
        }
    }

    /// A configuration: the digest of its canonical JSON (keys sorted), the values kept.
    pub fn config(values: Value) -> Self {
        let canonical = canonical_json(&values);
        InputRecord {
            path: None,
            sha256: sha256_hex(canonical.to_string().as_bytes()),
            values: Some(canonical),
        }
    }
}

/// `value` with every object's keys sorted, so that equal settings digest equally whatever
/// order they were written in.
fn canonical_json(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), canonical_json(&map[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical_json).collect()),
        other => other.clone(),
    }
}

/// The digests of everything a session's behaviour depends on, kept in `meta.json` under
/// `inputs`. Sessions written before digests existed have none (see [`read_inputs`](super::read_inputs)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inputs {
    /// The dataset: its origin and the digest of its tasks (as `meta.dataset`).
    pub dataset: InputRecord,
    /// The model outputs: the predictions file an evaluation scores, or the session a
    /// `--provider replay` run serves answers from (its event log). `None`: a model or the
    /// dataset's reference answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outputs: Option<InputRecord>,
    /// The effective configuration: interpreter, limits, thresholds, strategy, endpoint and
    /// model, … (what the session's results depend on; not `--jobs` or streaming).
    pub config: InputRecord,
    /// Set (RFC 3339) when these digests were first recorded on resuming a session written
    /// before digests existed: they describe that resume's inputs, not the session's start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded_on_resume: Option<String>,
}

impl Inputs {
    /// Whether inputs `now` are the ones this session was started with (`self`); when not,
    /// every difference in words: which input, the old and new digests and paths, and for
    /// the configuration which settings changed. `outputs_name` names the model outputs'
    /// flag for the message (`--predictions`, `--from`).
    pub fn check_same(&self, id: &str, now: &Inputs, outputs_name: &str) -> Result<(), String> {
        let mut diffs = Vec::new();
        let pairs = [
            ("dataset", Some(&self.dataset), Some(&now.dataset)),
            (outputs_name, self.outputs.as_ref(), now.outputs.as_ref()),
            ("configuration", Some(&self.config), Some(&now.config)),
        ];
        for (name, old, new) in pairs {
            if let Some(d) = difference(name, old, new) {
                diffs.push(d);
            }
        }
        if diffs.is_empty() {
            return Ok(());
        }
        Err(format!(
            "session {id} was started with other inputs, and resuming would mix their results: \
             {}. Resume with the session's own inputs, or start a new session",
            diffs.join("; ")
        ))
    }
}

/// `path (sha256 …)`, or `sha256 …` for an input without a path.
fn shown(r: &InputRecord) -> String {
    match &r.path {
        Some(p) => format!("{p} (sha256 {})", r.sha256),
        None => format!("sha256 {}", r.sha256),
    }
}

/// One input's difference in words, `None` when it is the same.
fn difference(name: &str, old: Option<&InputRecord>, new: Option<&InputRecord>) -> Option<String> {
    match (old, new) {
        (None, None) => None,
        (Some(o), Some(n)) if o.sha256 == n.sha256 => None,
        (Some(o), Some(n)) => {
            let settings = match (&o.values, &n.values) {
                (Some(Value::Object(a)), Some(Value::Object(b))) => {
                    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
                    keys.sort();
                    keys.dedup();
                    let unset = Value::String("unset".into());
                    let changed: Vec<String> = keys
                        .into_iter()
                        .filter(|k| a.get(*k) != b.get(*k))
                        .map(|k| {
                            let was = a.get(k).unwrap_or(&unset);
                            let now = b.get(k).unwrap_or(&unset);
                            format!("{k} {was} → {now}")
                        })
                        .collect();
                    format!(" ({})", changed.join(", "))
                }
                _ => String::new(),
            };
            Some(format!(
                "{name} differs{settings}: started with {}, given {}",
                shown(o),
                shown(n)
            ))
        }
        (Some(o), None) => Some(format!("{name}: started with {}, none given", shown(o))),
        (None, Some(n)) => Some(format!("{name}: started without any, given {}", shown(n))),
    }
}
