//! The cases of `sandbox_between_suites.rs` again, with warm interpreters (a fork server).

#[path = "sandbox_between_suites.rs"]
mod between;
