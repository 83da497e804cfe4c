//! classlab: a terminal workbench for studying how LLMs generate whole Python classes.
//!
//! Dependencies point one way: `tui`/`cli` → `analysis`/`metrics`/`dataset` → `model`.

pub mod analysis;
pub mod dataset;
pub mod model;
pub mod metrics;
pub mod depcheck;
pub mod tui;
