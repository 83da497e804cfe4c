//! The curation store: one JSON file of review decisions beside the dataset.
//!
//! Every change is a read-modify-write under an exclusive advisory lock on `<store>.lock`
//! (`flock`, through std's `File::lock`), so two classlab processes never lose each other's
//! decisions; the write is atomic (temp file in the same directory, fsync, rename, fsync of the
//! directory), so a crash at any moment leaves the previous or the new file, never a torn one.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::review::TaskReview;

pub const STORE_FORMAT: &str = "classlab-curation";
/// The schema this classlab writes and the newest it reads.
pub const STORE_SCHEMA: u32 = 1;
/// File name of the bundled sample's store (in the sessions directory).
pub const SAMPLE_STORE: &str = "sample.curation.json";

/// The whole store file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CurationStore {
    pub format: String,
    pub schema: u32,
    /// The dataset these decisions are about (where it was loaded from).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset: Option<String>,
    /// Task id → its record.
    #[serde(default)]
    pub tasks: BTreeMap<String, TaskRecord>,
}

impl Default for CurationStore {
    fn default() -> Self {
        CurationStore {
            format: STORE_FORMAT.into(),
            schema: STORE_SCHEMA,
            dataset: None,
            tasks: BTreeMap::new(),
        }
    }
}

impl CurationStore {
    /// A task's review, or a fresh (unreviewed) one.
    pub fn review(&self, task_id: &str) -> TaskReview {
        self.tasks
            .get(task_id)
            .map(|r| r.review.clone())
            .unwrap_or_default()
    }
}

/// Everything kept about one task.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    #[serde(flatten)]
    pub review: TaskReview,
    /// Digest of the dataset's task when it was first edited: tells when the dataset changed
    /// under the edits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_digest: Option<String>,
    /// The last validation of the task (written by `classlab validate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation: Option<ValidationRecord>,
}

/// The outcome of validating a task: the reference against all its tests, twice. Everything
/// after `summary` came later: a store written before reads with it empty.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ValidationRecord {
    /// RFC 3339.
    pub when: String,
    /// Digest of the task (with its edits) that was validated.
    pub task_digest: String,
    pub passed: bool,
    /// What failed, in a line, when it did not pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The reference's private tests passed in both runs, of all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private: Option<TestCount>,
    /// The reference's public tests (of every method) passed in both runs, of all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public: Option<TestCount>,
    /// Line coverage of the class by the private tests, in percent (`None`: not measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_coverage: Option<f64>,
    /// Each target method's line coverage by its own public tests, in percent (`None`: not
    /// measured, or no public tests).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub method_coverage: BTreeMap<String, Option<f64>>,
    /// Keys (`CODE` or `CODE:method`) of the findings validation made (T5, T8, T9, T11, I2),
    /// each once, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<String>,
    /// What could not be measured, and why (e.g. coverage.py not importable).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Tests passed, of all.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestCount {
    pub passed: usize,
    pub total: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
    #[error("{path}:{line}:{column}: invalid curation store: {message}")]
    Json {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Where a dataset's decisions live: `--store`; else (the bundled sample)
/// `sample.curation.json` in the sessions directory; else a store already started beside the
/// dataset by an older classlab (`<dataset>.curation.json`, still honoured); else classlab's
/// own data directory, keyed by the dataset's digest ([`data_store_path`]) — never a new file
/// beside a dataset that may be shared or read-only.
pub fn default_path(
    store: Option<&Path>,
    dataset: Option<&Path>,
    digest: &str,
    sessions: Option<&Path>,
) -> PathBuf {
    if let Some(store) = store {
        return store.to_path_buf();
    }
    match dataset {
        Some(path) => {
            let legacy = beside_dataset(path);
            if legacy.is_file() {
                legacy
            } else {
                data_store_path(path, digest)
            }
        }
        None => crate::session::sessions_root(sessions).join(SAMPLE_STORE),
    }
}

/// The store an older classlab kept beside the dataset (a folder dataset, RealClassEval, had
/// it beside the folder).
pub fn beside_dataset(path: &Path) -> PathBuf {
    let trimmed = path.components().as_path();
    let mut name = trimmed
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_else(|| "dataset".into());
    name.push(".curation.json");
    trimmed.with_file_name(name)
}

/// `<data dir>/curation/<dataset file name>-<first 16 hex digits of its digest>.curation.json`
/// where the data directory is the XDG one (`$XDG_DATA_HOME/classlab`, by default
/// `~/.local/share/classlab`): the same tasks find the same store from any copy or path.
pub fn data_store_path(dataset: &Path, digest: &str) -> PathBuf {
    let name = dataset
        .components()
        .as_path()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "dataset".into());
    let key: String = digest.chars().take(16).collect();
    data_dir()
        .join("curation")
        .join(format!("{name}-{key}.curation.json"))
}

