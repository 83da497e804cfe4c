//! The TUI never panics and stays readable on awkward input: empty datasets, load problems,
//! tasks without methods, code that does not parse, huge lines, cycles, tiny terminals.

use classlab::dataset::{self, Dataset, predictions};
use classlab::depcheck::GroundTruth;
use classlab::tui::action::Action;
use classlab::tui::action::Delivered;
use classlab::tui::app::{App, Effect, ScreenId, Tab, UiSetup};
use classlab::tui::data::Data;
use classlab::tui::key::{INPUT_CAP, Typing};
use classlab::tui::list;
use classlab::tui::{action_for, views};
use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn app_for(dataset: Dataset, size: (u16, u16)) -> App {
    App::new(
        Data::new(dataset, None, GroundTruth::Extracted),
        UiSetup {
            size,
            ..UiSetup::default()
        },
    )
}

fn run(app: &mut App, actions: impl IntoIterator<Item = Action>) -> Vec<Effect> {
    actions.into_iter().flat_map(|a| app.update(a)).collect()
}

fn render(app: &App) -> String {
    let (w, h) = app.sh.size;
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| views::render(app, f)).unwrap();
    terminal.backend().to_string()
}

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    let event = Event::Key(KeyEvent::new_with_kind(
        code,
        KeyModifiers::NONE,
        KeyEventKind::Press,
    ));
    match action_for(app, &event) {
        Some(a) => app.update(a),
        None => Vec::new(),
    }
}

#[test]
fn resize_keeps_the_selection_visible_and_tiny_sizes_render() {
    let mut app = app_for(dataset::sample(), (80, 24));
    run(&mut app, [Action::Bottom, Action::Resize(80, 8)]);
    let page = app.sh.list_page();
    assert!(app.sh.list.selected < app.sh.list.offset + page);
    for size in [(1, 1), (10, 3), (20, 5), (30, 8), (80, 24)] {
        run(&mut app, [Action::Resize(size.0, size.1)]);
        render(&app);
    }
}

#[test]
fn problems_banner_and_overlay() {
    let text = r#"[{"task_id": "Bad_1", "class_name": 5}, {"task_id": "Ok_1", "class_name": "A",
        "skeleton": "class A:\n    pass\n", "solution_code": "class A:\n    pass\n", "test": "",
        "methods_info": []}]"#;
    let ds = dataset::parse_text("bad.json", text).unwrap();
    assert!(!ds.problems.is_empty());
    let mut app = app_for(ds, (80, 24));
    let screen = render(&app);
    assert!(
        screen.contains("problem") && screen.contains("press !"),
        "{screen}"
    );
    press(&mut app, KeyCode::Char('!'));
    assert!(app.layer() == Some(ScreenId::Problems));
    assert!(render(&app).contains("bad.json"));
    press(&mut app, KeyCode::Esc);
    assert!(app.layer().is_none());
}

#[test]
fn empty_dataset_never_panics() {
    let ds = dataset::parse_text("empty.json", "[]").unwrap();
    let mut app = app_for(ds, (80, 24));
    assert!(render(&app).contains("no tasks"));
    for a in [
        Action::Open,
        Action::Down,
        Action::Bottom,
        Action::SortNext,
        Action::ShowSummary,
        Action::Down,
    ] {
        app.update(a);
        render(&app);
    }
    run(
        &mut app,
        [
            Action::Back,
            Action::StartFilter,
            Action::Input('x'),
            Action::Submit,
            Action::NextTask,
        ],
    );
    render(&app);
}

/// Tasks without methods, with code that does not parse, with a huge line, with tabs and
/// control characters, and with an annotation that disagrees with the code: every tab renders.
#[test]
fn awkward_tasks_render_on_every_tab() {
    let long = "x".repeat(50_000);
    let text = serde_json_text(&long);
    let ds = dataset::parse_text("awkward.json", &text).unwrap();
    assert_eq!(ds.tasks.len(), 3, "{:?}", ds.problems);
    let preds = predictions::parse(
        "p.json",
        r#"{"T_2": {"dependencies": {"a": ["zzz", "a"]}, "order": ["nope"]}}"#,
    )
    .unwrap();
    for size in [(80, 24), (160, 48), (40, 12)] {
        let mut app = App::new(
            Data::new(ds.clone(), Some(preds.clone()), GroundTruth::Extracted),
            UiSetup {
                size,
                ..UiSetup::default()
            },
        );
        for row in 0..ds.tasks.len() {
            run(&mut app, [Action::Top]);
            for _ in 0..row {
                app.update(Action::Down);
            }
            app.update(Action::Open);
            for tab in 1..=5 {
                run(
                    &mut app,
                    [
                        Action::GoTab(tab),
                        Action::Bottom,
                        Action::Right,
                        Action::Open,
                    ],
                );
                render(&app);
                app.screens.task.tab = Tab::ALL[usize::from(tab) - 1];
                render(&app);
            }
            app.update(Action::Back);
        }
        run(&mut app, [Action::ShowSummary, Action::Bottom]);
        render(&app);
    }
}

