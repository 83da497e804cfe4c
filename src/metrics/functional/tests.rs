use super::*;
use crate::model::TestResult;

#[test]
fn answer_table() {
    // (run, failures, errors) → answer, with the official rule's edge cases.
    let cases: &[((usize, usize, usize), Answer)] = &[
        ((0, 0, 0), Answer::Error),
        ((0, 0, 1), Answer::Error), // setUpClass error: nothing ran
        ((0, 2, 0), Answer::Error), // impossible, still "none ran"
        ((5, 0, 0), Answer::Success),
        ((5, 0, 5), Answer::Error), // all errored
        ((5, 5, 0), Answer::Fail),  // all failed
        ((5, 3, 2), Answer::Fail),  // errors + failures == run, mixed
        ((5, 4, 0), Answer::PartialSuccess),
        ((5, 0, 4), Answer::PartialSuccess),
        ((5, 2, 2), Answer::PartialSuccess),
        ((1, 0, 0), Answer::Success),
        ((1, 1, 0), Answer::Fail),
        ((1, 0, 1), Answer::Error),
        ((1, 1, 1), Answer::Error), // errors == run wins over the failure
        ((2, 1, 1), Answer::Fail),  // errors + failures == run, mixed
        ((2, 0, 3), Answer::Fail),  // more errors than tests, errors != run
        ((usize::MAX, usize::MAX, usize::MAX), Answer::Error),
        ((usize::MAX, usize::MAX, 1), Answer::Fail), // no overflow
    ];
    for ((run, f, e), want) in cases {
        assert_eq!(
            answer(ClassCounts::new(*run, *f, *e)),
            *want,
            "{run} {f} {e}"
        );
    }
}

#[test]
fn class_answer_table() {
    use Answer::*;
    let cases: &[(&[Answer], ClassAnswer)] = &[
        (&[Success, Success], ClassAnswer::ClassSuccess),
        (&[Success, PartialSuccess], ClassAnswer::ClassPartialSuccess),
        (&[PartialSuccess], ClassAnswer::ClassPartialSuccess),
        (&[Success, Fail], ClassAnswer::ClassFail),
        (&[Success, Error], ClassAnswer::ClassFail),
        (&[Error], ClassAnswer::ClassFail),
        (&[], ClassAnswer::ClassFail),
    ];
    for (answers, want) in cases {
        assert_eq!(class_answer(answers.iter().copied()), *want, "{answers:?}");
    }
}

fn binom(n: u64, k: u64) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

#[test]
fn pass_at_k_table() {
    type Case = ((usize, usize, usize), Option<f64>);
    let cases: &[Case] = &[
        ((1, 1, 1), Some(1.0)),
        ((1, 0, 1), Some(0.0)),
        ((10, 3, 1), Some(0.3)),
        ((10, 0, 5), Some(0.0)),
        ((10, 6, 5), Some(1.0)), // n − c < k
        ((5, 9, 1), Some(1.0)),  // c clamped to n
        ((3, 1, 0), None),
        ((3, 1, 4), None),
        ((0, 0, 1), None),
    ];
    for ((n, c, k), want) in cases {
        let got = pass_at_k(*n, *c, *k);
        match (got, want) {
            (Some(g), Some(w)) => assert!((g - w).abs() < 1e-12, "{n} {c} {k}: {g}"),
            _ => assert_eq!(got, *want, "{n} {c} {k}"),
        }
    }
    // Agrees with the binomial form where that is representable.
    for (n, c, k) in [(10, 3, 2), (20, 7, 5), (50, 10, 10), (100, 37, 10)] {
        let direct = 1.0 - binom(n - c, k) / binom(n, k);
        let got = pass_at_k(n as usize, c as usize, k as usize).unwrap();
        assert!(
            (got - direct).abs() < 1e-9,
            "{n} {c} {k}: {got} vs {direct}"
        );
    }
    // Stable where binomials overflow f64.
    let big = pass_at_k(100_000, 1, 50_000).unwrap();
    assert!((big - 0.5).abs() < 1e-9, "{big}");
    assert!(pass_at_k(2000, 1000, 1000).unwrap() <= 1.0);
}

fn counts(rows: &[(&str, (usize, usize, usize))]) -> SampleCounts {
    rows.iter()
        .map(|(n, (r, f, e))| (n.to_string(), ClassCounts::new(*r, *f, *e)))
        .collect()
}

