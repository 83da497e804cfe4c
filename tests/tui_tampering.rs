//! Tampering attempts in the TUI (issue 22 item 5): a session where one task's code tried to
//! tamper (its static indicators read by the real scan, host and runner evidence in its suite)
//! shows the attempt in the session view's row, in the grid's `⚑` column with the signs in the
//! footer, and in the test detail (the banner, the selected test's evidence, the code's).
//! Rendered with `TestBackend` at 80×24 and 160×48.

mod tui_fixtures;

use classlab::analysis::tamper::scan;
use classlab::metrics::fingerprint::{EnvContext, ExcKind, Thresholds, classify_suite};
use classlab::model::results::{Evidence, EvidenceSource};
use classlab::model::{Outcome, SuiteResult};
use classlab::session::{Event, EventBody};
use classlab::tui::action::Action;
use classlab::tui::app::{App, ScreenId};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;

use tui_fixtures::*;

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 48)];

/// The code that tried: reads frames, patches unittest.
const HACK: &str = "import sys\nimport unittest\n\n\nclass Inventory:\n    def __init__(self):\n        self.items = {}\n        unittest.TestCase.assertEqual = lambda *a, **k: None\n\n    def add(self, name, n):\n        frame = sys._getframe(1)\n        self.items[name] = n\n\n    def total(self):\n        return sum(self.items.values())\n";

/// The model's tasks, and ClassEval_8 whose code tried (one test failed anyway).
fn tasks() -> Vec<TaskFixture> {
    let mut tasks = model_tasks();
    let mut s: SuiteResult = suite(
        vec![
            test("InventoryTestAdd.test_add", Outcome::Pass),
            failing(
                "InventoryTestTotal.test_total",
                "AssertionError",
                "3 != 5",
                None,
            ),
        ],
        None,
    );
    s.evidence = vec![
        Evidence {
            source: EvidenceSource::Runner,
            test: Some("InventoryTestTotal.test_total".into()),
            detail: "the code asked for '_outcome' of a test's object".into(),
        },
        Evidence {
            source: EvidenceSource::Host,
            test: None,
            detail: "replaced unittest.case.TestCase.assertEqual".into(),
        },
    ];
    // The bucket the fingerprint gives it.
    let bucket = classify_suite(&s, &EnvContext::default(), &Thresholds::default()).bucket;
    tasks.push(TaskFixture {
        id: "ClassEval_8".into(),
        code: HACK.into(),
        suite: s,
        summary: summary(bucket, 1, 2, &[(ExcKind::AssertionError, 1)], &[]),
    });
    tasks
}

/// `events` with the static scan of every extracted class after it, as `eval` records it.
fn with_scans(events: Vec<Event>) -> Vec<Event> {
    let mut out: Vec<Event> = Vec::new();
    for e in events {
        let scan_of = match &e.body {
            EventBody::CodeExtracted {
                task_id,
                sample,
                code,
                method: None,
                ..
            } => Some(EventBody::StaticIndicators {
                task_id: task_id.clone(),
                sample: *sample,
                indicators: scan(code),
            }),
            _ => None,
        };
        out.push(e);
        out.extend(scan_of.map(|body| Event {
            seq: 0,
            ts: T0,
            body,
        }));
    }
    for (i, e) in out.iter_mut().enumerate() {
        e.seq = i as u64;
        e.ts = T0 + 2.5 * i as f64;
    }
    out
}

/// The sessions screen over the reference's session and the one that tried.
fn app_with_attempts(size: (u16, u16)) -> (App, Fake) {
    let mut app = app(size);
    let mut fake = Fake::new();
    let t = tasks();
    fake.logs = vec![
        log(
            meta(
                "20261125-150000-eval-hacker-9f00",
                Some("hacker"),
                Some("holistic"),
                "2026-11-25T15:00:00Z",
            ),
            with_scans(events(&t, t.len(), Some(false))),
            Vec::new(),
        ),
        log(
            meta(
                "20261125-143000-eval-reference-1a2b",
                Some("reference"),
                None,
                "2026-11-25T14:30:00Z",
            ),
            with_scans(events(
                &reference_tasks(),
                reference_tasks().len(),
                Some(false),
            )),
            Vec::new(),
        ),
    ];
    fake.run(&mut app, [Action::ShowSessions]);
    (app, fake)
}

