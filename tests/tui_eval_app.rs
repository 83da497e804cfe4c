//! `App::update` on the evaluation screens: transitions, the effects they ask for, keys, and
//! robustness on awkward sessions (empty, unfinished, torn, huge messages, tiny terminals).

mod tui_fixtures;

use std::path::PathBuf;

use classlab::model::{Outcome, SuiteFailure};
use classlab::session::{Event, EventBody};
use classlab::tui::action::{Action, Delivered};
use classlab::tui::app::{Effect, Level, ScreenId, UiSetup};
use classlab::tui::evals::{DetailPane, Source};
use classlab::tui::keymap::Context;
use classlab::tui::{action_for, views};
use crossterm::event::{Event as TermEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use tui_fixtures::*;

fn press(app: &mut classlab::tui::App, fake: &mut Fake, code: KeyCode) {
    let event = TermEvent::Key(KeyEvent::new_with_kind(
        code,
        KeyModifiers::NONE,
        KeyEventKind::Press,
    ));
    if let Some(a) = action_for(app, &event) {
        fake.run(app, [a]);
    }
}

#[test]
fn sessions_load_open_and_go_back() {
    let mut app = app((80, 24));
    assert_eq!(
        app.update(Action::ShowSessions),
        [Effect::LoadSessions { req: 1 }]
    );
    assert!(app.sh.ev.sessions.loading);
    assert!(screen(&app).contains("Reading the sessions"));
    // An answer to an older request is dropped; the newest one is used.
    let stale = Action::SessionsLoaded {
        req: 0,
        root: PathBuf::from("/old"),
        rows: Delivered::new(Vec::new()),
    };
    app.update(stale);
    assert!(app.sh.ev.sessions.loading);
    let mut fake = Fake::new();
    fake.run(&mut app, [Action::Reload]);
    assert_eq!(app.sh.ev.sessions.rows.len(), 3);
    assert!(!app.sh.ev.sessions.loading);
    // Open the reference (row 1).
    let effects = app.update(Action::Down);
    assert!(effects.is_empty());
    let effects = app.update(Action::Open);
    let [Effect::OpenSession { req, dir }] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    assert!(
        dir.ends_with("20261121-204856-eval-reference-93e0"),
        "{dir:?}"
    );
    assert_eq!(app.sh.status.as_ref().map(|s| s.level), Some(Level::Info));
    let session = fake.logs[1].clone();
    app.update(Action::SessionOpened {
        req: *req,
        session: Delivered::new(classlab::tui::evals::EvalSession::from_log(session)),
    });
    assert_eq!(app.screen(), ScreenId::Eval);
    assert_eq!(app.sh.ev.showing, Some(Source::Opened));
    app.update(Action::Back);
    assert_eq!(app.screen(), ScreenId::Sessions);
    app.update(Action::Back);
    assert_eq!(app.screen(), ScreenId::List);
}

#[test]
fn failed_loads_are_reported() {
    let mut app = app((80, 24));
    let req = match app.update(Action::ShowSessions).as_slice() {
        [Effect::LoadSessions { req }] => *req,
        other => panic!("{other:?}"),
    };
    app.update(Action::LoadFailed {
        req,
        message: "/nope: permission denied".into(),
    });
    assert!(screen(&app).contains("permission denied"));
    let mut fake = Fake::new();
    fake.logs[0].dir = PathBuf::from("/gone");
    fake.run(&mut app, [Action::Reload]);
    // The first row now names a directory the fake cannot find.
    fake.logs.remove(0);
    fake.run(&mut app, [Action::Top, Action::Open]);
    assert_eq!(app.screen(), ScreenId::Sessions);
    let status = app.sh.status.as_ref().expect("status");
    assert_eq!(status.level, Level::Error);
    assert!(status.text.contains("no such session"), "{}", status.text);
}

#[test]
fn marking_and_comparing() {
    let (mut app, mut fake) = sessions_app((80, 24));
    fake.run(&mut app, [Action::ToggleMark]);
    assert_eq!(app.sh.ev.sessions.marked.len(), 1);
    assert_eq!(app.sh.ev.sessions.cursor.selected, 1, "marking moves down");
    fake.run(&mut app, [Action::Compare]);
    assert_eq!(app.screen(), ScreenId::Sessions);
    assert_eq!(app.sh.status.as_ref().map(|s| s.level), Some(Level::Warn));
    // Unmark and mark again: marks follow the order of marking.
    fake.run(&mut app, [Action::Up, Action::ToggleMark]);
    assert!(app.sh.ev.sessions.marked.is_empty());
    fake.run(
        &mut app,
        [
            Action::Bottom,
            Action::ToggleMark,
            Action::Top,
            Action::ToggleMark,
        ],
    );
    let effects = app.update(Action::Compare);
    let [Effect::CompareSessions { dirs, .. }] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    assert!(dirs[0].ends_with("20261121-204744-eval-GPT-4-Turbo-2557"));
    assert!(dirs[1].ends_with("20261121-211000-eval-CodeLlama-13b-Instruct-hf-0c1d"));
    fake.run(&mut app, [Action::Compare]);
    assert_eq!(app.screen(), ScreenId::Compare);
    let c = app.sh.ev.compare.as_ref().unwrap();
    // The stopped session finished 3 of 6 tasks: compared on those 3 (where both agree); the
    // 3 it never ran are left out, not counted as differing (issue 12, A6).
    assert_eq!(c.comparison.rows.len(), 3);
    assert_eq!(c.comparison.left_out, [3, 0]);
    assert!(c.differing.is_empty(), "{:?}", c.differing);
    // The reference beside GPT-4-Turbo: both finished, 4 tasks differ.
    fake.run(
        &mut app,
        [
            Action::Back,
            Action::Top,
            Action::ToggleMark,
            Action::Bottom,
            Action::ToggleMark,
            Action::Top,
            Action::Down,
            Action::ToggleMark,
            Action::ToggleMark,
            Action::Compare,
        ],
    );
    assert_eq!(app.screen(), ScreenId::Compare);
    let c = app.sh.ev.compare.as_ref().unwrap();
    assert_eq!(c.sessions.len(), 2, "{:?}", app.sh.ev.sessions.marked);
    let differing = c.differing.clone();
    assert!(differing.len() >= 2, "{differing:?}");
    // A task across sessions, then one session's detail, then back step by step.
    fake.run(&mut app, [Action::Open]);
    assert_eq!(app.screen(), ScreenId::CompareTask);
    fake.run(&mut app, [Action::NextTask]);
    assert_eq!(
        app.sh
            .ev
            .compare
            .as_ref()
            .unwrap()
            .task
            .as_ref()
            .unwrap()
            .task_id,
        differing[1]
    );
    fake.run(
        &mut app,
        [Action::Right, Action::Right, Action::Left, Action::Open],
    );
    assert_eq!(app.screen(), ScreenId::TestDetail);
    let d = app.sh.ev.detail.as_ref().unwrap();
    assert_eq!(
        (d.source, d.task_id.as_str()),
        (Source::Compared(0), differing[1].as_str())
    );
    fake.run(&mut app, [Action::Back]);
    assert_eq!(app.screen(), ScreenId::CompareTask);
    fake.run(&mut app, [Action::Back, Action::Back]);
    assert_eq!(app.screen(), ScreenId::Sessions);
}

#[test]
fn test_detail_selects_the_failure_and_jumps_to_its_line() {
    let (mut app, mut fake) = sessions_app((80, 24));
    open_row(&mut app, &mut fake, 2);
    fake.run(&mut app, [Action::Down, Action::Open]);
    assert_eq!(app.screen(), ScreenId::TestDetail);
    let d = app.sh.ev.detail.clone().unwrap();
    assert_eq!(d.task_id, "ClassEval_1");
    assert_eq!(d.tests.selected, 1, "the first failing test");
    assert_eq!(d.mark, Some(6), "code_line 7 → 0-based 6");
    assert!(d.code.top <= 6);
    // Moving to a passing test keeps no mark; to the KeyError one marks line 13.
    fake.run(&mut app, [Action::Up]);
    assert_eq!(app.sh.ev.detail.as_ref().unwrap().mark, None);
    fake.run(&mut app, [Action::Down, Action::Down, Action::Down]);
    assert_eq!(app.sh.ev.detail.as_ref().unwrap().mark, Some(12));
    // Panes cycle; in the code pane j scrolls the code, Enter jumps back to the line.
    fake.run(&mut app, [Action::NextTab, Action::NextTab]);
    assert_eq!(app.sh.ev.detail.as_ref().unwrap().pane, DetailPane::Code);
    fake.run(&mut app, [Action::Top]);
    assert_eq!(app.sh.ev.detail.as_ref().unwrap().code.top, 0);
    fake.run(&mut app, [Action::Open]);
    assert!(app.sh.ev.detail.as_ref().unwrap().code.top > 0);
    fake.run(&mut app, [Action::PrevTab]);
    assert_eq!(app.sh.ev.detail.as_ref().unwrap().pane, DetailPane::Trace);
    // ] goes to the next task (the import failure: its line is the import's).
    fake.run(&mut app, [Action::NextTask]);
    let d = app.sh.ev.detail.as_ref().unwrap();
    assert_eq!((d.task_id.as_str(), d.mark), ("ClassEval_2", Some(2)));
    assert_eq!(app.sh.ev.tasks.selected, 2, "the list behind follows");
    fake.run(&mut app, [Action::Back]);
    assert_eq!(app.screen(), ScreenId::Eval);
}

#[test]
fn imperfect_filter_and_its_detail_steps() {
    let (mut app, mut fake) = sessions_app((80, 24));
    open_row(&mut app, &mut fake, 2);
    fake.run(&mut app, [Action::ToggleFailingOnly, Action::Open]);
    assert_eq!(app.sh.ev.detail.as_ref().unwrap().task_id, "ClassEval_1");
    fake.run(&mut app, [Action::PrevTask]);
    assert_eq!(
        app.sh.ev.detail.as_ref().unwrap().task_id,
        "ClassEval_1",
        "no wrap"
    );
    fake.run(&mut app, [Action::Back, Action::ToggleFailingOnly]);
    assert!(!app.sh.ev.imperfect_only);
}

fn start_live(app: &mut classlab::tui::App, fake: &mut Fake) {
    fake.run(app, [Action::NewEval]);
    assert!(app.layer() == Some(ScreenId::NewEval));
    for c in "preds".chars() {
        fake.run(app, [Action::Input(c)]);
    }
    fake.run(app, [Action::Backspace, Action::Input('s')]);
    fake.run(app, [Action::Complete]);
    match (app.layer() == Some(ScreenId::NewEval)).then_some(&app.screens.new_eval) {
        Some(d) => assert_eq!(d.input, "preds.jsonl"),
        other => panic!("{other:?}"),
    }
    fake.run(app, [Action::Submit]);
}

#[test]
fn a_live_run_starts_fills_in_and_is_cancelled() {
    let mut app = app((80, 24));
    let mut fake = Fake::new();
    start_live(&mut app, &mut fake);
    assert_eq!(
        fake.effects.last(),
        Some(&Effect::StartEval {
            predictions: PathBuf::from("preds.jsonl")
        })
    );
    assert_eq!(
        (app.screen(), app.sh.ev.showing),
        (ScreenId::Eval, Some(Source::Live))
    );
    assert!(app.sh.ev.running);
    // A second start is refused while one runs.
    start_live(&mut app, &mut fake);
    assert_eq!(app.sh.status.as_ref().map(|s| s.level), Some(Level::Error));
    assert_eq!(
        fake.effects
            .iter()
            .filter(|e| matches!(e, Effect::StartEval { .. }))
            .count(),
        1
    );
    let tasks = model_tasks();
    for e in events(&tasks, 2, None) {
        fake.run(&mut app, [Action::EvalEvent(Delivered::new(e))]);
    }
    let live = app.sh.ev.live.as_ref().unwrap();
    assert_eq!(live.state.progress(), (2, 6));
    assert_eq!(live.info.model.as_deref(), Some("GPT-4-Turbo"));
    assert!(screen(&app).contains("● live 2/6"));
    // The sessions screen pins the live run first; Enter goes back to it.
    fake.run(&mut app, [Action::ShowSessions]);
    assert!(app.sh.live_row());
    assert!(screen(&app).contains("running"));
    fake.run(&mut app, [Action::Top, Action::Open]);
    assert_eq!(
        (app.screen(), app.sh.ev.showing),
        (ScreenId::Eval, Some(Source::Live))
    );
    // x asks; n keeps it running; x, y stops it.
    fake.run(&mut app, [Action::CancelRun]);
    assert!(app.layer() == Some(ScreenId::Confirm));
    fake.run(&mut app, [Action::Back]);
    assert!(app.layer().is_none() && !app.sh.ev.stopping);
    fake.run(&mut app, [Action::CancelRun, Action::Submit]);
    assert_eq!(fake.effects.last(), Some(&Effect::CancelEval));
    assert!(app.sh.ev.stopping);
    assert!(screen(&app).contains("stopping"));
    // The pipeline records the stop, then the run ends.
    let end = Event {
        seq: 99,
        ts: T0 + 300.0,
        body: EventBody::RunFinished { cancelled: true },
    };
    fake.run(&mut app, [Action::EvalEvent(Delivered::new(end))]);
    fake.run(
        &mut app,
        [Action::EvalEnded {
            dir: Some(PathBuf::from(
                "/sessions/20261121-220000-eval-GPT-4-Turbo-aaaa",
            )),
            error: None,
        }],
    );
    assert!(!app.sh.ev.running && !app.sh.ev.stopping);
    let live = app.sh.ev.live.as_ref().unwrap();
    assert_eq!(live.info.id, "20261121-220000-eval-GPT-4-Turbo-aaaa");
    assert_eq!(live.status().label(), "stopped");
    let status = app.sh.status.as_ref().unwrap();
    assert!(status.text.contains("stopped: 2/6"), "{}", status.text);
    // Nothing to cancel any more.
    fake.run(&mut app, [Action::CancelRun]);
    assert!(app.layer().is_none());
}

#[test]
fn a_run_that_cannot_start_says_why() {
    let mut app = app((80, 24));
    let mut fake = Fake::new();
    start_live(&mut app, &mut fake);
    fake.run(
        &mut app,
        [Action::EvalNotice("sandbox: no network namespace".into())],
    );
    assert_eq!(app.sh.status.as_ref().map(|s| s.level), Some(Level::Warn));
    fake.run(
        &mut app,
        [Action::EvalEnded {
            dir: None,
            error: Some("cannot read predictions preds.jsonl: No such file".into()),
        }],
    );
    let status = app.sh.status.as_ref().unwrap();
    assert_eq!(status.level, Level::Error);
    assert!(status.text.contains("No such file"));
    let text = screen(&app);
    assert!(text.contains("⚠ 2 problems"), "{text}");
    // Background results never clear what the user was told... but keys do.
    fake.run(&mut app, [Action::Down]);
    assert!(app.sh.status.is_none());
}

#[test]
fn keys_reach_the_new_screens() {
    let mut app = app((80, 24));
    let mut fake = Fake::new();
    press(&mut app, &mut fake, KeyCode::Char('E'));
    assert_eq!(app.screen(), ScreenId::Sessions);
    press(&mut app, &mut fake, KeyCode::Char(' '));
    assert_eq!(app.sh.ev.sessions.marked.len(), 1, "Space marks here");
    press(&mut app, &mut fake, KeyCode::Char(' '));
    press(&mut app, &mut fake, KeyCode::Char('c'));
    assert_eq!(app.screen(), ScreenId::Compare);
    press(&mut app, &mut fake, KeyCode::Esc);
    press(&mut app, &mut fake, KeyCode::Char('j'));
    press(&mut app, &mut fake, KeyCode::Enter);
    assert_eq!(app.screen(), ScreenId::Eval);
    press(&mut app, &mut fake, KeyCode::Char('f'));
    assert!(app.sh.ev.imperfect_only);
    press(&mut app, &mut fake, KeyCode::Enter);
    assert_eq!(app.screen(), ScreenId::TestDetail);
    press(&mut app, &mut fake, KeyCode::Tab);
    assert_eq!(app.sh.ev.detail.as_ref().unwrap().pane, DetailPane::Trace);
    press(&mut app, &mut fake, KeyCode::Char('q'));
    assert_eq!(app.screen(), ScreenId::Eval);
    press(&mut app, &mut fake, KeyCode::Char('N'));
    assert!(app.layer() == Some(ScreenId::NewEval));
    // Typed text goes into the path, q included.
    press(&mut app, &mut fake, KeyCode::Char('q'));
    match (app.layer() == Some(ScreenId::NewEval)).then_some(&app.screens.new_eval) {
        Some(d) => assert_eq!(d.input, "q"),
        other => panic!("{other:?}"),
    }
    press(&mut app, &mut fake, KeyCode::Esc);
    assert!(app.layer().is_none());
    // The palette knows the new commands.
    fake.run(&mut app, [Action::OpenPalette]);
    for c in "sessions".chars() {
        fake.run(&mut app, [Action::Input(c)]);
    }
    fake.run(&mut app, [Action::Submit]);
    assert_eq!(app.screen(), ScreenId::Sessions);
}

#[test]
fn help_lists_every_binding_of_the_new_views() {
    let (mut app, mut fake) = sessions_app((100, 60));
    let contexts = [
        (ScreenId::Sessions, Context::Sessions, "mark for comparison"),
        (
            ScreenId::Eval,
            Context::Eval,
            "all tasks / only imperfect ones",
        ),
        (ScreenId::TestDetail, Context::TestDetail, "next pane"),
    ];
    for (i, (screen, context, want)) in contexts.into_iter().enumerate() {
        if i == 1 {
            open_row(&mut app, &mut fake, 2);
        } else if i == 2 {
            fake.run(&mut app, [Action::Open]);
        }
        assert_eq!(app.screen(), screen);
        fake.run(&mut app, [Action::ToggleHelp]);
        let text: String = views::help_lines(&app)
            .iter()
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(text.contains(want), "{want}:\n{text}");
        for (keys, desc) in app.sh.keymap.describe(context) {
            assert!(
                text.contains(&keys.join(", ")) && text.contains(&desc),
                "{keys:?} {desc}"
            );
        }
        fake.run(&mut app, [Action::Back]);
    }
}

/// Every screen renders at every size without panicking, whatever the session holds.
fn render_everywhere(fake: &mut Fake) {
    for size in [(80, 24), (160, 48), (40, 12), (20, 5), (1, 1), (200, 8)] {
        let mut app = app(size);
        fake.run(&mut app, [Action::ShowSessions]);
        screen(&app);
        for row in 0..fake.logs.len() {
            open_row(&mut app, fake, row);
            screen(&app);
            for _ in 0..8 {
                fake.run(&mut app, [Action::Open]);
                for pane in 0..3 {
                    fake.run(&mut app, [Action::Bottom, Action::Right, Action::PageDown]);
                    screen(&app);
                    if pane < 2 {
                        fake.run(&mut app, [Action::NextTab]);
                    }
                }
                fake.run(&mut app, [Action::NextTask]);
                screen(&app);
                fake.run(&mut app, [Action::Back, Action::Down]);
            }
            fake.run(&mut app, [Action::ToggleFailingOnly, Action::Bottom]);
            screen(&app);
            fake.run(&mut app, [Action::ToggleFailingOnly, Action::Back]);
        }
        fake.run(&mut app, [Action::Top]);
        for _ in 0..fake.logs.len() {
            fake.run(&mut app, [Action::ToggleMark]);
        }
        fake.run(&mut app, [Action::Compare]);
        screen(&app);
        fake.run(
            &mut app,
            [Action::Bottom, Action::Open, Action::Right, Action::Bottom],
        );
        screen(&app);
        fake.run(&mut app, [Action::Open]);
        screen(&app);
        fake.run(
            &mut app,
            [Action::Resize(size.0.max(2) / 2, size.1.max(2) / 2)],
        );
        screen(&app);
    }
}

#[test]
fn awkward_sessions_never_panic() {
    let huge = "x".repeat(200_000);
    let mut tasks = model_tasks();
    let t = &mut tasks[1];
    t.suite.tests[1].message = Some(format!("{huge}\n{}", "line\n".repeat(5000)));
    t.suite.tests[1].traceback = Some("tb\n".repeat(10_000));
    t.suite.tests[1].code_line = Some(10_000);
    t.code = format!("{huge}\n\t\u{7}x\n");
    t.suite.tests.push(classlab::model::TestResult {
        id: "Ω.ünïcödé_名前".into(),
        ..test("x", Outcome::Xpass)
    });
    tasks[2].suite.failure = Some(SuiteFailure::Crashed {
        signal: Some(11),
        exit_code: None,
        detail: huge.clone(),
    });
    tasks[2].suite.stderr = "boom\n".repeat(1000);
    tasks[2].suite.leftovers = vec!["/tmp/x".into()];
    tasks[3].suite.failure = Some(SuiteFailure::Protocol {
        detail: "bad nonce".into(),
    });
    tasks[4].suite.tests.clear();
    let mut fake = Fake::new();
    fake.logs = vec![
        // Empty: no events at all.
        log(meta("s-empty", None, None, ""), Vec::new(), Vec::new()),
        // Unfinished and torn: cut in the middle, a problem reported.
        log(
            meta(
                "s-torn",
                Some("m"),
                Some("holistic"),
                "2026-01-01T00:00:00Z",
            ),
            events(&model_tasks(), 2, None),
            vec!["line 9: torn last line".into()],
        ),
        // Huge messages and odd suites.
        log(
            meta("s-huge", Some(&huge[..300]), Some("x"), "not a date"),
            events(&tasks, tasks.len(), Some(false)),
            Vec::new(),
        ),
        // Events without run_started (a session that lost its head) and out of order.
        log(
            meta("s-headless", Some("m"), None, "2026"),
            events(&model_tasks(), 6, Some(false))
                .into_iter()
                .skip(1)
                .rev()
                .collect(),
            Vec::new(),
        ),
    ];
    render_everywhere(&mut fake);
}

#[test]
fn no_color_draws_without_colours() {
    let (mut app, mut fake) = {
        let mut app = classlab::tui::App::new(
            classlab::tui::data::Data::new(
                classlab::dataset::sample(),
                None,
                classlab::depcheck::GroundTruth::Extracted,
            ),
            UiSetup {
                no_color: true,
                size: (160, 48),
                ..UiSetup::default()
            },
        );
        let mut fake = Fake::new();
        fake.run(&mut app, [Action::ShowSessions]);
        (app, fake)
    };
    let check = |app: &classlab::tui::App| {
        let mut terminal =
            ratatui::Terminal::new(ratatui::backend::TestBackend::new(160, 48)).unwrap();
        terminal.draw(|f| views::render(app, f)).unwrap();
        for cell in terminal.backend().buffer().content() {
            assert_eq!(cell.fg, ratatui::style::Color::Reset, "{cell:?}");
            assert_eq!(cell.bg, ratatui::style::Color::Reset, "{cell:?}");
        }
    };
    check(&app);
    open_row(&mut app, &mut fake, 2);
    check(&app);
    fake.run(&mut app, [Action::Down, Action::Open]);
    check(&app);
    fake.run(&mut app, [Action::Back, Action::Back, Action::Top]);
    compare_two(&mut app, &mut fake);
    assert_eq!(app.screen(), ScreenId::Compare);
    check(&app);
}
