//! Loading a dataset in the background, in batches, so a reader can show the first tasks of a
//! large file at once. A ClassEval file (a top-level JSON list) is read in chunks: a small
//! scanner cuts the list into its elements and each batch of elements is parsed in parallel.
//! Anything else (a classlab file, a RealClassEval folder, the sample) is loaded whole, then
//! sent as one batch. Tasks come out in file order with the same problems the whole-file
//! loader reports.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, Sender};

use rayon::prelude::*;
use serde_json::Value;

use super::{Dataset, Format, LoadError, Problem, task_json};
use crate::model::Task;

/// What the loader sends, in order: batches, then `Done` (or `Failed`, which ends it too).
#[derive(Debug)]
pub enum Streamed {
    Batch(Batch),
    /// Every task was sent; `format` is what the file turned out to be.
    Done {
        format: Format,
    },
    /// The file cannot be used at all (nothing more comes).
    Failed(LoadError),
}

#[derive(Debug, Default)]
pub struct Batch {
    pub tasks: Vec<Task>,
    /// `hashes[i]` is [`content_hash`] of `tasks[i]`.
    pub hashes: Vec<u64>,
    /// `tests[i]` is `tasks[i].test_count()` (counted here, off the reader's thread).
    pub tests: Vec<usize>,
    pub problems: Vec<Problem>,
    /// Bytes of the file read so far, and its size (0 when unknown).
    pub read: u64,
    pub total: u64,
}

/// A hash of what a task's analysis depends on (not its id, so a task repeated under another
/// id is analysed once).
pub fn content_hash(task: &Task) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    task.class_name.hash(&mut h);
    task.skeleton.hash(&mut h);
    task.solution.hash(&mut h);
    task.test_module.hash(&mut h);
    for m in &task.methods {
        m.name.hash(&mut h);
        m.solution.hash(&mut h);
        m.test_class.hash(&mut h);
        if let Some(deps) = &m.annotated {
            // The annotation's shape is serde's; its text is a stable key.
            serde_json::to_string(deps).unwrap_or_default().hash(&mut h);
        }
    }
    h.finish()
}

/// Whether `path` is a file whose first non-blank byte opens a JSON list (a ClassEval file,
/// which [`stream`] reads in batches).
pub fn is_list_file(path: &Path) -> bool {
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    if path.is_dir() {
        return false;
    }
    let mut head = [0u8; 4096];
    let n = read_full(&mut file, &mut head).unwrap_or(0);
    head[..n]
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'[')
}

/// Start loading `path` (the bundled sample for `None`) on a thread of its own.
pub fn stream(path: Option<PathBuf>) -> Receiver<Streamed> {
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("classlab-load".into())
        .spawn({
            let tx = tx.clone();
            move || load_into(path.as_deref(), &tx)
        });
    if let Err(source) = spawned {
        let _ = tx.send(Streamed::Failed(LoadError::Io {
            path: "dataset loader".into(),
            source,
        }));
    }
    rx
}

fn whole(dataset: Dataset, tx: &Sender<Streamed>) {
    let format = dataset.format;
    let hashes = dataset.tasks.par_iter().map(content_hash).collect();
    let tests = dataset.tasks.par_iter().map(Task::test_count).collect();
    let batch = Batch {
        tasks: dataset.tasks,
        hashes,
        tests,
        problems: dataset.problems,
        read: 0,
        total: 0,
    };
    if tx.send(Streamed::Batch(batch)).is_ok() {
        let _ = tx.send(Streamed::Done { format });
    }
}

fn load_into(path: Option<&Path>, tx: &Sender<Streamed>) {
    let Some(path) = path else {
        return whole(super::sample(), tx);
    };
    let shown = path.display().to_string();
    let io = |source| LoadError::Io {
        path: shown.clone(),
        source,
    };
    let opened = if path.is_dir() {
        None
    } else {
        match std::fs::File::open(path) {
            Ok(f) => Some(f),
            Err(e) => return drop(tx.send(Streamed::Failed(io(e)))),
        }
    };
    let Some(mut file) = opened else {
        return match super::load_path(path) {
            Ok(d) => whole(d, tx),
            Err(e) => drop(tx.send(Streamed::Failed(e))),
        };
    };
    let total = file.metadata().map_or(0, |m| m.len());
    let mut head = vec![0u8; 64 * 1024];
    let n = match read_full(&mut file, &mut head) {
        Ok(n) => n,
        Err(e) => return drop(tx.send(Streamed::Failed(io(e)))),
    };
    head.truncate(n);
    let starts_list = head
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'[');
    if !starts_list {
        // Not a list: the whole-file loader says what it is (and how it is wrong).
        return match super::load_path(path) {
            Ok(d) => whole(d, tx),
            Err(e) => drop(tx.send(Streamed::Failed(e))),
        };
    }
    let mut list = ListReader::new(shown, total, tx);
    list.run(head, &mut file);
}

