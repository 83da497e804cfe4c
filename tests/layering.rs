//! Edges point one way (issue 13): the session schema owns its types (no `llm` import in
//! `session/`); the pipeline is handed its configuration and its execution service instead
//! of reading or building them (no configuration read, no sandbox set up in `pipeline/`).

use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `(file:line, text)` of every line of `dir`'s sources holding one of `needles`, outside
/// the files `allowed`.
fn offending(dir: &str, needles: &[&str], allowed: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join(dir), &mut files);
    assert!(!files.is_empty(), "{dir} has sources");
    let mut out = Vec::new();
    for f in files {
        let rel = f.strip_prefix(root).unwrap_or(&f).display().to_string();
        if allowed.contains(&rel.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            if needles.iter().any(|x| line.contains(x)) {
                out.push(format!("{rel}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    out
}

#[test]
fn the_session_schema_depends_on_no_client() {
    let found = offending("src/session", &["crate::llm", "llm::"], &[]);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_pipeline_reads_no_configuration_and_sets_up_no_sandbox() {
    let found = offending(
        "src/pipeline",
        &[
            "config::init(",
            "config::load(",
            "config::current(",
            "config::config_path(",
            "config::config_dir(",
            "Sandbox::with_options(",
            "Sandbox::detect(",
        ],
        // `eval::sandbox` is the set-up the edge's executor replaces (kept for the callers
        // that have not moved yet).
        &["src/pipeline/eval.rs"],
    );
    assert!(found.is_empty(), "{}", found.join("\n"));
}
