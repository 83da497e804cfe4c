//! Small things a user sees at once (issue 21 item 19): an evaluation of three tasks warns
//! only about those three; the corpus browser's `D` and `R` open no summary or run over zero
//! tasks; the help of the browser's class view labels each of the keys 1–5.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use classlab::dataset::{self, Dataset, Format};
use classlab::depcheck::GroundTruth;
use classlab::tui::action::Action;
use classlab::tui::app::{App, ScreenId, UiSetup};
use classlab::tui::data::Data;
use classlab::tui::{action_for, views};
use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn classeval() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/classeval/ClassEval_data.json")
}

/// `eval` of outputs for `ids` (their reference solutions); its stderr.
fn eval_stderr(dir: &Path, ids: &[&str]) -> String {
    let ds = dataset::load_path(&classeval()).unwrap();
    let mut text = String::new();
    for t in ds.tasks.iter().filter(|t| ids.contains(&t.id.as_str())) {
        text += &serde_json::json!({"task_id": t.id, "model": "m", "code": t.solution}).to_string();
        text.push('\n');
    }
    let preds = dir.join(format!("{}.jsonl", ids.len()));
    std::fs::write(&preds, text).unwrap();
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join(".python/classeval/bin/python");
    let out = Command::cargo_bin("classlab")
        .unwrap()
        .arg("--sessions")
        .arg(dir.join("sessions"))
        .arg("--python")
        .arg(&python)
        .arg("--dataset")
        .arg(classeval())
        .args(["eval", "--predictions"])
        .arg(&preds)
        .output()
        .unwrap();
    assert!(matches!(out.status.code(), Some(0 | 3)));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn an_evaluation_warns_only_about_the_tasks_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    // ClassEval_48's skeleton imports netifaces, which the project's environment lacks (as
    // the official evaluator's): the warning names it only when 48 is evaluated.
    let with = eval_stderr(dir.path(), &["ClassEval_1", "ClassEval_48", "ClassEval_2"]);
    assert!(with.contains("netifaces (ClassEval_48)"), "{with}");
    let without = eval_stderr(dir.path(), &["ClassEval_0", "ClassEval_1", "ClassEval_2"]);
    assert!(!without.contains("ClassEval_48"), "{without}");
    assert!(!without.contains("cannot import"), "{without}");
}

fn press(app: &mut App, c: char) {
    let event = Event::Key(KeyEvent::new_with_kind(
        KeyCode::Char(c),
        KeyModifiers::NONE,
        KeyEventKind::Press,
    ));
    if let Some(a) = action_for(app, &event) {
        app.update(a);
    }
}

fn render(app: &App) -> String {
    let (w, h) = app.sh.size;
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| views::render(app, f)).unwrap();
    t.backend().to_string()
}

#[test]
fn no_summary_or_run_over_zero_tasks() {
    let empty = Dataset {
        name: "store.db".into(),
        origin: "store.db".into(),
        format: Format::Classlab,
        tasks: Vec::new(),
        problems: Vec::new(),
    };
    let mut app = App::new(
        Data::new(empty, None, GroundTruth::Extracted),
        UiSetup {
            size: (80, 24),
            ..UiSetup::default()
        },
    );
    for key in ['D', 'R'] {
        press(&mut app, key);
        assert_eq!(app.top(), ScreenId::List, "{key} opened {:?}", app.top());
        let screen = render(&app);
        assert!(screen.contains("no tasks"), "{key}:\n{screen}");
        app.update(Action::Back);
    }
}