fn read_full(file: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Elements in the first batch (small: the first frame waits for it) and in later ones.
const FIRST_BATCH: usize = 32;
const BATCH: usize = 512;
const CHUNK: usize = 4 << 20;

/// Cuts a top-level JSON list into elements as bytes arrive.
struct ListReader<'a> {
    path: String,
    total: u64,
    tx: &'a Sender<Streamed>,
    /// Bytes not yet cut into elements; `scan` is where the scanner stopped in them.
    buf: Vec<u8>,
    scan: usize,
    /// Where the current element starts in `buf`, once its first byte was seen.
    start: Option<usize>,
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// Past the opening `[` / past the closing `]`.
    opened: bool,
    closed: bool,
    /// Newlines before `buf` and before the current element (for error positions).
    line: usize,
    element_line: usize,
    /// Complete elements waiting to be parsed, with their first line.
    pending: Vec<(Vec<u8>, usize)>,
    index: usize,
    read: u64,
    seen: HashSet<String>,
    first_checked: bool,
}

impl<'a> ListReader<'a> {
    fn new(path: String, total: u64, tx: &'a Sender<Streamed>) -> Self {
        ListReader {
            path,
            total,
            tx,
            buf: Vec::new(),
            scan: 0,
            start: None,
            depth: 0,
            in_string: false,
            escaped: false,
            opened: false,
            closed: false,
            line: 1,
            element_line: 1,
            pending: Vec::new(),
            index: 0,
            read: 0,
            seen: HashSet::new(),
            first_checked: false,
        }
    }

    fn run(&mut self, head: Vec<u8>, file: &mut std::fs::File) {
        let mut chunk = head;
        loop {
            if chunk.is_empty() {
                break;
            }
            self.read += chunk.len() as u64;
            if let Err(message) = self.feed(&chunk) {
                return self.fail_syntax(message);
            }
            let want = if self.index == 0 { FIRST_BATCH } else { BATCH };
            if self.pending.len() >= want && !self.flush() {
                return;
            }
            // Small reads until the first batch is out (the first frame waits for it).
            chunk = vec![0u8; if self.index == 0 { 64 * 1024 } else { CHUNK }];
            match read_full(file, &mut chunk) {
                Ok(n) => chunk.truncate(n),
                Err(source) => {
                    let path = self.path.clone();
                    return drop(
                        self.tx
                            .send(Streamed::Failed(LoadError::Io { path, source })),
                    );
                }
            }
        }
        if !self.closed {
            return self.fail_syntax("the list is not closed (the file ends early)".into());
        }
        if self.flush() {
            let _ = self.tx.send(Streamed::Done {
                format: Format::ClassEval,
            });
        }
    }

