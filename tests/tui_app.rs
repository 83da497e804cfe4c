//! `App::update` driven by actions (and by key events through the keymap): state changes,
//! effects, and robustness of rendering on awkward datasets and sizes.

use classlab::dataset::{self, predictions};
use classlab::depcheck::GroundTruth;
use classlab::tui::action::{Action, SortColumn};
use classlab::tui::app::{App, Effect, Level, ScreenId, Tab, UiSetup};
use classlab::tui::data::Data;
use classlab::tui::keymap::Keymap;
use classlab::tui::shared::CodePart;
use classlab::tui::{action_for, views};
use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent, MouseEventKind,
};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn sample_app() -> App {
    App::new(
        Data::new(dataset::sample(), None, GroundTruth::Extracted),
        UiSetup::default(),
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

fn key(code: KeyCode, mods: KeyModifiers) -> Event {
    Event::Key(KeyEvent::new_with_kind(code, mods, KeyEventKind::Press))
}

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    match action_for(app, &key(code, KeyModifiers::NONE)) {
        Some(a) => app.update(a),
        None => Vec::new(),
    }
}

#[test]
fn quit_from_list_and_ctrl_c_everywhere() {
    let mut app = sample_app();
    assert_eq!(press(&mut app, KeyCode::Char('q')), [Effect::Quit]);
    let mut app = sample_app();
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.screen(), ScreenId::Task);
    assert!(
        press(&mut app, KeyCode::Char('q')).is_empty(),
        "q in a task goes back"
    );
    assert_eq!(app.screen(), ScreenId::List);
    press(&mut app, KeyCode::Char('/'));
    let ctrl_c = action_for(&app, &key(KeyCode::Char('c'), KeyModifiers::CONTROL)).unwrap();
    assert_eq!(app.update(ctrl_c), [Effect::Quit]);
}

#[test]
fn key_releases_are_ignored() {
    let app = sample_app();
    let release = Event::Key(KeyEvent::new_with_kind(
        KeyCode::Char('q'),
        KeyModifiers::NONE,
        KeyEventKind::Release,
    ));
    assert_eq!(action_for(&app, &release), None);
}

#[test]
fn open_tabs_and_back() {
    let mut app = sample_app();
    run(&mut app, [Action::Down, Action::Open]);
    assert_eq!(
        (app.screen(), app.screens.task.idx, app.screens.task.tab),
        (ScreenId::Task, 1, Tab::Skeleton)
    );
    run(&mut app, [Action::NextTab, Action::NextTab]);
    assert_eq!(app.screens.task.tab, Tab::Tests);
    run(
        &mut app,
        [Action::PrevTab, Action::PrevTab, Action::PrevTab],
    );
    // Back past the first tab wraps to the last one (Rigor).
    assert_eq!(app.screens.task.tab, Tab::Rigor);
    run(&mut app, [Action::GoTab(4)]);
    assert_eq!(app.screens.task.tab, Tab::Methods);
    run(&mut app, [Action::NextTask]);
    assert_eq!(
        (app.screens.task.idx, app.screens.task.tab),
        (2, Tab::Methods)
    );
    run(&mut app, [Action::Back]);
    assert_eq!(
        (app.screen(), app.sh.list.selected_task()),
        (ScreenId::List, Some(2))
    );
}

#[test]
fn filter_typing_cancel_and_submit() {
    let mut app = sample_app();
    for c in "/rate".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    assert!(app.sh.list.filtering);
    assert_eq!(app.sh.list.filter, "rate");
    let selected = app.sh.list.selected_task().unwrap();
    assert_eq!(
        app.sh.data.dataset.tasks[selected].class_name, "RateLimiter",
        "best match selected"
    );
    press(&mut app, KeyCode::Backspace);
    assert_eq!(app.sh.list.filter, "rat");
    press(&mut app, KeyCode::Esc);
    assert!(!app.sh.list.filtering && app.sh.list.filter.is_empty());
    assert_eq!(app.sh.list.visible.len(), app.sh.data.len());
    for c in "/roman".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.screen(), ScreenId::Task);
    assert_eq!(
        app.sh.data.dataset.tasks[app.screens.task.idx].class_name,
        "RomanNumeralConverter"
    );
    // Back in the list the filter is still applied; Esc clears it.
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.sh.list.filter, "roman");
    press(&mut app, KeyCode::Esc);
    assert!(app.sh.list.filter.is_empty());
}

