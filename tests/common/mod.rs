//! Shared helpers for integration tests: where the shared real data lives.

#![allow(dead_code)]

use std::path::PathBuf;

/// `../shared/data/<rel>` beside the checkout (CI puts `shared/` there).
pub fn shared_data(rel: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(rel);
    assert!(
        path.exists(),
        "{} is missing: tests need ../shared/data beside the checkout",
        path.display()
    );
    path
}

pub fn classeval_json() -> PathBuf {
    shared_data("classeval/ClassEval_data.json")
}
