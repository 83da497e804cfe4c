//! The generation-run screens: snapshots (ratatui TestBackend + insta, 80×24 and 160×48) of
//! the run screen live and finished, the step-through of a method repaired twice, and the
//! new-run dialog; and `App::update` on them (opening, navigating, robustness).
//!
//! Update with `INSTA_UPDATE=always cargo test --test tui_run`, then read the `.snap` files.

mod tui_fixtures;

use classlab::session::EventBody;
use classlab::tui::action::{Action, Delivered};
use classlab::tui::action_for;
use classlab::tui::app::{App, Effect, Level, ScreenId};
use classlab::tui::evals::Source;
use classlab::tui::keymap::Context;
use classlab::tui::runs::{Field, RunPane};
use crossterm::event::{Event as TermEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use tui_fixtures::run::*;
use tui_fixtures::*;

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 48)];

fn snap(name: &str, setup: impl Fn((u16, u16)) -> App) {
    for size in SIZES {
        let app = setup(size);
        insta::assert_snapshot!(format!("run_{name}_{}x{}", size.0, size.1), screen(&app));
    }
}

fn key(app: &mut App, fake: &mut Fake, code: KeyCode, mods: KeyModifiers) {
    let event = TermEvent::Key(KeyEvent::new_with_kind(code, mods, KeyEventKind::Press));
    if let Some(a) = action_for(app, &event) {
        fake.run(app, [a]);
    }
}

fn press(app: &mut App, fake: &mut Fake, code: KeyCode) {
    key(app, fake, code, KeyModifiers::NONE);
}

/// The finished run opened from the sessions list, its first task's methods focused.
fn finished_app(size: (u16, u16)) -> (App, Fake) {
    let (mut app, mut fake) = run_sessions_app(size);
    open_row(&mut app, &mut fake, 0);
    assert_eq!(app.screen(), ScreenId::Run);
    (app, fake)
}

/// The step-through of the first task's `add` (repaired twice), at round `round`.
fn step_app(size: (u16, u16), round: usize) -> (App, Fake) {
    let (mut app, mut fake) = finished_app(size);
    fake.run(&mut app, [Action::Open, Action::Open]);
    assert_eq!(app.screen(), ScreenId::Step);
    fake.run(&mut app, [Action::Top]);
    fake.run(&mut app, std::iter::repeat_n(Action::PrevRound, 2 - round));
    (app, fake)
}

#[test]
fn run_screen_mid_run() {
    snap("live_mid_run", |size| {
        let (mut app, mut fake) = live_run_app(size);
        // The running task, its methods: `add` is in its first repair.
        fake.run(&mut app, [Action::Down, Action::Open]);
        app
    });
}

#[test]
fn a_method_streaming_its_repair() {
    snap("live_step_streaming", |size| {
        let (mut app, mut fake) = live_run_app(size);
        fake.run(&mut app, [Action::Down, Action::Open, Action::Open]);
        assert_eq!(app.screen(), ScreenId::Step);
        app
    });
}

#[test]
fn run_screen_finished() {
    snap("finished", |size| {
        let (mut app, mut fake) = finished_app(size);
        fake.run(&mut app, [Action::Open]);
        app
    });
}

#[test]
fn run_screen_with_its_panel_toggled() {
    snap("panel_toggled", |size| {
        let (mut app, mut fake) = finished_app(size);
        fake.run(&mut app, [Action::TogglePanel]);
        app
    });
}

#[test]
fn step_through_a_repair_round() {
    snap("step_round_1", |size| step_app(size, 1).0);
}

#[test]
fn step_through_the_sections_of_a_round() {
    // One pane at 80 columns: Tab jumps to the reflection, then on to the patch.
    let (mut app, mut fake) = step_app((80, 24), 2);
    fake.run(&mut app, [Action::NextTab, Action::NextTab]);
    insta::assert_snapshot!("run_step_reflection_80x24", screen(&app));
    fake.run(&mut app, [Action::NextTab, Action::NextTab]);
    insta::assert_snapshot!("run_step_patch_80x24", screen(&app));
}

