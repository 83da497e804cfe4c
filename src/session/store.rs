//! Session directories on disk: `meta.json` + `events.jsonl`, appended and fsynced per event,
//! so a crash (even `kill -9`) loses at most the event being written. The reader tolerates a
//! torn last line and says so; resuming truncates it before appending.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::event::{Event, EventBody};

/// The schema this classlab writes and the newest it reads.
pub const SCHEMA: u32 = 1;
pub const META_FILE: &str = "meta.json";
pub const EVENTS_FILE: &str = "events.jsonl";

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
}

impl Meta {
    /// Whether this session can be resumed as a `kind` session on the dataset with `digest`;
    /// the reason, in words, when not (`what` names the kind: "an evaluation").
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

/// Appends events to a session, one fsynced line each.
pub struct SessionWriter {
    dir: PathBuf,
    file: File,
    next_seq: u64,
}

impl SessionWriter {
    /// Create `root/<meta.id>/` with its meta and an empty event log.
    pub fn create(root: &Path, meta: &Meta) -> Result<Self, SessionError> {
        let dir = root.join(&meta.id);
        fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        let bytes = serde_json::to_vec_pretty(meta).map_err(|e| SessionError::Invalid {
            path: dir.display().to_string(),
            message: e.to_string(),
        })?;
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
        })
    }

    /// Reopen a session to append to it: the log is read, a torn last line is cut off, and
    /// numbering continues. Returns the writer and what was already there.
    pub fn resume(dir: &Path) -> Result<(Self, SessionLog), SessionError> {
        let log = SessionLog::open(dir)?;
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
                dir: dir.to_path_buf(),
                file,
                next_seq,
            },
            log,
        ))
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

pub fn read_meta(dir: &Path) -> Result<Meta, SessionError> {
    let path = dir.join(META_FILE);
    let text = fs::read_to_string(&path).map_err(io_err(&path))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| SessionError::Invalid {
            path: path.display().to_string(),
            message: format!(
                "invalid JSON at line {} column {}: {e}",
                e.line(),
                e.column()
            ),
        })?;
    match value.get("schema").and_then(|s| s.as_u64()) {
        Some(s) if s <= SCHEMA as u64 => {}
        Some(s) => {
            return Err(SessionError::Invalid {
                path: path.display().to_string(),
                message: format!(
                    "session schema {s} is newer than this classlab understands ({SCHEMA}); upgrade classlab"
                ),
            });
        }
        None => {
            return Err(SessionError::Invalid {
                path: path.display().to_string(),
                message: "no `schema` field: not a classlab session".into(),
            });
        }
    }
    serde_json::from_value(value).map_err(|e| SessionError::Invalid {
        path: path.display().to_string(),
        message: e.to_string(),
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(id: &str) -> Meta {
        Meta {
            schema: SCHEMA,
            id: id.into(),
            kind: "eval".into(),
            created: now_rfc3339(),
            tool_version: "test".into(),
            dataset: DatasetRef {
                origin: "x".into(),
                name: "x".into(),
                tasks: 1,
                digest: "0".into(),
            },
            model: None,
            strategy: None,
            source: None,
        }
    }

    fn started(task: &str) -> EventBody {
        EventBody::TaskStarted {
            task_id: task.into(),
            sample: 0,
        }
    }

    #[test]
    fn write_read_resume_with_a_torn_tail() {
        let root = tempfile::tempdir().unwrap();
        let mut w = SessionWriter::create(root.path(), &meta("s1")).unwrap();
        w.append(started("A")).unwrap();
        w.append(started("B")).unwrap();
        let dir = w.dir().to_path_buf();
        drop(w);
        // A crash in the middle of a write leaves half a line.
        let mut f = OpenOptions::new()
            .append(true)
            .open(dir.join(EVENTS_FILE))
            .unwrap();
        f.write_all(br#"{"seq":2,"ts":1.0,"kind":"task_sta"#)
            .unwrap();
        drop(f);
        let log = SessionLog::open(&dir).unwrap();
        assert_eq!(log.events.len(), 2);
        assert_eq!(log.problems.len(), 1);
        assert!(
            log.problems[0].contains("torn last line"),
            "{:?}",
            log.problems
        );
        // Resuming cuts the torn line and continues the numbering without a gap.
        let (mut w, log) = SessionWriter::resume(&dir).unwrap();
        assert_eq!(log.events.len(), 2);
        w.append(started("C")).unwrap();
        let log = SessionLog::open(&dir).unwrap();
        assert!(log.problems.is_empty(), "{:?}", log.problems);
        let seqs: Vec<u64> = log.events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [0, 1, 2]);
    }

    #[test]
    fn unknown_kinds_and_garbage_are_reported_not_fatal() {
        let root = tempfile::tempdir().unwrap();
        let mut w = SessionWriter::create(root.path(), &meta("s2")).unwrap();
        w.append(started("A")).unwrap();
        let dir = w.dir().to_path_buf();
        let mut f = OpenOptions::new()
            .append(true)
            .open(dir.join(EVENTS_FILE))
            .unwrap();
        f.write_all(b"{\"seq\":1,\"ts\":1.0,\"kind\":\"from_the_future\"}\nnot json\n")
            .unwrap();
        drop(f);
        w.append(started("B")).unwrap();
        let log = SessionLog::open(&dir).unwrap();
        assert_eq!(log.events.len(), 2);
        assert_eq!(log.problems.len(), 2);
        assert!(log.problems[0].contains("from_the_future"));
    }

    #[test]
    fn newer_schema_is_refused_clearly() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("s3");
        fs::create_dir(&dir).unwrap();
        let mut m = serde_json::to_value(meta("s3")).unwrap();
        m["schema"] = 99.into();
        fs::write(dir.join(META_FILE), m.to_string()).unwrap();
        let err = read_meta(&dir).unwrap_err().to_string();
        assert!(
            err.contains("schema 99") && err.contains("meta.json"),
            "{err}"
        );
    }

    #[test]
    fn ids_are_unique_and_safe() {
        let a = new_id("eval", "GPT-4 / turbo");
        assert!(a.contains("-eval-GPT-4___turbo-"), "{a}");
        assert!(!a.contains('/'));
    }
}
