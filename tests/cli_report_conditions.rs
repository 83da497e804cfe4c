//! `run --docstrings` is recorded on the session, and `report`/`compare` tell conditions
//! apart like models (reference runs on the bundled sample: no model needed).

mod common;

use common::classlab;
use serde_json::Value;

#[test]
fn docstring_conditions_are_recorded_and_compared() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    let mut ids = Vec::new();
    for level in ["none", "partial"] {
        let v = common::ok_json(
            classlab(&sessions)
                .args([
                    "run",
                    "--json",
                    "--provider",
                    "reference",
                    "--strategy",
                    "holistic",
                ])
                .args(["--docstrings", level])
                .output()
                .unwrap(),
        );
        ids.push(v["sessions"][0]["session"].as_str().unwrap().to_string());
    }
    let v: Value = serde_json::from_slice(
        &classlab(&sessions)
            .args(["report", "--json"])
            .args(&ids)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let levels: Vec<&str> = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["docstrings"].as_str().unwrap())
        .collect();
    assert_eq!(levels, ["none", "partial"]);
    assert_eq!(v["pairs"][0]["tasks"], 8);
    let out = classlab(&sessions)
        .arg("compare")
        .args(&ids)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("docstrings=none") && text.contains("docstrings=partial"),
        "{text}"
    );

    let out = classlab(&sessions)
        .args([
            "run",
            "--provider",
            "reference",
            "--strategy",
            "holistic",
            "--docstrings",
            "some",
        ])
        .output()
        .unwrap();
    // A value the flag does not take is a usage error (issue 21 item 18).
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("full, partial or none"));
}
