//! The hostile programs of `sandbox_hostile.rs` again, with warm interpreters (a fork server):
//! the same classification, nothing touched outside, nothing left behind.

#[path = "sandbox_hostile.rs"]
mod hostile;
