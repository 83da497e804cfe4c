//! The corpus browser, headless: a store built from real code (stdlib modules and a small tree
//! with exact and near duplicates), the screen opened on it and driven by keys through its own
//! bindings — sort, the filter expression (an error pointing at its character), fuzzy search,
//! the distribution, the funnel, a duplicate cluster's members, a class opened and closed —
//! with snapshots at 80×24 and 160×48; and files that are not stores.

mod corpus_common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use classlab::corpus::{BuildOptions, Filter, Quiet, Sort, Store, build};
use classlab::dataset;
use classlab::depcheck::GroundTruth;
use classlab::tui::action::Action;
use classlab::tui::data::Data;
use classlab::tui::keymap::{Binding, KeyChord, Keymap};
use classlab::tui::screen::{Nav, Screen};
use classlab::tui::screens::corpus::state::{Pane, Panel};
use classlab::tui::screens::corpus::{State, keys, view};
use classlab::tui::shared::{Pending, Shared, UiSetup};
use corpus_common::write;
use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::text::Line;
use ratatui::widgets::Widget;

const CACHE: &str = "import functools\n\nclass LruCache:\n    \"\"\"A small cache.\"\"\"\n\n    def __init__(self, size):\n        \"\"\"Make it.\"\"\"\n        self.size = size\n        self.data = {}\n\n    def get(self, key):\n        \"\"\"Get a key.\"\"\"\n        if key in self.data:\n            return self.data[key]\n        return None\n\n    def put(self, key, value):\n        \"\"\"Put a key.\"\"\"\n        if len(self.data) >= self.size:\n            self.evict()\n        self.data[key] = value\n\n    def evict(self):\n        \"\"\"Drop the oldest key.\"\"\"\n        for k in list(self.data):\n            del self.data[k]\n            break\n";

/// A store of real stdlib modules (CPython 3.11.7's, copied into the fixtures so that no
/// snapshot depends on the test machine's Python) plus a tree with an exact and a near
/// duplicate of a class.
fn store(dir: &Path) -> Option<PathBuf> {
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus_stdlib");
    let r = dir.join("tree");
    write(&r.join("alpha/cache.py"), CACHE.as_bytes());
    write(
        &r.join("beta/copy_of_cache.py"),
        format!("# a copy\n{CACHE}").as_bytes(),
    );
    let near = CACHE.replace("break", "break\n        return None");
    write(&r.join("gamma/near.py"), near.as_bytes());
    write(
        &r.join("delta/uses_numpy.py"),
        b"import numpy as np\n\nclass Arr:\n    \"\"\"Doc.\"\"\"\n\n    def f(self):\n        \"\"\"F.\"\"\"\n        return np.zeros(3)\n",
    );
    let roots = vec![
        r,
        lib.join("json"),
        lib.join("email").join("headerregistry.py"),
    ];
    let out = dir.join("c.db");
    build(&BuildOptions::new(roots, out.clone()), &Quiet).unwrap();
    Some(out)
}

struct Browser {
    st: State,
    sh: Shared,
    keymap: Keymap,
}

impl Browser {
    fn open(db: &Path, size: (u16, u16)) -> Browser {
        let mut b = Browser::open_unsettled(db, size);
        b.settle();
        b
    }

