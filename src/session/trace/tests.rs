use super::*;
use crate::metrics::fingerprint::Bucket;
use crate::model::chat::{Message, Params};
use crate::model::{Outcome, TestResult};
use crate::session::EvalState;
use crate::session::event::Event;
use crate::session::event::TaskSummary;

fn finished(task: &str, method: &str, repairs: u32) -> EventBody {
    EventBody::MethodFinished {
        task_id: task.into(),
        sample: 0,
        method: method.into(),
        status: if repairs < 3 {
            MethodStatus::Passed
        } else {
            MethodStatus::Exhausted
        },
        repairs,
    }
}

#[test]
fn repair_cost_follows_domain_definitions() {
    let mut t = Trace::default();
    assert_eq!(t.repair_cost(), None);
    for e in [
        finished("A", "a", 0),
        finished("A", "b", 2),
        finished("A", "c", 1),
        finished("B", "x", 0),
        finished("B", "y", 3),
        finished("C", "z", 0),
    ] {
        t.apply(&e);
    }
    let c = t.repair_cost().unwrap();
    assert_eq!(c.avg_rounds_per_method, 1.0); // 6 rounds / 6 methods
    assert_eq!(c.methods_repaired, 3);
    assert_eq!(c.avg_rounds_when_repaired, 2.0); // (2+1+3)/3
    assert_eq!(c.avg_rounds_per_class, 2.0); // (3+3+0)/3
    assert_eq!(c.classes_repaired, 2);
}

#[test]
fn rounds_collect_call_code_tests_reflection_and_patch() {
    let mut t = Trace::default();
    let req = |call, purpose| EventBody::LlmRequest {
        task_id: "A".into(),
        sample: 0,
        call,
        purpose,
        provider: "openai".into(),
        model: "m".into(),
        messages: vec![Message::user("hi")],
        params: Params::default(),
    };
    t.apply(&EventBody::MethodStarted {
        task_id: "A".into(),
        sample: 0,
        method: "f".into(),
        index: 0,
    });
    t.apply(&req(0, Purpose::Method { method: "f".into() }));
    t.push_delta("A", 0, 0, "def f");
    t.push_delta("A", 0, 0, "(self):");
    assert_eq!(t.task("A", 0).unwrap().calls[0].streamed, "def f(self):");
    t.apply(&req(
        1,
        Purpose::Repair {
            method: "f".into(),
            round: 1,
        },
    ));
    t.apply(&EventBody::Reflection {
        task_id: "A".into(),
        sample: 0,
        method: "f".into(),
        round: 1,
        analysis: "logic".into(),
        region: "line 2".into(),
        plan: "fix".into(),
        problems: vec![],
    });
    t.apply(&EventBody::Patch {
        task_id: "A".into(),
        sample: 0,
        method: "f".into(),
        round: 1,
        code: "def f(self): return 1".into(),
    });
    let m = t.task("A", 0).unwrap().method("f").unwrap();
    assert_eq!(m.rounds.len(), 2);
    assert_eq!(m.rounds[0].call, Some(0));
    assert_eq!(m.rounds[1].call, Some(1));
    assert_eq!(m.rounds[1].reflection.as_ref().unwrap().analysis, "logic");
    assert_eq!(m.rounds[1].patch.as_deref(), Some("def f(self): return 1"));
    assert_eq!(m.status, None);
}

/// Fold event bodies the one way there is: through `EvalState`.
fn fold(bodies: Vec<EventBody>) -> EvalState {
    let events: Vec<Event> = bodies
        .into_iter()
        .enumerate()
        .map(|(seq, body)| Event {
            seq: seq as u64,
            ts: 0.0,
            body,
        })
        .collect();
    EvalState::from_events(&events)
}

fn calc_suite(tests: &[(&str, Outcome)]) -> SuiteResult {
    SuiteResult::new(
        tests
            .iter()
            .map(|(id, o)| TestResult::new(*id, *o))
            .collect(),
        None,
    )
}

const CALC: &str = "class Calc:\n    def __init__(self):\n        self.n = 0\n\n    def add(self, x):\n        self.n += x\n        return self.n\n\n    def sub(self, x):\n        return 0\n";

fn extracted(code: &str) -> EventBody {
    EventBody::CodeExtracted {
        task_id: "A".into(),
        sample: 0,
        code: code.into(),
        notes: vec![],
        method: None,
        round: None,
    }
}

fn private(result: SuiteResult) -> EventBody {
    EventBody::TestRun {
        task_id: "A".into(),
        sample: 0,
        scope: Scope::Private,
        method: None,
        round: None,
        result,
    }
}

fn task_finished(
    outcome: Option<Bucket>,
    methods: Vec<(String, Option<Bucket>)>,
    method_tests: Vec<(String, String)>,
) -> EventBody {
    EventBody::TaskFinished {
        task_id: "A".into(),
        sample: 0,
        summary: TaskSummary {
            outcome,
            passed: 0,
            judged: 0,
            test_classes: Default::default(),
            exceptions: Default::default(),
            env_exceptions: Default::default(),
            methods,
            method_tests,
        },
    }
}

