//! A synthetic TDD generation run for the run-screen tests, built from events (no model, no
//! sandbox, no clock): three tasks; the first with a dependency prediction that misses and
//! invents an edge, a schedule that violates one, and a method repaired twice; the second
//! mid-way (a repair round streaming); the third pending until the run finishes.

use std::collections::{BTreeMap, BTreeSet};

use classlab::llm::{Message, Params, Purpose, Usage};
use classlab::metrics::fingerprint::{Bucket, ExcKind};
use classlab::model::{DepMap, Outcome};
use classlab::session::store::Meta;
use classlab::session::{Event, EventBody, MethodStatus, Scope, SessionLog};
use classlab::tui::action::{Action, Delivered};
use classlab::tui::app::App;

use super::{Fake, T0, app, failing, log, suite, summary, test};

pub const RUN_ID: &str = "20261122-093000-run-tdd-gpt-4o-mini-7a1e";

/// The add method, round by round: a TypeError, then a wrong return value, then right.
pub const ADD: [&str; 3] = [
    "def add(self, name, n):\n    self.items[name] = self.items.get(name, 0) + n\n    return self.total() + None\n",
    "def add(self, name, n):\n    self.items[name] = self.items.get(name, 0) + n\n    return self.total()\n",
    "def add(self, name, n):\n    if n <= 0:\n        raise ValueError(\"n must be positive\")\n    self.items[name] = self.items.get(name, 0) + n\n    return self.items[name]\n",
];

const TOTAL: &str = "def total(self):\n    return sum(self.items.values())\n";
const REMOVE: &str = "def remove(self, name):\n    del self.items[name]\n";

/// How far the run got.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The second task's `add` is in its first repair, its reply streaming.
    MidRun,
    Finished,
}

fn deps(pairs: &[(&str, &[&str])]) -> DepMap {
    pairs
        .iter()
        .map(|(m, d)| (m.to_string(), d.iter().map(|s| s.to_string()).collect()))
        .collect::<BTreeMap<String, BTreeSet<String>>>()
}

/// Events with fixed timestamps (2.5 s apart) and per-task call numbers.
struct Story {
    events: Vec<Event>,
    calls: BTreeMap<String, u32>,
}

impl Story {
    fn push(&mut self, body: EventBody) {
        let seq = self.events.len() as u64;
        self.events.push(Event {
            seq,
            ts: T0 + 2.5 * seq as f64,
            body,
        });
    }

    /// A request, and its response unless it is still streaming; the call number.
    fn call(&mut self, task: &str, purpose: Purpose, prompt: &str, reply: Option<&str>) -> u32 {
        let n = self.calls.entry(task.to_string()).or_insert(0);
        let call = *n;
        *n += 1;
        self.push(EventBody::LlmRequest {
            task_id: task.into(),
            sample: 0,
            call,
            purpose,
            provider: "openai".into(),
            model: "gpt-4o-mini".into(),
            messages: vec![
                Message::system(
                    "You are an expert Python developer. You implement exactly one method of a \
                     class, test-first, and answer with the method in a ```python block.",
                ),
                Message::user(prompt),
            ],
            params: Params::default(),
        });
        if let Some(text) = reply {
            self.push(EventBody::LlmResponse {
                task_id: task.into(),
                sample: 0,
                call,
                text: text.into(),
                usage: Some(Usage {
                    prompt_tokens: 812,
                    completion_tokens: 96,
                }),
                finish_reason: Some("stop".into()),
                latency_s: 1.2,
                retries: u32::from(call == 1),
                retry_log: if call == 1 {
                    vec!["429 Too Many Requests, waited 2.0 s as Retry-After asked".into()]
                } else {
                    Vec::new()
                },
                failure: None,
                prompt_changed: false,
            });
        }
        call
    }

    fn code(&mut self, task: &str, method: &str, round: u32, code: &str) {
        self.push(EventBody::CodeExtracted {
            task_id: task.into(),
            sample: 0,
            code: code.into(),
            notes: Vec::new(),
            method: Some(method.into()),
            round: Some(round),
        });
    }

    fn public(
        &mut self,
        task: &str,
        method: &str,
        round: u32,
        tests: Vec<classlab::model::TestResult>,
    ) {
        self.push(EventBody::TestRun {
            task_id: task.into(),
            sample: 0,
            scope: Scope::Public,
            method: Some(method.into()),
            round: Some(round),
            result: suite(tests, None),
        });
    }

