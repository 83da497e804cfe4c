use super::*;
use crate::metrics::fingerprint::ExceptionHistogram;
use crate::metrics::functional::ClassCounts;
use crate::session::event::TaskSummary;

fn ev(seq: u64, body: EventBody) -> Event {
    Event { seq, ts: 0.0, body }
}

/// The run of `tasks`, one sample each, as event 0.
fn run_started(tasks: &[&str]) -> Event {
    ev(
        0,
        EventBody::RunStarted {
            tool_version: "t".into(),
            tasks: tasks.iter().map(|t| t.to_string()).collect(),
            samples: 1,
            config: serde_json::Value::Null,
        },
    )
}

fn task_started(seq: u64, task: &str) -> Event {
    ev(
        seq,
        EventBody::TaskStarted {
            task_id: task.into(),
            sample: 0,
        },
    )
}

fn task_finished(seq: u64, task: &str, summary: TaskSummary) -> Event {
    ev(
        seq,
        EventBody::TaskFinished {
            task_id: task.into(),
            sample: 0,
            summary,
        },
    )
}

fn summary(bucket: Bucket, counts: ClassCounts) -> TaskSummary {
    TaskSummary {
        outcome: Some(bucket),
        passed: counts.tests_run - counts.failures - counts.errors,
        judged: counts.tests_run,
        test_classes: vec![("C".into(), counts)],
        exceptions: ExceptionHistogram::default(),
        env_exceptions: ExceptionHistogram::default(),
        methods: Vec::new(),
        method_tests: Vec::new(),
    }
}

#[test]
fn folds_progress_metrics_and_fingerprint_step_by_step() {
    let events = vec![
        run_started(&["A", "B"]),
        task_started(1, "A"),
        task_finished(2, "A", summary(Bucket::Perfect, ClassCounts::new(4, 0, 0))),
        task_started(3, "B"),
        task_finished(4, "B", summary(Bucket::Weak, ClassCounts::new(4, 2, 0))),
        ev(5, EventBody::RunFinished { cancelled: false }),
    ];
    let mut state = EvalState::default();
    let mut seen = Vec::new();
    for e in &events {
        state.apply(e);
        seen.push((state.progress(), state.fingerprint().spectrum.total()));
    }
    assert_eq!(
        seen,
        [
            ((0, 2), 0),
            ((0, 2), 0),
            ((1, 2), 1),
            ((1, 2), 1),
            ((2, 2), 2),
            ((2, 2), 2)
        ]
    );
    let m = state.metrics();
    assert_eq!(m.class_success, Some(0.5));
    assert_eq!(m.fun_partial_success, Some(1.0));
    assert_eq!(state.outcome("B"), Some(Bucket::Weak));
    assert!(state.finished && !state.cancelled);
}

#[test]
fn a_resume_restarts_what_was_running() {
    let events = vec![
        run_started(&["A"]),
        task_started(1, "A"),
        ev(
            2,
            EventBody::RunResumed {
                remaining: vec!["A".into()],
                continues: false,
            },
        ),
    ];
    let state = EvalState::from_events(&events);
    assert_eq!(state.run("A", 0).unwrap().status, Status::Pending);
    assert_eq!(state.resumed, 1);
}

/// Tampering is the model's failure, never an exclusion (else tampering would raise a score
/// by leaving the denominator); only the environment's failures leave it.
#[test]
fn a_tampered_task_stays_in_the_denominators_an_env_err_one_leaves_them() {
    let events = vec![
        run_started(&["A", "T", "E"]),
        task_finished(1, "A", summary(Bucket::Perfect, ClassCounts::new(4, 0, 0))),
        // A tampered suite: every test failed, the model's RuntimeErr.
        task_finished(
            2,
            "T",
            summary(Bucket::RuntimeErr, ClassCounts::new(2, 2, 0)),
        ),
        task_finished(3, "E", summary(Bucket::EnvErr, ClassCounts::new(0, 0, 0))),
    ];
    let state = EvalState::from_events(&events);
    let m = state.metrics();
    assert_eq!((m.tasks, m.test_classes), (2, 2));
    assert_eq!(m.class_success, Some(0.5));
    assert_eq!(m.fun_success, Some(0.5));
    assert_eq!(state.env_err().tasks, 1);
    assert_eq!(state.env_err().test_classes, 1);
    let official = state.metrics_official();
    assert_eq!(official.tasks, 3);
    assert!((official.class_success.unwrap() - 1.0 / 3.0).abs() < 1e-12);
}
