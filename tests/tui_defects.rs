//! Defects of issue 12 (B12) that need the fake effect loop: the sessions list after an
//! evaluation ends elsewhere.

mod tui_fixtures;

use classlab::tui::action::{Action, Delivered};
use classlab::tui::app::{Effect, ScreenId};
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
    assert_eq!(app.screen(), ScreenId::Eval);
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
    assert_eq!(app.screen(), ScreenId::Eval);
    assert_eq!(
        load_requests(&fake),
        before + 1,
        "the list is asked for again"
    );
    fake.run(&mut app, [Action::Back]);
    assert_eq!(app.screen(), ScreenId::Sessions);
    assert!(!app.sh.live_row(), "no stale live row");
    assert!(!screen(&app).contains("running"), "{}", screen(&app));
}

/// B10: an error longer than the status line is never cut silently: the line says `!` shows
/// it, and `!` lists it whole (wrapped), with every error raised since startup.
#[test]
fn a_long_error_is_shown_whole_by_the_problems_list() {
    let (mut app, mut fake) = sessions_app((80, 24));
    fake.run(&mut app, [Action::NewEval]);
    for c in "preds.jsonl".chars() {
        fake.run(&mut app, [Action::Input(c)]);
    }
    fake.run(&mut app, [Action::Submit]);
    let long = "cannot start: endpoint profile \"local\": base_url is missing (set it in \
                /home/someone/.config/classlab/config.toml under [endpoints.local] or pass \
                --base-url); the run was not started and nothing was written — THE-END";
    fake.run(
        &mut app,
        [Action::EvalEnded {
            dir: None,
            error: Some(long.into()),
        }],
    );
    let text = screen(&app);
    let status = text.lines().last().unwrap_or_default();
    assert!(status.ends_with("(!: all of it)"), "{status}");
    fake.run(&mut app, [Action::ShowProblems]);
    let text = screen(&app);
    assert!(text.contains("Errors since startup"), "{text}");
    assert!(text.contains("THE-END"), "the whole error, wrapped: {text}");
    assert!(text.contains("error(s) since startup"), "{text}");
}
