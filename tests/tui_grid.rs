//! The grid screen and the paired view (issue 15, item 5) on the four shared ClassEval outputs:
//! each output's code (extracted as the evaluation extracts it) judged by the official
//! evaluator's test-by-test results (`official_evaluator_results`, no sandbox), folded into
//! evaluation sessions as a replay would. Rendered with `TestBackend` at 80×24 and 160×48;
//! sort by disagreement, filter, `Enter` twice on a row, scrolling both ways, and awkward
//! inputs (no sessions, one session, sessions without tasks, tiny terminals).

use std::path::PathBuf;
use std::sync::OnceLock;

use classlab::analysis::extract::extract_class_for_model;
use classlab::dataset::outputs::{self, Strategy};
use classlab::dataset::{self, Dataset};
use classlab::depcheck::GroundTruth;
use classlab::llm::{Message, Params, Purpose};
use classlab::metrics::fingerprint::{Bucket, EnvContext, Thresholds};
use classlab::model::{Outcome, SuiteFailure, SuiteResult, TestResult};
use classlab::pipeline::eval::summarize_in;
use classlab::session::{Event, EventBody, MethodStatus, Scope};
use classlab::tui::action::Action;
use classlab::tui::data::Data;
use classlab::tui::evals::{CompareState, EvalSession, SessionInfo};
use classlab::tui::keymap::{Binding, Context, KeyChord};
use classlab::tui::screen::{Nav, Screen, ScreenId};
use classlab::tui::screens::{grid, paired};
use classlab::tui::shared::{Pending, Shared, UiSetup};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use serde_json::Value;

/// (output file, official results, model, strategy).
const OUTPUTS: [(&str, &str, &str, &str); 4] = [
    (
        "GPT-4-Turbo_class_H_greedy",
        "gpt4t_classH",
        "GPT-4-Turbo",
        "holistic",
    ),
    (
        "GPT-3.5-Turbo_method_I_greedy",
        "gpt35_methodI",
        "GPT-3.5-Turbo",
        "incremental",
    ),
    (
        "GPT-3.5-Turbo_method_C_greedy",
        "gpt35_methodC",
        "GPT-3.5-Turbo",
        "compositional",
    ),
    (
        "CodeLlama-13b-Instruct-hf_class_H_greedy",
        "codellama13b_classH",
        "CodeLlama-13b-Instruct-hf",
        "holistic",
    ),
];

fn shared_data(rel: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(rel);
    assert!(
        path.exists(),
        "{} is missing: tests need ../shared/data",
        path.display()
    );
    path
}

fn classeval() -> &'static Dataset {
    static D: OnceLock<Dataset> = OnceLock::new();
    D.get_or_init(|| {
        dataset::load(Some(&shared_data("classeval/ClassEval_data.json"))).expect("ClassEval")
    })
}

fn outcome(status: &str, late: bool) -> Outcome {
    match status {
        _ if late => Outcome::NotRun,
        "pass" => Outcome::Pass,
        "fail" => Outcome::Fail,
        "error" => Outcome::Error,
        "skip" => Outcome::Skip,
        "expected_failure" => Outcome::Xfail,
        "unexpected_success" => Outcome::Xpass,
        _ => Outcome::NotRun,
    }
}

