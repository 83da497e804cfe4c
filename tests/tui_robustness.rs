//! The TUI never panics and stays readable on awkward input: empty datasets, load problems,
//! tasks without methods, code that does not parse, huge lines, cycles, tiny terminals.

use classlab::dataset::{self, Dataset, predictions};
use classlab::depcheck::GroundTruth;
use classlab::tui::action::Action;
use classlab::tui::app::{App, Effect, Overlay, Tab, UiSetup};
use classlab::tui::data::Data;
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
    let (w, h) = app.size;
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
    let page = app.list_page();
    assert!(app.list.selected < app.list.offset + page);
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
    assert!(matches!(app.overlay, Some(Overlay::Problems { .. })));
    assert!(render(&app).contains("bad.json"));
    press(&mut app, KeyCode::Esc);
    assert!(app.overlay.is_none());
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
                app.task.tab = Tab::ALL[usize::from(tab) - 1];
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
