//! Pipelines: what a run does, step by step, recorded as session events.

pub mod eval;
pub mod schedule;
