//! The suites of `exec_suites.rs` again, with warm interpreters (a fork server).

#[path = "exec_suites.rs"]
mod suites;