    fn open_unsettled(db: &Path, size: (u16, u16)) -> Browser {
        let mut bindings = Vec::new();
        keys::add(&mut |context, keys: &[KeyChord], action: Action, note| {
            for &key in keys {
                bindings.push(Binding {
                    context,
                    key,
                    action: action.clone(),
                    note,
                });
            }
        });
        let sh = Shared::new(
            Data::new(dataset::sample(), None, GroundTruth::Extracted),
            UiSetup {
                size,
                ..UiSetup::default()
            },
        );
        let started = Instant::now();
        let st = State::open(db).unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "open is instant"
        );
        Browser {
            st,
            sh,
            keymap: Keymap { bindings },
        }
    }

    /// Poll until the list has rows (or is empty and counted); how long it took.
    fn until_rows(&mut self, started: Instant) -> Duration {
        let deadline = started + Duration::from_secs(60);
        loop {
            self.st.poll(&mut self.sh);
            if !self.st.rows.is_empty() || self.st.total == Some(0) {
                return started.elapsed();
            }
            assert!(Instant::now() < deadline, "no rows");
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    fn act(&mut self, action: Action) {
        self.st.update(&mut self.sh, action);
    }

    /// Take the worker's answers until it has nothing left to do.
    fn settle(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            self.st.poll(&mut self.sh);
            if !self.st.busy() {
                self.st.poll(&mut self.sh);
                if !self.st.busy() {
                    return;
                }
            }
            assert!(Instant::now() < deadline, "the worker never settled");
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    fn press(&mut self, key: KeyChord) {
        let contexts = self.st.contexts(&self.sh);
        let action = self
            .keymap
            .lookup(&contexts, key)
            .unwrap_or_else(|| panic!("{key:?} is not bound in {contexts:?}"));
        self.st.update(&mut self.sh, action);
        self.settle();
    }

    fn key(&mut self, c: char) {
        self.press(KeyChord::ch(c));
    }

    fn code(&mut self, code: KeyCode) {
        self.press(KeyChord::plain(code));
    }

    fn typ(&mut self, text: &str) {
        for c in text.chars() {
            self.key(c);
        }
    }

    /// The frame: title bar, the screen's body, the status line (status or key hints).
    fn render(&self) -> String {
        let (w, h) = self.sh.size;
        let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
        terminal
            .draw(|f| {
                let area = f.area();
                let buf = f.buffer_mut();
                let mut title = vec![ratatui::text::Span::raw("classlab │ ")];
                title.extend(self.st.title(&self.sh));
                Line::from(title).render(ratatui::layout::Rect { height: 1, ..area }, buf);
                self.st.render(&self.sh, view::body((w, h)), buf);
                let status = match &self.sh.status {
                    Some(s) => s.text.clone(),
                    None => keys::hints(&self.st)
                        .iter()
                        .filter_map(|(c, a, label)| {
                            self.keymap.key_for(*c, a).map(|k| format!("{k} {label}"))
                        })
                        .collect::<Vec<_>>()
                        .join("  "),
                };
                Line::raw(status).render(
                    ratatui::layout::Rect {
                        y: h - 1,
                        height: 1,
                        ..area
                    },
                    buf,
                );
            })
            .unwrap();
        terminal.backend().to_string()
    }

    fn selected_qualname(&self) -> String {
        self.st
            .selected_row()
            .map(|r| r.qualname.clone())
            .unwrap_or_default()
    }

    /// Select the first row whose qualified name is `name` (moving down from the top).
    fn select(&mut self, name: &str) {
        self.key('g');
        for _ in 0..self.st.len() {
            if self.selected_qualname() == name {
                return;
            }
            self.key('j');
        }
        panic!("no row {name}");
    }

    fn count(&self, db: &Path, filter: &str) -> u64 {
        Store::open(db)
            .unwrap()
            .count(&Filter::parse(filter).unwrap())
            .unwrap()
    }
}

#[test]
fn opens_on_the_first_page_with_the_distribution() {
    let dir = tempfile::tempdir().unwrap();
    let Some(db) = store(dir.path()) else { return };
    let total = Browser::open(&db, (80, 24)).count(&db, "");
    for size in [(80, 24), (160, 48)] {
        let b = Browser::open(&db, size);
        assert_eq!(b.st.total, Some(total));
        assert!(!b.st.rows.is_empty());
        assert_eq!(b.st.panel, Some(Panel::Distribution));
        let h = b.st.histogram.as_ref().expect("histogram");
        assert_eq!(h.counts.iter().sum::<u64>(), total);
        insta::assert_snapshot!(format!("first_frame_{}x{}", size.0, size.1), b.render());
    }
}

#[test]
fn sorts_by_any_column_and_reverses() {
    let dir = tempfile::tempdir().unwrap();
    let Some(db) = store(dir.path()) else { return };
    let mut b = Browser::open(&db, (80, 24));
    b.key('s');
    assert_eq!(b.st.sort.column.as_deref(), Some("CountLineCode"));
    assert!(b.st.sort.descending);
    let values: Vec<f64> = b.st.rows.iter().map(|r| r.values[0].unwrap()).collect();
    assert!(values.windows(2).all(|w| w[0] >= w[1]), "{values:?}");
    insta::assert_snapshot!("sorted_80x24", b.render());
    b.key('S');
    let values: Vec<f64> = b.st.rows.iter().map(|r| r.values[0].unwrap()).collect();
    assert!(values.windows(2).all(|w| w[0] <= w[1]), "{values:?}");
    // Past the shown columns, the sort reaches every metric (shown while sorted), and `c` pins it.
    for _ in 0..9 {
        b.key('s');
    }
    let col = b.st.sort.column.clone().unwrap();
    assert!(!b.st.columns.contains(&col), "{col}");
    assert_eq!(b.st.shown_columns().last(), Some(&col));
    assert_eq!(
        b.st.histogram.as_ref().map(|h| h.column.clone()),
        Some(col.clone())
    );
    b.key('c');
    assert!(b.st.columns.contains(&col));
    // The list is virtualised: the bottom row of the whole list is reachable and fetched.
    b.key('G');
    assert_eq!(b.st.selected, b.st.len() - 1);
    assert!(b.st.selected_row().is_some());
}

#[test]
fn a_filter_expression_runs_and_an_error_points_at_its_character() {
    let dir = tempfile::tempdir().unwrap();
    let Some(db) = store(dir.path()) else { return };
    let mut b = Browser::open(&db, (80, 24));
    b.key('f');
    b.typ("CountLineCode>=5 and Bogus<2");
    let err = b.st.filter_error.clone().expect("an error");
    assert_eq!(err.at, 21, "{err:?}");
    insta::assert_snapshot!("filter_error_80x24", b.render());
    // Ctrl-U clears; a good filter runs as it is typed.
    b.press(KeyChord::ctrl('u'));
    b.typ("CountDeclMethod>=3 and SumCyclomatic<40");
    assert!(b.st.filter_error.is_none());
    b.code(KeyCode::Enter);
    assert!(b.st.input.is_none());
    let want = b.count(&db, "CountDeclMethod>=3 and SumCyclomatic<40");
    assert!(want > 0);
    assert_eq!(b.st.total, Some(want));
    assert_eq!(
        b.st.histogram.as_ref().unwrap().counts.iter().sum::<u64>(),
        want
    );
    insta::assert_snapshot!("filtered_160x48", {
        b.sh.size = (160, 48);
        b.st.clamp(&b.sh);
        b.settle();
        b.render()
    });
    // Esc while editing restores what was there before.
    b.key('f');
    b.typ(" and unique");
    assert_eq!(
        b.st.total,
        Some(b.count(&db, "CountDeclMethod>=3 and SumCyclomatic<40 and unique"))
    );
    b.code(KeyCode::Esc);
    assert_eq!(b.st.filter_text, "CountDeclMethod>=3 and SumCyclomatic<40");
    assert_eq!(b.st.total, Some(want));
}

#[test]
fn fuzzy_search_over_names_and_paths() {
    let dir = tempfile::tempdir().unwrap();
    let Some(db) = store(dir.path()) else { return };
    let mut b = Browser::open(&db, (80, 24));
    b.key('/');
    b.typ("lrucache");
    assert_eq!(b.st.total, Some(3), "three copies of LruCache");
    assert!(b.st.rows.iter().all(|r| r.qualname == "LruCache"));
    b.code(KeyCode::Enter);
    insta::assert_snapshot!("search_80x24", b.render());
    // The search and the filter combine.
    b.key('f');
    b.typ("unique");
    b.code(KeyCode::Enter);
    assert_eq!(b.st.total, Some(1));
    assert_eq!(b.st.rows[0].path, "tree/alpha/cache.py");
    b.key('f');
    b.press(KeyChord::ctrl('u'));
    b.code(KeyCode::Enter);
    // A path matches too.
    b.key('/');
    b.press(KeyChord::ctrl('u'));
    b.typ("headerreg");
    assert!(b.st.total.unwrap() > 10);
    assert!(b.st.rows.iter().all(|r| r.path.contains("headerregistry")));
    b.key('/');
    b.code(KeyCode::Esc);
}

#[test]
fn the_funnel_panel() {
    let dir = tempfile::tempdir().unwrap();
    let Some(db) = store(dir.path()) else { return };
    let mut b = Browser::open(&db, (160, 48));
    b.code(KeyCode::Tab);
    assert_eq!(b.st.panel, Some(Panel::Funnel));
    let f = b.st.funnel.clone().expect("funnel");
    assert_eq!(f, Store::open(&db).unwrap().funnel().unwrap());
    insta::assert_snapshot!("funnel_160x48", b.render());
    b.key('p');
    assert_eq!(b.st.panel, None);
    b.key('p');
    assert_eq!(b.st.panel, Some(Panel::Funnel));
}

#[test]
fn duplicate_clusters_and_jumps_between_members() {
    let dir = tempfile::tempdir().unwrap();
    let Some(db) = store(dir.path()) else { return };
    let mut b = Browser::open(&db, (80, 24));
    b.select("LruCache");
    assert_eq!(b.st.selected_row().unwrap().path, "tree/alpha/cache.py");
    b.code(KeyCode::Tab);
    b.code(KeyCode::Tab);
    assert_eq!(b.st.panel, Some(Panel::Duplicates));
    let c = b.st.cluster.clone().expect("clusters");
    assert_eq!(c.exact, 2, "{c:?}");
    assert_eq!(c.members.len(), 3, "{c:?}");
    insta::assert_snapshot!("duplicates_80x24", b.render());
    b.key(']');
    let open = b.st.class.as_ref().expect("a member opened");
    assert_eq!(
        open.detail.as_ref().unwrap().path,
        "tree/beta/copy_of_cache.py"
    );
    b.key(']');
    let open = b.st.class.as_ref().unwrap();
    assert_eq!(open.detail.as_ref().unwrap().path, "tree/gamma/near.py");
    insta::assert_snapshot!("near_member_80x24", b.render());
    b.key(']');
    assert_eq!(
        b.st.class.as_ref().unwrap().detail.as_ref().unwrap().path,
        "tree/alpha/cache.py"
    );
    b.key('[');
    assert_eq!(
        b.st.class.as_ref().unwrap().detail.as_ref().unwrap().path,
        "tree/gamma/near.py"
    );
    b.code(KeyCode::Esc);
    assert!(b.st.class.is_none());
    assert_eq!(b.selected_qualname(), "LruCache");
}

#[test]
fn enter_opens_the_class_and_back_returns() {
    let dir = tempfile::tempdir().unwrap();
    let Some(db) = store(dir.path()) else { return };
    let mut b = Browser::open(&db, (80, 24));
    b.select("LruCache");
    b.code(KeyCode::Enter);
    let view = b.st.class.as_ref().expect("opened");
    assert_eq!(view.pane, Pane::Code);
    let d = view.detail.as_ref().expect("read on demand");
    assert_eq!(d.methods.len(), 4);
    assert!(d.edges.contains(&("put".to_string(), "evict".to_string())));
    insta::assert_snapshot!("class_code_80x24", b.render());
    b.code(KeyCode::Tab);
    insta::assert_snapshot!("class_skeleton_80x24", b.render());
    b.key('3');
    insta::assert_snapshot!("class_methods_80x24", b.render());
    b.key('4');
    insta::assert_snapshot!("class_dependencies_80x24", b.render());
    b.key('5');
    b.key('j');
    assert_eq!(b.st.class.as_ref().unwrap().scroll, 1);
    b.sh.size = (160, 48);
    b.key('1');
    insta::assert_snapshot!("class_code_160x48", b.render());
    b.key('l');
    b.key('l');
    assert_eq!(b.st.class.as_ref().unwrap().left, 8);
    assert!(!b.render().contains("class LruCache"));
    b.key('0');
    assert_eq!(b.st.class.as_ref().unwrap().left, 0);
    b.code(KeyCode::Esc);
    assert!(b.st.class.is_none());
    assert!(b.sh.take_pending().is_empty());
    b.code(KeyCode::Esc);
    assert!(matches!(
        b.sh.take_pending().as_slice(),
        [Pending::Nav(Nav::Back)]
    ));
}

#[test]
fn full_text_filter_chosen_columns_and_tiny_terminals() {
    let dir = tempfile::tempdir().unwrap();
    let Some(db) = store(dir.path()) else { return };
    let mut b = Browser::open(&db, (80, 24));
    let bad =
        b.st.set_columns(&["tokens".into(), "Bogus".into(), "AvgCyclomatic".into()]);
    assert_eq!(bad, ["Bogus"]);
    b.settle();
    assert_eq!(b.st.shown_columns(), ["tokens", "AvgCyclomatic"]);
    assert!(b.st.rows.iter().all(|r| r.values.len() == 2));
    b.key('f');
    b.typ("text:\"cache\"");
    b.code(KeyCode::Enter);
    let want = b.count(&db, "text:\"cache\"");
    assert!(want >= 3, "{want}");
    assert_eq!(b.st.total, Some(want));
    // Every view draws at any size without panicking.
    let mut frames = 0;
    for step in ["list", "error", "funnel", "duplicates", "class"] {
        match step {
            "error" => b.typ("f("),
            "funnel" => {
                b.code(KeyCode::Esc);
                b.code(KeyCode::Tab);
            }
            "duplicates" => b.code(KeyCode::Tab),
            "class" => b.code(KeyCode::Enter),
            _ => b.key('f'),
        }
        for size in [(1, 1), (2, 3), (10, 3), (30, 8), (40, 15), (200, 60)] {
            b.sh.size = size;
            b.st.clamp(&b.sh);
            b.settle();
            b.render();
            frames += 1;
        }
        if step == "list" {
            b.code(KeyCode::Esc);
        }
    }
    assert_eq!(frames, 30);
    assert!(b.st.class.is_some());
    for pane in '1'..='5' {
        b.key(pane);
        b.key('G');
        b.render();
    }
}

#[test]
fn a_query_the_store_cannot_answer_is_shown_not_waited_for() {
    let dir = tempfile::tempdir().unwrap();
    let Some(db) = store(dir.path()) else { return };
    // A damaged store: its full-text index is gone.
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch("DROP TABLE class_fts;")
        .unwrap();
    let mut b = Browser::open(&db, (80, 24));
    assert!(b.st.total.unwrap() > 0);
    b.key('f');
    b.typ("text:\"cache\"");
    b.code(KeyCode::Enter);
    assert_eq!(b.st.total, Some(0));
    let err = b.st.error.clone().expect("the error");
    assert!(err.contains("class_fts"), "{err}");
    assert!(b.render().contains("cannot read the list"));
    assert!(b.sh.errors.iter().any(|e| e.contains("class_fts")));
    // Another filter reads again.
    b.key('f');
    b.press(KeyChord::ctrl('u'));
    b.code(KeyCode::Enter);
    assert!(b.st.error.is_none());
    assert!(b.st.total.unwrap() > 0);
}

#[test]
fn a_file_that_is_not_a_store_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "class A:\n    pass\n").unwrap();
    let empty_db = dir.path().join("empty.db");
    rusqlite::Connection::open(&empty_db)
        .unwrap()
        .execute_batch("CREATE TABLE t (x);")
        .unwrap();
    let missing = dir.path().join("missing.db");
    for (path, says) in [
        (&text, "notes.txt"),
        (&empty_db, "not a classlab corpus store"),
        (&missing, "no such corpus store"),
    ] {
        let err = match State::open(path) {
            Ok(_) => panic!("{} opened", path.display()),
            Err(e) => format!("{e:#}"),
        };
        assert!(err.contains(says), "{err}");
    }
}