#[test]
fn step_through_with_the_prompt_unfolded() {
    let (mut app, mut fake) = step_app((160, 48), 0);
    fake.run(&mut app, [Action::ToggleFold]);
    insta::assert_snapshot!("run_step_prompt_160x48", screen(&app));
}

#[test]
fn new_run_dialog() {
    snap("new_dialog", |size| {
        let mut app = app(size);
        let mut fake = Fake::new();
        // From the task list: the selected task is offered; choose the first profile, then
        // move past its settings to the schedule.
        fake.run(&mut app, [Action::NewRun]);
        fake.run(&mut app, [Action::Down, Action::Down, Action::Right]);
        fake.run(&mut app, std::iter::repeat_n(Action::Down, 9));
        fake.run(&mut app, [Action::Right]);
        app
    });
}

#[test]
fn help_lists_the_step_through_keys() {
    let (mut app, mut fake) = step_app((80, 24), 2);
    fake.run(&mut app, [Action::ToggleHelp]);
    let text = help_text(&app);
    for want in [
        "Method rounds (step-through)",
        "next round (a repair)",
        "previous round",
        "next method (schedule order)",
        "fold / unfold the prompt",
        "back to the run",
    ] {
        assert!(text.contains(want), "{want} missing from\n{text}");
    }
}

#[test]
fn a_run_session_opens_on_the_run_screen() {
    let (mut app, mut fake) = run_sessions_app((80, 24));
    assert!(screen(&app).contains("gpt-4o-mini"));
    let effects = app.update(Action::Open);
    let [Effect::OpenSession { req, .. }] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    let session = classlab::tui::evals::EvalSession::from_log(run_log(Stage::Finished));
    app.update(Action::SessionOpened {
        req: *req,
        session: Delivered::new(session),
    });
    assert_eq!(app.screen(), ScreenId::Run);
    assert_eq!(app.sh.runs.showing, Some(Source::Opened));
    // Evaluations still open on the evaluation screen.
    fake.run(&mut app, [Action::Back]);
    assert_eq!(app.screen(), ScreenId::Sessions);
    open_row(&mut app, &mut fake, 1);
    assert_eq!(app.screen(), ScreenId::Eval);
}

/// A `forge --llm` session opens on the run screen: its progress is the tasks asked about,
/// and the task pane shows each round's prompt and reply.
#[test]
fn a_forge_session_shows_its_prompts_and_replies() {
    snap("forge_session", |size| {
        let mut app = tui_fixtures::app(size);
        let mut fake = Fake::new();
        fake.logs.insert(0, forge_log());
        fake.run(&mut app, [Action::ShowSessions]);
        open_row(&mut app, &mut fake, 0);
        assert_eq!(app.screen(), ScreenId::Run);
        let text = screen(&app);
        assert!(text.contains("forge --llm session"), "{text}");
        assert!(
            text.contains("1/2"),
            "one of the two tasks answered: {text}"
        );
        assert!(text.contains("Forge round 1"), "{text}");
        assert!(text.contains("never executed"), "the prompt: {text}");
        app
    });
}

