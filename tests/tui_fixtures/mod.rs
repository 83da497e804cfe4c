//! Synthetic evaluation sessions for the TUI tests, built from events (no sandbox, no clock):
//! timestamps are fixed, so elapsed times and dates render the same every run. A fake loop
//! answers the app's effects the way `tui::jobs` would, from these sessions.

#![allow(dead_code)]

pub mod run;

use std::path::PathBuf;

use classlab::dataset;
use classlab::depcheck::GroundTruth;
use classlab::metrics::fingerprint::{Bucket, ExcKind, ExceptionHistogram};
use classlab::metrics::functional::ClassCounts;
use classlab::model::{Outcome, SuiteFailure, SuiteResult, TestResult};
use classlab::session::store::{DatasetRef, Meta, SCHEMA};
use classlab::session::{Event, EventBody, Scope, SessionLog, TaskSummary};
use classlab::tui::action::{Action, Delivered};
use classlab::tui::app::{App, Effect, UiSetup};
use classlab::tui::data::Data;
use classlab::tui::evals::{EvalSession, SessionRow};
use classlab::tui::views;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

pub const T0: f64 = 1_795_294_000.0;

pub fn test(id: &str, outcome: Outcome) -> TestResult {
    TestResult {
        duration_s: 0.001,
        ..TestResult::new(id, outcome)
    }
}

pub fn failing(id: &str, exc: &str, message: &str, line: Option<usize>) -> TestResult {
    let outcome = if exc == "AssertionError" {
        Outcome::Fail
    } else {
        Outcome::Error
    };
    let frame = line.map_or(String::new(), |l| {
        format!("  File \"/tmp/classlab-sbx/test_classeval.py\", line {l}, in method\n    code\n")
    });
    TestResult {
        exc_type: Some(exc.into()),
        message: Some(message.into()),
        traceback: Some(format!(
            "Traceback (most recent call last):\n  File \"/tmp/classlab-sbx/test_classeval.py\", line 120, in {}\n    self.check()\n{frame}{exc}: {message}\n",
            id.rsplit('.').next().unwrap_or(id)
        )),
        code_line: line,
        ..test(id, outcome)
    }
}

pub fn suite(tests: Vec<TestResult>, failure: Option<SuiteFailure>) -> SuiteResult {
    SuiteResult {
        wall_s: 0.2,
        ..SuiteResult::new(tests, failure)
    }
}

fn histogram(kinds: &[(ExcKind, usize)]) -> ExceptionHistogram {
    let mut h = ExceptionHistogram::default();
    for (k, n) in kinds {
        h.add_n(*k, *n);
    }
    h
}

pub fn summary(
    bucket: Option<Bucket>,
    passed: usize,
    judged: usize,
    model: &[(ExcKind, usize)],
    env: &[(ExcKind, usize)],
) -> TaskSummary {
    let failed = judged - passed;
    TaskSummary {
        outcome: bucket,
        passed,
        judged,
        test_classes: vec![("Test".into(), ClassCounts::new(judged, failed, 0))],
        exceptions: histogram(model),
        env_exceptions: histogram(env),
        methods: Vec::new(),
        method_tests: Vec::new(),
    }
}

/// One evaluated task: the code, the suite and its verdicts.
#[derive(Clone)]
pub struct TaskFixture {
    pub id: String,
    pub code: String,
    pub suite: SuiteResult,
    pub summary: TaskSummary,
}

pub const CODE: &str = "class Inventory:\n    def __init__(self):\n        self.items = {}\n\n    def add(self, name, n):\n        self.items[name] = self.items.get(name, 0) + n\n        return self.total() + None\n\n    def total(self):\n        return sum(self.items.values())\n\n    def remove(self, name):\n        del self.items[name]\n";