    fn started(&mut self, task: &str, method: &str, index: usize) {
        self.push(EventBody::MethodStarted {
            task_id: task.into(),
            sample: 0,
            method: method.into(),
            index,
        });
    }

    fn finished(&mut self, task: &str, method: &str, status: MethodStatus, repairs: u32) {
        self.push(EventBody::MethodFinished {
            task_id: task.into(),
            sample: 0,
            method: method.into(),
            status,
            repairs,
        });
    }

    /// A method that passes its public tests at the first try.
    fn first_try(&mut self, task: &str, method: &str, index: usize, code: &str) {
        self.started(task, method, index);
        let prompt = format!("Implement only the method `{method}` of the class Inventory.");
        self.call(
            task,
            Purpose::Method {
                method: method.into(),
            },
            &prompt,
            Some(&format!("```python\n{code}```")),
        );
        self.code(task, method, 0, code);
        self.public(
            task,
            method,
            0,
            vec![
                test(&format!("InventoryTest{method}.test_1"), Outcome::Pass),
                test(&format!("InventoryTest{method}.test_2"), Outcome::Pass),
            ],
        );
        self.finished(task, method, MethodStatus::Passed, 0);
    }

    fn analysis(&mut self, task: &str) {
        self.push(EventBody::DependencyPrediction {
            task_id: task.into(),
            sample: 0,
            raw: "{\"dependencies\": {...}, \"order\": [...]}".into(),
            methods: vec![
                "add".into(),
                "remove".into(),
                "total".into(),
                "report".into(),
            ],
            // Misses report → add, invents remove → total.
            graph: deps(&[
                ("add", &["total"]),
                ("remove", &["total"]),
                ("total", &[]),
                ("report", &["total"]),
            ]),
            order: vec![
                "add".into(),
                "total".into(),
                "remove".into(),
                "report".into(),
            ],
            problems: Vec::new(),
            parsed: true,
            truth: deps(&[
                ("add", &["total"]),
                ("remove", &[]),
                ("total", &[]),
                ("report", &["add", "total"]),
            ]),
        });
        self.push(EventBody::Schedule {
            task_id: task.into(),
            sample: 0,
            mode: "predicted".into(),
            order: vec![
                "add".into(),
                "total".into(),
                "remove".into(),
                "report".into(),
            ],
            violations: vec![["add".into(), "total".into()]],
        });
    }

    /// `add`: round 0, then repairs up to `rounds` (the last one streaming when `streaming`).
    fn add(&mut self, task: &str, rounds: u32, streaming: bool) {
        self.started(task, "add", 0);
        let prompt = "Class so far:\n```python\nclass Inventory:\n    def __init__(self):\n        self.items = {}\n```\n\nTarget method:\n    def add(self, name, n):\n        \"\"\"Add n items of name; return the new count of name.\"\"\"\n\nPublic tests:\n    InventoryTestAdd (4 tests)\n\nImplement only the method `add`.";
        self.call(
            task,
            Purpose::Method {
                method: "add".into(),
            },
            prompt,
            Some(&format!("Here is the method:\n```python\n{}```", ADD[0])),
        );
        self.code(task, "add", 0, ADD[0]);
        let type_error = "unsupported operand type(s) for +: 'int' and 'NoneType'";
        self.public(
            task,
            "add",
            0,
            vec![
                failing(
                    "InventoryTestAdd.test_add_1",
                    "TypeError",
                    type_error,
                    Some(3),
                ),
                failing(
                    "InventoryTestAdd.test_add_2",
                    "TypeError",
                    type_error,
                    Some(3),
                ),
                failing(
                    "InventoryTestAdd.test_add_3",
                    "TypeError",
                    type_error,
                    Some(3),
                ),
                test("InventoryTestAdd.test_add_negative", Outcome::Pass),
            ],
        );
        let reflections = [
            (
                "Logic error: `self.total() + None` adds None to an int, so every call raises TypeError.",
                "line 3, the return statement",
                "Return the total without adding None.",
            ),
            (
                "Logic error: the tests expect add to return the new count of the item, not the inventory total; a non-positive n must raise ValueError.",
                "lines 2-3",
                "Check n first, then return self.items[name].",
            ),
        ];
        for round in 1..=rounds {
            let (analysis, region, plan) = reflections[round as usize - 1];
            let code = ADD[round as usize];
            let reply = format!(
                "Failure analysis: {analysis}\nCode region: {region}\nRepair plan: {plan}\nPatch:\n```python\n{code}```"
            );
            let last = round == rounds && streaming;
            self.call(
                task,
                Purpose::Repair {
                    method: "add".into(),
                    round,
                },
                &format!("{prompt}\n\nYour code failed its public tests:\n{type_error}\n\nAnalyse the failure, name the code region, plan the repair, then write a minimal patch."),
                (!last).then_some(reply.as_str()),
            );
            if last {
                return;
            }
            self.push(EventBody::Reflection {
                task_id: task.into(),
                sample: 0,
                method: "add".into(),
                round,
                analysis: analysis.into(),
                region: region.into(),
                plan: plan.into(),
                problems: Vec::new(),
            });
            self.push(EventBody::Patch {
                task_id: task.into(),
                sample: 0,
                method: "add".into(),
                round,
                code: code.into(),
            });
            self.code(task, "add", round, code);
            let tests = if round == 2 {
                (1..=4)
                    .map(|i| test(&format!("InventoryTestAdd.test_add_{i}"), Outcome::Pass))
                    .collect()
            } else {
                vec![
                    test("InventoryTestAdd.test_add_1", Outcome::Pass),
                    failing(
                        "InventoryTestAdd.test_add_2",
                        "AssertionError",
                        "7 != 3",
                        None,
                    ),
                    test("InventoryTestAdd.test_add_3", Outcome::Pass),
                    failing(
                        "InventoryTestAdd.test_add_negative",
                        "AssertionError",
                        "ValueError not raised",
                        None,
                    ),
                ]
            };
            self.public(task, "add", round, tests);
        }
        self.finished(task, "add", MethodStatus::Passed, rounds);
    }