#[test]
fn navigate_to_the_rounds_and_back() {
    let (mut app, mut fake) = finished_app((80, 24));
    // Enter on a task focuses its methods; Enter on a method steps through it.
    press(&mut app, &mut fake, KeyCode::Enter);
    assert_eq!(app.sh.runs.pane, RunPane::Methods);
    press(&mut app, &mut fake, KeyCode::Char('j'));
    press(&mut app, &mut fake, KeyCode::Char('k'));
    press(&mut app, &mut fake, KeyCode::Enter);
    assert_eq!(app.screen(), ScreenId::Step);
    let step = app.sh.runs.step.clone().unwrap();
    assert_eq!(
        (step.task_id.as_str(), step.method.as_str()),
        ("ClassEval_0", "add")
    );
    // The newest round is shown first; ← and [ go back, → and ] forward, never past the ends.
    assert_eq!(app.sh.step_ctx().unwrap().round, Some(2));
    press(&mut app, &mut fake, KeyCode::Left);
    assert_eq!(app.sh.step_ctx().unwrap().round, Some(1));
    press(&mut app, &mut fake, KeyCode::Char('['));
    press(&mut app, &mut fake, KeyCode::Char('h'));
    assert_eq!(app.sh.step_ctx().unwrap().round, Some(0));
    press(&mut app, &mut fake, KeyCode::Char(']'));
    press(&mut app, &mut fake, KeyCode::Char('l'));
    press(&mut app, &mut fake, KeyCode::Right);
    assert_eq!(app.sh.step_ctx().unwrap().round, Some(2));
    // n / J: the next method in schedule order; p / K back; not past the first.
    press(&mut app, &mut fake, KeyCode::Char('n'));
    assert_eq!(app.sh.runs.step.as_ref().unwrap().method, "total");
    press(&mut app, &mut fake, KeyCode::Char('J'));
    assert_eq!(app.sh.runs.step.as_ref().unwrap().method, "remove");
    press(&mut app, &mut fake, KeyCode::Char('K'));
    press(&mut app, &mut fake, KeyCode::Char('p'));
    press(&mut app, &mut fake, KeyCode::Char('p'));
    assert_eq!(app.sh.runs.step.as_ref().unwrap().method, "add");
    // z unfolds the prompt; scrolling works; Esc goes back to the run, on that method.
    press(&mut app, &mut fake, KeyCode::Char('z'));
    assert!(app.sh.runs.step.as_ref().unwrap().prompt_open);
    press(&mut app, &mut fake, KeyCode::Char('j'));
    assert_eq!(app.sh.runs.step.as_ref().unwrap().scroll[0], 1);
    press(&mut app, &mut fake, KeyCode::Char('G'));
    assert!(screen(&app).contains("Code"));
    fake.run(&mut app, [Action::NextMethod, Action::NextMethod]);
    press(&mut app, &mut fake, KeyCode::Esc);
    assert_eq!(app.screen(), ScreenId::Run);
    assert_eq!(app.sh.runs.methods.selected, 2, "the list follows");
    press(&mut app, &mut fake, KeyCode::Char('q'));
    assert_eq!(app.screen(), ScreenId::Sessions);
}

#[test]
fn panes_and_the_task_list() {
    let (mut app, mut fake) = finished_app((160, 48));
    assert!(app.sh.run_panel_shown(), "tall terminals show the panel");
    fake.run(&mut app, [Action::Down]);
    assert_eq!(app.sh.run_task().unwrap().task_id, "ClassEval_1");
    fake.run(&mut app, [Action::NextTab]);
    assert_eq!(app.sh.runs.pane, RunPane::Task);
    fake.run(&mut app, [Action::Down, Action::Bottom, Action::Top]);
    assert_eq!(app.sh.runs.task_scroll, 0);
    fake.run(&mut app, [Action::PrevTab, Action::PrevTab]);
    assert_eq!(app.sh.runs.pane, RunPane::Methods);
    fake.run(&mut app, [Action::TogglePanel]);
    assert!(!app.sh.run_panel_shown());
    // A click on a task row selects it.
    let tasks = app.sh.run_areas().tasks;
    fake.run(
        &mut app,
        [Action::Click {
            column: tasks.x + 3,
            row: tasks.y + 2,
        }],
    );
    assert_eq!(app.sh.runs.pane, RunPane::Tasks);
    assert_eq!(app.sh.run_task().unwrap().task_id, "ClassEval_0");
}

#[test]
fn the_dialog_starts_a_run_with_what_was_chosen() {
    let mut app = app((80, 24));
    let mut fake = Fake::new();
    let effects = app.update(Action::NewRun);
    assert_eq!(effects, [Effect::LoadRunChoices]);
    fake.run(&mut app, [Action::NewRun]);
    let Some(d) = (app.layer() == Some(ScreenId::NewRun)).then_some(&app.screens.new_run) else {
        panic!("no dialog");
    };
    assert_eq!(d.endpoints, ["local", "openai"]);
    assert_eq!(d.focus, Field::Strategy);
    // Typed text goes into the model field; digits into jobs.
    fake.run(&mut app, [Action::Down, Action::Down, Action::Right]);
    fake.run(&mut app, [Action::Down]);
    fake.run(&mut app, "qwen".chars().map(Action::Input));
    fake.run(&mut app, [Action::Up, Action::Up, Action::Up, Action::Up]);
    fake.run(&mut app, [Action::Input('2')]);
    let effects = app.update(Action::Submit);
    let [Effect::StartRun(setup)] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    assert_eq!(setup.endpoint.as_deref(), Some("local"));
    assert_eq!(setup.model.as_deref(), Some("qwen"));
    assert_eq!(setup.jobs, 2);
    assert_eq!(setup.tasks, Some(vec!["Sample_0".to_string()]));
    assert_eq!(setup.strategy.to_string(), "tdd");
    assert_eq!(app.screen(), ScreenId::Run);
    assert!(app.sh.run_is_live());
    assert!(screen(&app).contains("Starting"));
    // One run at a time.
    fake.run(
        &mut app,
        [Action::NewRun, Action::Down, Action::Down, Action::Right],
    );
    fake.run(&mut app, [Action::Submit]);
    assert_eq!(app.sh.status.as_ref().map(|s| s.level), Some(Level::Error));
}