fn serde_json_text(long: &str) -> String {
    let tasks = serde_json::json!([
        {"task_id": "T_1", "class_name": "Empty", "skeleton": "", "solution_code": "", "test": "", "methods_info": []},
        {"task_id": "T_2", "class_name": "Broken", "skeleton": "class Broken:\n    def a(self):\n        pass\n",
         "solution_code": format!("class Broken:\n\tdef a(self):\n\t\treturn self.b(  # {long}\n\x07\n"),
         "test": "def test_x(:\n", "test_classes": ["Nope"],
         "methods_info": [
            {"method_name": "a", "method_description": "", "test_class": "Nope", "test_code": "", "solution_code": "",
             "dependencies": {"Standalone": false, "lib_dependencies": [], "field_dependencies": [], "method_dependencies": ["b", "ghost"]}}
         ]},
        {"task_id": "T_3", "class_name": "Cycle",
         "solution_code": "class Cycle:\n    def a(self):\n        return self.b()\n    def b(self):\n        return self.a()\n",
         "skeleton": "", "test": "",
         "methods_info": [
            {"method_name": "a", "method_description": "", "test_class": "", "test_code": "", "solution_code": "",
             "dependencies": {"Standalone": false, "lib_dependencies": [], "field_dependencies": [], "method_dependencies": []}},
            {"method_name": "b", "method_description": "", "test_class": "", "test_code": "", "solution_code": "",
             "dependencies": {"Standalone": false, "lib_dependencies": [], "field_dependencies": [], "method_dependencies": ["a"]}}
         ]}
    ]);
    tasks.to_string()
}

#[test]
fn dependencies_tab_marks_cycles_and_disagreement() {
    let ds = dataset::parse_text("awkward.json", &serde_json_text("y")).unwrap();
    let mut app = app_for(ds, (100, 40));
    run(&mut app, [Action::Bottom, Action::Open, Action::GoTab(5)]);
    let screen = render(&app);
    assert!(screen.contains("⟲"), "{screen}");
    assert!(screen.contains("≠ a"), "{screen}");
    assert!(screen.contains("code calls b (not annotated)"), "{screen}");
    run(&mut app, [Action::GoTab(4)]);
    assert!(render(&app).contains("≠"));
}

/// The `classlab` TUI in a pseudo-terminal of its own (80×24), its output collected.
mod pty {
    use std::io::{Read, Write};
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::unix::process::CommandExt;
    use std::process::{Child, Command, Stdio};
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    pub struct Tui {
        pub child: Child,
        /// The terminal side the TUI uses, kept open to read its modes after it exits.
        pub slave: OwnedFd,
        pub output: Arc<Mutex<Vec<u8>>>,
        home: tempfile::TempDir,
    }

    impl Tui {
        /// Start `classlab` on the bundled sample, with `env` set.
        pub fn start(env: &[(&str, &str)]) -> Tui {
            let (mut master, mut slave) = (-1, -1);
            let size = libc::winsize {
                ws_row: 24,
                ws_col: 80,
                ws_xpixel: 0,
                ws_ypixel: 0,
            };
            // SAFETY: valid pointers to two ints and a winsize; null name and termios.
            let rc = unsafe {
                libc::openpty(
                    &mut master,
                    &mut slave,
                    std::ptr::null_mut(),
                    std::ptr::null(),
                    &size,
                )
            };
            assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
            // SAFETY: openpty just returned these two descriptors, owned by nobody else.
            let (master, slave) =
                unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
            let home = tempfile::tempdir().unwrap();
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_classlab"));
            cmd.env("HOME", home.path())
                .env("XDG_CONFIG_HOME", home.path().join("config"))
                .env("XDG_DATA_HOME", home.path().join("data"))
                .env("TERM", "xterm-256color")
                .arg("--sessions")
                .arg(home.path().join("sessions"))
                .stdin(Stdio::from(slave.try_clone().unwrap()))
                .stdout(Stdio::from(slave.try_clone().unwrap()))
                .stderr(Stdio::from(slave.try_clone().unwrap()));
            for (k, v) in env {
                cmd.env(k, v);
            }
            // SAFETY: only async-signal-safe calls between fork and exec.
            unsafe {
                cmd.pre_exec(|| {
                    // A session of its own, with the pseudo-terminal as its controlling tty.
                    if libc::setsid() == -1 || libc::ioctl(0, libc::TIOCSCTTY, 0) == -1 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
            let child = cmd.spawn().unwrap();
            drop(cmd);
            let output = Arc::new(Mutex::new(Vec::new()));
            let sink = Arc::clone(&output);
            let mut answers = std::fs::File::from(master.try_clone().unwrap());
            let mut reader = std::fs::File::from(master);
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                let mut asked = 0;
                // Ends with EIO once every descriptor of the terminal side is closed.
                while let Ok(n) = reader.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    let mut out = sink.lock().unwrap();
                    out.extend_from_slice(&buf[..n]);
                    // Answer cursor position requests (ratatui asks at start) as a terminal would.
                    let now = out.windows(4).filter(|w| w == b"\x1b[6n").count();
                    for _ in asked..now {
                        let _ = answers.write_all(b"\x1b[1;1R");
                    }
                    asked = now;
                }
            });
            Tui {
                child,
                slave,
                output,
                home,
            }
        }

