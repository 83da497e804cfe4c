//! Snapshots of the evaluation screens (ratatui TestBackend + insta, 80×24 and 160×48) over
//! synthetic sessions, and the live fingerprint filling in as events arrive one by one.
//!
//! Update with `INSTA_UPDATE=always cargo test --test tui_eval`, then read the `.snap` files.

mod tui_fixtures;

use classlab::metrics::fingerprint::Bucket;
use classlab::session::EventBody;
use classlab::tui::action::{Action, Delivered};
use classlab::tui::app::{App, ScreenId};
use tui_fixtures::*;

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 48)];

fn snap(name: &str, setup: impl Fn((u16, u16)) -> App) {
    for size in SIZES {
        let app = setup(size);
        insta::assert_snapshot!(format!("eval_{name}_{}x{}", size.0, size.1), screen(&app));
    }
}

#[test]
fn sessions_list_with_two_marked() {
    snap("sessions", |size| {
        let (mut app, mut fake) = sessions_app(size);
        // Mark the reference and GPT-4-Turbo (Space moves down after marking).
        fake.run(
            &mut app,
            [Action::Down, Action::ToggleMark, Action::ToggleMark],
        );
        app
    });
}

/// Start an evaluation from the dialog and feed the first `finished` tasks' events.
fn live_app(size: (u16, u16), finished: usize) -> (App, Fake) {
    let mut app = app(size);
    let mut fake = Fake::new();
    fake.run(&mut app, [Action::NewEval]);
    fake.run(&mut app, "gpt-4".chars().map(Action::Input));
    fake.run(&mut app, [Action::Submit]);
    for e in events(&model_tasks(), finished, None) {
        fake.run(&mut app, [Action::EvalEvent(Delivered::new(e))]);
    }
    (app, fake)
}

#[test]
fn evaluation_mid_run() {
    snap("live_mid_run", |size| live_app(size, 3).0);
}

#[test]
fn evaluation_finished() {
    snap("finished", |size| {
        let (mut app, mut fake) = sessions_app(size);
        open_row(&mut app, &mut fake, 2);
        assert_eq!(app.screen(), ScreenId::Eval);
        app
    });
}

#[test]
fn evaluation_only_imperfect_tasks() {
    let (mut app, mut fake) = sessions_app((80, 24));
    open_row(&mut app, &mut fake, 2);
    fake.run(&mut app, [Action::ToggleFailingOnly]);
    insta::assert_snapshot!("eval_imperfect_80x24", screen(&app));
}

#[test]
fn task_test_detail_with_a_failing_test() {
    snap("detail", |size| {
        let (mut app, mut fake) = sessions_app(size);
        open_row(&mut app, &mut fake, 2);
        // ClassEval_1: the first failing test (TypeError at line 7) is selected; go to the
        // KeyError one (line 13).
        fake.run(
            &mut app,
            [Action::Down, Action::Open, Action::Down, Action::Down],
        );
        assert_eq!(app.screen(), ScreenId::TestDetail);
        app
    });
}

#[test]
fn task_test_detail_of_an_import_failure() {
    let (mut app, mut fake) = sessions_app((80, 24));
    open_row(&mut app, &mut fake, 2);
    fake.run(
        &mut app,
        [Action::Down, Action::Down, Action::Open, Action::NextTab],
    );
    insta::assert_snapshot!("eval_detail_import_80x24", screen(&app));
}

#[test]
fn comparison_of_two_sessions() {
    snap("compare", |size| {
        let (mut app, mut fake) = sessions_app(size);
        compare_two(&mut app, &mut fake);
        assert_eq!(app.screen(), ScreenId::Compare);
        app
    });
}

#[test]
fn one_task_across_the_compared_sessions() {
    snap("compare_task", |size| {
        let (mut app, mut fake) = sessions_app(size);
        compare_two(&mut app, &mut fake);
        fake.run(&mut app, [Action::Open, Action::Right]);
        assert_eq!(app.screen(), ScreenId::CompareTask);
        app
    });
}

#[test]
fn new_evaluation_dialog() {
    snap("new_dialog", |size| {
        let mut app = app(size);
        let mut fake = Fake::new();
        fake.run(&mut app, [Action::NewEval]);
        fake.run(&mut app, "gpt".chars().map(Action::Input));
        fake.run(&mut app, [Action::Down]);
        app
    });
}

#[test]
fn cancel_question() {
    let (mut app, mut fake) = live_app((80, 24), 2);
    fake.run(&mut app, [Action::CancelRun]);
    insta::assert_snapshot!("eval_cancel_question_80x24", screen(&app));
}