/// The tasks of the "model" session: every kind of outcome.
pub fn model_tasks() -> Vec<TaskFixture> {
    let t = |id: &str, suite: SuiteResult, summary: TaskSummary| TaskFixture {
        id: id.into(),
        code: CODE.into(),
        suite,
        summary,
    };
    vec![
        t(
            "ClassEval_0",
            suite(
                (0..4).map(|i| test(&format!("InventoryTestAdd.test_add_{i}"), Outcome::Pass)).collect(),
                None,
            ),
            summary(Some(Bucket::Perfect), 4, 4, &[], &[]),
        ),
        t(
            "ClassEval_1",
            suite(
                vec![
                    test("InventoryTestAdd.test_add_1", Outcome::Pass),
                    failing(
                        "InventoryTestAdd.test_add_2",
                        "TypeError",
                        "unsupported operand type(s) for +: 'int' and 'NoneType'",
                        Some(7),
                    ),
                    failing(
                        "InventoryTestAdd.test_add_3",
                        "TypeError",
                        "unsupported operand type(s) for +: 'int' and 'NoneType'",
                        Some(7),
                    ),
                    failing(
                        "InventoryTestRemove.test_remove_missing",
                        "KeyError",
                        "'pear'",
                        Some(13),
                    ),
                    test("InventoryTestTotal.test_total", Outcome::Pass),
                ],
                None,
            ),
            summary(
                Some(Bucket::Weak),
                2,
                5,
                &[(ExcKind::TypeError, 2), (ExcKind::KeyError, 1)],
                &[],
            ),
        ),
        t(
            "ClassEval_2",
            suite(
                vec![
                    test("InventoryTestAdd.test_add", Outcome::NotRun),
                    test("InventoryTestTotal.test_total", Outcome::NotRun),
                ],
                Some(SuiteFailure::Import {
                    exc_type: "IndentationError".into(),
                    message: "unexpected indent (test_classeval.py, line 3)".into(),
                    line: Some(3),
                    traceback: Some(
                        "  File \"/tmp/classlab-sbx/test_classeval.py\", line 3\n        self.items = {}\nIndentationError: unexpected indent\n"
                            .into(),
                    ),
                    origin: None,
                }),
            ),
            summary(Some(Bucket::SyntaxErr), 0, 2, &[(ExcKind::SyntaxError, 2)], &[]),
        ),
        t(
            "ClassEval_3",
            suite(
                vec![
                    failing("InventoryTestAdd.test_add", "AssertionError", "3 != 4", None),
                    failing("InventoryTestTotal.test_total", "AssertionError", "0 != 7", None),
                ],
                None,
            ),
            summary(Some(Bucket::LogicErr), 0, 2, &[(ExcKind::AssertionError, 2)], &[]),
        ),
        t(
            "ClassEval_4",
            suite(
                vec![
                    test("InventoryTestAdd.test_add", Outcome::Pass),
                    test("InventoryTestTotal.test_total", Outcome::NotRun),
                ],
                Some(SuiteFailure::Timeout { limit_s: 25.0 }),
            ),
            summary(Some(Bucket::Timeout), 1, 2, &[(ExcKind::Timeout, 1)], &[]),
        ),
        t(
            "ClassEval_5",
            suite(
                vec![failing(
                    "InventoryTestAdd.test_add",
                    "ModuleNotFoundError",
                    "No module named 'nltk'",
                    None,
                )],
                None,
            ),
            summary(Some(Bucket::EnvErr), 0, 1, &[], &[(ExcKind::ImportError, 1)]),
        ),
    ]
}

/// The model's tasks and two more the harness found tampered with: ClassEval_6's whole suite
/// (a rewritten test module), ClassEval_7's one test (a forged verdict). Both are the model's
/// `RuntimeErr`, nothing passed.
pub fn tampered_tasks() -> Vec<TaskFixture> {
    let t = |id: &str, suite: SuiteResult, summary: TaskSummary| TaskFixture {
        id: id.into(),
        code: CODE.into(),
        suite,
        summary,
    };
    let mut tasks = model_tasks();
    tasks.push(t(
        "ClassEval_6",
        suite(
            vec![
                test("InventoryTestAdd.test_add", Outcome::Pass),
                test("InventoryTestTotal.test_total", Outcome::NotRun),
            ],
            Some(SuiteFailure::Tampered {
                detail: "the test module was rewritten while the tests ran".into(),
            }),
        ),
        summary(Some(Bucket::RuntimeErr), 0, 2, &[(ExcKind::Other, 1)], &[]),
    ));
    tasks.push(t(
        "ClassEval_7",
        suite(
            vec![
                test("InventoryTestAdd.test_add", Outcome::Pass),
                TestResult {
                    message: Some("verdict rewritten by the code under test".into()),
                    ..test("InventoryTestTotal.test_total", Outcome::Tampered)
                },
            ],
            None,
        ),
        summary(Some(Bucket::RuntimeErr), 0, 2, &[(ExcKind::Other, 1)], &[]),
    ));
    tasks
}

/// The same tasks as a reference solution would do them.
pub fn reference_tasks() -> Vec<TaskFixture> {
    model_tasks()
        .into_iter()
        .map(|mut t| {
            if t.summary.outcome != Some(Bucket::EnvErr) {
                let n = t.suite.tests.len();
                t.suite = suite(
                    t.suite
                        .tests
                        .iter()
                        .map(|x| test(&x.id, Outcome::Pass))
                        .collect(),
                    None,
                );
                t.summary = summary(Some(Bucket::Perfect), n, n, &[], &[]);
            }
            t
        })
        .collect()
}