    /// A whole task: analysis, the four methods, the private tests.
    fn task(&mut self, task: &str, bucket: Bucket, passed: usize) {
        self.push(EventBody::TaskStarted {
            task_id: task.into(),
            sample: 0,
        });
        self.analysis(task);
        self.add(task, 2, false);
        self.first_try(task, "total", 1, TOTAL);
        self.first_try(task, "remove", 2, REMOVE);
        self.started(task, "report", 3);
        self.call(
            task,
            Purpose::Method {
                method: "report".into(),
            },
            "Implement only the method `report`.",
            Some("```python\ndef report(self):\n    return f\"{self.total()} items\"\n```"),
        );
        self.code(
            task,
            "report",
            0,
            "def report(self):\n    return f\"{self.total()} items\"\n",
        );
        self.finished(task, "report", MethodStatus::Untested, 0);
        self.push(EventBody::CodeExtracted {
            task_id: task.into(),
            sample: 0,
            code: super::CODE.into(),
            notes: Vec::new(),
            method: None,
            round: None,
        });
        let failed = 4 - passed;
        let mut tests: Vec<_> = (0..passed)
            .map(|i| test(&format!("InventoryTest.test_{i}"), Outcome::Pass))
            .collect();
        tests.extend((0..failed).map(|i| {
            failing(
                &format!("InventoryTest.test_fail_{i}"),
                "KeyError",
                "'pear'",
                Some(13),
            )
        }));
        self.push(EventBody::TestRun {
            task_id: task.into(),
            sample: 0,
            scope: Scope::Private,
            method: None,
            round: None,
            result: suite(tests, None),
        });
        let exceptions: &[(ExcKind, usize)] = if failed > 0 {
            &[(ExcKind::KeyError, failed)]
        } else {
            &[]
        };
        self.push(EventBody::TaskFinished {
            task_id: task.into(),
            sample: 0,
            summary: summary(Some(bucket), passed, 4, exceptions, &[]),
        });
    }
}

pub const TASKS: [&str; 3] = ["ClassEval_0", "ClassEval_1", "ClassEval_2"];

/// The events of the run up to `stage`.
pub fn run_events(stage: Stage) -> Vec<Event> {
    let mut s = Story {
        events: Vec::new(),
        calls: BTreeMap::new(),
    };
    s.push(EventBody::RunStarted {
        tool_version: "test".into(),
        tasks: TASKS.iter().map(|t| t.to_string()).collect(),
        samples: 1,
        config: serde_json::json!({
            "model": "gpt-4o-mini", "strategy": "tdd", "provider": "openai",
            "max_repairs": 3, "schedule": "predicted",
        }),
    });
    s.task(TASKS[0], Bucket::Strong, 3);
    match stage {
        Stage::MidRun => {
            s.push(EventBody::TaskStarted {
                task_id: TASKS[1].into(),
                sample: 0,
            });
            s.analysis(TASKS[1]);
            s.add(TASKS[1], 1, true);
        }
        Stage::Finished => {
            s.task(TASKS[1], Bucket::Perfect, 4);
            s.task(TASKS[2], Bucket::Weak, 2);
            s.push(EventBody::RunFinished { cancelled: false });
        }
    }
    s.events
}

