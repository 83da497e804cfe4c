//! Rigor: how strong a task's tests are. Coverage of the reference by its own tests
//! (coverage.py, line and branch, one context per test) and mutation analysis: mutants
//! generated here from ruff's AST (`generate`), run by a driver in the sandbox (`batch`,
//! `assets/rigor/driver.py`; what goes in and comes out: `run`), results keyed by content digests in a SQLite store (`store`),
//! a dataset planned and run on every core (`plan`), figures per task (`result`) and per
//! dataset (`summary`). See docs/rigor.md.

pub mod batch;
pub mod coverage;
pub mod generate;
pub mod mutant;
pub mod operators;
pub mod plan;
pub mod result;
pub mod run;
pub mod store;
pub mod summary;

pub use batch::{analyze, analyze_many};
pub use coverage::Coverage;
pub use generate::{GenerateError, mutants};
pub use mutant::{LineDiff, Mutant};
pub use operators::Operator;
pub use plan::{Event, RunConfig};
pub use result::{Counts, MutantResult, TaskRigor};
pub use run::{Analysis, Options, Outcome, RunError, Runner, Status, Subject};
pub use store::Store;
pub use summary::{Summary, summarize};