/// Events of an evaluation of `tasks`: the first `finished` tasks done, the next one
/// running, then `run_finished` when `end` is given.
pub fn events(tasks: &[TaskFixture], finished: usize, end: Option<bool>) -> Vec<Event> {
    let mut out = Vec::new();
    let mut push = |body: EventBody| {
        let seq = out.len() as u64;
        out.push(Event {
            seq,
            ts: T0 + 2.5 * seq as f64,
            body,
        });
    };
    push(EventBody::RunStarted {
        tool_version: "test".into(),
        tasks: tasks.iter().map(|t| t.id.clone()).collect(),
        samples: 1,
        config: serde_json::json!({"model": "GPT-4-Turbo", "strategy": "holistic", "dataset": "ClassEval_data.json"}),
    });
    for (i, t) in tasks.iter().enumerate().take(finished + 1) {
        push(EventBody::TaskStarted {
            task_id: t.id.clone(),
            sample: 0,
        });
        push(EventBody::CodeExtracted {
            task_id: t.id.clone(),
            sample: 0,
            code: t.code.clone(),
            notes: Vec::new(),
            method: None,
            round: None,
        });
        if i == finished {
            break;
        }
        push(EventBody::TestRun {
            task_id: t.id.clone(),
            sample: 0,
            scope: Scope::Private,
            method: None,
            round: None,
            result: t.suite.clone(),
        });
        push(EventBody::TaskFinished {
            task_id: t.id.clone(),
            sample: 0,
            summary: t.summary.clone(),
        });
    }
    if let Some(cancelled) = end {
        push(EventBody::RunFinished { cancelled });
    }
    out
}

pub fn meta(id: &str, model: Option<&str>, strategy: Option<&str>, created: &str) -> Meta {
    Meta {
        schema: SCHEMA,
        id: id.into(),
        kind: "eval".into(),
        created: created.into(),
        tool_version: "test".into(),
        dataset: DatasetRef {
            origin: "../shared/data/classeval/ClassEval_data.json".into(),
            name: "ClassEval_data".into(),
            tasks: 100,
            digest: "0".into(),
        },
        model: model.map(str::to_string),
        strategy: strategy.map(str::to_string),
        source: Some(format!(
            "../shared/data/classeval/model_output/{}_class_H_greedy.json",
            model.unwrap_or("x")
        )),
    }
}

pub fn log(meta: Meta, events: Vec<Event>, problems: Vec<String>) -> SessionLog {
    SessionLog {
        dir: PathBuf::from("/sessions").join(&meta.id),
        meta,
        events,
        problems,
        valid_bytes: 0,
    }
}

/// Three sessions, newest first: a stopped one, the reference, the model.
pub fn logs() -> Vec<SessionLog> {
    vec![
        log(
            meta(
                "20261121-211000-eval-CodeLlama-13b-Instruct-hf-0c1d",
                Some("CodeLlama-13b-Instruct-hf"),
                Some("holistic"),
                "2026-11-21T21:10:00Z",
            ),
            events(&model_tasks(), 3, Some(true)),
            vec!["events.jsonl: line 14: torn last line (40 bytes): the run stopped while writing it; ignored".into()],
        ),
        log(
            meta(
                "20261121-204856-eval-reference-93e0",
                Some("reference"),
                None,
                "2026-11-21T20:48:56Z",
            ),
            events(&reference_tasks(), 6, Some(false)),
            Vec::new(),
        ),
        log(
            meta(
                "20261121-204744-eval-GPT-4-Turbo-2557",
                Some("GPT-4-Turbo"),
                Some("holistic"),
                "2026-11-21T20:47:44Z",
            ),
            events(&model_tasks(), 6, Some(false)),
            Vec::new(),
        ),
    ]
}

/// The effects' answers, as `tui::jobs` would give them.
pub struct Fake {
    pub logs: Vec<SessionLog>,
    pub files: Vec<String>,
    pub effects: Vec<Effect>,
}

impl Fake {
    pub fn new() -> Fake {
        Fake {
            logs: logs(),
            files: vec![
                "../shared/data/classeval/model_output/GPT-3.5-Turbo_method_C_greedy.json".into(),
                "../shared/data/classeval/model_output/GPT-4-Turbo_class_H_greedy.json".into(),
                "preds.jsonl".into(),
            ],
            effects: Vec::new(),
        }
    }

