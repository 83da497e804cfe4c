//! Sessions: every run is an append-only event log; every view of a run is a fold over it.

pub mod attempts;
pub mod derived;
pub mod event;
pub mod merge;
pub mod reduce;
pub mod report;
pub mod store;
pub mod task_run;
pub mod trace;

pub use derived::EnvErrCount;
pub use event::{Event, EventBody, MethodStatus, Scope, TaskSummary};
pub use reduce::{EvalState, RunEnd, Status, TaskRun, differing_tasks};
pub use store::{
    InputRecord, Inputs, Meta, Resumable, SessionError, SessionLock, SessionLog, SessionWriter,
    sessions_root,
};
pub use trace::{RepairCost, TaskTrace, Trace, UsageTotals};
