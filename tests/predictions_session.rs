//! B14: dependency predictions from a run session — `classlab depcheck --predictions <session>`
//! scores the dependency analyses a `tdd` run recorded, and the TUI's Dependencies tab shows
//! them, as it does a predictions file.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use classlab::dataset::{self, predictions};
use classlab::depcheck::GroundTruth;
use classlab::tui::action::Action;
use classlab::tui::app::{App, UiSetup};
use classlab::tui::data::Data;
use classlab::tui::views;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::Value;

/// A `tdd` run of the dataset's own code on two sample tasks: its dependency analyses are the
/// extracted graphs (the session directory, in `sessions`).
fn reference_run(sessions: &Path) -> PathBuf {
    let out = Command::cargo_bin("classlab")
        .unwrap()
        .args(["run", "--strategy", "tdd", "--provider", "reference"])
        .args(["--tasks", "Sample_0,Sample_1", "--sessions"])
        .arg(sessions)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(sessions)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("meta.json").is_file())
        .collect();
    assert_eq!(dirs.len(), 1);
    dirs.remove(0)
}

fn depcheck(args: &[&str], sessions: &Path) -> Value {
    let out = Command::cargo_bin("classlab")
        .unwrap()
        .args(["depcheck", "--json", "--sessions"])
        .arg(sessions)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_run_session_is_scored_and_shown_like_a_predictions_file() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    let session = reference_run(&sessions);
    // By directory and by id (under --sessions): the two tasks, every method exact.
    let id = session.file_name().unwrap().to_string_lossy().into_owned();
    for arg in [session.to_string_lossy().into_owned(), id] {
        let v = depcheck(&["--predictions", &arg], &sessions);
        assert_eq!(v["metrics"]["tasks"], 2, "{v:#}");
        assert_eq!(v["metrics"]["exact_pct"], 100.0, "{v:#}");
        let unscored = v["unscored_tasks"].as_array().unwrap();
        assert!(!unscored.iter().any(|t| t == "Sample_0" || t == "Sample_1"));
    }
    // The TUI's Dependencies tab: predicted vs true, every edge correct.
    let preds = predictions::load_any(&session, None).unwrap();
    assert_eq!(preds.tasks.len(), 2);
    let mut app = App::new(
        Data::new(dataset::sample(), Some(preds), GroundTruth::Extracted),
        UiSetup {
            size: (100, 40),
            ..UiSetup::default()
        },
    );
    for a in [Action::Open, Action::GoTab(5)] {
        app.update(a);
    }
    let mut terminal = Terminal::new(TestBackend::new(100, 40)).unwrap();
    terminal.draw(|f| views::render(&app, f)).unwrap();
    let text = terminal.backend().to_string();
    assert!(text.contains("→ ✓tokenize"), "{text}");
    assert!(
        text.contains("the predicted order respects every true edge"),
        "{text}"
    );
    assert!(!text.contains("→ ✗") && !text.contains("→ +"), "{text}");
}

#[test]
fn a_session_without_dependency_analyses_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    let session = reference_run(&sessions);
    // Keep the session's meta but drop its dependency analyses.
    let events = session.join("events.jsonl");
    let kept: String = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .filter(|l| !l.contains("\"dependency_prediction\""))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&events, kept).unwrap();
    let err = predictions::load_any(&session, None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("no dependency analysis"), "{err}");
}