#[test]
fn filter_with_no_match_is_harmless() {
    let mut app = sample_app();
    run(
        &mut app,
        [
            Action::StartFilter,
            Action::Input('~'),
            Action::Input('~'),
            Action::Down,
            Action::Submit,
        ],
    );
    assert!(app.sh.list.visible.is_empty());
    assert_eq!(app.screen(), ScreenId::List);
    assert!(render(&app).contains("No task matches"));
}

#[test]
fn sorting_cycles_and_reverses() {
    let mut app = sample_app();
    assert_eq!(app.sh.list.sort, SortColumn::Id);
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(app.sh.list.sort, SortColumn::Class);
    let first = app.sh.list.visible[0];
    assert_eq!(app.sh.data.rows[first].class, "ContactStore");
    press(&mut app, KeyCode::Char('S'));
    assert!(app.sh.list.reverse);
    assert_eq!(
        app.sh.data.rows[app.sh.list.visible[0]].class,
        "WordFrequencyReport"
    );
    run(&mut app, [Action::SortBy(SortColumn::Deps)]);
    assert!(render(&app).contains("deps▼"));
}

#[test]
fn methods_enter_jumps_to_the_def_line() {
    let mut app = sample_app();
    run(
        &mut app,
        [
            Action::Open,
            Action::GoTab(4),
            Action::Down,
            Action::Down,
            Action::Open,
        ],
    );
    assert_eq!(app.screens.task.tab, Tab::Solution);
    let line = app.screens.task.mark.expect("marked line");
    let source = app.sh.code_source(app.screens.task.idx, CodePart::Solution);
    assert!(
        source
            .lines()
            .nth(line)
            .unwrap()
            .trim_start()
            .starts_with("def count_words")
    );
    assert_eq!(app.screens.task.code[1].top, line, "def line at the top");
    // Scrolling up works from there, and Bottom goes to the last full page.
    run(&mut app, [Action::Up]);
    assert_eq!(app.screens.task.code[1].top, line - 1);
}

#[test]
fn code_scrolling_is_clamped() {
    let mut app = sample_app();
    run(&mut app, [Action::Open, Action::GoTab(3)]);
    let lines = app
        .sh
        .code_source(app.screens.task.idx, CodePart::Tests)
        .lines()
        .count();
    run(&mut app, [Action::Bottom, Action::Down, Action::PageDown]);
    let top = app.screens.task.code[2].top;
    assert!(top > 0 && top + 10 <= lines, "top {top} of {lines}");
    run(&mut app, [Action::Top, Action::Up, Action::PageUp]);
    assert_eq!(app.screens.task.code[2].top, 0);
    run(&mut app, [Action::Right, Action::Right, Action::LineStart]);
    assert_eq!(app.screens.task.code[2].left, 0);
    run(&mut app, [Action::Scroll(3)]);
    assert_eq!(app.screens.task.code[2].top, 3);
}

#[test]
fn themes_cycle_and_set() {
    let mut app = sample_app();
    assert_eq!(app.sh.theme().name, "dark");
    run(&mut app, [Action::CycleTheme]);
    assert_eq!(app.sh.theme().name, "light");
    run(&mut app, [Action::SetTheme("high-contrast".into())]);
    assert_eq!(app.sh.theme().name, "high-contrast");
    run(&mut app, [Action::SetTheme("nope".into())]);
    assert_eq!(app.sh.status.as_ref().map(|s| s.level), Some(Level::Error));
    assert_eq!(app.sh.theme().name, "high-contrast");
    let mono = App::new(
        Data::new(dataset::sample(), None, GroundTruth::Extracted),
        UiSetup {
            no_color: true,
            ..UiSetup::default()
        },
    );
    assert!(!mono.sh.theme().has_color());
}

