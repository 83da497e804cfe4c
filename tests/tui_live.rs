//! A live generation run from its first second: the elapsed time runs before any event, the
//! requests in flight are counted, and a task whose dependency analysis was asked for says it
//! is waiting for it (not that the strategy has none). Also: a tampered test counts as failing.

mod tui_fixtures;

use classlab::llm::{Message, Params, Purpose};
use classlab::model::Outcome;
use classlab::session::{Event, EventBody};
use classlab::tui::action::{Action, Delivered};
use classlab::tui::app::{App, ScreenId};
use classlab::tui::evals::is_failing;
use classlab::tui::runs::RunPane;
use tui_fixtures::run::*;
use tui_fixtures::*;

/// The dialog's run started with the app's clock at `clock`.
fn started(clock: f64) -> (App, Fake) {
    let mut app = app((160, 48));
    let mut fake = Fake::new();
    app.sh.ev.clock = clock;
    fake.run(
        &mut app,
        [Action::NewRun, Action::Down, Action::Down, Action::Right],
    );
    fake.run(&mut app, [Action::Submit]);
    assert_eq!(app.screen(), ScreenId::Run);
    (app, fake)
}

fn feed(app: &mut App, fake: &mut Fake, events: impl IntoIterator<Item = Event>) {
    for e in events {
        fake.run(app, [Action::EvalEvent(Delivered::new(e))]);
    }
}

#[test]
fn the_elapsed_time_runs_from_the_first_second() {
    let (mut app, _fake) = started(1000.0);
    app.sh.ev.clock = 1003.4;
    let shown = screen(&app);
    assert!(shown.contains("elapsed 3s"), "{shown}");
    app.sh.ev.clock = 1065.0;
    assert!(screen(&app).contains("elapsed 1m05s"));
}

#[test]
fn requests_in_flight_are_counted_while_live() {
    let (mut app, mut fake) = started(1000.0);
    feed(&mut app, &mut fake, run_events(Stage::MidRun));
    // The fixture's repair of the second task is still streaming: one request in flight.
    assert_eq!(app.sh.ev.live.as_ref().map(|s| s.in_flight), Some(1));
    assert!(screen(&app).contains("in flight 1"));
    let (mut app, mut fake) = started(1000.0);
    feed(&mut app, &mut fake, run_events(Stage::Finished));
    assert_eq!(app.sh.ev.live.as_ref().map(|s| s.in_flight), Some(0));
    assert!(!screen(&app).contains("in flight"));
}

#[test]
fn a_pending_dependency_analysis_is_waited_for() {
    let (mut app, mut fake) = started(1000.0);
    // The second task up to its start, then its dependency-analysis request (no reply yet).
    let events = run_events(Stage::MidRun);
    let cut = events
        .iter()
        .position(|e| matches!(&e.body, EventBody::TaskStarted { task_id, .. } if task_id == "ClassEval_1"))
        .expect("the second task starts");
    let mut events: Vec<Event> = events.into_iter().take(cut + 1).collect();
    let seq = events.len() as u64;
    events.push(Event {
        seq,
        ts: T0 + 2.5 * seq as f64,
        body: EventBody::LlmRequest {
            task_id: "ClassEval_1".into(),
            sample: 0,
            call: 0,
            purpose: Purpose::DependencyAnalysis,
            provider: "openai".into(),
            model: "gpt-4o-mini".into(),
            messages: vec![Message::user("Which methods depend on which?")],
            params: Params::default(),
        },
    });
    feed(&mut app, &mut fake, events);
    fake.run(&mut app, [Action::Down, Action::NextTab]);
    assert_eq!(app.sh.run_task().unwrap().task_id, "ClassEval_1");
    assert_eq!(app.sh.runs.pane, RunPane::Task);
    let shown = screen(&app);
    assert!(
        shown.contains("Waiting for the dependency analysis"),
        "{shown}"
    );
    assert!(!shown.contains("No dependency analysis"));
}

#[test]
fn a_tampered_test_is_failing() {
    assert!(is_failing(Outcome::Tampered));
    assert!(!is_failing(Outcome::Pass));
}