    /// Scan new bytes, moving every complete element to `pending`.
    fn feed(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.buf.extend_from_slice(bytes);
        let mut i = self.scan;
        while i < self.buf.len() {
            // Inside a string only `"` and `\` matter: jump to the next one (strings are
            // most of a dataset; valid JSON has no raw newline in them to count).
            if self.in_string && !self.escaped {
                match memchr::memchr2(b'"', b'\\', &self.buf[i..]) {
                    Some(k) => i += k,
                    None => {
                        i = self.buf.len();
                        break;
                    }
                }
            }
            let b = self.buf[i];
            if b == b'\n' {
                self.line += 1;
            }
            if self.closed {
                if !b.is_ascii_whitespace() {
                    return Err("unexpected text after the list".into());
                }
            } else if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
            } else if !self.opened {
                if b == b'[' {
                    self.opened = true;
                }
            } else {
                match b {
                    b'"' => {
                        self.begin(i);
                        self.in_string = true;
                    }
                    b'{' | b'[' => {
                        self.begin(i);
                        self.depth += 1;
                    }
                    b'}' | b']' if self.depth > 0 => self.depth -= 1,
                    b']' => {
                        self.end(i);
                        self.closed = true;
                    }
                    b',' if self.depth == 0 => {
                        if self.start.is_none() {
                            return Err("an empty element in the list".into());
                        }
                        self.end(i);
                    }
                    b'}' => return Err("an unmatched `}`".into()),
                    c if c.is_ascii_whitespace() => {}
                    _ => self.begin(i),
                }
            }
            i += 1;
        }
        // Keep only the element in progress.
        let keep = self.start.unwrap_or(i);
        self.buf.drain(..keep);
        self.start = self.start.map(|_| 0);
        self.scan = i - keep;
        Ok(())
    }

    fn begin(&mut self, at: usize) {
        if self.start.is_none() {
            self.start = Some(at);
            self.element_line = self.line;
        }
    }

    fn end(&mut self, at: usize) {
        if let Some(start) = self.start.take() {
            self.pending
                .push((self.buf[start..at].to_vec(), self.element_line));
        }
    }

    fn fail_syntax(&mut self, message: String) {
        // What was cut so far still loads; the rest is reported where it broke.
        let line = self.line;
        let ok = self.flush();
        let problem = Problem {
            file: self.path.clone(),
            task: None,
            field: None,
            message: format!(
                "invalid JSON near line {line}: {message} (the tasks before it are loaded)"
            ),
        };
        if ok && self.index == 0 {
            let _ = self.tx.send(Streamed::Failed(LoadError::Unrecognized {
                path: self.path.clone(),
                message: problem.message,
            }));
            return;
        }
        if ok {
            let batch = Batch {
                problems: vec![problem],
                read: self.read,
                total: self.total,
                ..Batch::default()
            };
            if self.tx.send(Streamed::Batch(batch)).is_ok() {
                let _ = self.tx.send(Streamed::Done {
                    format: Format::ClassEval,
                });
            }
        }
    }

    /// Parse the pending elements (in parallel) and send them; false when the file turned out
    /// not to be a dataset or nobody listens any more.
    fn flush(&mut self) -> bool {
        if self.pending.is_empty() {
            return true;
        }
        let elements = std::mem::take(&mut self.pending);
        let base = self.index;
        self.index += elements.len();
        let path = self.path.as_str();
        let parsed: Vec<(Option<Value>, Vec<Problem>)> = elements
            .par_iter()
            .enumerate()
            .map(|(k, (bytes, line))| parse_element(path, base + k, bytes, *line))
            .collect();
        if !self.first_checked {
            self.first_checked = true;
            if let Some((Some(first), _)) = parsed.first()
                && let Err(e) =
                    super::classeval::from_value(path, Value::Array(vec![first.clone()]))
            {
                let _ = self.tx.send(Streamed::Failed(e));
                return false;
            }
        }
        let read: Vec<(Option<Task>, Vec<Problem>)> = parsed
            .into_par_iter()
            .enumerate()
            .map(|(k, (value, mut problems))| {
                let task = value.and_then(|v| {
                    task_json::read_task(path, base + k, &v, "ClassEval", &mut problems)
                });
                (task, problems)
            })
            .collect();
        let mut batch = Batch {
            read: self.read,
            total: self.total,
            ..Batch::default()
        };
        for (k, (task, problems)) in read.into_iter().enumerate() {
            batch.problems.extend(problems);
            let Some(task) = task else { continue };
            if !self.seen.insert(task.id.clone()) {
                batch.problems.push(Problem {
                    file: path.into(),
                    task: Some(task.id.clone()),
                    field: Some("task_id".into()),
                    message: format!("duplicate task id (task #{} skipped)", base + k),
                });
                continue;
            }
            batch.tasks.push(task);
        }
        (batch.hashes, batch.tests) = batch
            .tasks
            .par_iter()
            .map(|t| (content_hash(t), t.test_count()))
            .unzip();
        self.tx.send(Streamed::Batch(batch)).is_ok()
    }
}

fn parse_element(
    path: &str,
    index: usize,
    bytes: &[u8],
    line: usize,
) -> (Option<Value>, Vec<Problem>) {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(v) => (Some(v), Vec::new()),
        Err(e) => {
            let message = match LoadError::json(path, &e) {
                LoadError::Json { message, .. } => message,
                other => other.to_string(),
            };
            let problem = Problem {
                file: path.into(),
                task: Some(format!("#{index}")),
                field: None,
                message: format!(
                    "invalid JSON at line {}, column {}: {message}",
                    line + e.line().saturating_sub(1),
                    e.column()
                ),
            };
            (None, vec![problem])
        }
    }
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