#[test]
fn the_dialog_says_what_is_missing() {
    let mut app = app((80, 24));
    let mut fake = Fake::new();
    fake.run(&mut app, [Action::ShowSessions, Action::NewRun]);
    // Replay with no generation session to replay.
    fake.run(&mut app, [Action::Down, Action::Left, Action::Submit]);
    assert!(app.layer() == Some(ScreenId::NewRun));
    assert_eq!(app.sh.status.as_ref().map(|s| s.level), Some(Level::Warn));
    fake.run(&mut app, [Action::Back]);
    assert!(app.layer().is_none());
}

#[test]
fn a_live_run_asks_before_stopping_and_records_its_end() {
    let (mut app, mut fake) = live_run_app((80, 24));
    assert_eq!(app.contexts()[0], Context::RunLive);
    // Ctrl-C on a live run asks instead of quitting.
    key(
        &mut app,
        &mut fake,
        KeyCode::Char('c'),
        KeyModifiers::CONTROL,
    );
    assert!(app.layer() == Some(ScreenId::Confirm));
    assert!(screen(&app).contains("classlab run --resume"));
    let effects = app.update(Action::Submit);
    assert_eq!(effects, [Effect::CancelEval]);
    assert!(app.sh.ev.stopping);
    fake.run(
        &mut app,
        [Action::EvalEvent(Delivered::new(
            classlab::session::Event {
                seq: 999,
                ts: T0 + 3000.0,
                body: EventBody::RunFinished { cancelled: true },
            },
        ))],
    );
    fake.run(
        &mut app,
        [Action::EvalEnded {
            dir: Some("/sessions/20261122-run-x".into()),
            error: None,
        }],
    );
    assert!(!app.sh.run_is_live());
    let status = app.sh.status.as_ref().unwrap();
    assert!(status.text.starts_with("run stopped"), "{}", status.text);
    // Not live any more: Ctrl-C quits again.
    let effects = app.update(
        action_for(
            &app,
            &TermEvent::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
        )
        .unwrap(),
    );
    assert_eq!(effects, [Effect::Quit]);
}

#[test]
fn streamed_text_grows_and_the_response_replaces_it() {
    let (mut app, mut fake) = live_run_app((160, 48));
    fake.run(&mut app, [Action::Down, Action::Open, Action::Open]);
    assert!(screen(&app).contains("Repair plan: Return the total"));
    fake.run(&mut app, [delta(" without None.")]);
    assert!(screen(&app).contains("Return the total without None."));
    // An empty delta: the client retries from scratch, the text so far is dropped.
    fake.run(&mut app, [delta(""), delta("Failure analysis: again")]);
    let text = screen(&app);
    assert!(
        text.contains("again") && !text.contains("without None."),
        "{text}"
    );
    // Deltas for other calls, tasks or no run at all change nothing and break nothing.
    fake.run(
        &mut app,
        [Action::RunDelta {
            task_id: "nope".into(),
            sample: 3,
            call: 9,
            text: "x".into(),
        }],
    );
    let events = run_events(Stage::Finished);
    // The rest of the story (after the streaming request): the response replaces the text.
    let at = run_events(Stage::MidRun).len();
    for e in events.into_iter().skip(at) {
        fake.run(&mut app, [Action::EvalEvent(Delivered::new(e))]);
    }
    let text = screen(&app);
    assert!(
        !text.contains("streaming") && !text.contains("again"),
        "{text}"
    );
}

