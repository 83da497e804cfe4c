//! One task against a real OpenAI-compatible endpoint. Ignored by default; run it with
//! `CLASSLAB_LIVE_BASE_URL=http://localhost:11434/v1 CLASSLAB_LIVE_MODEL=qwen2.5-coder:7b
//! cargo test --test generate_live -- --ignored` (and `CLASSLAB_LIVE_API_KEY_ENV=OPENAI_API_KEY`
//! for a hosted API).

use serde_json::Value;

#[test]
#[ignore = "needs a live endpoint: set CLASSLAB_LIVE_BASE_URL (and CLASSLAB_LIVE_MODEL)"]
fn one_task_against_a_live_endpoint() {
    let Ok(base_url) = std::env::var("CLASSLAB_LIVE_BASE_URL") else {
        panic!("set CLASSLAB_LIVE_BASE_URL, e.g. http://localhost:11434/v1");
    };
    let model = std::env::var("CLASSLAB_LIVE_MODEL").unwrap_or_else(|_| "gpt-4o-mini".into());
    let sessions = tempfile::tempdir().unwrap();
    let mut cmd = assert_cmd::Command::cargo_bin("classlab").unwrap();
    cmd.args(["run", "--json", "--strategy", "tdd", "--tasks", "Sample_1"])
        .args(["--base-url", &base_url, "--model", &model])
        .arg("--sessions")
        .arg(sessions.path());
    if let Ok(var) = std::env::var("CLASSLAB_LIVE_API_KEY_ENV") {
        cmd.args(["--api-key-env", &var]);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "run failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let report = printed["sessions"][0].clone();
    // The model answered every request (whatever the quality of its code).
    let requests = report["usage"]["requests"].as_u64().unwrap();
    assert!(requests >= 6, "{report}");
    assert_eq!(report["metrics"]["tasks"], 1);
    assert_eq!(report["model"], model.as_str());
    eprintln!("{}", serde_json::to_string_pretty(&report).unwrap());
}