#[test]
fn a_holistic_class_gets_per_method_entries_with_regions_tests_and_outcomes() {
    let suite = calc_suite(&[
        ("CalcTestAdd.test_add_1", Outcome::Pass),
        ("CalcTestAdd.test_add_2", Outcome::Pass),
        ("CalcTestSub.test_sub_1", Outcome::Fail),
        ("CalcTestMain.test_main", Outcome::Fail),
    ]);
    let state = fold(vec![
        extracted(CALC),
        private(suite.clone()),
        task_finished(
            Some(Bucket::Weak),
            vec![
                ("add".into(), Some(Bucket::Perfect)),
                ("sub".into(), Some(Bucket::Fail)),
                ("mul".into(), Some(Bucket::SyntaxErr)),
            ],
            Vec::new(),
        ),
    ]);
    let t = &state.trace;
    let task = t.task("A", 0).unwrap();
    let add = task.in_class("add").unwrap();
    assert_eq!(add.lines, Some((5, 7)));
    assert_eq!(
        add.code.as_deref(),
        Some("    def add(self, x):\n        self.n += x\n        return self.n")
    );
    assert_eq!(add.test_class.as_deref(), Some("CalcTestAdd"));
    assert_eq!(add.tests.tests.len(), 2);
    assert_eq!(add.outcome, Some(Bucket::Perfect));
    let sub = task.in_class("sub").unwrap();
    assert_eq!(sub.lines, Some((9, 10)));
    assert_eq!(sub.tests.tests[0].id, "CalcTestSub.test_sub_1");
    assert_eq!(sub.outcome, Some(Bucket::Fail));
    let mul = task.in_class("mul").unwrap();
    assert_eq!((mul.lines, mul.code.as_deref()), (None, None));
    assert!(mul.tests.tests.is_empty());
    // Holistic: one method entry per target method, as the run screen lists them …
    assert!(task.whole_class);
    let names: Vec<_> = task
        .methods
        .iter()
        .map(|m| (m.name.as_str(), m.status))
        .collect();
    assert_eq!(
        names,
        [
            ("add", Some(MethodStatus::Untested)),
            ("sub", Some(MethodStatus::Untested)),
            ("mul", Some(MethodStatus::NoCode)),
        ]
    );
    // … kept out of repair cost (no loop ran).
    assert_eq!(t.repair_cost(), None);

    // A strategy that wrote methods one by one keeps its entries and gains the class's.
    let state = fold(vec![
        finished("A", "add", 1),
        extracted(CALC),
        task_finished(None, vec![("add".into(), None)], Vec::new()),
    ]);
    let t = &state.trace;
    let task = t.task("A", 0).unwrap();
    assert!(!task.whole_class);
    assert_eq!(task.methods.len(), 1);
    assert_eq!(task.in_class("add").unwrap().lines, Some((5, 7)));
    assert!(t.repair_cost().is_some());
}

/// The method → test class mapping the task-finished event records wins over ClassEval's
/// naming (`…Test<Method>`), which only sessions without it fall back on.
#[test]
fn the_recorded_test_class_of_a_method_wins_over_the_naming_guess() {
    let suite = calc_suite(&[
        ("PlusTests.test_1", Outcome::Pass),
        ("CalcTestAdd.test_decoy", Outcome::Fail),
        ("MinusTests.test_1", Outcome::Fail),
    ]);
    let methods = vec![
        ("add".to_string(), Some(Bucket::Perfect)),
        ("sub".to_string(), Some(Bucket::Fail)),
    ];
    let recorded = vec![
        ("add".to_string(), "PlusTests".to_string()),
        ("sub".to_string(), "MinusTests".to_string()),
    ];
    let state = fold(vec![
        extracted(CALC),
        private(suite.clone()),
        task_finished(Some(Bucket::Weak), methods.clone(), recorded),
    ]);
    let task = state.trace.task("A", 0).unwrap();
    let add = task.in_class("add").unwrap();
    assert_eq!(add.test_class.as_deref(), Some("PlusTests"));
    let ids: Vec<&str> = add.tests.tests.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["PlusTests.test_1"]);
    assert_eq!(
        task.in_class("sub").unwrap().test_class.as_deref(),
        Some("MinusTests")
    );
    // An older log without the mapping keeps the guess.
    let state = fold(vec![
        extracted(CALC),
        private(suite),
        task_finished(Some(Bucket::Weak), methods, Vec::new()),
    ]);
    let task = state.trace.task("A", 0).unwrap();
    let add = task.in_class("add").unwrap();
    assert_eq!(add.test_class.as_deref(), Some("CalcTestAdd"));
    assert!(task.in_class("sub").unwrap().test_class.is_none());
}

#[test]
fn a_forge_sessions_progress_is_that_of_the_tasks_it_asked_about() {
    let mut t = Trace::default();
    assert_eq!(t.forge_progress(), None, "no question: not a forge session");
    let req = |task: &str, call, round| EventBody::LlmRequest {
        task_id: task.into(),
        sample: 0,
        call,
        purpose: Purpose::ForgeTests { round },
        provider: "openai".into(),
        model: "m".into(),
        messages: vec![Message::user("tests, please")],
        params: Params::default(),
    };
    let resp = |task: &str, call| EventBody::LlmResponse {
        task_id: task.into(),
        sample: 0,
        call,
        text: "```python\n```".into(),
        usage: None,
        finish_reason: None,
        latency_s: 0.1,
        retries: 0,
        retry_log: Vec::new(),
        failure: None,
        prompt_changed: false,
    };
    t.apply(&req("A", 0, 1));
    t.apply(&req("B", 1, 1));
    assert_eq!(t.forge_progress(), Some((0, 2)));
    t.apply(&resp("A", 0));
    assert_eq!(t.forge_progress(), Some((1, 2)));
    // A's second round is asked: A waits again, then is answered.
    t.apply(&req("A", 2, 2));
    assert_eq!(t.forge_progress(), Some((0, 2)));
    t.apply(&resp("A", 2));
    t.apply(&resp("B", 1));
    assert_eq!(t.forge_progress(), Some((2, 2)));
    // A response replayed twice counts once.
    t.apply(&resp("B", 1));
    assert_eq!(t.forge_progress(), Some((2, 2)));
    let a = t.task("A", 0).unwrap();
    assert_eq!(a.forge_rounds(), (2, 2));
}