#[test]
fn greedy_metrics() {
    let tasks = vec![
        TaskCounts {
            task_id: "A".into(),
            samples: vec![counts(&[("T1", (5, 0, 0)), ("T2", (5, 1, 0))])],
        },
        TaskCounts {
            task_id: "B".into(),
            samples: vec![counts(&[("T1", (3, 0, 0)), ("T2", (4, 0, 0))])],
        },
        TaskCounts {
            task_id: "C".into(),
            samples: vec![counts(&[("T1", (0, 0, 0))])],
        },
        // No test classes: a task that never succeeds.
        TaskCounts {
            task_id: "D".into(),
            samples: vec![vec![]],
        },
    ];
    let m = classeval_metrics(&tasks, 1);
    assert_eq!((m.tasks, m.test_classes), (4, 5));
    assert_eq!(m.fun_success, Some(3.0 / 5.0));
    assert_eq!(m.fun_partial_success, Some(4.0 / 5.0));
    assert_eq!(m.class_success, Some(1.0 / 4.0));
    assert_eq!(m.class_partial_success, Some(2.0 / 4.0));
    assert!(m.skipped.is_empty());
}

/// Issue 21 item 1: a rate over zero items is not 0 %: it is `None` (`n/a`, JSON `null`).
#[test]
fn a_rate_over_nothing_is_none_not_zero() {
    let empty = classeval_metrics(&[], 1);
    assert_eq!((empty.fun_success, empty.class_success), (None, None));
    assert_eq!(
        (empty.fun_partial_success, empty.class_partial_success),
        (None, None)
    );
    let json = serde_json::to_value(&empty).unwrap();
    assert!(json["class_success"].is_null() && json["fun_success"].is_null());
    // A task whose only sample has no test class: one task (it never succeeds), no test class.
    let m = classeval_metrics(
        &[TaskCounts {
            task_id: "D".into(),
            samples: vec![vec![]],
        }],
        1,
    );
    assert_eq!((m.class_success, m.fun_success), (Some(0.0), None));
}

#[test]
fn sampled_metrics_and_dict_semantics() {
    // Two samples; T1 succeeds in one; the task succeeds in one.
    let task = TaskCounts {
        task_id: "A".into(),
        samples: vec![
            counts(&[("T1", (2, 0, 0)), ("T2", (2, 0, 0))]),
            counts(&[("T1", (2, 2, 0)), ("T2", (2, 0, 0)), ("T2", (2, 0, 0))]),
        ],
    };
    let m = classeval_metrics(std::slice::from_ref(&task), 1);
    assert_eq!(m.test_classes, 2);
    assert!((m.fun_success.unwrap() - 0.75).abs() < 1e-12); // (1/2 + 2/2) / 2
    assert!((m.class_success.unwrap() - 0.5).abs() < 1e-12);
    let m2 = classeval_metrics(std::slice::from_ref(&task), 2);
    assert!((m2.fun_success.unwrap() - 1.0).abs() < 1e-12);
    // k larger than the number of samples: undefined, reported.
    let m3 = classeval_metrics(std::slice::from_ref(&task), 3);
    assert_eq!(m3.skipped, vec!["A".to_string()]);
    assert_eq!(m3.tasks, 0);
    // Repeated name: the last entry wins.
    let dup = TaskCounts {
        task_id: "D".into(),
        samples: vec![counts(&[("T", (1, 1, 0)), ("T", (1, 0, 0))])],
    };
    let v = task_verdicts(&dup);
    assert_eq!(v.answers, vec![vec![Some(Answer::Success)]]);
}

fn t(id: &str, outcome: Outcome) -> TestResult {
    TestResult::new(id, outcome)
}

fn suite(tests: Vec<TestResult>, failure: Option<SuiteFailure>) -> SuiteResult {
    SuiteResult::new(tests, failure)
}