#[test]
fn unknown_startup_theme_and_config_messages_reach_the_status_line() {
    let app = App::new(
        Data::new(dataset::sample(), None, GroundTruth::Extracted),
        UiSetup {
            theme: Some("solarized".into()),
            messages: vec!["config.toml:3:1: invalid table header — using defaults".into()],
            ..UiSetup::default()
        },
    );
    let status = app.sh.status.as_ref().unwrap();
    assert!(
        status.text.contains("config.toml:3:1") && status.text.contains("solarized"),
        "{}",
        status.text
    );
    assert!(render(&app).contains("config.toml:3:1"));
}

#[test]
fn palette_runs_commands() {
    let mut app = sample_app();
    press(&mut app, KeyCode::Char(':'));
    assert!(app.layer() == Some(ScreenId::Palette));
    for c in "summ".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    press(&mut app, KeyCode::Enter);
    assert!(app.layer().is_none());
    assert_eq!(app.screen(), ScreenId::Summary);
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.screen(), ScreenId::List);
    run(
        &mut app,
        [
            Action::OpenPalette,
            Action::Input('q'),
            Action::Input('u'),
            Action::Input('i'),
        ],
    );
    assert_eq!(app.update(Action::Submit), [Effect::Quit]);
}

#[test]
fn help_toggles_and_lists_the_views_bindings() {
    let mut app = sample_app();
    press(&mut app, KeyCode::Char('?'));
    assert!(app.layer() == Some(ScreenId::Help));
    let text = views::help_lines(&app)
        .iter()
        .map(|l| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n");
    for want in [
        "Task list",
        "fuzzy filter",
        "sort by the next column",
        "Everywhere",
        "quit classlab",
    ] {
        assert!(text.contains(want), "{want} missing from\n{text}");
    }
    // Every List binding of the keymap is listed.
    for (keys, desc) in app.sh.keymap.describe(classlab::tui::keymap::Context::List) {
        assert!(
            text.contains(&keys.join(", ")) && text.contains(&desc),
            "{keys:?} {desc}"
        );
    }
    press(&mut app, KeyCode::Char('?'));
    assert!(app.layer().is_none());
    // On a code tab it lists the code bindings instead.
    run(&mut app, [Action::Open, Action::ToggleHelp]);
    let text: String = views::help_lines(&app)
        .iter()
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(
        text.contains("scroll right") && !text.contains("fuzzy filter"),
        "{text}"
    );
}

#[test]
fn user_key_overrides_drive_actions() {
    let mut overrides = std::collections::BTreeMap::new();
    overrides.insert("ctrl-n".to_string(), "down".to_string());
    let (keymap, errors) = Keymap::with_overrides(&overrides);
    assert!(errors.is_empty());
    let mut app = App::new(
        Data::new(dataset::sample(), None, GroundTruth::Extracted),
        UiSetup {
            keymap,
            ..UiSetup::default()
        },
    );
    let a = action_for(&app, &key(KeyCode::Char('n'), KeyModifiers::CONTROL)).unwrap();
    app.update(a);
    assert_eq!(app.sh.list.selected, 1);
}

#[test]
fn mouse_wheel_and_clicks() {
    let mut app = sample_app();
    let wheel = Event::Mouse(MouseEvent {
        kind: MouseEventKind::ScrollDown,
        column: 10,
        row: 5,
        modifiers: KeyModifiers::NONE,
    });
    let a = action_for(&app, &wheel).unwrap();
    app.update(a);
    assert_eq!(app.sh.list.selected, 3);
    // Row 0 title, 1 table border, 2 header, 3 first task: click the second task, then again.
    run(&mut app, [Action::Click { column: 5, row: 4 }]);
    assert_eq!(app.sh.list.selected, 1);
    run(&mut app, [Action::Click { column: 5, row: 4 }]);
    assert_eq!((app.screen(), app.screens.task.idx), (ScreenId::Task, 1));
    // Row 1 is the tab bar: click "Dependencies".
    run(&mut app, [Action::Click { column: 55, row: 1 }]);
    assert_eq!(app.screens.task.tab, Tab::Deps);
}

#[test]
fn summary_without_predictions_compares_annotation_with_code() {
    let mut app = sample_app();
    run(&mut app, [Action::ShowSummary]);
    let screen = render(&app);
    assert!(screen.contains("Annotation vs code"), "{screen}");
    let preds = predictions::parse(
        "p.json",
        r#"{"Sample_0": {"dependencies": {}, "order": []}}"#,
    )
    .unwrap();
    let mut app = App::new(
        Data::new(dataset::sample(), Some(preds), GroundTruth::Annotated),
        UiSetup::default(),
    );
    run(&mut app, [Action::ShowSummary]);
    let screen = render(&app);
    assert!(screen.contains("vs ground truth (annotated)"), "{screen}");
}

fn classeval_app() -> App {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/classeval/ClassEval_data.json"
    );
    let ds = dataset::load_path(std::path::Path::new(path)).expect("ClassEval");
    App::new(
        Data::new(ds, None, GroundTruth::Extracted),
        UiSetup::default(),
    )
}