#[test]
fn empty_unfinished_and_tiny() {
    // A run that recorded nothing but its start, and one with no events at all.
    for events in [run_events(Stage::Finished)[..1].to_vec(), Vec::new()] {
        let mut app = app((80, 24));
        let mut fake = Fake::new();
        fake.logs = vec![log(run_meta(), events, vec!["torn".into()])];
        fake.run(&mut app, [Action::ShowSessions, Action::Open]);
        assert_eq!(app.screen(), ScreenId::Run);
        for a in [
            Action::Open,
            Action::NextTab,
            Action::Down,
            Action::Open,
            Action::TogglePanel,
            Action::Bottom,
        ] {
            fake.run(&mut app, [a]);
            screen(&app);
        }
    }
    // Every screen at awkward sizes, with actions in between.
    for size in [(20, 5), (30, 8), (45, 12), (80, 10), (200, 60), (1, 1)] {
        let (mut app, mut fake) = live_run_app((80, 24));
        fake.run(&mut app, [Action::Resize(size.0, size.1)]);
        for a in [
            Action::Down,
            Action::Open,
            Action::Open,
            Action::NextTab,
            Action::Bottom,
            Action::PrevRound,
            Action::NextMethod,
            Action::ToggleFold,
            Action::PageDown,
            Action::Back,
            Action::TogglePanel,
            Action::NewRun,
        ] {
            fake.run(&mut app, [a]);
            screen(&app);
        }
    }
}

/// The dialog's run, carried out by the real job: TDD with the reference provider on the
/// selected task, in the sandbox, every event folded into the run screen as it comes.
#[test]
fn a_reference_run_through_the_job() {
    use classlab::tui::EvalSetup;
    use classlab::tui::jobs::Jobs;
    use std::time::{Duration, Instant};

    let sessions = tempfile::tempdir().unwrap();
    let mut app = app((160, 48));
    let mut jobs = Jobs::new(EvalSetup::new(sessions.path().to_path_buf(), None));
    let step = |app: &mut App, jobs: &mut Jobs, action: Action| {
        for effect in app.update(action) {
            jobs.execute(effect, &app.sh.data.dataset);
        }
    };
    step(&mut app, &mut jobs, Action::NewRun);
    // Provider: reference (the dataset answers; no model needed).
    for a in [Action::Down, Action::Right] {
        step(&mut app, &mut jobs, a);
    }
    step(&mut app, &mut jobs, Action::Submit);
    assert_eq!(app.screen(), ScreenId::Run);
    assert!(app.sh.run_is_live());
    let deadline = Instant::now() + Duration::from_secs(300);
    let mut ended = None;
    while ended.is_none() {
        assert!(Instant::now() < deadline, "the run did not end");
        match jobs.try_recv() {
            Some(a) => {
                if let Action::EvalEnded { dir, error } = &a {
                    ended = Some((dir.clone(), error.clone()));
                }
                step(&mut app, &mut jobs, a);
                screen(&app);
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    let (dir, error) = ended.unwrap();
    assert_eq!(error, None);
    assert!(dir.unwrap().starts_with(sessions.path()));
    assert!(!app.sh.run_is_live());
    let text = screen(&app);
    assert!(text.contains("finished"), "{text}");
    assert!(text.contains("Sample_0"), "{text}");
    // The reference passes: every method of the task finished, none exhausted.
    let methods = app.sh.run_methods();
    assert!(!methods.is_empty());
    assert!(
        methods
            .iter()
            .all(|m| m.trace.is_some_and(|t| t.status.is_some()))
    );
    // Its rounds step through: the first method passed its public tests at the first try.
    app.update(Action::Open);
    app.update(Action::Open);
    assert_eq!(app.screen(), ScreenId::Step);
    let text = screen(&app);
    assert!(
        text.contains("first try") && text.contains("passed"),
        "{text}"
    );
}

#[test]
fn the_stop_question_of_a_live_run() {
    let (mut app, mut fake) = live_run_app((80, 24));
    fake.run(&mut app, [Action::CancelRun]);
    insta::assert_snapshot!("run_cancel_question_80x24", screen(&app));
}
