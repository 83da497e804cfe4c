//! Snapshots of the TUI (ratatui TestBackend + insta) at 80×24 and 160×48, driven only by
//! injected actions. The buffer is compared as text: colours (and NO_COLOR) do not matter.
//!
//! Update with `INSTA_UPDATE=always cargo test --test tui_snapshots`, then read the `.snap`
//! files: they are the UI.

mod tui_fixtures;

use classlab::dataset::{self, predictions};
use classlab::depcheck::GroundTruth;
use classlab::tui::action::Action;
use classlab::tui::app::{App, UiSetup};
use classlab::tui::data::Data;
use tui_fixtures::screen;

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 48)];

/// Predictions for two sample tasks: in Sample_0 one method exact, one missing-only, one
/// extra-only and an order that puts `report` before `top_words`; Sample_6 wrong.
const PREDICTIONS: &str = r#"{
  "Sample_0": {
    "dependencies": {
      "report": ["top_words"],
      "top_words": [],
      "count_words": ["tokenize", "add_stopword"],
      "tokenize": [],
      "add_stopword": []
    },
    "order": ["tokenize", "report", "count_words", "top_words", "add_stopword"]
  },
  "Sample_6": {
    "dependencies": {"is_canonical": ["to_roman", "symbol_value"], "from_roman": ["symbol_value"]},
    "order": ["symbol_value", "from_roman", "to_roman", "is_canonical"]
  }
}"#;

fn app(size: (u16, u16), with_predictions: bool) -> App {
    let sample = dataset::sample();
    assert!(
        sample.tasks.len() >= 6,
        "the bundled sample should have tasks"
    );
    let preds =
        with_predictions.then(|| predictions::parse("predictions.json", PREDICTIONS).unwrap());
    let data = Data::new(sample, preds, GroundTruth::Extracted);
    App::new(
        data,
        UiSetup {
            size,
            ..UiSetup::default()
        },
    )
}

fn apply(app: &mut App, actions: impl IntoIterator<Item = Action>) {
    for a in actions {
        app.update(a);
    }
}

fn typed(text: &str) -> Vec<Action> {
    text.chars().map(Action::Input).collect()
}

/// Snapshot the app after `actions` at both sizes.
fn snap(name: &str, with_predictions: bool, actions: &[Action]) {
    for size in SIZES {
        let mut app = app(size, with_predictions);
        apply(&mut app, actions.iter().cloned());
        insta::assert_snapshot!(format!("tui_{name}_{}x{}", size.0, size.1), screen(&app));
    }
}

/// Open Sample_0 (the first row of the list, sorted by id).
fn open_first() -> Vec<Action> {
    vec![Action::Open]
}

#[test]
fn task_list() {
    snap("task_list", false, &[]);
}

#[test]
fn task_list_with_predictions() {
    snap("task_list_predictions", true, &[]);
}

#[test]
fn task_list_filtered() {
    let mut actions = vec![Action::StartFilter];
    actions.extend(typed("rate"));
    snap("task_list_filtered", false, &actions);
}

#[test]
fn task_list_sorted_by_deps_descending() {
    snap(
        "task_list_sorted",
        false,
        &[
            Action::SortBy(classlab::tui::action::SortColumn::Deps),
            Action::SortReverse,
        ],
    );
}

#[test]
fn tab_skeleton() {
    snap("tab_skeleton", false, &open_first());
}

#[test]
fn tab_solution() {
    let mut actions = open_first();
    actions.push(Action::GoTab(2));
    snap("tab_solution", false, &actions);
}

#[test]
fn tab_tests() {
    let mut actions = open_first();
    actions.push(Action::GoTab(3));
    snap("tab_tests", false, &actions);
}

#[test]
fn tab_methods() {
    let mut actions = open_first();
    actions.extend([Action::GoTab(4), Action::Down]);
    snap("tab_methods", false, &actions);
}

#[test]
fn methods_jump_to_solution() {
    let mut actions = open_first();
    actions.extend([Action::GoTab(4), Action::Down, Action::Down, Action::Open]);
    snap("methods_jump", false, &actions);
}

#[test]
fn tab_dependencies() {
    let mut actions = open_first();
    actions.push(Action::GoTab(5));
    snap("tab_deps", false, &actions);
}

#[test]
fn tab_dependencies_with_predictions() {
    let mut actions = open_first();
    actions.push(Action::GoTab(5));
    snap("tab_deps_predictions", true, &actions);
}

#[test]
fn summary_without_predictions() {
    snap("summary", false, &[Action::ShowSummary]);
}

#[test]
fn summary_with_predictions() {
    snap("summary_predictions", true, &[Action::ShowSummary]);
}

#[test]
fn help_overlay_on_the_list() {
    snap("help_list", false, &[Action::ToggleHelp]);
}

#[test]
fn help_overlay_on_a_code_tab() {
    let mut actions = open_first();
    actions.extend([Action::GoTab(2), Action::ToggleHelp]);
    snap("help_code", false, &actions);
}

#[test]
fn command_palette() {
    let mut actions = vec![Action::OpenPalette];
    actions.extend(typed("th"));
    snap("palette", false, &actions);
}
