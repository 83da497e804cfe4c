//! A "model" for the mock OpenAI server that answers like the dataset's reference: it reads
//! which step of a run a request serves from its prompt (the templates of `assets/prompts`),
//! and asks [`Reference`] for the answer. Tests script faults around it.
//!
//! ```ignore
//! let model = ReferenceModel::sample();
//! let llm = MockLlm::start(move |req| model.reply(req));
//! ```
//!
//! Also here: reading what a run left in its sessions directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use classlab::dataset::{self, Dataset};
use classlab::llm::{Call, Params, Provider, Purpose};
use classlab::pipeline::providers::Reference;
use serde_json::Value;

use super::mock_llm::{MockReply, MockRequest};

pub struct ReferenceModel {
    reference: Reference,
    /// Class name → task id.
    tasks: BTreeMap<String, String>,
}

impl ReferenceModel {
    pub fn new(dataset: &Dataset) -> Self {
        let tasks = dataset
            .tasks
            .iter()
            .map(|t| (t.class_name.clone(), t.id.clone()))
            .collect();
        ReferenceModel {
            reference: Reference::new(dataset),
            tasks,
        }
    }

    /// The bundled sample dataset (what `classlab run` uses without `--dataset`).
    pub fn sample() -> Self {
        ReferenceModel::new(&dataset::sample())
    }

    /// The call a request makes, read from its prompt; `None` when it is none of the
    /// pipeline's prompts (or names a class the dataset lacks).
    pub fn recognise(&self, req: &MockRequest) -> Option<Call> {
        let messages = req.messages();
        let text: String = messages
            .iter()
            .map(|m| m.content.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let class = between(&text, "class `", "`")?;
        let task_id = self.tasks.get(class)?.clone();
        let purpose = if text.contains("senior software architect") {
            Purpose::DependencyAnalysis
        } else if text.contains("repairing a method") {
            let method = between(&text, "The method `", "` must do")?.to_string();
            let round = between(&text, "This is repair round ", " of")?
                .parse()
                .ok()?;
            Purpose::Repair { method, round }
        } else {
            let method = between(&text, "Implement the method `", "`:")?.to_string();
            Purpose::Method { method }
        };
        Some(Call {
            task_id,
            purpose,
            messages,
            params: Params::default(),
        })
    }

    /// The reference's answer to a call.
    pub fn answer(&self, call: &Call) -> String {
        match self
            .reference
            .complete(call, &mut |_| {}, &AtomicBool::new(false))
        {
            Ok(c) => c.text,
            Err(f) => panic!("the reference cannot answer {call:?}: {}", f.message),
        }
    }

    /// The request's call and the reference's answer to it. Panics (which the mock server
    /// turns into a 500 and raises again when dropped) on a request it does not recognise.
    pub fn call_and_answer(&self, req: &MockRequest) -> (Call, String) {
        let Some(call) = self.recognise(req) else {
            panic!(
                "not a prompt of the pipeline: {}",
                req.raw_body.chars().take(400).collect::<String>()
            );
        };
        let answer = self.answer(&call);
        (call, answer)
    }

    /// Answer as the reference would.
    pub fn reply(&self, req: &MockRequest) -> MockReply {
        MockReply::Text(self.call_and_answer(req).1)
    }
}

/// The text between the first `start` and the next `end` after it.
fn between<'t>(text: &'t str, start: &str, end: &str) -> Option<&'t str> {
    let from = text.find(start)? + start.len();
    let len = text[from..].find(end)?;
    Some(&text[from..from + len])
}

/// A wrong version of a method answer: `raise RuntimeError` as the first statement of
/// `def method`, so the code splices and runs but every test calling it fails.
pub fn sabotaged(answer: &str, method: &str) -> String {
    with_first_statement(
        answer,
        method,
        "raise RuntimeError('a scripted wrong first attempt')",
    )
}

/// A method answer with `statement` inserted as the first statement of `def method`.
pub fn with_first_statement(answer: &str, method: &str, statement: &str) -> String {
    let lines: Vec<&str> = answer.lines().collect();
    let def = format!("def {method}(");
    let start = lines
        .iter()
        .position(|l| l.trim_start().starts_with(&def))
        .unwrap_or_else(|| panic!("no `{def}` in {answer:?}"));
    let header_end = (start..lines.len())
        .find(|&i| lines[i].trim_end().ends_with(':'))
        .unwrap_or_else(|| panic!("no end of the signature of `{method}` in {answer:?}"));
    let body = lines[header_end + 1..]
        .iter()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_else(|| panic!("`{method}` has no body in {answer:?}"));
    let indent = &body[..body.len() - body.trim_start().len()];
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    out.insert(header_end + 1, format!("{indent}{statement}"));
    out.join("\n")
}

/// The one session a run left under `root`.
pub fn only_session(root: &Path) -> PathBuf {
    let dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        // A session has its meta.json (the reference runs' cache beside them has none).
        .filter(|p| p.join("meta.json").is_file())
        .collect();
    assert_eq!(
        dirs.len(),
        1,
        "one session under {}: {dirs:?}",
        root.display()
    );
    dirs.into_iter().next().unwrap()
}

/// The complete lines of a session's `events.jsonl`, as JSON (a torn last line is left out:
/// `torn` tells whether there was one).
pub fn read_events(session: &Path) -> (Vec<Value>, bool) {
    let path = session.join("events.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let torn = !text.is_empty() && !text.ends_with('\n');
    let complete = match torn {
        true => &text[..text.rfind('\n').map_or(0, |i| i + 1)],
        false => &text[..],
    };
    let events = complete
        .lines()
        .enumerate()
        .map(|(i, line)| {
            serde_json::from_str(line).unwrap_or_else(|e| {
                panic!(
                    "{}: line {} is not JSON ({e}): {line}",
                    path.display(),
                    i + 1
                )
            })
        })
        .collect();
    (events, torn)
}

/// Every event of a session, which must hold no torn line.
pub fn events(session: &Path) -> Vec<Value> {
    let (events, torn) = read_events(session);
    assert!(!torn, "{}: torn last line", session.display());
    events
}

/// The report of `classlab run --json` stdout: `{"sessions": [report]}` (the shape of
/// `report --json`).
pub fn run_report(stdout: &[u8]) -> Value {
    let printed: Value = serde_json::from_slice(stdout).unwrap_or_else(|e| {
        panic!(
            "run --json prints JSON ({e}): {}",
            String::from_utf8_lossy(stdout)
        )
    });
    let all = printed["sessions"].as_array();
    assert_eq!(
        all.map_or(0, Vec::len),
        1,
        "one session reported: {printed}"
    );
    printed["sessions"][0].clone()
}

/// `classlab run --json --strategy tdd --provider reference --sessions SESSIONS`, for the
/// test's own arguments to follow.
pub fn reference_tdd_run(sessions: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("classlab").unwrap();
    cmd.args([
        "run",
        "--json",
        "--strategy",
        "tdd",
        "--provider",
        "reference",
        "--sessions",
    ])
    .arg(sessions);
    cmd
}

/// The report of a run that must have succeeded, and the events of the one session it left
/// under `sessions`.
pub fn report_and_events(out: std::process::Output, sessions: &Path) -> (Value, Vec<Value>) {
    assert!(
        out.status.success(),
        "run failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (run_report(&out.stdout), events(&only_session(sessions)))
}