#[test]
fn suite_to_counts() {
    use Outcome::*;
    let names: Vec<String> = ["A", "B", " C", "A"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let tests = vec![
        t("A.test_1", Pass),
        t("A.test_2", Fail),
        t("A.test_3", Error),
        t("A.test_4", Skip),
        t("A.test_5", Xfail),
        t("A.test_6", Xpass),
        t("B.test_1", Pass),
        t("B.test_2", NotRun),
        t("C.test_1", Pass),
        t("Other.test", Pass),
        t("loose_function", Pass),
    ];
    let got = suite_class_counts(&suite(tests.clone(), None), &names);
    assert_eq!(
        got,
        vec![
            ("A".to_string(), ClassCounts::new(6, 2, 1)),
            ("B".to_string(), ClassCounts::new(1, 0, 0)),
            (" C".to_string(), ClassCounts::new(0, 0, 0)),
        ]
    );
    let import = SuiteFailure::Import {
        exc_type: "SyntaxError".into(),
        message: "bad".into(),
        line: Some(3),
        traceback: None,
        origin: None,
    };
    let got = suite_class_counts(&suite(tests.clone(), Some(import)), &names);
    assert!(got.iter().all(|(_, c)| *c == ClassCounts::default()));
    // Timeout: B never finished → nothing recorded for B; A finished.
    let got = suite_class_counts(
        &suite(tests, Some(SuiteFailure::Timeout { limit_s: 5.0 })),
        &names,
    );
    assert_eq!(got[0].1, ClassCounts::new(6, 2, 1));
    assert_eq!(got[1].1, ClassCounts::default());
    assert_eq!(answer(got[1].1), Answer::Error);
}

#[test]
fn a_test_reported_twice_is_one_run_two_errors() {
    use Outcome::*;
    let names = vec!["M".to_string()];
    // test error, then tearDown error: unittest's (1 run, 2 errors) → fail.
    let s = suite(
        vec![t("M.test_merge", Error), t("M.test_merge", Error)],
        None,
    );
    let got = suite_class_counts(&s, &names);
    assert_eq!(got[0].1, ClassCounts::new(1, 0, 2));
    assert_eq!(answer(got[0].1), Answer::Fail);
    // failure, then tearDown error: (1 run, 1 failure, 1 error) → error.
    let s = suite(
        vec![t("M.test_merge", Fail), t("M.test_merge", Error)],
        None,
    );
    assert_eq!(answer(suite_class_counts(&s, &names)[0].1), Answer::Error);
}

#[test]
fn tampering_fails() {
    use Outcome::*;
    let names: Vec<String> = ["A", "B", "C"].iter().map(|s| s.to_string()).collect();
    let tests = vec![
        t("A.test_1", Pass),
        t("A.test_2", Tampered),
        t("B.test_1", Pass),
        t("B.test_2", NotRun),
    ];
    let tampered = || SuiteFailure::Tampered {
        detail: "result channel written by the code under test".into(),
    };
    // (suite failure, counts per class, answers, module counts)
    type Case = (
        Option<SuiteFailure>,
        [ClassCounts; 3],
        [Answer; 3],
        ClassCounts,
    );
    let cases: Vec<Case> = vec![
        (
            None,
            [
                ClassCounts::new(2, 1, 0),
                ClassCounts::new(1, 0, 0),
                ClassCounts::default(),
            ],
            [Answer::PartialSuccess, Answer::Success, Answer::Error],
            ClassCounts::new(3, 1, 0),
        ),
        (
            Some(tampered()),
            [
                ClassCounts::new(2, 2, 0),
                ClassCounts::new(2, 2, 0),
                // A class without a test result still fails.
                ClassCounts::new(1, 1, 0),
            ],
            [Answer::Fail, Answer::Fail, Answer::Fail],
            ClassCounts::new(4, 4, 0),
        ),
    ];
    for (failure, counts, answers, module) in cases {
        let s = suite(tests.clone(), failure.clone());
        let got = suite_class_counts(&s, &names);
        let got_counts: Vec<ClassCounts> = got.iter().map(|(_, c)| *c).collect();
        assert_eq!(got_counts, counts, "{failure:?}");
        let got_answers: Vec<Answer> = got_counts.iter().map(|c| answer(*c)).collect();
        assert_eq!(got_answers, answers, "{failure:?}");
        assert_eq!(module_counts(&s), module, "{failure:?}");
    }
    // A tampered suite never counts as a success, even when every test said it passed.
    let all_pass = suite(vec![t("A.test_1", Pass)], Some(tampered()));
    assert_eq!(
        class_answer(
            suite_class_counts(&all_pass, &names[..1])
                .iter()
                .map(|(_, c)| answer(*c))
        ),
        ClassAnswer::ClassFail
    );
    assert_eq!(answer(module_counts(&all_pass)), Answer::Fail);
    // Nothing ran and no tampering: 0, 0, 0 as before.
    let died = suite(vec![t("m.test_x", NotRun)], Some(SuiteFailure::Memory));
    assert_eq!(module_counts(&died), ClassCounts::default());
}