    fn answer(&mut self, effect: &Effect) -> Option<Action> {
        match effect {
            Effect::LoadSessions { req } => Some(Action::SessionsLoaded {
                req: *req,
                root: PathBuf::from("/sessions"),
                rows: Delivered::new(
                    self.logs
                        .iter()
                        .map(|l| SessionRow::summarize(&l.dir, &l.meta, Ok(l.clone())))
                        .collect(),
                ),
            }),
            Effect::OpenSession { req, dir } => {
                Some(match self.logs.iter().find(|l| l.dir == *dir) {
                    Some(l) => Action::SessionOpened {
                        req: *req,
                        session: Delivered::new(EvalSession::from_log(l.clone())),
                    },
                    None => Action::LoadFailed {
                        req: *req,
                        message: format!("{}: no such session", dir.display()),
                    },
                })
            }
            Effect::CompareSessions { req, dirs } => Some(Action::ComparisonLoaded {
                req: *req,
                sessions: Delivered::new(
                    dirs.iter()
                        .filter_map(|d| self.logs.iter().find(|l| l.dir == *d))
                        .map(|l| EvalSession::from_log(l.clone()))
                        .collect(),
                ),
            }),
            Effect::DeleteSession { dir } => {
                self.logs.retain(|l| l.dir != *dir);
                Some(Action::SessionDeleted {
                    dir: dir.clone(),
                    error: None,
                })
            }
            Effect::ListPredictionFiles => Some(Action::PredictionFiles(self.files.clone())),
            Effect::LoadRunChoices => Some(Action::RunChoices {
                endpoints: vec!["local".into(), "openai".into()],
                replays: self
                    .logs
                    .iter()
                    .filter(|l| l.meta.kind == "run")
                    .map(|l| (l.meta.id.clone(), l.dir.clone()))
                    .collect(),
            }),
            Effect::Quit
            | Effect::StartEval { .. }
            | Effect::StartRun(_)
            | Effect::CancelEval
            | Effect::LoadReview { .. }
            | Effect::EditPart { .. }
            | Effect::SaveReview { .. }
            | Effect::ValidateTask { .. }
            | Effect::Rigor { .. } => None,
        }
    }

    /// Update the app and answer its effects at once (recording them).
    pub fn run(&mut self, app: &mut App, actions: impl IntoIterator<Item = Action>) {
        for a in actions {
            let effects = app.update(a);
            for e in effects {
                let answer = self.answer(&e);
                self.effects.push(e);
                if let Some(a) = answer {
                    self.run(app, [a]);
                }
            }
        }
    }
}

pub fn app(size: (u16, u16)) -> App {
    App::new(
        Data::new(dataset::sample(), None, GroundTruth::Extracted),
        UiSetup {
            size,
            ..UiSetup::default()
        },
    )
}

/// The screen as text, one line per row, trailing spaces removed.
pub fn screen(app: &App) -> String {
    let (w, h) = app.sh.size;
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| views::render(app, f)).unwrap();
    let buf = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..h {
        let mut line = String::new();
        let mut skip = 0;
        for x in 0..w {
            let cell = &buf[(x, y)];
            if skip > 0 {
                skip -= 1;
                continue;
            }
            line.push_str(cell.symbol());
            skip = ratatui::text::Span::raw(cell.symbol())
                .width()
                .saturating_sub(1);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The help overlay's text for the current view.
pub fn help_text(app: &App) -> String {
    views::help_lines(app)
        .iter()
        .map(|l| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The session screen with the sessions listed.
pub fn sessions_app(size: (u16, u16)) -> (App, Fake) {
    let mut app = app(size);
    let mut fake = Fake::new();
    fake.run(&mut app, [Action::ShowSessions]);
    (app, fake)
}

/// Mark the reference and GPT-4-Turbo (rows 1 and 2) and compare them.
pub fn compare_two(app: &mut App, fake: &mut Fake) {
    fake.run(
        app,
        [
            Action::Down,
            Action::ToggleMark,
            Action::ToggleMark,
            Action::Compare,
        ],
    );
}

/// Row of the sessions list (0 = newest): 0 stopped CodeLlama, 1 reference, 2 GPT-4-Turbo.
pub fn open_row(app: &mut App, fake: &mut Fake, row: usize) {
    let mut actions = vec![Action::Top];
    actions.extend(std::iter::repeat_n(Action::Down, row));
    actions.push(Action::Open);
    fake.run(app, actions);
}
