//! The reference solution's run in the evaluation's own environment: besides a missing module,
//! the only evidence an `EnvErr` may rest on (`metrics::fingerprint`, environment errors). A
//! test the reference fails here with the same exception type is no verdict on a model; the
//! model's own exceptions, messages and tracebacks never are evidence.
//!
//! The reference runs only when a candidate's suite failed something (a clean run needs no
//! excuse), in exactly the suite the candidate ran, with the reference's code: same harness,
//! limits, hash seed and interpreter. Its result is recorded in the session (a `test_run`
//! event of scope `reference`) and kept in a cache below the sessions root
//! (`.reference/<key>.json`, written atomically), keyed by the SHA-256 of the suite and of the
//! interpreter's identity (path, version, and the modification times of its `sys.path`
//! directories, which change when a package is installed or removed); later evaluations in
//! that environment reuse it. A run cut short (time or memory limit, crash, protocol
//! violation, a test out of time) is not cached: it may say more about the machine's load
//! than the environment; the evaluation that ran it still uses it. `eval` runs references in
//! its pool beside the candidates (one run per suite, however many samples wait for it);
//! `run` runs it in the task's own thread (`TaskIo::run_reference`, replayed on resume).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::exec::{PythonInfo, SuiteSpec};
use crate::model::{SuiteFailure, SuiteResult, Task};
use crate::session::store::{sha256_hex, write_atomic};

/// Where the cache lives below a sessions root.
pub const CACHE_DIR: &str = ".reference";

/// Whether a candidate's result needs the reference's evidence: something failed (a test, or
/// the suite as a whole), and the harness did not find it tampered with (no excuse stands
/// then). A task without a reference has none to give.
pub fn needed(task: &Task, result: &SuiteResult) -> bool {
    !task.solution.trim().is_empty()
        && !crate::metrics::fingerprint::is_tampered(result)
        && (result.failure.is_some() || result.tests.iter().any(|t| t.outcome.is_failing()))
}

/// The suite the reference runs for a candidate judged with `budget` and `hash_seed`: the
/// candidate's suite (`eval::suite_for`: layout, limits, seed, harness) with the reference's
/// code.
pub fn suite(task: &Task, budget: Duration, hash_seed: Option<u32>) -> SuiteSpec {
    super::eval::suite_for(task, &task.solution, budget, hash_seed)
}

/// A reference run worth keeping: it ran to its end (or failed to import) and no test of it
/// ran out of time (how long a test takes says as much about the machine's load then as
/// about the environment).
fn cacheable(result: &SuiteResult) -> bool {
    matches!(result.failure, None | Some(SuiteFailure::Import { .. }))
        && !result
            .tests
            .iter()
            .any(|t| t.exc_type.as_deref() == Some("Timeout"))
}

/// One cached run, as stored.
#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    /// Which task's reference (for a reader of the cache; the key is what counts).
    task_id: String,
    interpreter: String,
    result: SuiteResult,
}

/// The reference runs of one environment: the cache below a sessions root, for one
/// interpreter.
#[derive(Debug, Clone)]
pub struct ReferenceRuns {
    dir: PathBuf,
    /// The interpreter's identity, as digested into every key.
    interpreter: String,
}

impl ReferenceRuns {
    /// The cache below `sessions_root` for the interpreter `python`.
    pub fn new(sessions_root: &Path, python: &PythonInfo) -> ReferenceRuns {
        ReferenceRuns {
            dir: sessions_root.join(CACHE_DIR),
            interpreter: identity(python),
        }
    }

    /// The key of the reference's run of `spec` here.
    pub fn key(&self, spec: &SuiteSpec) -> String {
        let spec = serde_json::to_string(spec).unwrap_or_default();
        sha256_hex(format!("{}\n{spec}", self.interpreter).as_bytes())
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }

    /// The cached run for `key`; an entry that cannot be read is a miss (it is written again).
    pub fn cached(&self, key: &str) -> Option<SuiteResult> {
        let bytes = std::fs::read(self.path(key)).ok()?;
        let entry: Entry = serde_json::from_slice(&bytes).ok()?;
        (entry.interpreter == self.interpreter).then_some(entry.result)
    }

    /// Keep a run (when it ran to its end); a cache that cannot be written only costs a rerun
    /// later.
    pub fn store(&self, key: &str, task_id: &str, result: &SuiteResult) {
        if !cacheable(result) || std::fs::create_dir_all(&self.dir).is_err() {
            return;
        }
        let entry = Entry {
            task_id: task_id.to_string(),
            interpreter: self.interpreter.clone(),
            result: result.clone(),
        };
        if let Ok(bytes) = serde_json::to_vec(&entry) {
            let _ = write_atomic(&self.path(key), &bytes);
        }
    }
}

/// What identifies an interpreter's environment: its path and version, and when each of its
/// `sys.path` directories last changed (installing or removing a package changes it).
fn identity(python: &PythonInfo) -> String {
    let stamps: BTreeMap<String, u64> = python
        .path
        .iter()
        .map(|p| {
            let t = std::fs::metadata(p)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_secs());
            (p.display().to_string(), t)
        })
        .collect();
    serde_json::json!({
        "executable": python.executable,
        "version": python.version,
        "path": stamps,
    })
    .to_string()
}

#[cfg(test)]
mod tests;
