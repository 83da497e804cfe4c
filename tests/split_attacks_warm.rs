//! The attacks of `split_attacks.rs` again, with warm interpreters (runner and host forked
//! from the sandbox's fork server).

#[path = "split_attacks.rs"]
mod attacks;