/// B12: sorted by deps or tests, `/ClassEval_5` + Enter opens ClassEval_5, the exact id, the
/// row the filter highlights.
#[test]
fn filter_enter_opens_the_highlighted_match_in_any_sort_order() {
    for sort in [
        SortColumn::Deps,
        SortColumn::Tests,
        SortColumn::Methods,
        SortColumn::Id,
    ] {
        let mut app = classeval_app();
        app.update(Action::SortBy(sort));
        press(&mut app, KeyCode::Char('/'));
        for c in "ClassEval_5".chars() {
            app.update(Action::Input(c));
        }
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.screen(), ScreenId::Task);
        assert_eq!(
            app.sh.data.dataset.tasks[app.screens.task.idx].id, "ClassEval_5",
            "{sort:?}"
        );
    }
}

/// B12: `Enter` typed before the background filter answered opens the answer's best match,
/// not the row the previous answer had selected.
#[test]
fn filter_enter_before_the_background_answer_opens_its_match() {
    use classlab::tui::action::Delivered;
    use classlab::tui::list;
    let mut app = classeval_app();
    app.sh.list.inline_rows = 0; // every filter goes to the worker
    app.update(Action::SortBy(SortColumn::Deps));
    press(&mut app, KeyCode::Char('/'));
    for c in "ClassEval_5".chars() {
        app.update(Action::Input(c));
    }
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.screen(), ScreenId::List, "waits for the answer");
    let (req, _) = app.sh.list.pending.expect("a pending request");
    let found = list::find(&app.sh.data.rows, &app.sh.list.query());
    app.update(Action::TasksFiltered {
        req,
        found: Delivered::new(found),
    });
    assert_eq!(app.screen(), ScreenId::Task);
    assert_eq!(
        app.sh.data.dataset.tasks[app.screens.task.idx].id,
        "ClassEval_5"
    );
}

/// B12: the help popup says where its page is; scrolled to the end it no longer says "more".
#[test]
fn help_says_where_it_is_not_always_more() {
    let mut app = sample_app();
    app.update(Action::Resize(80, 24));
    press(&mut app, KeyCode::Char('?'));
    let top = render(&app);
    assert!(top.contains(" 1–20 of ") && top.contains("↓"), "{top}");
    run(&mut app, [Action::Bottom]);
    let end = render(&app);
    assert!(!end.contains("more ┘") && !end.contains("↓ ┘"), "{end}");
    assert!(end.contains("↑ ┘"), "{end}");
}

/// B12: the task list's hint line names the review queue, a new run and a new evaluation.
#[test]
fn the_list_hints_name_review_run_and_eval() {
    for size in [(80, 24), (160, 48)] {
        let mut app = sample_app();
        app.update(Action::Resize(size.0, size.1));
        let text = render(&app);
        let hints = text.lines().last().unwrap_or_default();
        for want in ["V review", "R run", "N eval", "? help"] {
            assert!(hints.contains(want), "{want} missing from {hints}");
        }
    }
}
