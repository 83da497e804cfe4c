//! classlab: a terminal workbench for studying how LLMs generate whole Python classes.
//!
//! Dependencies point one way: `tui`/`cli` → `pipeline` → `session`/`exec`/`llm`/`analysis` → `model`.

pub mod analysis;
pub mod cli;
pub mod config;
pub mod corpus;
pub mod curate;
pub mod dataset;
pub mod depcheck;
pub mod exec;
pub mod forge;
pub mod llm;
pub mod metrics;
pub mod model;
pub mod pipeline;
pub mod rigor;
pub mod session;
pub mod stats;
pub mod text;
pub mod tui;
