//! Session directories on disk: `meta.json` + `events.jsonl`, appended and fsynced per event,
//! so a crash (even `kill -9`) loses at most the event being written. The reader tolerates a
//! torn last line and says so; resuming truncates it before appending.
//!
//! `meta.json` also keeps the digests of the session's inputs ([`Inputs`]: dataset, model
//! outputs, effective configuration), so that `--resume` with other inputs is refused with
//! the difference named. Whoever appends holds an exclusive `flock` on `<session>/lock`
//! ([`SessionLock`]) for its whole life: a second writer of the same session is refused at
//! once, and the kernel releases the lock when the holder dies (even by `kill -9`).

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::event::{Event, EventBody};

mod inputs;
mod lock;
pub use inputs::{InputRecord, Inputs, sha256_hex};
pub use lock::SessionLock;

/// The schema this classlab writes and the newest it reads.
pub const SCHEMA: u32 = 1;
pub const META_FILE: &str = "meta.json";
pub const EVENTS_FILE: &str = "events.jsonl";
/// The writer's lock (see [`SessionLock`]); holds the writer's pid, for the message.
pub const LOCK_FILE: &str = "lock";

/// What a session is, written once at its start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    pub schema: u32,
    pub id: String,
    /// `eval` (scoring existing outputs) or `run` (generating with a model).
    pub kind: String,
    /// RFC 3339, UTC.
    pub created: String,
    pub tool_version: String,
    pub dataset: DatasetRef,
    pub model: Option<String>,
    pub strategy: Option<String>,
    /// Where the code came from (a predictions file), if anywhere.
    pub source: Option<String>,
    /// The harness that judged the session's code, `split` or `inproc` (`None`: a session
    /// from before the split harness, judged in-process).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harness: Option<String>,
    /// What the session's verdicts are worth when the harness cannot vouch for them (the
    /// in-process harness: forgeable by code written against it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harness_caveat: Option<String>,
}

impl Meta {
    /// The harness that judged the session: `split` or `inproc` (sessions from before the
    /// split harness ran in-process).
    pub fn harness_name(&self) -> &str {
        self.harness.as_deref().unwrap_or("inproc")
    }

    /// What reports must say about the session's verdicts (`None`: nothing, the split
    /// harness).
    pub fn verdict_caveat(&self) -> Option<&str> {
        (self.harness_name() == "inproc").then(|| {
            self.harness_caveat
                .as_deref()
                .unwrap_or(crate::model::INPROC_CAVEAT)
        })
    }

    /// Whether this session can be resumed as a `kind` session on the dataset with `digest`;
    /// the reason, in words, when not (`what` names the kind: "an evaluation"). The other
    /// inputs are compared by [`Inputs::check_same`].
    pub fn check_resumable(&self, kind: &str, what: &str, digest: &str) -> Result<(), String> {
        if self.kind != kind {
            return Err(format!(
                "session {} is a `{}` session, not {what}",
                self.id, self.kind
            ));
        }
        if self.dataset.digest != digest {
            return Err(format!(
                "session {} was run on a different dataset ({}, digest {}…); the dataset given has digest {}…",
                self.id,
                self.dataset.origin,
                self.dataset
                    .digest
                    .get(..12)
                    .unwrap_or(&self.dataset.digest),
                digest.get(..12).unwrap_or(digest)
            ));
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatasetRef {
    pub origin: String,
    pub name: String,
    pub tasks: usize,
    /// Hex SHA-256 of the dataset file (or of the embedded sample).
    pub digest: String,
}

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
    /// Another process holds the session's writer lock.
    #[error("{message} (lock {path})")]
    Locked { path: String, message: String },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> SessionError + '_ {
    move |source| SessionError::Io {
        path: path.display().to_string(),
        source,
    }
}

pub fn now_ts() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now()).to_string()
}

/// Where sessions live: `--sessions DIR`, else `./sessions` if it exists here, else the XDG
/// data directory.
pub fn sessions_root(flag: Option<&Path>) -> PathBuf {
    if let Some(dir) = flag {
        return dir.to_path_buf();
    }
    let local = PathBuf::from("sessions");
    if local.is_dir() {
        return local;
    }
    directories::ProjectDirs::from("", "", "classlab")
        .map(|d| d.data_dir().join("sessions"))
        .unwrap_or(local)
}