/// What the model has streamed so far of the second task's repair (call 1).
pub const STREAMED: [&str; 3] = [
    "Failure analysis: Logic error: `self.total() + None` ",
    "adds None to an int.\nCode region: line 3\n",
    "Repair plan: Return the total",
];

pub fn run_meta() -> Meta {
    Meta {
        kind: "run".into(),
        source: Some("openai".into()),
        harness: None,
        harness_caveat: None,
        ..super::meta(
            RUN_ID,
            Some("gpt-4o-mini"),
            Some("tdd"),
            "2026-11-22T09:30:00Z",
        )
    }
}

/// Text streamed for the second task's repair (call 1).
pub fn delta(text: &str) -> Action {
    Action::RunDelta {
        task_id: TASKS[1].into(),
        sample: 0,
        call: 1,
        text: text.into(),
    }
}

pub fn run_log(stage: Stage) -> SessionLog {
    log(run_meta(), run_events(stage), Vec::new())
}

/// The sessions screen with the finished run listed first (above the three evaluations).
pub fn run_sessions_app(size: (u16, u16)) -> (App, Fake) {
    let mut app = app(size);
    let mut fake = Fake::new();
    fake.logs.insert(0, run_log(Stage::Finished));
    fake.run(&mut app, [Action::ShowSessions]);
    (app, fake)
}

/// A run started from the dialog and fed its events up to the middle, with text streaming.
pub fn live_run_app(size: (u16, u16)) -> (App, Fake) {
    let mut app = app(size);
    let mut fake = Fake::new();
    // An openai run on the first profile (the dialog needs a profile or a base URL).
    fake.run(
        &mut app,
        [Action::NewRun, Action::Down, Action::Down, Action::Right],
    );
    fake.run(&mut app, [Action::Submit]);
    for e in run_events(Stage::MidRun) {
        fake.run(&mut app, [Action::EvalEvent(Delivered::new(e))]);
    }
    for text in STREAMED {
        fake.run(&mut app, [delta(text)]);
    }
    (app, fake)
}

/// A `forge --llm` session: two tasks asked about, the first answered (its reply a test class
/// with a fixture), the second's question still open when the session was cut off.
pub fn forge_log() -> SessionLog {
    let mut s = Story {
        events: Vec::new(),
        calls: BTreeMap::new(),
    };
    s.push(EventBody::RunStarted {
        tool_version: "test".into(),
        tasks: TASKS[..2].iter().map(|t| t.to_string()).collect(),
        samples: 1,
        config: serde_json::json!({
            "model": "gpt-4o-mini", "strategy": "forge-llm", "provider": "openai",
        }),
    });
    let ask = |task: &str, call| EventBody::LlmRequest {
        task_id: task.into(),
        sample: 0,
        call,
        purpose: Purpose::ForgeTests { round: 1 },
        provider: "openai".into(),
        model: "gpt-4o-mini".into(),
        messages: vec![
            Message::system("You are an expert Python tester."),
            Message::user(
                "Below is the reference implementation of the Python class `Inventory`.\n\n\
                 These lines are never executed by the tests so far:\n- line 4: `raise ValueError(\"n must be positive\")`",
            ),
        ],
        params: Params::default(),
    };
    s.push(ask(TASKS[0], 0));
    s.push(EventBody::LlmResponse {
        task_id: TASKS[0].into(),
        sample: 0,
        call: 0,
        text: "```python\nclass InventoryTestLLM(unittest.TestCase):\n    def setUp(self):\n        self.inv = Inventory()\n\n    def test_add_rejects_zero(self):\n        with self.assertRaises(ValueError):\n            self.inv.add('a', 0)\n```".into(),
        usage: Some(Usage {
            prompt_tokens: 812,
            completion_tokens: 64,
        }),
        finish_reason: Some("stop".into()),
        latency_s: 2.4,
        retries: 0,
        retry_log: Vec::new(),
        failure: None,
        prompt_changed: false,
    });
    s.push(ask(TASKS[1], 1));
    let meta = Meta {
        kind: "forge".into(),
        source: Some("openai".into()),
        harness: None,
        harness_caveat: None,
        ..super::meta(
            "20261129-050733-forge-gpt-4o-mini-a09f",
            Some("gpt-4o-mini"),
            Some("forge-llm"),
            "2026-11-29T05:07:33Z",
        )
    };
    log(meta, s.events, Vec::new())
}