#[test]
fn sort_default_is_store_order() {
    let dir = tempfile::tempdir().unwrap();
    let Some(db) = store(dir.path()) else { return };
    let b = Browser::open(&db, (80, 24));
    let store = Store::open(&db).unwrap();
    let ids = store
        .page_ids(&Filter::all(), &Sort::default(), 0, 10)
        .unwrap();
    let shown: Vec<i64> = b.st.rows.iter().take(10).map(|r| r.id).collect();
    assert_eq!(shown, ids);
    // A click on a row selects it; on the wheel the selection moves.
    let mut b = b;
    b.st.update(&mut b.sh, Action::Click { column: 10, row: 6 });
    assert_eq!(b.st.selected, 3);
    b.st.update(&mut b.sh, Action::Scroll(2));
    assert_eq!(b.st.selected, 5);
}

/// Times on a big store (not a timed test): `CLASSLAB_CORPUS_DB=big.db cargo test --test
/// tui_corpus -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement on a store named by CLASSLAB_CORPUS_DB"]
fn measure_on_a_big_store() {
    let Ok(db) = std::env::var("CLASSLAB_CORPUS_DB") else {
        return;
    };
    let db = PathBuf::from(db);
    let ms = |d: Duration| format!("{:.1} ms", d.as_secs_f64() * 1000.0);
    let started = Instant::now();
    let mut b = Browser::open_unsettled(&db, (160, 48));
    b.render();
    println!("first frame (empty list): {}", ms(started.elapsed()));
    println!("first rows: {}", ms(b.until_rows(started)));
    b.settle();
    println!(
        "counted {} classes and their histogram: {}",
        b.st.total.unwrap_or(0),
        ms(started.elapsed())
    );
    let mut worst = Duration::ZERO;
    let mut sum = Duration::ZERO;
    let keys = [Action::Down, Action::PageDown, Action::Down, Action::Up];
    for i in 0..400 {
        let t = Instant::now();
        b.act(keys[i % keys.len()].clone());
        b.st.poll(&mut b.sh);
        b.render();
        let d = t.elapsed();
        worst = worst.max(d);
        sum += d;
    }
    println!(
        "key → frame (160×48, {} build): mean {}, worst {}",
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
        ms(sum / 400),
        ms(worst)
    );
    b.settle();
    for (what, actions) in [
        (
            "filter CountDeclMethod>=5 and SumCyclomatic<40",
            vec![
                Action::CycleStatusFilter,
                Action::InsertText("CountDeclMethod>=5 and SumCyclomatic<40".into()),
            ],
        ),
        ("sorted by SumCyclomatic ↓ under it", {
            let mut v = vec![Action::Submit];
            v.extend(std::iter::repeat_n(Action::SortNext, 3));
            v
        }),
        ("the sort reversed", vec![Action::SortReverse]),
        (
            "fuzzy search \"cache\" under it",
            vec![Action::StartFilter, Action::InsertText("cache".into())],
        ),
        (
            "fuzzy search \"cache\" over everything",
            vec![
                Action::Submit,
                Action::CycleStatusFilter,
                Action::ClearInput,
                Action::Submit,
            ],
        ),
    ] {
        let t = Instant::now();
        for a in actions {
            b.act(a);
        }
        let first = b.until_rows(t);
        b.settle();
        println!(
            "{what}: first rows {}, all {} ({} classes)",
            ms(first),
            ms(t.elapsed()),
            b.st.total.unwrap_or(0)
        );
    }
}

