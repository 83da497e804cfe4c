//! The split harness's Python-level tests: the wire's codec, frames and handle counts
//! (`tests/harness/test_wire.py`), and what the protocol carries between runner and host, suite
//! by suite (`tests/harness/test_split.py`, through the dev driver).

mod common;

use std::path::Path;

fn python_tests(file: &str) {
    let python = common::project_python("classeval");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new(python)
        .args(["-m", "unittest", "-v"])
        .arg(root.join("tests/harness").join(file))
        .current_dir(root)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("python runs");
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{file}:\n{text}");
    assert!(text.contains("\nOK"), "{file}:\n{text}");
}

#[test]
fn the_wire_round_trips_values_and_refuses_malformed_messages() {
    python_tests("test_wire.py");
}

#[test]
fn the_protocol_carries_what_tests_do() {
    python_tests("test_split.py");
}
