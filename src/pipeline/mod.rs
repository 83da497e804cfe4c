//! Pipelines: what a run does, step by step, recorded as session events.

pub mod docstrings;
pub mod envcheck;
pub mod eval;
pub mod prepare;
pub mod prompts;
pub mod providers;
pub mod public_tests;
pub mod reference;
pub mod reply;
pub mod run;
pub mod schedule;
pub mod strategy;
pub mod task_io;
pub mod tdd;
pub mod testless;