/// Opened on a store, the browser is the app's first screen: other screens open over it,
/// and going back from it quits (as from the task list).
#[test]
fn the_app_opened_on_a_store_starts_in_the_browser_and_back_quits() {
    use classlab::tui::app::{App, Effect, ScreenId};
    let dir = tempfile::tempdir().unwrap();
    let db = store(dir.path()).unwrap();
    let mut app = App::new(
        Data::new(dataset::sample(), None, GroundTruth::Extracted),
        UiSetup {
            size: (80, 24),
            ..UiSetup::default()
        },
    );
    app.screens.corpus = classlab::tui::screens::corpus::Slot(Some(State::open(&db).unwrap()));
    app.show_root(ScreenId::Corpus);
    assert_eq!(app.screen(), ScreenId::Corpus);
    app.update(Action::ShowSessions);
    assert_eq!(app.screen(), ScreenId::Sessions);
    app.update(Action::Back);
    assert_eq!(app.screen(), ScreenId::Corpus);
    assert_eq!(app.update(Action::Back), vec![Effect::Quit]);
}

/// Issue 21 item 19: at 80×24 the funnel shows every stage (two columns, never cut after
/// `documented`); a search ranks a match in the class's name above one through its path; the
/// distribution of a long-tailed metric is binned by powers of two.
#[test]
fn small_things_at_80x24() {
    let dir = tempfile::tempdir().unwrap();
    let Some(db) = store(dir.path()) else { return };
    let mut b = Browser::open(&db, (80, 24));
    let h = b.st.histogram.clone().expect("histogram");
    assert_eq!(h.column, "CountLineCode");
    assert!(h.log, "{h:?}");
    b.code(KeyCode::Tab);
    assert_eq!(b.st.panel, Some(Panel::Funnel));
    let screen = b.render();
    for stage in ["documented", "unique", "self-contained"] {
        assert!(screen.contains(stage), "{stage}:\n{screen}");
    }

    let r = dir.path().join("ranked");
    write(
        &r.join("nltk/corpus/reader/childes.py"),
        b"class CHILDESCorpusReader:\n    \"\"\"Reads.\"\"\"\n\n    def words(self):\n        \"\"\"Words.\"\"\"\n        return []\n",
    );
    write(
        &r.join("wrapt/caching.py"),
        b"class _LRUCacheFunctionWrapper:\n    \"\"\"Wraps.\"\"\"\n\n    def __call__(self):\n        \"\"\"Call.\"\"\"\n        return 1\n",
    );
    let ranked = dir.path().join("ranked.db");
    build(&BuildOptions::new(vec![r], ranked.clone()), &Quiet).unwrap();
    let mut b = Browser::open(&ranked, (80, 24));
    b.key('/');
    b.typ("lrucache");
    let names: Vec<&str> = b.st.rows.iter().map(|r| r.qualname.as_str()).collect();
    assert_eq!(
        names.first(),
        Some(&"_LRUCacheFunctionWrapper"),
        "{names:?}"
    );
}
