//! Class corpora at OpenClassGen scale: every class of a tree of Python repositories in one
//! SQLite store (code, skeleton, methods, dependency graph, the 27 Understand metrics,
//! self-containment, duplicate clusters, the funnel), built in parallel and resumably,
//! queried with a small filter language. Layout and schema: `docs/corpus.md`.

pub mod build;
mod checkpoint;
pub mod closure;
pub mod dates;
pub mod decode;
pub mod deps;
pub mod derived;
pub mod dups;
pub mod export;
pub mod extract;
pub mod filter;
mod finish;
pub mod funnel;
pub mod guard;
mod jsonline;
pub mod lock;
pub mod merge;
mod pynames;
pub mod query;
pub mod ruff;
pub mod schema;
pub mod scope;
pub mod tokens;
pub mod walk;
pub mod writer;

pub use build::{BuildOptions, BuildProgress, BuildSummary, Quiet, build};
pub use filter::{Filter, FilterError};
pub use query::{ClassLine, Sort, Store};
pub use walk::Shard;