/// The foreground colour of the first cell where `needle` starts, per screen row holding it.
fn colours_of(app: &App, needle: &str) -> Vec<Option<Color>> {
    let (w, h) = app.sh.size;
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal
        .draw(|f| classlab::tui::views::render(app, f))
        .unwrap();
    let buf = terminal.backend().buffer();
    let mut out = Vec::new();
    for y in 0..h {
        let text: String = (0..w).map(|x| buf[(x, y)].symbol()).collect();
        if let Some(byte) = text.find(needle) {
            let x = text[..byte].chars().count() as u16;
            out.push(buf[(x, y)].style().fg);
        }
    }
    out
}

fn red(app: &App) -> Option<Color> {
    app.sh.theme().tampered().fg
}

#[test]
fn the_attempt_is_marked_in_the_session_view() {
    for size in SIZES {
        let (mut app, mut fake) = app_with_attempts(size);
        open_row(&mut app, &mut fake, 0);
        assert_eq!(app.screen(), ScreenId::Eval);
        // ClassEval_8 is the last row: select it.
        fake.run(&mut app, [Action::Bottom]);
        let text = screen(&app);
        insta::assert_snapshot!(format!("session_attempt_{}x{}", size.0, size.1), text);
        assert!(text.contains("⚑ attempt: 4 signs"), "{text}");
        // Only ClassEval_8 says so, in tampering's colour (the selected row wears the
        // selection's: move off it first).
        fake.run(&mut app, [Action::Up]);
        let marks = colours_of(&app, "⚑ attempt");
        assert_eq!(marks, vec![red(&app)], "{}", screen(&app));
    }
}

#[test]
fn the_grid_marks_tasks_with_attempts_and_names_the_signs() {
    for size in SIZES {
        let (mut app, mut fake) = app_with_attempts(size);
        fake.run(
            &mut app,
            [
                Action::Top,
                Action::ToggleMark,
                Action::ToggleMark,
                Action::Compare,
                Action::ShowGrid,
            ],
        );
        assert_eq!(app.screen(), ScreenId::Grid, "{}", screen(&app));
        // By disagreement: ClassEval_1–4 and 8 (its reference cell is missing) first; the
        // cursor onto the hacker's cell of ClassEval_8, the fifth row.
        fake.run(&mut app, std::iter::repeat_n(Action::Down, 4));
        let text = screen(&app);
        insta::assert_snapshot!(format!("grid_attempt_{}x{}", size.0, size.1), text);
        let marked: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("│ClassEval") && l.contains('⚑'))
            .collect();
        assert_eq!(marked.len(), 1, "{text}");
        assert!(marked[0].contains("ClassEval_8"), "{text}");
        assert!(text.contains("≠ ⚑ A hacker"), "the column's header: {text}");
        // The footer names the selected cell's signs (cut at 80 columns).
        let signs = if size.0 >= 160 {
            "⚑ tampering attempt: 4 signs (runner 1, host 1, static 2)"
        } else {
            "⚑ tampering attempt: 4 signs"
        };
        assert!(text.contains(signs), "{text}");
    }
}

#[test]
fn the_test_detail_shows_the_tests_and_the_codes_evidence() {
    for size in SIZES {
        let (mut app, mut fake) = app_with_attempts(size);
        open_row(&mut app, &mut fake, 0);
        // ClassEval_8's detail, its second test (the one the runner saw the code probe).
        fake.run(&mut app, [Action::Bottom, Action::Open, Action::Down]);
        assert_eq!(app.screen(), ScreenId::TestDetail);
        let text = screen(&app);
        insta::assert_snapshot!(format!("detail_attempt_{}x{}", size.0, size.1), text);
        assert!(
            text.contains("⚑ ATTEMPT the code attempted tampering: 4 signs"),
            "{text}"
        );
        assert_eq!(colours_of(&app, "⚑ ATTEMPT"), vec![red(&app)]);
        if size.1 >= 48 {
            for line in [
                "Tampering attempts seen in this test (evidence, not verdicts):",
                "runner in InventoryTestTotal.test_total: the code asked for",
                "Tampering attempts of the code (evidence, not verdicts):",
                "host: replaced unittest.case.TestCase.assertEqual",
                "static line 8: assigns unittest.TestCase.assertEqual",
                "static line 11: uses sys._getframe [frame-access]",
            ] {
                assert!(text.contains(line), "{line}: {text}");
            }
        }
    }
}
