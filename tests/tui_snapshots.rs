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

/// What the evaluation screens show of tampering: an evaluation with two tasks the harness
/// found tampered with — a whole suite, and one test's verdict — listed in red, and the test
/// detail's red banner. Colours do not show in a text snapshot: these tests read them from
/// the buffer.
mod tampering {
    use classlab::metrics::fingerprint::{self, Bucket, EnvContext, Thresholds};
    use classlab::tui::action::Action;
    use classlab::tui::app::{App, ScreenId};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::style::{Color, Modifier};

    use super::SIZES;
    use super::tui_fixtures::*;

    /// The sessions screen over one finished evaluation of the tampered tasks.
    fn tampered_app(size: (u16, u16)) -> (App, Fake) {
        let mut app = app(size);
        let mut fake = Fake::new();
        fake.logs = vec![log(
            meta(
                "20261125-143000-eval-GPT-4-Turbo-7a1b",
                Some("GPT-4-Turbo"),
                Some("holistic"),
                "2026-11-25T14:30:00Z",
            ),
            events(&tampered_tasks(), tampered_tasks().len(), Some(false)),
            Vec::new(),
        )];
        fake.run(&mut app, [Action::ShowSessions]);
        open_row(&mut app, &mut fake, 0);
        assert_eq!(app.screen(), ScreenId::Eval);
        (app, fake)
    }

    /// The foreground colour and modifiers of the first cell of each row where `needle` starts
    /// (in cells), over the whole screen, with whether the row is the selected one (`›`).
    fn styles_of(app: &App, needle: &str) -> Vec<(bool, Option<Color>, Modifier)> {
        let (w, h) = app.sh.size;
        let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
        terminal
            .draw(|f| classlab::tui::views::render(app, f))
            .unwrap();
        let buf = terminal.backend().buffer();
        let mut out = Vec::new();
        for y in 0..h {
            let row: Vec<&str> = (0..w).map(|x| buf[(x, y)].symbol()).collect();
            let text: String = row.concat();
            if let Some(byte) = text.find(needle) {
                // Cells up to the match (every symbol here is one cell wide).
                let x = text[..byte].chars().count() as u16;
                let cell = &buf[(x, y)];
                out.push((
                    text.contains('›'),
                    cell.style().fg,
                    cell.style().add_modifier,
                ));
            }
        }
        out
    }

    /// The theme's red (its `error` slot), the colour tampering is shown in.
    fn red(app: &App) -> Color {
        app.sh.theme().tampered().fg.expect("a colour theme")
    }

    #[test]
    fn the_fixture_verdicts_are_what_the_fingerprint_says() {
        for t in tampered_tasks()
            .iter()
            .filter(|t| ["ClassEval_6", "ClassEval_7"].contains(&t.id.as_str()))
        {
            let c = fingerprint::classify_suite(
                &t.suite,
                &EnvContext::default(),
                &Thresholds::default(),
            );
            assert_eq!(c.bucket, Some(Bucket::RuntimeErr), "{}", t.id);
            assert_eq!(
                (c.passed, c.judged),
                (t.summary.passed, t.summary.judged),
                "{}",
                t.id
            );
            let ex = fingerprint::suite_exceptions(&t.suite, &EnvContext::default());
            assert_eq!(ex.model, t.summary.exceptions, "{}", t.id);
            assert_eq!(ex.env, t.summary.env_exceptions, "{}", t.id);
        }
    }

    #[test]
    fn an_evaluation_with_tampered_tasks() {
        for size in SIZES {
            let (mut app, mut fake) = tampered_app(size);
            // The last rows in view, ClassEval_6 selected (ClassEval_7 shows its own style).
            fake.run(
                &mut app,
                std::iter::repeat_n(Action::Down, 7).chain([Action::Up]),
            );
            let text = screen(&app);
            insta::assert_snapshot!(format!("eval_tampered_{}x{}", size.0, size.1), text);
            assert!(
                text.contains("ClassEval_6") && text.contains("ClassEval_7"),
                "{text}"
            );
            let tampered = styles_of(&app, "TAMPERED");
            assert_eq!(tampered.len(), 2, "both tampered tasks say so: {text}");
            // The selected row wears the selection's colours; the other one its own.
            let unselected: Vec<_> = tampered.iter().filter(|(sel, _, _)| !sel).collect();
            assert_eq!(unselected.len(), 1, "{text}");
            for (_, fg, modifiers) in unselected {
                assert_eq!(*fg, Some(red(&app)), "in red: {text}");
                assert!(modifiers.contains(Modifier::BOLD), "in bold: {text}");
            }
            // Other notes stay muted.
            let (_, fg, _) = styles_of(&app, "KeyError")[0];
            assert_ne!(fg, Some(red(&app)));
        }
    }

    #[test]
    fn the_test_detail_of_a_tampered_test() {
        for size in SIZES {
            let (mut app, mut fake) = tampered_app(size);
            // ClassEval_7 is the eighth row; its second test is the tampered one.
            fake.run(
                &mut app,
                std::iter::repeat_n(Action::Down, 7).chain([Action::Open, Action::Down]),
            );
            assert_eq!(app.screen(), ScreenId::TestDetail);
            let text = screen(&app);
            insta::assert_snapshot!(format!("detail_tampered_test_{}x{}", size.0, size.1), text);
            let banner = styles_of(&app, "✗ TAMPERED");
            assert_eq!(banner.len(), 1, "{text}");
            assert_eq!(banner[0].1, Some(red(&app)));
            // The selected test's message, in the outcome's red.
            let head = styles_of(&app, "! tampered: verdict rewritten");
            assert_eq!(head.len(), 1, "{text}");
            assert_eq!(head[0].1, Some(red(&app)));
        }
    }

    #[test]
    fn the_test_detail_of_a_tampered_suite() {
        let (mut app, mut fake) = tampered_app((80, 24));
        fake.run(
            &mut app,
            std::iter::repeat_n(Action::Down, 6).chain([Action::Open]),
        );
        assert_eq!(app.screen(), ScreenId::TestDetail);
        let text = screen(&app);
        insta::assert_snapshot!("detail_tampered_suite_80x24", text);
        let banner = styles_of(&app, "✗ TAMPERED");
        assert_eq!(banner.len(), 1, "{text}");
        assert_eq!(banner[0].1, Some(red(&app)));
    }
}
