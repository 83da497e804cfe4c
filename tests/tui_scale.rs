//! A large dataset opened headless, as `classlab --dataset <file>` does: ClassEval's tasks
//! repeated under new ids into one file, streamed in while the first frames are drawn, every
//! row there once loaded, the filter and opening a task working during and after the load.
//! (Timings are for `cargo bench --bench tui`; this checks behaviour at a size that keeps
//! a debug build quick.)

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use classlab::depcheck::GroundTruth;
use classlab::tui::app::{ScreenId, UiSetup};
use classlab::tui::jobs::{EvalSetup, Jobs};
use classlab::tui::runtime::Runtime;
use classlab::tui::{DatasetSource, action_for, open_app, views};
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const TASKS: usize = 3_000;

fn classeval() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/classeval/ClassEval_data.json")
}

fn write_dataset(path: &Path, n: usize) {
    let text = std::fs::read_to_string(classeval()).unwrap();
    let tasks: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    out.write_all(b"[").unwrap();
    for i in 0..n {
        let mut task = tasks[i % tasks.len()].clone();
        task["task_id"] = format!("Big_{i}").into();
        if i > 0 {
            out.write_all(b",\n").unwrap();
        }
        serde_json::to_writer(&mut out, &task).unwrap();
    }
    out.write_all(b"]\n").unwrap();
}

struct Headless {
    rt: Runtime,
    term: Terminal<TestBackend>,
}

impl Headless {
    fn frame(&mut self) -> String {
        self.rt.pump().unwrap();
        let app = &self.rt.app;
        self.term.draw(|f| views::render(app, f)).unwrap();
        let buffer = self.term.backend().buffer();
        let width = usize::from(buffer.area.width);
        let cells: Vec<&str> = buffer.content().iter().map(|c| c.symbol()).collect();
        cells.chunks(width).map(|l| l.concat() + "\n").collect()
    }

    fn key(&mut self, code: KeyCode) -> String {
        let event = Event::Key(KeyEvent::new(code, KeyModifiers::NONE));
        if let Some(action) = action_for(&self.rt.app, &event) {
            self.rt.step(action);
        }
        self.frame()
    }

    fn until(&mut self, what: &str, done: impl Fn(&Runtime) -> bool) -> String {
        let start = Instant::now();
        loop {
            let shown = self.frame();
            if done(&self.rt) {
                return shown;
            }
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "timed out waiting for {what}:\n{shown}"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

#[test]
fn a_large_dataset_streams_in_and_answers_keys_while_loading() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.json");
    write_dataset(&path, TASKS);
    let setup = UiSetup {
        size: (100, 30),
        ..UiSetup::default()
    };
    let app = open_app(
        DatasetSource::Stream(path.clone()),
        None,
        GroundTruth::Extracted,
        setup,
    );
    let jobs = Jobs::new(EvalSetup::new(dir.path().join("sessions"), None));
    let mut h = Headless {
        rt: Runtime::new(app, jobs),
        term: Terminal::new(TestBackend::new(100, 30)).unwrap(),
    };
    // The very first frame comes before any task: it says the dataset is loading.
    let first = h.frame();
    assert!(
        first.contains("Loading the dataset") || first.contains("loading"),
        "{first}"
    );
    let shown = h.until("the first tasks", |rt| !rt.app.sh.data.rows.is_empty());
    assert!(shown.contains("Big_0"), "{shown}");
    // Keys answer while the rest streams in.
    h.key(KeyCode::Char('j'));
    assert_eq!(h.rt.app.sh.list.selected, 1);
    let shown = h.until("the whole file", |rt| {
        !rt.app.sh.data.is_loading() && rt.app.sh.list.visible.len() == TASKS
    });
    assert_eq!(h.rt.app.sh.data.len(), TASKS);
    assert!(shown.contains(&format!("Tasks {TASKS}/{TASKS}")), "{shown}");
    assert!(
        h.rt.app.sh.data.problems.is_empty(),
        "{:?}",
        h.rt.app.sh.data.problems
    );
    // The filter runs in the background (a long list) and Enter opens its best match.
    h.key(KeyCode::Char('/'));
    for c in "Big_2999".chars() {
        h.key(KeyCode::Char(c));
    }
    h.until("the filter", |rt| rt.app.sh.list.pending.is_none());
    h.key(KeyCode::Enter);
    assert_eq!(h.rt.app.screen(), ScreenId::Task);
    assert_eq!(
        h.rt.app.sh.data.dataset.tasks[h.rt.app.screens.task.idx].id,
        "Big_2999"
    );
    // Its whole analysis arrives (the open task goes first).
    h.until("the open task's analysis", |rt| {
        rt.app
            .sh
            .data
            .full_analysis(rt.app.screens.task.idx)
            .is_some()
    });
    // Every task gets analysed (repeated content once per distinct task), then the summary.
    h.until("every analysis", |rt| !rt.app.sh.data.is_busy());
    assert!(h.rt.app.sh.data.agreement.is_some());
    assert!(h.rt.app.sh.data.rows.iter().all(|r| r.analysed));
    // Rows of the same content under different ids got the same counts.
    let rows = &h.rt.app.sh.data.rows;
    assert_eq!(rows[7].methods, rows[107].methods);
    assert_eq!(rows[7].deps, rows[2907].deps);
}

/// Issue 21 item 10: the header says the load is done only when the list is in its final
/// order, so `G` pressed right then reaches the last task; and `G` pressed while loading
/// still ends on the last task once everything is in.
#[test]
fn g_reaches_the_last_task_once_the_header_says_the_load_is_done() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.json");
    write_dataset(&path, TASKS);
    let last = format!("Big_{}", TASKS - 1);
    for press_early in [false, true] {
        let setup = UiSetup {
            size: (80, 24),
            ..UiSetup::default()
        };
        let app = open_app(
            DatasetSource::Stream(path.clone()),
            None,
            GroundTruth::Extracted,
            setup,
        );
        let jobs = Jobs::new(EvalSetup::new(dir.path().join("sessions"), None));
        let mut h = Headless {
            rt: Runtime::new(app, jobs),
            term: Terminal::new(TestBackend::new(80, 24)).unwrap(),
        };
        let done = format!("{TASKS} tasks ·");
        if press_early {
            h.until("the first tasks", |rt| !rt.app.sh.data.rows.is_empty());
            h.key(KeyCode::Char('G'));
        }
        let shown = h.until("the header to say the load is done", |rt| {
            let title: String = classlab::tui::widgets::dataset_title(&rt.app.sh)
                .iter()
                .map(|s| s.content.to_string())
                .collect();
            title.contains(&done)
        });
        assert!(!shown.contains("so far"), "{shown}");
        if !press_early {
            h.key(KeyCode::Char('G'));
        }
        let sh = &h.rt.app.sh;
        let selected = sh.list.selected_task().map(|i| sh.data.rows[i].id.clone());
        assert_eq!(
            selected.as_deref(),
            Some(last.as_str()),
            "early {press_early}"
        );
        assert_eq!(sh.list.visible.len(), TASKS);
    }
}