/// The official evaluator's results of one task as a suite: `TestClass.test_method` ids;
/// a suite whose every class failed to load is an import failure.
fn suite_of(task: &Value) -> SuiteResult {
    let classes = task["samples"]["0"]["test_classes"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let mut tests = Vec::new();
    for (class, c) in &classes {
        for t in c["tests"].as_array().into_iter().flatten() {
            let text = |k: &str| t[k].as_str().map(str::to_string);
            tests.push(TestResult {
                exc_type: text("exc_type"),
                message: text("message"),
                ..TestResult::new(
                    format!("{class}.{}", t["method"].as_str().unwrap_or("?")),
                    outcome(t["status"].as_str().unwrap_or(""), t["late"] == true),
                )
            });
        }
    }
    let exceptions: Vec<&Value> = classes
        .values()
        .map(|c| &c["class_exception"])
        .filter(|e| !e.is_null())
        .collect();
    let failure =
        (!classes.is_empty() && exceptions.len() == classes.len()).then(|| SuiteFailure::Import {
            exc_type: exceptions[0]["type"].as_str().unwrap_or("").into(),
            message: exceptions[0]["message"].as_str().unwrap_or("").into(),
            line: None,
            traceback: None,
            origin: None,
        });
    SuiteResult::new(tests, failure)
}

fn push(events: &mut Vec<Event>, body: EventBody) {
    let seq = events.len() as u64;
    events.push(Event {
        seq,
        ts: 1_795_294_000.0 + seq as f64,
        body,
    });
}

fn session(id: &str, kind: &str, model: &str, strategy: &str, events: &[Event]) -> EvalSession {
    let mut s = EvalSession::default();
    s.info = SessionInfo {
        id: id.into(),
        kind: kind.into(),
        model: Some(model.into()),
        strategy: Some(strategy.into()),
        dataset: "ClassEval_data".into(),
        created: "2026-11-21T20:47:44Z".into(),
        ..SessionInfo::default()
    };
    for e in events {
        s.apply(e);
    }
    s
}

/// One shared output evaluated by the official results.
fn evaluated(file: &str, official: &str, model: &str, strategy: &str) -> EvalSession {
    let ds = classeval();
    let outs = outputs::load(
        &shared_data(&format!("classeval/model_output/{file}.json")),
        None,
    )
    .expect("outputs");
    let text = std::fs::read_to_string(shared_data(&format!(
        "classeval/official_evaluator_results/{official}.json"
    )))
    .unwrap();
    let results: Value = serde_json::from_str(&text).unwrap();
    let mut events = Vec::new();
    push(
        &mut events,
        EventBody::RunStarted {
            tool_version: "test".into(),
            tasks: ds.tasks.iter().map(|t| t.id.clone()).collect(),
            samples: 1,
            config: serde_json::json!({"model": model, "strategy": strategy}),
        },
    );
    let strat = outs.strategy.unwrap_or(Strategy::Holistic);
    for s in outs.samples.iter().filter(|s| s.sample == 0) {
        let Some(task) = ds.task(&s.task_id) else {
            continue;
        };
        let code = extract_class_for_model(&s.text, task, strat, model).code;
        let suite = suite_of(&results["tasks"][&s.task_id]);
        let summary = summarize_in(task, &suite, &Thresholds::default(), &EnvContext::default());
        let id = s.task_id.clone();
        push(
            &mut events,
            EventBody::TaskStarted {
                task_id: id.clone(),
                sample: 0,
            },
        );
        push(
            &mut events,
            EventBody::CodeExtracted {
                task_id: id.clone(),
                sample: 0,
                code,
                notes: Vec::new(),
                method: None,
                round: None,
            },
        );
        push(
            &mut events,
            EventBody::TestRun {
                task_id: id.clone(),
                sample: 0,
                scope: Scope::Private,
                method: None,
                round: None,
                result: suite,
            },
        );
        push(
            &mut events,
            EventBody::TaskFinished {
                task_id: id,
                sample: 0,
                summary,
            },
        );
    }
    push(&mut events, EventBody::RunFinished { cancelled: false });
    session(
        &format!("eval-{official}"),
        "eval",
        model,
        strategy,
        &events,
    )
}

/// The four shared sessions, evaluated once per test process.
fn four() -> &'static [EvalSession] {
    static S: OnceLock<Vec<EvalSession>> = OnceLock::new();
    S.get_or_init(|| {
        OUTPUTS
            .iter()
            .map(|(f, o, m, s)| evaluated(f, o, m, s))
            .collect()
    })
}

fn shared(size: (u16, u16), sessions: Option<Vec<EvalSession>>) -> Shared {
    let mut sh = Shared::new(
        Data::new(dataset::sample(), None, GroundTruth::Extracted),
        UiSetup {
            size,
            ..UiSetup::default()
        },
    );
    sh.ev.compare = sessions.map(CompareState::new);
    sh
}

/// The screen drawn into a `w`×`h` buffer, one line per row, trailing spaces removed.
/// The screen drawn as the app draws it: in the body between title bar and status line of a
/// `w`×`h` terminal (left blank here).
fn draw(screen: &dyn Screen, sh: &Shared, w: u16, h: u16) -> String {
    let mut buf = Buffer::empty(Rect::new(0, 0, w, h));
    screen.render(sh, sh.chrome().body.intersection(buf.area), &mut buf);
    text(&buf)
}