        pub fn text(&self) -> String {
            String::from_utf8_lossy(&self.output.lock().unwrap()).into_owned()
        }

        /// Wait until the output contains `needle`; false after `secs` seconds.
        pub fn wait_for(&self, needle: &str, secs: u64) -> bool {
            let end = Instant::now() + Duration::from_secs(secs);
            while Instant::now() < end {
                if self.text().contains(needle) {
                    return true;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            false
        }

        /// Wait for the process to end (killing it after `secs` seconds).
        pub fn wait_exit(&mut self, secs: u64) -> std::process::ExitStatus {
            let end = Instant::now() + Duration::from_secs(secs);
            loop {
                if let Some(status) = self.child.try_wait().unwrap() {
                    return status;
                }
                if Instant::now() > end {
                    let _ = self.child.kill();
                    panic!("classlab did not exit; output:\n{:?}", self.text());
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }

        /// The terminal's local modes now (ICANON, ECHO: on in a cooked terminal).
        pub fn local_modes(&self) -> libc::tcflag_t {
            // SAFETY: a zeroed termios is a valid out-parameter for tcgetattr.
            let mut t: libc::termios = unsafe { std::mem::zeroed() };
            // SAFETY: the descriptor is open and `t` is a valid termios to fill.
            let rc = unsafe { libc::tcgetattr(self.slave.as_raw_fd(), &mut t) };
            assert_eq!(rc, 0, "tcgetattr: {}", std::io::Error::last_os_error());
            t.c_lflag
        }

        pub fn signal(&self, signal: i32) {
            let pid = i32::try_from(self.child.id()).unwrap();
            // SAFETY: plain kill(2) of our own child.
            assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
        }

        pub fn home(&self) -> &std::path::Path {
            self.home.path()
        }
    }
}

/// SIGTERM, SIGINT and SIGHUP leave the terminal as it was before the TUI: main screen,
/// cursor shown, mouse reporting off, raw mode off; the exit status is 128 + the signal. Also
/// when the UI thread is busy and never looks at the terminal again (CLASSLAB_TUI_DEBUG_BUSY).
#[test]
fn signals_restore_the_terminal_even_when_the_ui_thread_is_busy() {
    use std::os::unix::process::ExitStatusExt;
    for (signal, busy) in [
        (libc::SIGTERM, true),
        (libc::SIGINT, true),
        (libc::SIGHUP, true),
        (libc::SIGTERM, false),
    ] {
        let env: &[(&str, &str)] = if busy {
            &[("CLASSLAB_TUI_DEBUG_BUSY", "1")]
        } else {
            &[]
        };
        let mut tui = pty::Tui::start(env);
        assert!(tui.home().is_dir());
        // The first frame is on the alternate screen (the task list's title row).
        assert!(
            tui.wait_for("\x1b[?1049h", 20) && tui.wait_for("WordFrequencyReport", 20),
            "the TUI never drew; output:\n{:?}",
            tui.text()
        );
        assert_eq!(
            tui.local_modes() & (libc::ICANON | libc::ECHO),
            0,
            "raw mode while the TUI runs"
        );
        let drawn = tui.text().len();
        tui.signal(signal);
        let status = tui.wait_exit(20);
        assert_eq!(
            (status.code(), status.signal()),
            (Some(128 + signal), None),
            "signal {signal}, busy {busy}: {status:?}"
        );
        let lflag = tui.local_modes();
        assert_eq!(
            lflag & (libc::ICANON | libc::ECHO),
            libc::ICANON | libc::ECHO,
            "signal {signal}: raw mode left on"
        );
        // Give the reader a moment to drain the last bytes.
        let restored = ["\x1b[?1049l", "\x1b[?25h", "\x1b[?1000l"];
        let after = |tui: &pty::Tui| tui.text().get(drawn..).unwrap_or_default().to_string();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while restored.iter().any(|s| !after(&tui).contains(s))
            && std::time::Instant::now() < deadline
        {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let tail = after(&tui);
        for seq in restored {
            assert!(
                tail.contains(seq),
                "signal {signal}, busy {busy}: {seq:?} not written after the signal: {tail:?}"
            );
        }
    }
}

/// 100 KB of text: words and spaces, no line break.
fn big_text() -> String {
    "WordFrequency zeta ".repeat(100 * 1024 / 19 + 1)[..100 * 1024].to_string()
}

/// A bracketed paste is one event and one action; into the filter it is one filter run,
/// cut to the input's cap (and the status line says so).
#[test]
fn pasting_100_kb_into_the_filter_is_one_action_one_filter_run_and_capped() {
    let mut app = app_for(dataset::sample(), (80, 24));
    press(&mut app, KeyCode::Char('/'));
    assert!(app.sh.list.filtering);
    let runs = app.sh.list.filter_runs;
    let text = big_text();
    let action = action_for(&app, &Event::Paste(text.clone())).unwrap();
    assert_eq!(action, Action::InsertText(text));
    assert!(app.update(action).is_empty());
    assert_eq!(
        app.sh.list.filter_runs,
        runs + 1,
        "one filter run for the paste"
    );
    assert_eq!(app.sh.list.filter.chars().count(), INPUT_CAP);
    assert!(
        app.sh
            .list
            .filter
            .starts_with("WordFrequency zeta WordFrequency")
    );
    let status = app
        .sh
        .status
        .as_ref()
        .map(|s| s.text.clone())
        .unwrap_or_default();
    assert!(
        status.contains(&format!("kept {INPUT_CAP} of {} characters", 100 * 1024)),
        "{status}"
    );
    assert!(
        render(&app).contains("filter: kept 4096"),
        "{}",
        render(&app)
    );
    // Full: more text changes nothing and filters nothing.
    app.update(Action::InsertText("more".into()));
    assert_eq!(app.sh.list.filter_runs, runs + 1);
    assert_eq!(app.sh.list.filter.chars().count(), INPUT_CAP);
    // The first line only of a multi-line paste.
    app.update(Action::ClearInput);
    let runs = app.sh.list.filter_runs;
    app.update(Action::InsertText("WordFreq\nimport os\nprint(1)\n".into()));
    assert_eq!(app.sh.list.filter, "WordFreq");
    assert_eq!(app.sh.list.filter_runs, runs + 1);
    assert!(app.sh.status.as_ref().unwrap().text.contains("one line"));
    let task = app.sh.list.selected_task().unwrap();
    assert_eq!(app.sh.data.rows[task].class, "WordFrequencyReport");
    render(&app);
}

/// Keys typed faster than frames (or a paste a terminal sends as keys) go in as one text:
/// one filter run for the burst, not one per key.
#[test]
fn a_burst_of_typed_keys_filters_once() {
    let mut app = app_for(dataset::sample(), (80, 24));
    press(&mut app, KeyCode::Char('/'));
    let runs = app.sh.list.filter_runs;
    let mut typing = Typing::default();
    for c in big_text().chars() {
        let key = Event::Key(KeyEvent::new_with_kind(
            KeyCode::Char(c),
            KeyModifiers::NONE,
            KeyEventKind::Press,
        ));
        let action = action_for(&app, &key).unwrap();
        assert!(typing.feed(action).is_empty());
    }
    let burst = typing.flush().unwrap();
    assert!(matches!(burst, Action::InsertText(_)));
    app.update(burst);
    assert_eq!(app.sh.list.filter_runs, runs + 1);
    assert_eq!(app.sh.list.filter.chars().count(), INPUT_CAP);
}

/// The palette takes a paste the same way; elsewhere a paste is never taken for commands.
#[test]
fn pasting_into_the_palette_and_outside_inputs() {
    let mut app = app_for(dataset::sample(), (80, 24));
    press(&mut app, KeyCode::Char(':'));
    let action = action_for(&app, &Event::Paste(big_text())).unwrap();
    app.update(action);
    let Some(p) = (app.layer() == Some(ScreenId::Palette)).then_some(&app.screens.palette) else {
        panic!("palette closed")
    };
    assert_eq!(p.input.chars().count(), INPUT_CAP);
    assert!(
        app.sh
            .status
            .as_ref()
            .unwrap()
            .text
            .contains("palette: kept")
    );
    render(&app);
    app.update(Action::ClearInput);
    app.update(Action::InsertText("theme light\n".into()));
    let Some(p) = (app.layer() == Some(ScreenId::Palette)).then_some(&app.screens.palette) else {
        panic!("palette closed")
    };
    assert_eq!(p.input, "theme light");
    app.update(Action::Submit);
    assert_eq!(app.sh.theme().name, "light");
    // In the task list (not filtering) a pasted "q" quits nothing and filters nothing.
    app.update(Action::Back);
    let runs = app.sh.list.filter_runs;
    let action = action_for(&app, &Event::Paste("q/x".into())).unwrap();
    assert!(app.update(action).is_empty());
    assert!(!app.sh.list.filtering && app.sh.list.filter.is_empty());
    assert_eq!(app.sh.list.filter_runs, runs);
    // The other inputs take the first line as if typed.
    app.update(Action::NewEval);
    app.update(Action::InsertText("outputs/model.json\nrest".into()));
    let Some(d) = (app.layer() == Some(ScreenId::NewEval)).then_some(&app.screens.new_eval) else {
        panic!("no dialog")
    };
    assert_eq!(d.input, "outputs/model.json");
}

/// A long list is filtered off the UI thread: the filter change is a request, the answer an
/// action; only the newest request's answer is shown.
#[test]
fn long_lists_filter_in_the_background_newest_request_wins() {
    let mut app = app_for(dataset::sample(), (80, 24));
    app.sh.list.inline_rows = 0;
    let shown = app.sh.list.visible.clone();
    press(&mut app, KeyCode::Char('/'));
    app.update(Action::InsertText("Word".into()));
    let (old, _) = app.sh.list.pending.unwrap();
    let old_query = app.sh.list.query();
    app.update(Action::InsertText("Freq".into()));
    let (req, best) = app.sh.list.pending.unwrap();
    assert!(req > old && best);
    assert_eq!(app.sh.list.visible, shown, "the list waits for the answer");
    render(&app);
    let stale = list::find(&app.sh.data.rows, &old_query);
    app.update(Action::TasksFiltered {
        req: old,
        found: Delivered::new(stale),
    });
    assert_eq!(app.sh.list.visible, shown, "an older answer is dropped");
    let found = list::find(&app.sh.data.rows, &app.sh.list.query());
    app.update(Action::TasksFiltered {
        req,
        found: Delivered::new(found),
    });
    assert_eq!(app.sh.list.pending, None);
    assert_eq!(app.sh.list.visible.len(), 1);
    let task = app.sh.list.selected_task().unwrap();
    assert_eq!(app.sh.data.rows[task].class, "WordFrequencyReport");
}

/// Issue 21 item 14: a task id, class name or dataset name holding an OSC sequence, a
/// newline or a bidi override never reaches the terminal raw, on any screen of a task.
#[test]
fn hostile_names_draw_no_control_characters() {
    let id = "Evil\u{1b}]0;pwned\u{7}\u{202e}_1\nClassEval_0 Perfect";
    let class = "A\u{2066}B\u{9b}31m";
    let task = serde_json::json!([{
        "task_id": id, "class_name": class,
        "skeleton": "class A:\n    def f(self):\n        \"\"\"f\u{202e}x\"\"\"\n",
        "solution_code": "class A:\n    def f(self):\n        return 1\n",
        "test": "import unittest\nclass ATestF(unittest.TestCase):\n    def test_f(self):\n        pass\n",
        "methods_info": []
    }]);
    let ds = dataset::parse_text("evil\u{1b}[2J.json", &task.to_string()).unwrap();
    for size in [(80, 24), (160, 48)] {
        let mut app = app_for(ds.clone(), size);
        let mut frames = vec![render_buffer(&app)];
        press(&mut app, KeyCode::Enter);
        for _ in 0..5 {
            frames.push(render_buffer(&app));
            press(&mut app, KeyCode::Tab);
        }
        for f in frames {
            for cell in f.content() {
                assert!(
                    !cell.symbol().chars().any(classlab::text::needs_escape),
                    "{:?} drawn raw",
                    cell.symbol()
                );
            }
        }
    }
}

fn render_buffer(app: &App) -> ratatui::buffer::Buffer {
    let (w, h) = app.sh.size;
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| views::render(app, f)).unwrap();
    terminal.backend().buffer().clone()
}
