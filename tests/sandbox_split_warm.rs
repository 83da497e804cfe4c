//! The cases of `sandbox_split.rs` again, with warm interpreters (a fork server).

#[path = "sandbox_split.rs"]
mod split;