/// classlab's XDG data directory (`./.classlab` when no home directory is known).
fn data_dir() -> PathBuf {
    directories::ProjectDirs::from("", "", "classlab")
        .map(|d| d.data_dir().to_path_buf())
        .unwrap_or_else(|| PathBuf::from(".classlab"))
}

/// Parse a store's text, naming the file, and the line and column of a syntax error.
pub fn parse(path: &Path, text: &str) -> Result<CurationStore, StoreError> {
    let shown = path.display().to_string();
    let json_err = |e: serde_json::Error| {
        let text = e.to_string();
        let message = text
            .rfind(" at line ")
            .map_or(text.clone(), |cut| text[..cut].to_string());
        StoreError::Json {
            path: shown.clone(),
            line: e.line(),
            column: e.column(),
            message,
        }
    };
    // The header first, so a store from a newer classlab is refused for what it is rather
    // than for a field this one does not know.
    #[derive(Deserialize)]
    struct Header {
        format: Option<String>,
        schema: Option<u64>,
    }
    let header: Header = serde_json::from_str(text).map_err(json_err)?;
    if header.format.as_deref() != Some(STORE_FORMAT) {
        return Err(StoreError::Invalid {
            path: shown,
            message: format!("not a curation store (field `format` is not \"{STORE_FORMAT}\")"),
        });
    }
    match header.schema {
        Some(v) if v <= u64::from(STORE_SCHEMA) => {}
        Some(v) => {
            return Err(StoreError::Invalid {
                path: shown,
                message: format!(
                    "curation store schema {v} is newer than this classlab understands ({STORE_SCHEMA}); upgrade classlab"
                ),
            });
        }
        None => {
            return Err(StoreError::Invalid {
                path: shown,
                message: "field `schema`: missing or not a whole number".into(),
            });
        }
    }
    serde_json::from_str(text).map_err(json_err)
}

/// Read the store; a missing file is an empty store.
pub fn load(path: &Path) -> Result<CurationStore, StoreError> {
    match fs::read(path) {
        Ok(bytes) => {
            let text = String::from_utf8(bytes).map_err(|e| StoreError::Invalid {
                path: path.display().to_string(),
                message: format!(
                    "not UTF-8 text (invalid byte at offset {})",
                    e.utf8_error().valid_up_to()
                ),
            })?;
            parse(path, &text)
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(CurationStore::default()),
        Err(e) => Err(io_err(path)(e)),
    }
}

/// The store held for a read-modify-write: the exclusive lock lives as long as this value.
pub struct Locked {
    path: PathBuf,
    /// Dropping the file releases the lock (the kernel does so too when the process dies).
    _lock: File,
    pub store: CurationStore,
}

/// Take the store's lock (waiting for another classlab to finish) and read it.
pub fn lock(path: &Path) -> Result<Locked, StoreError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(io_err(parent))?;
    }
    let lock_path = lock_path(path);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(io_err(&lock_path))?;
    file.lock().map_err(io_err(&lock_path))?;
    let store = load(path)?;
    Ok(Locked {
        path: path.to_path_buf(),
        _lock: file,
        store,
    })
}

impl Locked {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Write the store durably; when this returns Ok the decisions survive a crash.
    pub fn save(&self) -> Result<(), StoreError> {
        let mut bytes =
            serde_json::to_vec_pretty(&self.store).map_err(|e| StoreError::Invalid {
                path: self.path.display().to_string(),
                message: e.to_string(),
            })?;
        bytes.push(b'\n');
        crate::session::store::write_atomic(&self.path, &bytes).map_err(|e| StoreError::Invalid {
            path: self.path.display().to_string(),
            message: e.to_string(),
        })
    }
}

fn lock_path(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".lock");
    path.with_file_name(name)
}

/// The OS user: `$USER`, else the password database's name for our uid.
pub fn current_user() -> String {
    if let Ok(user) = std::env::var("USER")
        && !user.trim().is_empty()
    {
        return user;
    }
    passwd_name().unwrap_or_else(|| format!("uid {}", unsafe { libc::getuid() }))
}

fn passwd_name() -> Option<String> {
    let mut buf = vec![0 as libc::c_char; 4096];
    // SAFETY: `pwd` and `buf` outlive the call; getpwuid_r writes only within `buf.len()`
    // bytes and sets `result` to null or to `&pwd`, whose `pw_name` then points into `buf`.
    unsafe {
        let mut pwd: libc::passwd = std::mem::zeroed();
        let mut result: *mut libc::passwd = std::ptr::null_mut();
        let rc = libc::getpwuid_r(
            libc::getuid(),
            &mut pwd,
            buf.as_mut_ptr(),
            buf.len(),
            &mut result,
        );
        if rc != 0 || result.is_null() || pwd.pw_name.is_null() {
            return None;
        }
        let name = std::ffi::CStr::from_ptr(pwd.pw_name).to_string_lossy();
        (!name.is_empty()).then(|| name.into_owned())
    }
}

#[cfg(test)]
mod tests;
