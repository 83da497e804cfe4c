//! The TUI headless (ratatui's `TestBackend`) on synthetic datasets made by repeating
//! ClassEval's tasks under new ids (100, 3,000 and 30,000 tasks) and on a 30,000-event
//! evaluation: time to the first frame, the whole file loaded, key → frame during and after
//! loading, an event applied to a big session, and peak memory (each size measured in a
//! process of its own). Run: `cargo bench --bench tui` (`-- 3000` for one size).
//!
//! Targets (issue "TUI core"): first frame ≤ 100 ms, 30,000 tasks loaded ≤ 5 s, key → frame
//! ≤ 16 ms, event + frame ≤ 16 ms, peak memory ≤ 1.2 GiB before any task is opened.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use classlab::dataset;
use classlab::depcheck::GroundTruth;
use classlab::tui::app::{ScreenId, UiSetup};
use classlab::tui::data::Data;
use classlab::tui::evals::EvalSession;
use classlab::tui::jobs::{EvalSetup, Jobs};
use classlab::tui::runtime::Runtime;
use classlab::tui::{DatasetSource, action_for, open_app, views};
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const SIZES: [usize; 3] = [100, 3_000, 30_000];

fn classeval() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/classeval/ClassEval_data.json")
}

/// ClassEval's tasks repeated under new ids until there are `n`, written once to a temp dir.
fn synthetic(n: usize) -> PathBuf {
    let dir = std::env::temp_dir().join("classlab-bench-tui");
    let path = dir.join(format!("classeval-x{n}.json"));
    if path.exists() {
        return path;
    }
    let text = std::fs::read_to_string(classeval()).expect("ClassEval data beside the checkout");
    let tasks: Vec<serde_json::Value> = serde_json::from_str(&text).expect("ClassEval parses");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let tmp = dir.join(format!("classeval-x{n}.json.part"));
    let mut out = std::io::BufWriter::new(std::fs::File::create(&tmp).expect("temp file"));
    out.write_all(b"[\n").expect("write");
    for i in 0..n {
        let mut task = tasks[i % tasks.len()].clone();
        task["task_id"] = format!("Synth_{i}").into();
        if i > 0 {
            out.write_all(b",\n").expect("write");
        }
        serde_json::to_writer(&mut out, &task).expect("write");
    }
    out.write_all(b"\n]\n").expect("write");
    out.flush().expect("write");
    drop(out);
    std::fs::rename(&tmp, &path).expect("rename");
    path
}