/// A fresh, sortable, unique id: `20261121-203800-eval-<label>-<4 hex>`.
pub fn new_id(kind: &str, label: &str) -> String {
    let now = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    let stamp: String = now
        .chars()
        .filter(|c| c.is_ascii_digit())
        .take(14)
        .collect();
    let (date, time) = stamp.split_at(stamp.len().min(8));
    let label: String = label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    let nonce = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos())
        ^ std::process::id().rotate_left(16);
    format!("{date}-{time}-{kind}-{label}-{:04x}", nonce & 0xffff)
}

/// Write a file so that a crash leaves either the old or the new content.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), SessionError> {
    let tmp = path.with_extension("tmp");
    let mut f = File::create(&tmp).map_err(io_err(&tmp))?;
    f.write_all(bytes).map_err(io_err(&tmp))?;
    f.sync_all().map_err(io_err(&tmp))?;
    fs::rename(&tmp, path).map_err(io_err(path))?;
    if let Some(parent) = path.parent()
        && let Ok(dir) = File::open(parent)
    {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// Appends events to a session, one fsynced line each, holding the session's lock.
pub struct SessionWriter {
    dir: PathBuf,
    file: File,
    next_seq: u64,
    _lock: SessionLock,
}

impl SessionWriter {
    /// Create `root/<meta.id>/` with its meta and an empty event log (no input digests:
    /// see [`SessionWriter::create_with_inputs`]).
    pub fn create(root: &Path, meta: &Meta) -> Result<Self, SessionError> {
        Self::create_inner(root, meta, None)
    }

    /// Create `root/<meta.id>/` with its meta, the digests of its inputs, and an empty log.
    pub fn create_with_inputs(
        root: &Path,
        meta: &Meta,
        inputs: &Inputs,
    ) -> Result<Self, SessionError> {
        Self::create_inner(root, meta, Some(inputs))
    }

    fn create_inner(
        root: &Path,
        meta: &Meta,
        inputs: Option<&Inputs>,
    ) -> Result<Self, SessionError> {
        let dir = root.join(&meta.id);
        fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        let lock = SessionLock::acquire(&dir)?;
        let invalid = |e: serde_json::Error| SessionError::Invalid {
            path: dir.display().to_string(),
            message: e.to_string(),
        };
        let mut value = serde_json::to_value(meta).map_err(invalid)?;
        if let (Some(inputs), Value::Object(map)) = (inputs, &mut value) {
            map.insert(
                "inputs".into(),
                serde_json::to_value(inputs).map_err(invalid)?,
            );
        }
        let bytes = serde_json::to_vec_pretty(&value).map_err(invalid)?;
        write_atomic(&dir.join(META_FILE), &bytes)?;
        let events = dir.join(EVENTS_FILE);
        let file = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(&events)
            .map_err(io_err(&events))?;
        Ok(SessionWriter {
            dir,
            file,
            next_seq: 0,
            _lock: lock,
        })
    }

    /// Reopen a session to append to it: the lock is taken, the log read, a torn last line
    /// cut off, and numbering continues. Returns the writer and what was already there.
    /// To check the session before anything is written, use [`Resumable`].
    pub fn resume(dir: &Path) -> Result<(Self, SessionLog), SessionError> {
        Resumable::open(dir)?.into_writer()
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Append one event and make it durable before returning it.
    pub fn append(&mut self, body: EventBody) -> Result<Event, SessionError> {
        let event = Event {
            seq: self.next_seq,
            ts: now_ts(),
            body,
        };
        let mut line = serde_json::to_vec(&event).map_err(|e| SessionError::Invalid {
            path: self.dir.display().to_string(),
            message: e.to_string(),
        })?;
        line.push(b'\n');
        let path = self.dir.join(EVENTS_FILE);
        // One write call per line: a crash leaves at most this line torn.
        self.file.write_all(&line).map_err(io_err(&path))?;
        self.file.sync_data().map_err(io_err(&path))?;
        self.next_seq += 1;
        Ok(event)
    }
}

/// A session opened to be resumed, not yet written to: its lock is held and its log and
/// input digests read, so the caller can refuse (wrong kind, other inputs) before the log is
/// touched; [`Resumable::into_writer`] then cuts a torn tail and appends.
pub struct Resumable {
    lock: SessionLock,
    pub log: SessionLog,
    /// The digests recorded in `meta.json`; `None` for a session from before digests.
    pub inputs: Option<Inputs>,
}

impl Resumable {
    pub fn open(dir: &Path) -> Result<Resumable, SessionError> {
        // A session at all (no lock file is left in a directory that is not one)…
        read_meta(dir)?;
        // …then the lock, before the log is read: another writer may be appending to it.
        let lock = SessionLock::acquire(dir)?;
        let log = SessionLog::open(dir)?;
        let inputs = read_inputs(dir)?;
        Ok(Resumable { lock, log, inputs })
    }

    /// Record `inputs` in `meta.json` (a session from before digests, resumed now), keeping
    /// every other field as it is.
    pub fn record_inputs(&mut self, inputs: &Inputs) -> Result<(), SessionError> {
        let path = self.log.dir.join(META_FILE);
        let mut value = read_meta_value(&path)?;
        let invalid = |e: serde_json::Error| SessionError::Invalid {
            path: path.display().to_string(),
            message: e.to_string(),
        };
        if let Value::Object(map) = &mut value {
            map.insert(
                "inputs".into(),
                serde_json::to_value(inputs).map_err(invalid)?,
            );
        }
        let bytes = serde_json::to_vec_pretty(&value).map_err(invalid)?;
        write_atomic(&path, &bytes)?;
        self.inputs = Some(inputs.clone());
        Ok(())
    }

    /// Start appending: a torn last line is cut off and numbering continues.
    pub fn into_writer(self) -> Result<(SessionWriter, SessionLog), SessionError> {
        let Resumable { lock, log, .. } = self;
        let dir = log.dir.clone();
        let events = dir.join(EVENTS_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&events)
            .map_err(io_err(&events))?;
        file.set_len(log.valid_bytes).map_err(io_err(&events))?;
        file.seek(SeekFrom::End(0)).map_err(io_err(&events))?;
        file.sync_all().map_err(io_err(&events))?;
        let next_seq = log.events.last().map_or(0, |e| e.seq + 1);
        Ok((
            SessionWriter {
                dir,
                file,
                next_seq,
                _lock: lock,
            },
            log,
        ))
    }
}

/// A session as read back.
#[derive(Debug, Clone)]
pub struct SessionLog {
    pub dir: PathBuf,
    pub meta: Meta,
    pub events: Vec<Event>,
    /// Lines that could not be used, each with its line number; a torn tail is one of them.
    pub problems: Vec<String>,
    /// Length of the log up to the last complete, valid line.
    pub valid_bytes: u64,
}

impl SessionLog {
    pub fn open(dir: &Path) -> Result<Self, SessionError> {
        let meta = read_meta(dir)?;
        let path = dir.join(EVENTS_FILE);
        let file = File::open(&path).map_err(io_err(&path))?;
        let mut reader = BufReader::new(file);
        let mut events = Vec::new();
        let mut problems = Vec::new();
        let mut valid_bytes = 0u64;
        let mut offset = 0u64;
        let mut buf = Vec::new();
        let mut line_no = 0usize;
        loop {
            buf.clear();
            let n = reader.read_until(b'\n', &mut buf).map_err(io_err(&path))?;
            if n == 0 {
                break;
            }
            line_no += 1;
            offset += n as u64;
            let complete = buf.ends_with(b"\n");
            let text = String::from_utf8_lossy(&buf);
            let text = text.trim();
            if text.is_empty() {
                if complete {
                    valid_bytes = offset;
                }
                continue;
            }
            if !complete {
                // An event counts only once its newline is written (the writer's one call).
                problems.push(format!(
                    "{}: line {line_no}: torn last line ({n} bytes): the run stopped while writing it; ignored",
                    path.display()
                ));
                break;
            }
            match serde_json::from_str::<Event>(text) {
                Ok(event) => events.push(event),
                Err(e) => {
                    let kind = serde_json::from_str::<serde_json::Value>(text)
                        .ok()
                        .and_then(|v| v.get("kind").and_then(|k| k.as_str()).map(String::from));
                    problems.push(match kind {
                        Some(kind) => format!(
                            "{}: line {line_no}: event `{kind}` not understood ({e}); skipped",
                            path.display()
                        ),
                        None => format!(
                            "{}: line {line_no}: not an event ({e}); skipped",
                            path.display()
                        ),
                    });
                }
            }
            valid_bytes = offset;
        }
        Ok(SessionLog {
            dir: dir.to_path_buf(),
            meta,
            events,
            problems,
            valid_bytes,
        })
    }
}

/// `meta.json` as JSON, its schema checked.
fn read_meta_value(path: &Path) -> Result<Value, SessionError> {
    let text = fs::read_to_string(path).map_err(io_err(path))?;
    let value: Value = serde_json::from_str(&text).map_err(|e| SessionError::Invalid {
        path: path.display().to_string(),
        message: format!(
            "invalid JSON at line {} column {}: {e}",
            e.line(),
            e.column()
        ),
    })?;
    match value.get("schema").and_then(|s| s.as_u64()) {
        Some(s) if s <= SCHEMA as u64 => Ok(value),
        Some(s) => Err(SessionError::Invalid {
            path: path.display().to_string(),
            message: format!(
                "session schema {s} is newer than this classlab understands ({SCHEMA}); upgrade classlab"
            ),
        }),
        None => Err(SessionError::Invalid {
            path: path.display().to_string(),
            message: "no `schema` field: not a classlab session".into(),
        }),
    }
}

pub fn read_meta(dir: &Path) -> Result<Meta, SessionError> {
    let path = dir.join(META_FILE);
    let value = read_meta_value(&path)?;
    serde_json::from_value(value).map_err(|e| SessionError::Invalid {
        path: path.display().to_string(),
        message: e.to_string(),
    })
}

/// The input digests `meta.json` keeps; `None` for a session written before digests.
pub fn read_inputs(dir: &Path) -> Result<Option<Inputs>, SessionError> {
    let path = dir.join(META_FILE);
    let mut value = read_meta_value(&path)?;
    match value.get_mut("inputs").map(Value::take) {
        None | Some(Value::Null) => Ok(None),
        Some(inputs) => {
            serde_json::from_value(inputs)
                .map(Some)
                .map_err(|e| SessionError::Invalid {
                    path: path.display().to_string(),
                    message: format!("`inputs`: {e}"),
                })
        }
    }
}

/// Every session below `root`, newest first (ids sort by time). Unreadable ones are skipped.
pub fn list(root: &Path) -> Vec<(PathBuf, Meta)> {
    let Ok(entries) = fs::read_dir(root) else {
        return Vec::new();
    };
    let mut out: Vec<(PathBuf, Meta)> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join(META_FILE).is_file())
        .filter_map(|p| read_meta(&p).ok().map(|m| (p, m)))
        .collect();
    out.sort_by(|a, b| b.1.id.cmp(&a.1.id));
    out
}

/// Delete a session (`classlab sessions rm`, `d` in the TUI): its whole directory. A
/// directory that is no session is refused, and so is a session another process is writing
/// (its lock is taken first, and held until the directory is gone).
pub fn remove(dir: &Path) -> Result<(), SessionError> {
    if !dir.join(META_FILE).is_file() {
        return Err(SessionError::Invalid {
            path: dir.display().to_string(),
            message: format!("not a session (no {META_FILE}); nothing deleted"),
        });
    }
    let lock = SessionLock::acquire(dir)?;
    fs::remove_dir_all(dir).map_err(io_err(dir))?;
    drop(lock);
    Ok(())
}

#[cfg(test)]
mod tests;