fn text(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in 0..area.height {
        let mut line = String::new();
        for x in 0..area.width {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn opened_grid(sh: &mut Shared) -> grid::State {
    let mut g = grid::State::default();
    g.opened(sh);
    g
}

fn ids(g: &grid::State) -> Vec<&str> {
    g.shown
        .iter()
        .map(|&i| g.grid.rows[i].task_id.as_str())
        .collect()
}

#[test]
fn the_grid_of_the_four_shared_sessions() {
    for (w, h) in [(80, 24), (160, 48)] {
        let mut sh = shared((w, h), Some(four().to_vec()));
        let g = opened_grid(&mut sh);
        assert_eq!(g.grid.columns.len(), 4);
        assert_eq!(g.grid.rows.len(), 100);
        let screen = draw(&g, &sh, w, h);
        assert!(
            screen.contains("Grid · 100 tasks × 4 sessions · by disagreement"),
            "{screen}"
        );
        insta::assert_snapshot!(format!("grid_{w}x{h}"), screen);
    }
}

#[test]
fn cells_are_coloured_by_bucket() {
    let mut sh = shared((80, 24), Some(four().to_vec()));
    let g = opened_grid(&mut sh);
    let area = sh.chrome().body;
    let mut buf = Buffer::empty(Rect::new(0, 0, 80, 24));
    g.render(&sh, area, &mut buf);
    // The first task's second column (not under the cursor).
    let a = grid::view::areas(area, &g);
    let x = a.rows.x + u16::try_from(g.id_width + 1 + grid::view::LEAD_WIDTH + a.cell + 1).unwrap();
    let bucket = g.grid.rows[g.shown[0]].cells[1].expect("finished");
    assert_eq!(
        buf[(x, a.rows.y)].fg,
        sh.theme().bucket(bucket).fg.unwrap_or_default()
    );
}

#[test]
fn sorted_by_disagreement_then_by_task_id() {
    let mut sh = shared((80, 24), Some(four().to_vec()));
    let mut g = opened_grid(&mut sh);
    let keys: Vec<(usize, usize)> = g
        .shown
        .iter()
        .map(|&i| (g.grid.rows[i].disagreement, g.grid.rows[i].split))
        .collect();
    assert!(keys.windows(2).all(|w| w[0] >= w[1]), "{keys:?}");
    assert!(
        keys[0].0 >= 2,
        "the four sessions disagree somewhere: {keys:?}"
    );
    // Agreeing rows last.
    assert_eq!(keys.last().map(|k| k.0), Some(0));
    g.update(&mut sh, Action::SortNext);
    assert_eq!(g.sort, grid::Sort::TaskId);
    assert_eq!(
        &ids(&g)[..4],
        ["ClassEval_0", "ClassEval_1", "ClassEval_2", "ClassEval_3"]
    );
    assert_eq!(ids(&g)[99], "ClassEval_99");
    // The disagreeing-only toggle.
    g.update(&mut sh, Action::ToggleFailingOnly);
    let n = g.grid.rows.iter().filter(|r| r.disagreement > 0).count();
    assert_eq!(g.shown.len(), n);
    assert!(n > 0 && n < 100, "{n}");
    println!("{n} of 100 tasks get different buckets from the four sessions");
}

#[test]
fn filter_by_task_id() {
    let mut sh = shared((80, 24), Some(four().to_vec()));
    let mut g = opened_grid(&mut sh);
    g.update(&mut sh, Action::StartFilter);
    assert!(g.typing);
    assert_eq!(g.contexts(&sh), [Context::Filter, Context::Global]);
    for c in "_99".chars() {
        g.update(&mut sh, Action::Input(c));
    }
    assert_eq!(ids(&g), ["ClassEval_99"]);
    g.update(&mut sh, Action::Backspace);
    assert!(ids(&g).contains(&"ClassEval_9") && ids(&g).contains(&"ClassEval_99"));
    g.update(&mut sh, Action::ClearInput);
    g.update(&mut sh, Action::InsertText("1$\nrest".into()));
    assert_eq!(g.filter, "1$");
    let mut shown = ids(&g);
    shown.sort();
    assert_eq!(
        shown,
        [
            "ClassEval_1",
            "ClassEval_11",
            "ClassEval_21",
            "ClassEval_31",
            "ClassEval_41",
            "ClassEval_51",
            "ClassEval_61",
            "ClassEval_71",
            "ClassEval_81",
            "ClassEval_91"
        ]
    );
    g.update(&mut sh, Action::Submit);
    assert!(!g.typing);
    let screen = draw(&g, &sh, 80, 24);
    assert!(screen.contains("/1$ · 10 shown"), "{screen}");
    insta::assert_snapshot!("grid_filtered_80x24", screen);
    // Nothing matches.
    g.update(&mut sh, Action::StartFilter);
    g.update(&mut sh, Action::Input('#'));
    assert!(g.shown.is_empty());
    assert!(draw(&g, &sh, 80, 24).contains("No task matches the filter."));
    g.update(&mut sh, Action::Open);
    // Esc while typing clears it; Esc after it was kept clears it too.
    g.update(&mut sh, Action::Back);
    assert!(!g.typing && g.filter.is_empty());
    assert_eq!(g.shown.len(), 100);
}

#[test]
fn enter_twice_on_a_row_chooses_the_pair() {
    let mut sh = shared((80, 24), Some(four().to_vec()));
    let mut g = opened_grid(&mut sh);
    let task = ids(&g)[0].to_string();
    g.update(&mut sh, Action::Open);
    assert_eq!(g.mark, Some((g.shown[0], 0)));
    assert!(draw(&g, &sh, 80, 24).contains(&format!("marked A {task}")));
    // The same cell again: unmarked.
    g.update(&mut sh, Action::Open);
    assert_eq!(g.mark, None);
    g.update(&mut sh, Action::Open);
    // Another row: the mark moves there.
    g.update(&mut sh, Action::Down);
    g.update(&mut sh, Action::Open);
    assert_eq!(g.mark, Some((g.shown[1], 0)));
    assert!(g.open.is_none());
    g.update(&mut sh, Action::Up);
    g.update(&mut sh, Action::Open);
    g.update(&mut sh, Action::Right);
    g.update(&mut sh, Action::Right);
    insta::assert_snapshot!("grid_marked_80x24", draw(&g, &sh, 80, 24));
    g.update(&mut sh, Action::Open);
    assert_eq!(
        g.open,
        Some(grid::Pair {
            task_id: task.clone(),
            a: 0,
            b: 2
        })
    );
    assert_eq!(g.mark, None);
    let status = sh.status.as_ref().unwrap().text.clone();
    assert!(
        status.contains(&task) && status.contains("A beside C"),
        "{status}"
    );
    // The pair is handed over through `Shared` and the paired view asked for; it takes the
    // pair when it opens.
    assert_eq!(sh.pair, g.open);
    let pending = sh.take_pending();
    assert!(
        matches!(
            pending.as_slice(),
            [Pending::Nav(Nav::To(ScreenId::Paired))]
        ),
        "{pending:?}"
    );
    let mut p = paired::State::default();
    p.opened(&mut sh);
    assert_eq!(sh.pair, None);
    assert_eq!((p.task_id.as_str(), p.a, p.b), (task.as_str(), 0, 2));
    assert_eq!(p.sides[1].letter, "C");
    // Esc drops a mark before going back.
    g.update(&mut sh, Action::Open);
    g.update(&mut sh, Action::Back);
    assert_eq!(g.mark, None);
    assert!(sh.take_pending().is_empty());
    g.update(&mut sh, Action::Back);
    assert_eq!(sh.take_pending().len(), 1, "back to the comparison");
}

#[test]
fn scrolls_both_ways() {
    // Ten columns (the four sessions and six copies) do not fit 80 columns.
    let mut many: Vec<EvalSession> = Vec::new();
    for i in 0..10 {
        let mut s = four()[i % 4].clone();
        s.info.id = format!("copy-{i}");
        s.info.strategy = Some(format!("run{i}"));
        many.push(s);
    }
    let mut sh = shared((80, 24), Some(many));
    let mut g = opened_grid(&mut sh);
    let (rows, cols) = grid::update::pages(&g, &sh);
    assert!(cols < 10, "{cols}");
    for _ in 0..9 {
        g.update(&mut sh, Action::Right);
    }
    assert_eq!(g.col, 9);
    assert_eq!(g.left, 10 - cols);
    g.update(&mut sh, Action::Bottom);
    assert_eq!(g.row, 99);
    assert_eq!(g.top, 100 - rows);
    let screen = draw(&g, &sh, 80, 24);
    assert!(screen.contains('‹'), "{screen}");
    insta::assert_snapshot!("grid_scrolled_80x24", screen);
    g.update(&mut sh, Action::LineStart);
    g.update(&mut sh, Action::Top);
    assert_eq!((g.col, g.left, g.row, g.top), (0, 0, 0, 0));
    assert!(draw(&g, &sh, 80, 24).contains('›'));
    g.update(&mut sh, Action::PageDown);
    assert_eq!(g.row, rows);
    g.update(&mut sh, Action::Scroll(3));
    assert_eq!(g.row, rows + 3);
    // A click selects the cell under it: the third row shown, the second column shown.
    let a = grid::view::areas(sh.chrome().body, &g);
    let x = a.rows.x + u16::try_from(g.id_width + 1 + 3 + a.cell + 1 + 2).unwrap();
    g.update(
        &mut sh,
        Action::Click {
            column: x,
            row: a.rows.y + 2,
        },
    );
    assert_eq!((g.row, g.col), (g.top + 2, g.left + 1));
    // Off the rows: not the grid's.
    let outcome = g.update(&mut sh, Action::Click { column: 0, row: 0 });
    assert!(matches!(outcome, classlab::tui::screen::Outcome::Ignored));
}

/// The pair of the most disagreed-on task: A (GPT-4-Turbo) beside B (GPT-3.5 incremental).
fn pair_of_first_row() -> (String, paired::State) {
    let mut sh = shared((80, 24), Some(four().to_vec()));
    let mut g = opened_grid(&mut sh);
    // The first row where A and B differ and both have code.
    let k = g
        .shown
        .iter()
        .position(|&i| {
            let r = &g.grid.rows[i];
            r.cells[0] != r.cells[1] && r.cells[0].is_some() && r.cells[1].is_some()
        })
        .unwrap();
    for _ in 0..k {
        g.update(&mut sh, Action::Down);
    }
    g.update(&mut sh, Action::Open);
    g.update(&mut sh, Action::Right);
    g.update(&mut sh, Action::Open);
    let pair = g.open.clone().expect("a pair");
    let st = paired::PairedState::new(four(), pair.task_id.clone(), pair.a, pair.b);
    (pair.task_id, st)
}

#[test]
fn the_paired_view_diff_and_failing_tests() {
    let (task, base) = pair_of_first_row();
    assert!(!base.changes.is_empty(), "{task}: the two classes differ");
    assert!(!base.tests.is_empty(), "{task}: some test fails on a side");
    assert_eq!(base.panes(), [paired::Pane::Diff, paired::Pane::Tests]);
    for (w, h) in [(80, 24), (160, 48)] {
        let mut sh = shared((w, h), Some(four().to_vec()));
        let mut st = base.clone();
        st.opened(&mut sh);
        let screen = draw(&st, &sh, w, h);
        assert!(screen.contains("A GPT-4-Turbo holistic"), "{screen}");
        insta::assert_snapshot!(format!("paired_diff_{w}x{h}"), screen);
        st.update(&mut sh, Action::NextTab);
        assert_eq!(st.pane, paired::Pane::Tests);
        insta::assert_snapshot!(format!("paired_tests_{w}x{h}"), draw(&st, &sh, w, h));
    }
    // Layout toggle, change jumps, scroll clamped.
    let mut sh = shared((80, 24), Some(four().to_vec()));
    let mut st = base.clone();
    assert_eq!(st.mode(80), paired::DiffMode::Unified);
    assert_eq!(st.mode(160), paired::DiffMode::SideBySide);
    st.update(&mut sh, Action::TogglePanel);
    assert_eq!(st.mode(80), paired::DiffMode::SideBySide);
    st.update(&mut sh, Action::TogglePanel);
    st.update(&mut sh, Action::Bottom);
    let (len, page, _) = paired::update::extent(&st, &sh);
    assert_eq!(st.scroll[0], len.saturating_sub(page));
    st.update(&mut sh, Action::Top);
    st.update(&mut sh, Action::NextTask);
    let first = st.changes[0].1;
    assert!(st.scroll[0] == first.saturating_sub(page / 3) || first < page / 3 + 1);
    st.update(&mut sh, Action::Right);
    assert_eq!(st.left, 8);
    st.update(&mut sh, Action::LineStart);
    assert_eq!(st.left, 0);
    st.update(&mut sh, Action::Back);
    assert_eq!(sh.take_pending().len(), 1);
}

/// A generation run of ClassEval_0's methods: `filter` repaired `repairs` times.
fn generation_run(id: &str, model: &str, repairs: u32, sessions_code: &EvalSession) -> EvalSession {
    let task = classeval().task("ClassEval_0").unwrap();
    let class = sessions_code.state.run("ClassEval_0", 0).unwrap();
    let mut events = Vec::new();
    push(
        &mut events,
        EventBody::RunStarted {
            tool_version: "test".into(),
            tasks: vec!["ClassEval_0".into()],
            samples: 1,
            config: serde_json::json!({"model": model, "strategy": "tdd"}),
        },
    );
    let t = || "ClassEval_0".to_string();
    push(
        &mut events,
        EventBody::TaskStarted {
            task_id: t(),
            sample: 0,
        },
    );
    let mut call = 0;
    for (index, m) in task.methods.iter().enumerate() {
        let name = m.name.clone();
        push(
            &mut events,
            EventBody::MethodStarted {
                task_id: t(),
                sample: 0,
                method: name.clone(),
                index,
            },
        );
        let rounds = if index == 1 { repairs } else { 0 };
        for round in 0..=rounds {
            let purpose = if round == 0 {
                Purpose::Method {
                    method: name.clone(),
                }
            } else {
                Purpose::Repair {
                    method: name.clone(),
                    round,
                }
            };
            push(
                &mut events,
                EventBody::LlmRequest {
                    task_id: t(),
                    sample: 0,
                    call,
                    purpose,
                    provider: "replay".into(),
                    model: model.into(),
                    messages: vec![Message::user(format!("Implement `{name}`."))],
                    params: Params::default(),
                },
            );
            call += 1;
            push(
                &mut events,
                EventBody::CodeExtracted {
                    task_id: t(),
                    sample: 0,
                    code: format!("def {name}(self):\n    return {round}\n"),
                    notes: Vec::new(),
                    method: Some(name.clone()),
                    round: Some(round),
                },
            );
            let passed = if round == rounds {
                3
            } else {
                round as usize + 1
            };
            let tests = (0..3)
                .map(|k| {
                    let outcome = if k < passed {
                        Outcome::Pass
                    } else {
                        Outcome::Fail
                    };
                    TestResult::new(format!("Public.test_{name}_{k}"), outcome)
                })
                .collect();
            push(
                &mut events,
                EventBody::TestRun {
                    task_id: t(),
                    sample: 0,
                    scope: Scope::Public,
                    method: Some(name.clone()),
                    round: Some(round),
                    result: SuiteResult::new(tests, None),
                },
            );
        }
        push(
            &mut events,
            EventBody::MethodFinished {
                task_id: t(),
                sample: 0,
                method: name,
                status: MethodStatus::Passed,
                repairs: rounds,
            },
        );
    }
    push(
        &mut events,
        EventBody::CodeExtracted {
            task_id: t(),
            sample: 0,
            code: class.code.clone().unwrap_or_default(),
            notes: Vec::new(),
            method: None,
            round: None,
        },
    );
    let suite = class.private.clone().unwrap();
    let summary = class.summary.clone().unwrap();
    push(
        &mut events,
        EventBody::TestRun {
            task_id: t(),
            sample: 0,
            scope: Scope::Private,
            method: None,
            round: None,
            result: suite,
        },
    );
    push(
        &mut events,
        EventBody::TaskFinished {
            task_id: t(),
            sample: 0,
            summary,
        },
    );
    push(&mut events, EventBody::RunFinished { cancelled: false });
    session(id, "run", model, "tdd", &events)
}

#[test]
fn the_paired_view_of_generation_runs_shows_the_rounds_side_by_side() {
    let runs = vec![
        generation_run("run-a", "gpt-4o-mini", 2, &four()[0]),
        generation_run("run-b", "llama-3", 0, &four()[3]),
    ];
    for (w, h) in [(80, 24), (160, 48)] {
        let mut sh = shared((w, h), Some(runs.clone()));
        let mut g = opened_grid(&mut sh);
        assert_eq!(ids(&g), ["ClassEval_0"]);
        g.update(&mut sh, Action::Open);
        g.update(&mut sh, Action::Right);
        g.update(&mut sh, Action::Open);
        let pair = g.open.clone().unwrap();
        let mut st = paired::State::new(&runs, pair.task_id, pair.a, pair.b);
        st.opened(&mut sh);
        assert_eq!(st.panes().len(), 3);
        let task = classeval().task("ClassEval_0").unwrap();
        assert_eq!(st.rounds.len(), task.methods.len());
        assert_eq!(st.rounds[1].sides[0].rounds.len(), 3);
        assert_eq!(st.rounds[1].sides[0].state, "repaired 2");
        assert_eq!(st.rounds[1].sides[1].state, "passed");
        st.update(&mut sh, Action::GoTab(3));
        assert_eq!(st.pane, paired::Pane::Rounds);
        // The second method selected: its code on each side below the table (when tall).
        st.update(&mut sh, Action::Down);
        assert_eq!(st.method, 1);
        let screen = draw(&st, &sh, w, h);
        assert!(screen.contains("r0 1/3 → r1 2/3 → r2 3/3"), "{screen}");
        if h >= 48 {
            assert!(
                screen.contains("def is_start_with(self, request_uri):"),
                "{screen}"
            );
        }
        insta::assert_snapshot!(format!("paired_rounds_{w}x{h}"), screen);
        st.update(&mut sh, Action::Bottom);
        assert_eq!(st.method, st.rounds.len() - 1);
        draw(&st, &sh, w, h);
    }
}

#[test]
fn no_panic_on_no_sessions_one_session_empty_rows_and_tiny_terminals() {
    let actions = [
        Action::Down,
        Action::Up,
        Action::Right,
        Action::Left,
        Action::PageDown,
        Action::Bottom,
        Action::Open,
        Action::Open,
        Action::SortNext,
        Action::ToggleFailingOnly,
        Action::StartFilter,
        Action::Input('x'),
        Action::Backspace,
        Action::Submit,
        Action::NextTab,
        Action::NextTask,
        Action::PrevTask,
        Action::TogglePanel,
        Action::GoTab(3),
        Action::Scroll(-5),
    ];
    let mut empty_run = Vec::new();
    push(
        &mut empty_run,
        EventBody::RunStarted {
            tool_version: "test".into(),
            tasks: Vec::new(),
            samples: 1,
            config: Value::Null,
        },
    );
    let cases: Vec<(&str, Option<Vec<EvalSession>>)> = vec![
        ("no comparison", None),
        ("zero sessions", Some(Vec::new())),
        ("one session", Some(vec![four()[0].clone()])),
        (
            "no tasks",
            Some(vec![
                session("e1", "eval", "M", "holistic", &empty_run),
                session("e2", "eval", "N", "holistic", &empty_run),
            ]),
        ),
    ];
    for (what, sessions) in cases {
        for (w, h) in [(80, 24), (160, 48), (20, 5), (1, 1), (0, 0)] {
            let mut sh = shared((w, h), sessions.clone());
            let mut g = opened_grid(&mut sh);
            let list = sessions.clone().unwrap_or_default();
            let mut p = paired::State::new(&list, "ClassEval_0", 0, 7);
            for a in &actions {
                g.update(&mut sh, a.clone());
                p.update(&mut sh, a.clone());
                draw(&g, &sh, w, h);
                draw(&p, &sh, w, h);
            }
            assert!(g.open.is_none(), "{what}");
            if (w, h) == (80, 24) && what != "one session" {
                insta::assert_snapshot!(
                    format!("grid_{}", what.replace(' ', "_")),
                    draw(&g, &sh, w, h)
                );
            }
        }
    }
    // One session: Enter says the paired view needs two.
    let mut sh = shared((80, 24), Some(vec![four()[0].clone()]));
    let mut g = opened_grid(&mut sh);
    g.update(&mut sh, Action::Open);
    assert!(sh.status.as_ref().unwrap().text.contains("needs two"));
    assert_eq!(g.mark, None);
}

#[test]
fn sessions_loaded_later_rebuild_the_grid() {
    let mut sh = shared((80, 24), None);
    let mut g = opened_grid(&mut sh);
    assert!(g.grid.columns.is_empty());
    sh.ev.compare = Some(CompareState::new(four()[..2].to_vec()));
    g.update(&mut sh, Action::Down);
    assert_eq!(g.grid.columns.len(), 2);
    assert_eq!(g.row, 1);
    // A session gaining events is rebuilt, the selected task kept.
    let task = g.selected_task().unwrap().to_string();
    let c = sh.ev.compare.as_mut().unwrap();
    c.sessions[1].apply(&Event {
        seq: 0,
        ts: 0.0,
        body: EventBody::TaskStarted {
            task_id: "ClassEval_X".into(),
            sample: 0,
        },
    });
    g.clamp(&sh);
    assert_eq!(g.grid.rows.len(), 101);
    assert_eq!(g.selected_task(), Some(task.as_str()));
    let bucket: Option<Bucket> = g
        .grid
        .rows
        .iter()
        .find(|r| r.task_id == "ClassEval_X")
        .unwrap()
        .cells[1];
    assert_eq!(bucket, None);
}

#[test]
fn default_keys_do_not_clash() {
    type AddFn = fn(&mut dyn FnMut(Context, &[KeyChord], Action, Option<&'static str>));
    let adders: [(&str, AddFn); 2] = [("grid", grid::keys::add), ("paired", paired::keys::add)];
    for (name, add) in adders {
        let mut bindings: Vec<Binding> = Vec::new();
        add(&mut |context: Context,
                  keys: &[KeyChord],
                  action: Action,
                  note: Option<&'static str>| {
            for &key in keys {
                bindings.push(Binding {
                    context,
                    key,
                    action: action.clone(),
                    note,
                });
            }
        });
        assert!(bindings.len() > 10, "{name}");
        for (i, b) in bindings.iter().enumerate() {
            assert!(
                !bindings[..i].iter().any(|o| o.key == b.key),
                "{name}: {:?} bound twice",
                b.key
            );
        }
    }
}

#[test]
fn failing_tests_say_why_when_the_classifier_can_tell() {
    // Every task of GPT-4-Turbo beside each other session: some failing tests of the shared
    // outputs have a cause the classifier names (a missing import, an unassigned attribute…).
    let mut explained = 0;
    let mut example = None;
    for b in 1..4 {
        for t in &classeval().tasks {
            let st = paired::State::new(four(), t.id.clone(), 0, b);
            for row in &st.tests {
                for (k, cell) in row.sides.iter().enumerate() {
                    if let Some(cause) = cell.as_ref().and_then(|c| c.cause.clone()) {
                        explained += 1;
                        example.get_or_insert((t.id.clone(), b, k, cause));
                    }
                }
            }
        }
    }
    let (task, b, side, cause) = example.expect("some failing test has a cause");
    println!("{explained} failing test results with a cause; first: {task} side {side}: {cause}");
    let mut sh = shared((160, 48), Some(four().to_vec()));
    let mut st = paired::State::new(four(), task, 0, b);
    st.update(&mut sh, Action::NextTab);
    // The cause is shown, if need be after scrolling to its test.
    let mut seen = false;
    for _ in 0..st.tests.len() {
        if draw(&st, &sh, 160, 48).contains(&format!("({cause})")) {
            seen = true;
            break;
        }
        st.update(&mut sh, Action::Down);
    }
    assert!(seen, "{cause}");
}

/// A key as the terminal sends it, through the app's keymap.
fn press(app: &mut classlab::tui::App, code: crossterm::event::KeyCode) {
    use crossterm::event::{Event as TermEvent, KeyEvent, KeyEventKind, KeyModifiers};
    let event = TermEvent::Key(KeyEvent::new_with_kind(
        code,
        KeyModifiers::NONE,
        KeyEventKind::Press,
    ));
    if let Some(a) = classlab::tui::action_for(app, &event) {
        app.update(a);
    }
}

fn frame(app: &classlab::tui::App) -> String {
    let (w, h) = app.sh.size;
    let mut buf = Buffer::empty(Rect::new(0, 0, w, h));
    classlab::tui::views::draw(app, buf.area, &mut buf);
    text(&buf)
}

#[test]
fn in_the_app_g_opens_the_grid_and_enter_twice_the_paired_view() {
    use crossterm::event::KeyCode as K;
    let mut app = classlab::tui::App::new(
        Data::new(dataset::sample(), None, GroundTruth::Extracted),
        UiSetup {
            size: (120, 40),
            ..UiSetup::default()
        },
    );
    app.sh.ev.compare = Some(CompareState::new(four().to_vec()));
    app.show(ScreenId::Compare);
    press(&mut app, K::Char('m'));
    assert_eq!(app.screen(), ScreenId::Grid);
    let screen = frame(&app);
    assert!(screen.contains("Grid · 100 tasks × 4 sessions"), "{screen}");
    // The status line's hints are the grid's.
    let status = screen.lines().last().unwrap_or("");
    assert!(
        status.contains("mark") && status.contains("filter"),
        "{status}"
    );
    let task = app.screens.grid.selected_task().unwrap().to_string();
    // Sort, filter and back, then Enter on A and on B of the first row.
    press(&mut app, K::Char('s'));
    assert_eq!(app.screens.grid.sort, grid::Sort::TaskId);
    press(&mut app, K::Char('s'));
    press(&mut app, K::Char('/'));
    press(&mut app, K::Char('3'));
    assert!(app.screens.grid.typing && app.screens.grid.filter == "3");
    press(&mut app, K::Esc);
    assert!(!app.screens.grid.typing && app.screens.grid.filter.is_empty());
    press(&mut app, K::Enter);
    press(&mut app, K::Char('l'));
    press(&mut app, K::Enter);
    assert_eq!(app.screen(), ScreenId::Paired);
    let p = &app.screens.paired;
    assert_eq!((p.task_id.as_str(), p.a, p.b), (task.as_str(), 0, 1));
    let screen = frame(&app);
    assert!(screen.contains("A GPT-4-Turbo holistic"), "{screen}");
    assert!(
        screen
            .lines()
            .next()
            .unwrap_or("")
            .contains(&format!("{task} · A GPT-4-Turbo"))
    );
    press(&mut app, K::Tab);
    assert_eq!(app.screens.paired.pane, paired::Pane::Tests);
    press(&mut app, K::Char('v'));
    assert_eq!(app.screens.paired.pane, paired::Pane::Diff);
    press(&mut app, K::Char(']'));
    press(&mut app, K::Esc);
    assert_eq!(app.screen(), ScreenId::Grid);
    press(&mut app, K::Char('q'));
    assert_eq!(app.screen(), ScreenId::Compare);
}
