//! Datasets: loaders that turn benchmark files into [`Task`]s, chosen by content.
//!
//! Every loader reports what is wrong by file, task and field, keeps going past a bad task,
//! and never panics: a [`Dataset`] carries the tasks that loaded and the [`Problem`]s met.

mod classeval;
mod classlab;
pub mod outputs;
pub mod predictions;
mod realclasseval;
pub mod stream;
mod task_json;

use std::fmt;
use std::path::{Path, PathBuf};

use crate::model::Task;

pub use classlab::{FORMAT_TAG, FORMAT_VERSION};

/// The bundled sample, written by us, embedded so classlab works from any directory.
const SAMPLE_JSON: &str = include_str!("../../assets/sample/sample.json");
pub const SAMPLE_NAME: &str = "bundled sample";

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// ClassEval's JSON: a list of task objects.
    ClassEval,
    /// Our superset of it, with a header (`docs/dataset-format.md`).
    Classlab,
    /// A RealClassEval folder: `classes_full_docstr.csv` + `tests/`.
    RealClassEval,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::ClassEval => "ClassEval JSON",
            Format::Classlab => "classlab dataset",
            Format::RealClassEval => "RealClassEval folder",
        })
    }
}

/// A loaded dataset: the tasks that loaded and every problem met on the way.
#[derive(Debug, Clone)]
pub struct Dataset {
    pub name: String,
    /// Where it came from: a path, or [`SAMPLE_NAME`].
    pub origin: String,
    pub format: Format,
    pub tasks: Vec<Task>,
    pub problems: Vec<Problem>,
}

impl Dataset {
    pub fn task(&self, id: &str) -> Option<&Task> {
        self.tasks.iter().find(|t| t.id == id)
    }

    pub fn method_count(&self) -> usize {
        self.tasks.iter().map(|t| t.methods.len()).sum()
    }
}

/// Something wrong in an input file that did not stop the rest from loading.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    pub file: String,
    /// The task id, or `#<index>` when the task has no usable id.
    pub task: Option<String>,
    /// The field, as a path (`methods_info[2].method_name`).
    pub field: Option<String>,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(task) = &self.task {
            write!(f, ": task {task}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ", field `{field}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// A failure that stops a whole file from loading.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not UTF-8 text (invalid byte at offset {offset})")]
    NotUtf8 { path: String, offset: usize },
    #[error("{path}:{line}:{column}: invalid JSON: {message}")]
    Json {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}: {message}")]
    Unrecognized { path: String, message: String },
}

impl LoadError {
    pub(crate) fn json(path: &str, err: &serde_json::Error) -> Self {
        // serde_json appends " at line L column C" to its message; we report those separately.
        let text = err.to_string();
        let message = match text.rfind(" at line ") {
            Some(cut) => text[..cut].to_string(),
            None => text,
        };
        LoadError::Json {
            path: path.to_string(),
            line: err.line(),
            column: err.column(),
            message,
        }
    }
}

/// Hex SHA-256 of the tasks' content (canonical JSON), whatever file they came from:
/// sessions record it so a resume or a re-score can tell the dataset changed.
pub fn digest(dataset: &Dataset) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    for task in &dataset.tasks {
        if let Ok(bytes) = serde_json::to_vec(task) {
            hasher.update(&bytes);
        }
        hasher.update(b"\n");
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Load the bundled sample.
pub fn sample() -> Dataset {
    match parse_text(SAMPLE_NAME, SAMPLE_JSON) {
        Ok(dataset) => dataset,
        // The sample is checked by tests; if it is ever broken, say so rather than panic.
        Err(err) => Dataset {
            name: SAMPLE_NAME.into(),
            origin: SAMPLE_NAME.into(),
            format: Format::Classlab,
            tasks: Vec::new(),
            problems: vec![Problem {
                file: SAMPLE_NAME.into(),
                task: None,
                field: None,
                message: err.to_string(),
            }],
        },
    }
}

/// Load a dataset from a path, or the bundled sample when `path` is `None`.
pub fn load(path: Option<&Path>) -> Result<Dataset, LoadError> {
    match path {
        None => Ok(sample()),
        Some(path) => load_path(path),
    }
}

/// The file a classlab dataset folder (`corpus export --format classlab`) holds.
pub const DATASET_JSON: &str = "dataset.json";

pub fn load_path(path: &Path) -> Result<Dataset, LoadError> {
    if path.is_dir() {
        // A classlab export folder opens without naming its file.
        let json = path.join(DATASET_JSON);
        if json.is_file() {
            return load_path(&json);
        }
        if realclasseval::is_realclasseval_dir(path) {
            return realclasseval::load_dir(path);
        }
    }
    if is_sqlite(path) {
        return Err(not_a_dataset_store(path));
    }
    let shown = path.display().to_string();
    let text = read_text(path)?;
    parse_text(&shown, &text)
}

fn is_sqlite(path: &Path) -> bool {
    let mut head = [0u8; 16];
    path.is_file()
        && std::fs::File::open(path)
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
            .is_ok()
        && &head == b"SQLite format 3\0"
}

/// A corpus store holds classes, not tasks: what to run instead.
fn not_a_dataset_store(path: &Path) -> LoadError {
    let shown = crate::text::escape_control(&path.display().to_string()).into_owned();
    let message = if crate::corpus::schema::is_store(path) {
        format!(
            "a corpus store (classes without tests), not a dataset of tasks; to generate or \
             evaluate some of its classes, export them first: `classlab corpus export {shown} \
             'FILTER' --out DIR --format classlab`, then use `--dataset DIR`; to browse it: \
             `classlab --dataset {shown}`"
        )
    } else {
        "an SQLite database, not a dataset (nor a corpus store this classlab reads)".to_string()
    };
    LoadError::Unrecognized {
        path: shown,
        message,
    }
}

/// Read a whole file as UTF-8, naming the file in every error.
pub fn read_text(path: &Path) -> Result<String, LoadError> {
    let shown = path.display().to_string();
    if path.is_dir() {
        return Err(LoadError::Unrecognized {
            path: shown,
            message: format!(
                "is a directory without {} or {DATASET_JSON}; expected a ClassEval JSON file, a classlab dataset (file or folder), a RealClassEval folder or a corpus store",
                realclasseval::CLASSES_CSV
            ),
        });
    }
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
        path: shown.clone(),
        source,
    })?;
    String::from_utf8(bytes).map_err(|e| LoadError::NotUtf8 {
        path: shown,
        offset: e.utf8_error().valid_up_to(),
    })
}

/// Recognise the format by content and load it.
pub fn parse_text(path: &str, text: &str) -> Result<Dataset, LoadError> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| LoadError::json(path, &e))?;
    match &value {
        serde_json::Value::Array(_) => classeval::from_value(path, value),
        serde_json::Value::Object(map) if map.contains_key("format") => {
            classlab::from_value(path, value)
        }
        serde_json::Value::Object(map) if map.contains_key("task_id") => {
            Err(LoadError::Unrecognized {
                path: path.into(),
                message: "a single task object; expected a list of tasks (ClassEval) or a classlab dataset".into(),
            })
        }
        _ => Err(LoadError::Unrecognized {
            path: path.into(),
            message: format!(
                "not a dataset: expected a JSON list of ClassEval tasks or an object with \"format\": \"{FORMAT_TAG}\" (found {})",
                task_json::kind_of(&value)
            ),
        }),
    }
}

/// Display name for a dataset file: its file name without extension.
pub(crate) fn name_from_path(path: &str) -> String {
    PathBuf::from(path)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.to_string())
}
