//! Forge: differential tests that turn a class with a reference implementation (a mined class,
//! a benchmark task's solution) into a benchmark task (docs/forge.md).
//!
//! The pipeline per class: [`plan`] reads the skeleton and reference with ruff's parser; the
//! explorer (`assets/forge/*.py`, run in the sandbox as a trusted program beside the reference)
//! generates call sequences with coverage and mutant feedback, selects, shrinks and replays
//! them ([`explored`] reads its report); [`write`] turns them into a unittest module; every
//! kept test is then validated on the reference under the harness `eval` uses. With `--llm`,
//! [`llm`] asks a model for tests of what the suite still misses and keeps those that earn it.

pub mod counterexample;
pub mod explored;
pub mod gate;
pub mod graft;
pub mod llm;
pub mod mutation;
pub mod plan;
pub mod run;
pub mod sample;
pub mod source;
pub mod tables;
pub mod task;
pub mod usage;
pub mod write;