fn key(c: KeyCode) -> Event {
    Event::Key(KeyEvent::new(c, KeyModifiers::NONE))
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

struct Headless {
    rt: Runtime,
    term: Terminal<TestBackend>,
    opened: Instant,
    /// When the whole file was in, and when every task was analysed (from `opened`).
    loaded: Option<Duration>,
    analysed: Option<Duration>,
}

impl Headless {
    fn open(path: &Path) -> Headless {
        let setup = UiSetup {
            size: (120, 40),
            ..UiSetup::default()
        };
        let app = open_app(
            DatasetSource::Stream(path.to_path_buf()),
            None,
            GroundTruth::Extracted,
            setup,
        );
        let sessions = std::env::temp_dir().join("classlab-bench-tui/sessions");
        let rt = Runtime::new(app, Jobs::new(EvalSetup::new(sessions, None)));
        let term = Terminal::new(TestBackend::new(120, 40)).expect("test backend");
        Headless {
            rt,
            term,
            opened: Instant::now(),
            loaded: None,
            analysed: None,
        }
    }

    fn frame(&mut self) {
        let _ = self.rt.pump();
        let data = &self.rt.app.sh.data;
        if self.loaded.is_none() && !data.is_loading() {
            self.loaded = Some(self.opened.elapsed());
        }
        if self.analysed.is_none() && !data.is_busy() {
            self.analysed = Some(self.opened.elapsed());
        }
        let app = &self.rt.app;
        self.term
            .draw(|f| views::render(app, f))
            .expect("draw on the test backend");
    }

    /// One key through the keymap, then a frame; the time both took.
    fn key(&mut self, event: Event) -> Duration {
        let t = Instant::now();
        if let Some(action) = action_for(&self.rt.app, &event) {
            self.rt.step(action);
        }
        self.frame();
        t.elapsed()
    }

    /// Frames until `done` (or 60 s); the time it took.
    fn until(&mut self, done: impl Fn(&Runtime) -> bool) -> Duration {
        let t = Instant::now();
        while !done(&self.rt) && t.elapsed() < Duration::from_secs(60) {
            self.frame();
            std::thread::sleep(Duration::from_millis(1));
        }
        t.elapsed()
    }

    /// `j`, `G`, `/` + 4 characters, `Enter`, `Tab`, each a key then a frame, worst of each.
    fn keys(&mut self, label: &str) {
        let worst = |name: &str, times: &[Duration]| {
            let mut sorted = times.to_vec();
            sorted.sort();
            let max = sorted.last().copied().unwrap_or_default();
            if sorted.len() > 1 {
                let median = sorted[sorted.len() / 2];
                println!(
                    "  {label:<15} {name:<22} {} (median {})",
                    ms(max),
                    ms(median)
                );
            } else {
                println!("  {label:<15} {name:<22} {}", ms(max));
            }
        };
        let j: Vec<Duration> = (0..20).map(|_| self.key(key(KeyCode::Char('j')))).collect();
        worst("j (worst of 20)", &j);
        worst("G", &[self.key(key(KeyCode::Char('G')))]);
        let mut filter = vec![self.key(key(KeyCode::Char('/')))];
        for c in "th_1".chars() {
            filter.push(self.key(key(KeyCode::Char(c))));
        }
        worst("/ + 4 chars (worst)", &filter);
        let answered = self.until(|rt| rt.app.sh.list.pending.is_none());
        worst("  … filter answered", &[answered]);
        worst("Enter (filter)", &[self.key(key(KeyCode::Enter))]);
        worst("Enter (open)", &[self.key(key(KeyCode::Enter))]);
        worst("Tab", &[self.key(key(KeyCode::Tab))]);
        let analysed = self.until(|rt| {
            rt.app
                .sh
                .data
                .full_analysis(rt.app.screens.task.idx)
                .is_some()
        });
        worst("  … task analysed", &[analysed]);
        self.key(key(KeyCode::Esc));
        self.key(key(KeyCode::Esc));
        self.key(key(KeyCode::Esc));
    }
}

fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// One size, in this process.
fn size(n: usize) {
    let path = synthetic(n);
    println!(
        "{n} tasks ({} MB)",
        std::fs::metadata(&path).map_or(0, |m| m.len()) >> 20
    );
    let mut h = Headless::open(&path);
    let t = h.opened;
    h.frame();
    let empty = t.elapsed();
    h.until(|rt| !rt.app.sh.data.rows.is_empty());
    let first = t.elapsed();
    println!("  first frame (loading)          {}", ms(empty));
    println!("  first frame with tasks         {}", ms(first));
    if h.rt.app.sh.data.is_loading() {
        h.keys("while loading");
    }
    h.until(|rt| !rt.app.sh.data.is_busy());
    let at = |d: Option<Duration>| d.map_or("—".into(), ms);
    println!("  whole file loaded              {}", at(h.loaded));
    println!("  every task analysed            {}", at(h.analysed));
    println!(
        "  peak RSS before a task opened  {:.0} MiB",
        peak_rss_mib().unwrap_or(f64::NAN)
    );
    h.keys("after loading");
}

/// The same dataset analysed up front, as the TUI did before (`Data::new`).
fn baseline(n: usize) {
    let path = synthetic(n);
    let t = Instant::now();
    let dataset = dataset::load_path(&path).expect("synthetic dataset loads");
    let _data = Data::new(dataset, None, GroundTruth::Extracted);
    println!(
        "  old approach: everything before the first frame {}",
        ms(t.elapsed())
    );
}

/// A live evaluation over 30,000 events, then one more event + a frame.
fn session() {
    use classlab::model::{Outcome, SuiteResult, TestResult};
    use classlab::session::{Event as Ev, EventBody, Scope};
    use classlab::tui::action::{Action, Delivered};
    let path = synthetic(100);
    let mut h = Headless::open(&path);
    h.until(|rt| !rt.app.sh.data.is_busy());
    h.rt.app.sh.ev.live = Some(EvalSession::live("bench.json", "bench"));
    h.rt.app.sh.ev.running = true;
    h.rt.app.sh.ev.showing = Some(classlab::tui::evals::Source::Live);
    h.rt.app.show(ScreenId::Eval);
    let mut seq = 0u64;
    let mut event = |body: EventBody| {
        seq += 1;
        Action::EvalEvent(Delivered::new(Ev {
            seq,
            ts: 1.0e9 + seq as f64,
            body,
        }))
    };
    let tasks: Vec<String> = (0..10_000).map(|i| format!("Synth_{i}")).collect();
    let mut actions = vec![event(EventBody::RunStarted {
        tool_version: "bench".into(),
        tasks: tasks.clone(),
        samples: 1,
        config: serde_json::json!({"model": "bench"}),
    })];
    for id in &tasks {
        let tests = (0..5)
            .map(|k| {
                let outcome = if k == 0 { Outcome::Fail } else { Outcome::Pass };
                TestResult::new(format!("Test.test_{k}"), outcome)
            })
            .collect();
        actions.push(event(EventBody::TaskStarted {
            task_id: id.clone(),
            sample: 0,
        }));
        actions.push(event(EventBody::CodeExtracted {
            task_id: id.clone(),
            sample: 0,
            code: "class A:\n    pass\n".into(),
            notes: Vec::new(),
            method: None,
            round: None,
        }));
        actions.push(event(EventBody::TestRun {
            task_id: id.clone(),
            sample: 0,
            scope: Scope::Private,
            method: None,
            round: None,
            result: SuiteResult::new(tests, None),
        }));
    }
    let n = actions.len();
    let t = Instant::now();
    for a in actions {
        h.rt.step(a);
    }
    println!("30,000-event session");
    println!("  {n} events applied              {}", ms(t.elapsed()));
    let mut worst = Duration::ZERO;
    for i in 0..20 {
        let t = Instant::now();
        h.rt.step(event(EventBody::TaskStarted {
            task_id: format!("Extra_{i}"),
            sample: 0,
        }));
        h.frame();
        worst = worst.max(t.elapsed());
    }
    println!("  event + frame (worst of 20)    {}", ms(worst));
    let shown: String = h
        .term
        .backend()
        .buffer()
        .content()
        .iter()
        .map(|c| c.symbol())
        .collect();
    assert!(
        shown.contains("evaluation"),
        "the evaluation screen is shown"
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `--child N`: one size in this process (its peak memory is its own).
    if let Some(pos) = args.iter().position(|a| a == "--child") {
        match args.get(pos + 1).and_then(|n| n.parse().ok()) {
            Some(n) => size(n),
            None => session(),
        }
        return;
    }
    if args.iter().any(|a| a == "session") {
        let _ = std::process::Command::new(std::env::current_exe().expect("bench executable"))
            .args(["--child", "session"])
            .status();
        return;
    }
    let only: Option<usize> = args.iter().find_map(|a| a.parse().ok());
    let exe = std::env::current_exe().expect("bench executable");
    for n in SIZES.into_iter().filter(|n| only.is_none_or(|o| o == *n)) {
        synthetic(n);
        let status = std::process::Command::new(&exe)
            .args(["--child", &n.to_string()])
            .status();
        if !status.is_ok_and(|s| s.success()) {
            println!("{n} tasks: the measuring process failed");
        }
        if n <= 3_000 {
            baseline(n);
        }
    }
    if only.is_none() {
        let _ = std::process::Command::new(&exe)
            .args(["--child", "session"])
            .status();
    }
}