/// The counts the spectrum bars show, read from the rendered screen: the value row sits just
/// above the bar labels, each value under its label.
fn rendered_spectrum(screen: &str) -> Vec<(String, usize)> {
    let lines: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let labels = [
        "Syntax", "Runtime", "Logic", "Fail", "Weak", "Strong", "NearPerf", "Perfect", "Timeout",
        "EnvErr",
    ];
    let row = lines
        .iter()
        .position(|l| {
            let s: String = l.iter().collect();
            s.contains("Syntax") && s.contains("EnvErr")
        })
        .expect("the spectrum's label row");
    let label_row: String = lines[row].iter().collect();
    let values = &lines[row - 1];
    let mut out = Vec::new();
    let mut from = 0;
    for label in labels {
        // Labels appear in bucket order, each after the previous one.
        let at = label_row[from..]
            .find(label)
            .map(|i| i + from)
            .expect(label);
        let start = label_row[..at].chars().count();
        let len = label.chars().count();
        let digits: String = values
            .iter()
            .skip(start)
            .take(len)
            .filter(|c| c.is_ascii_digit())
            .collect();
        out.push((label.to_string(), digits.parse().unwrap_or(0)));
        from = at + label.len();
    }
    out
}

#[test]
fn the_fingerprint_panel_fills_in_as_events_arrive() {
    let mut app = app((160, 48));
    let mut fake = Fake::new();
    fake.run(&mut app, [Action::NewEval]);
    fake.run(&mut app, "preds.jsonl".chars().map(Action::Input));
    fake.run(&mut app, [Action::Submit]);
    let tasks = model_tasks();
    let all = events(&tasks, tasks.len(), Some(false));
    let mut expected: Vec<(String, usize)> = rendered_spectrum(&screen(&app));
    assert!(expected.iter().all(|(_, n)| *n == 0), "{expected:?}");
    let label_of = |b: Bucket| match b {
        Bucket::SyntaxErr => "Syntax",
        Bucket::RuntimeErr => "Runtime",
        Bucket::LogicErr => "Logic",
        Bucket::NearPerf => "NearPerf",
        other => other.as_str(),
    };
    let mut finished = 0;
    for e in all {
        let bucket = match &e.body {
            EventBody::TaskFinished { summary, .. } => summary.outcome,
            _ => None,
        };
        fake.run(&mut app, [Action::EvalEvent(Delivered::new(e))]);
        let text = screen(&app);
        if let Some(b) = bucket {
            finished += 1;
            let slot = expected
                .iter_mut()
                .find(|(l, _)| l == label_of(b))
                .expect("bucket shown");
            slot.1 += 1;
        }
        assert_eq!(rendered_spectrum(&text), expected, "{text}");
        let title = format!(
            "Outcome spectrum · {finished} class{}",
            if finished == 1 { "" } else { "es" }
        );
        assert!(text.contains(&title), "{title}\n{text}");
    }
    assert_eq!(finished, tasks.len());
    // The model's verdicts and the two that are not the model's are both there.
    let shown: Vec<usize> = expected.iter().map(|(_, n)| *n).collect();
    assert_eq!(shown, [1, 0, 1, 0, 1, 0, 0, 1, 1, 1]);
    assert!(screen(&app).contains("finished"));
}

