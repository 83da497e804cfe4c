//! Defects of issue 12 (B12) that need the fake effect loop: the sessions list after an
//! evaluation ends elsewhere.

mod tui_fixtures;

use classlab::tui::action::{Action, Delivered};
use classlab::tui::app::{Effect, Screen};
use tui_fixtures::*;

fn load_requests(fake: &Fake) -> usize {
    fake.effects
        .iter()
        .filter(|e| matches!(e, Effect::LoadSessions { .. }))
        .count()
}

/// An evaluation that ends while the user looks at its screen reloads the sessions list in
/// the background, so going back shows the ended session without `r`.
#[test]
fn the_sessions_list_is_reloaded_when_an_evaluation_ends_elsewhere() {
    let (mut app, mut fake) = sessions_app((80, 24));
    fake.run(&mut app, [Action::NewEval]);
    for c in "preds.jsonl".chars() {
        fake.run(&mut app, [Action::Input(c)]);
    }
    fake.run(&mut app, [Action::Submit]);
    assert_eq!(app.screen, Screen::Eval);
    for e in events(&model_tasks(), 2, Some(false)) {
        fake.run(&mut app, [Action::EvalEvent(Delivered::new(e))]);
    }
    let before = load_requests(&fake);
    fake.run(
        &mut app,
        [Action::EvalEnded {
            dir: Some("/sessions/20261121-220000-eval-GPT-4-Turbo-aaaa".into()),
            error: None,
        }],
    );
    assert_eq!(app.screen, Screen::Eval);
    assert_eq!(
        load_requests(&fake),
        before + 1,
        "the list is asked for again"
    );
    fake.run(&mut app, [Action::Back]);
    assert_eq!(app.screen, Screen::Sessions);
    assert!(!app.live_row(), "no stale live row");
    assert!(!screen(&app).contains("running"), "{}", screen(&app));
}
