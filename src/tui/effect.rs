//! What the app loop carries out for an update: anything slow or outside the process.

use std::path::PathBuf;

use super::runs::RunSetup;

/// What the app loop must do after an update. Anything slow or outside the process happens
/// here, off the UI thread; results come back as actions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    Quit,
    /// Read the sessions directory (answered by `Action::SessionsLoaded`).
    LoadSessions {
        req: u64,
    },
    /// Read one session for the evaluation screen (`Action::SessionOpened`).
    OpenSession {
        req: u64,
        dir: PathBuf,
    },
    /// Read sessions for a comparison (`Action::ComparisonLoaded`).
    CompareSessions {
        req: u64,
        dirs: Vec<PathBuf>,
    },
    /// Delete a session's directory (`Action::SessionDeleted`); one being written is refused.
    DeleteSession {
        dir: PathBuf,
    },
    /// Find predictions files for the new-evaluation dialog (`Action::PredictionFiles`).
    ListPredictionFiles,
    /// Evaluate a predictions file against the loaded dataset in the sandbox, as a new
    /// session; its events come back as `Action::EvalEvent`, its end as `Action::EvalEnded`.
    StartEval {
        predictions: PathBuf,
    },
    /// Stop the running evaluation or generation run (the pipeline records
    /// `run_finished {cancelled: true}`).
    CancelEval,
    /// Read the endpoint profiles and the generation sessions for the new-run dialog
    /// (`Action::RunChoices`).
    LoadRunChoices,
    /// Generate with a model (or the reference, or a replay) as a new session; events come
    /// back as `Action::EvalEvent`, streamed text as `Action::RunDelta`, the end as
    /// `Action::EvalEnded`.
    StartRun(RunSetup),
    /// Read the curation store and lint every task (`Action::ReviewLoaded`).
    LoadReview {
        req: u64,
        path: PathBuf,
    },
    /// Suspend the TUI and edit `text` (a part of a task) in `$EDITOR`
    /// (`Action::ReviewEdited`).
    EditPart {
        task_id: String,
        target: crate::curate::targets::Target,
        text: String,
    },
    /// Validate a task as edited in the store at `path` in the sandbox and record the outcome
    /// there (`Action::ReviewValidated`); a newer request for the task stops this one.
    ValidateTask {
        req: u64,
        task_id: String,
        path: PathBuf,
    },
    /// Look up (in the rigor store) or compute the rigor of these tasks, in order; each
    /// arrives as `Action::Rigor`. Replaces the rigor job running.
    Rigor {
        tasks: Vec<usize>,
    },
    /// Apply review decisions to the store under its lock and write it
    /// (`Action::ReviewSaved`).
    SaveReview {
        path: PathBuf,
        ops: Vec<(String, crate::curate::ReviewAction)>,
        stamp: crate::curate::Stamp,
    },
}