/// A stopped session beside a finished one (issue 12, A6): compared on the tasks both
/// finished, the title says how many were left out, and no task the stopped run never ran is
/// counted as differing.
#[test]
fn comparison_with_a_stopped_session_is_on_the_tasks_both_finished() {
    // Row 0 is the stopped CodeLlama run, row 2 the finished GPT-4-Turbo one.
    let (app, _fake) = first_two_compared();
    assert_eq!(app.screen(), ScreenId::Compare);
    let c = app.sh.ev.compare.as_ref().unwrap();
    let done: Vec<usize> = c.sessions.iter().map(|s| s.state.progress().0).collect();
    let compared = c.comparison.rows.len();
    assert!(done[0] < done[1], "one stopped early: {done:?}");
    assert_eq!(compared, done[0].min(done[1]));
    for task in &c.differing {
        assert!(
            c.sessions.iter().all(|s| s.state.outcome(task).is_some()),
            "{task} was not finished by every session"
        );
    }
    let text = screen(&app);
    let left_out = done[1] - compared;
    assert!(
        text.contains(&format!(
            "Compared on the {compared} tasks both finished ({left_out} of #2's left out)"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("{} of the {compared} compared", c.differing.len())),
        "{text}"
    );
}

/// `d` on the sessions list asks first (issue 12, A5); `n` keeps the session, `y` deletes it
/// and the list is read again without it.
#[test]
fn d_deletes_the_selected_session_after_asking() {
    let (mut app, mut fake) = sessions_app((80, 24));
    let before = app.sh.ev.sessions.rows.len();
    let id = app.sh.ev.sessions.rows[1].info.id.clone();
    fake.run(&mut app, [Action::Top, Action::Down, Action::DeleteSession]);
    let text = screen(&app);
    assert!(
        text.contains("Delete session") && text.contains("undone"),
        "{text}"
    );
    assert!(
        fake.effects
            .iter()
            .all(|e| !matches!(e, classlab::tui::app::Effect::DeleteSession { .. }))
    );
    fake.run(&mut app, [Action::Back]);
    assert_eq!(app.sh.ev.sessions.rows.len(), before, "no: nothing deleted");
    fake.run(&mut app, [Action::DeleteSession, Action::Submit]);
    assert_eq!(app.sh.ev.sessions.rows.len(), before - 1);
    assert!(app.sh.ev.sessions.rows.iter().all(|r| r.info.id != id));
    assert!(screen(&app).contains("deleted session"), "{}", screen(&app));
}

#[test]
fn the_test_detail_says_why_a_name_error_failed() {
    use classlab::metrics::fingerprint::ExcKind;
    use classlab::model::Outcome;
    // The class uses `json` without importing it: a NameError the classifier explains.
    let code = "class Store:\n    def dump(self):\n        return json.dumps({})\n";
    let task = TaskFixture {
        id: "ClassEval_7".into(),
        code: code.into(),
        suite: suite(
            vec![
                test("StoreTest.test_ok", Outcome::Pass),
                failing(
                    "StoreTest.test_dump",
                    "NameError",
                    "name 'json' is not defined",
                    Some(3),
                ),
            ],
            None,
        ),
        summary: summary(Some(Bucket::Weak), 1, 2, &[(ExcKind::NameError, 1)], &[]),
    };
    let mut app = app((80, 24));
    let mut fake = Fake::new();
    fake.run(&mut app, [Action::NewEval]);
    fake.run(&mut app, "gpt-4".chars().map(Action::Input));
    fake.run(&mut app, [Action::Submit]);
    for e in events(std::slice::from_ref(&task), 1, Some(false)) {
        fake.run(&mut app, [Action::EvalEvent(Delivered::new(e))]);
    }
    // The detail opens on the first failing test.
    fake.run(&mut app, [Action::Top, Action::Open]);
    assert_eq!(app.screen(), ScreenId::TestDetail);
    let text = screen(&app);
    assert!(
        text.contains("cause: name used but not imported (`json`)"),
        "{text}"
    );
    // A passing test has no cause line.
    fake.run(&mut app, [Action::Top]);
    assert!(!screen(&app).contains("cause:"), "{}", screen(&app));
}

/// The grid and the paired view through the app: `m` on the comparison shows the task ×
/// session grid, two cells of a row open the paired view, Esc walks back.
#[test]
fn the_comparison_opens_the_grid_and_two_cells_the_paired_view() {
    let (mut app, mut fake) = first_two_compared();
    assert_eq!(app.screen(), ScreenId::Compare);
    fake.run(&mut app, [Action::ShowGrid]);
    assert_eq!(app.screen(), ScreenId::Grid);
    assert!(
        app.contexts()
            .contains(&classlab::tui::keymap::Context::Global)
    );
    fake.run(&mut app, [Action::Open, Action::Right, Action::Open]);
    assert_eq!(app.screen(), ScreenId::Paired);
    assert!(app.sh.pair.is_none(), "the paired view took the pair");
    fake.run(&mut app, [Action::ToggleHelp]);
    assert_eq!(app.layer(), Some(ScreenId::Help));
    fake.run(&mut app, [Action::Back, Action::Back]);
    assert_eq!(app.screen(), ScreenId::Grid);
    fake.run(&mut app, [Action::Back]);
    assert_eq!(app.screen(), ScreenId::Compare);
}

/// The grid from anywhere (the palette's command): without compared sessions it says how to
/// get some instead of opening an empty grid.
#[test]
fn the_grid_without_compared_sessions_says_how_to_compare() {
    let (mut app, mut fake) = sessions_app((80, 24));
    fake.run(&mut app, [Action::ShowGrid]);
    assert_eq!(app.screen(), ScreenId::Sessions);
    let status = app
        .sh
        .status
        .as_ref()
        .map(|s| s.text.as_str())
        .unwrap_or("");
    assert!(status.contains("compare sessions first"), "{status}");
}

/// The sessions list at 120×40 with its first two sessions marked and compared.
fn first_two_compared() -> (App, Fake) {
    let (mut app, mut fake) = sessions_app((120, 40));
    fake.run(
        &mut app,
        [
            Action::Top,
            Action::ToggleMark,
            Action::Down,
            Action::ToggleMark,
            Action::Compare,
        ],
    );
    (app, fake)
}
