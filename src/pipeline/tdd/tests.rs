use super::reference_check::left_out_tests;
use super::*;

#[test]
fn the_model_is_told_about_tampering() {
    use crate::model::TestResult;
    let tampered_test = TestResult {
        message: Some("result forged".into()),
        ..TestResult::new("T.test_b", Outcome::Tampered)
    };
    // (suite, what the repair prompt is told, or nothing)
    let cases: Vec<(SuiteResult, Option<&str>)> = vec![
        (
            SuiteResult::new(vec![TestResult::new("T.test_a", Outcome::Fail)], None),
            None,
        ),
        (
            SuiteResult::new(
                vec![TestResult::new("T.test_a", Outcome::Pass), tampered_test],
                None,
            ),
            Some(
                "the code tampered with the verdict of T.test_b (result forged), so it counts \
                 as failed; the method must leave the tests, the harness and its output alone",
            ),
        ),
        (
            SuiteResult::new(
                vec![TestResult::new("T.test_a", Outcome::Pass)],
                Some(SuiteFailure::Tampered {
                    detail: "runner.py changed".into(),
                }),
            ),
            Some(
                "the code tampered with the tests or the test harness (runner.py changed), so \
                 every test counts as failed; the method must leave the tests, the harness \
                 and its output alone",
            ),
        ),
    ];
    for (suite, want) in cases {
        assert_eq!(describe_suite(&suite).as_deref(), want);
        // A tampered run never passes.
        if want.is_some() {
            assert!(!passed(&suite));
        }
    }
}

#[test]
fn a_public_test_the_reference_does_not_pass_twice_is_left_out() {
    use crate::model::TestResult;
    let failing = TestResult {
        exc_type: Some("AssertionError".into()),
        message: Some("'a' != 'ab'".into()),
        ..TestResult::new("T.test_b", Outcome::Fail)
    };
    let run = |b: Outcome| {
        let b = TestResult {
            outcome: b,
            ..failing.clone()
        };
        SuiteResult::new(vec![TestResult::new("T.test_a", Outcome::Pass), b], None)
    };
    let ids = ["T.test_a".to_string(), "T.test_b".to_string()];
    let left = |runs: &[SuiteResult]| -> Vec<(String, String)> {
        left_out_tests(&ids, runs)
            .into_iter()
            .map(|l| (l.test, l.reason))
            .collect()
    };
    assert_eq!(left(&[run(Outcome::Pass), run(Outcome::Pass)]), []);
    assert_eq!(
        left(&[run(Outcome::Fail), run(Outcome::Fail)]),
        [(
            "T.test_b".to_string(),
            "the reference fails it (AssertionError: 'a' != 'ab')".to_string()
        )]
    );
    assert_eq!(
        left(&[run(Outcome::Pass), run(Outcome::Fail)]),
        [(
            "T.test_b".to_string(),
            "nondeterministic: the reference passed it in 1 of 2 runs".to_string()
        )]
    );
    // A suite that did not run leaves every test out, saying why.
    let broken = SuiteResult::new(Vec::new(), Some(SuiteFailure::Memory));
    let all = left(&[broken.clone(), broken]);
    assert_eq!(all.len(), 2);
    assert_eq!(all[0].1, "the reference fails it (ran out of memory)");
}

#[test]
fn a_reply_without_decorators_keeps_the_skeletons() {
    let stub = "@staticmethod\ndef add(a, b):\n    \"\"\"Add.\"\"\"\n";
    let cases = [
        (
            "def add(a, b):\n    return a + b\n",
            "@staticmethod\ndef add(a, b):\n    return a + b\n",
        ),
        // The reply's own decorators win.
        (
            "@classmethod\ndef add(cls, a):\n    return a\n",
            "@classmethod\ndef add(cls, a):\n    return a\n",
        ),
    ];
    for (reply, want) in cases {
        assert_eq!(with_stub_decorators(reply, stub), want);
    }
    assert_eq!(
        with_stub_decorators("def f(self):\n    pass\n", "def f(self):\n"),
        "def f(self):\n    pass\n"
    );
}

#[test]
fn helpers_the_reply_adds_come_along_and_targets_do_not() {
    let task = Task {
        class_name: "A".into(),
        methods: vec![crate::model::Method {
            name: "f".into(),
            ..Default::default()
        }],
        ..Task::default()
    };
    let reply = "```python\nclass A:\n    def f(self):\n        return self._h()\n\n    def _h(self):\n        return 1\n```";
    let method = splice::method_from_reply(&extract::extract_code(reply), "f").unwrap();
    let code = with_helpers(method, reply, &task, "f");
    assert!(
        code.contains("def f(self)") && code.contains("def _h(self)"),
        "{code}"
    );
    let partial = "class A:\n    def f(self):\n        \"\"\"F.\"\"\"\n";
    let spliced = splice_all(partial, "A", "f", "def f(self):\n", &code).unwrap();
    assert!(
        spliced.contains("return self._h()") && spliced.contains("def _h(self)"),
        "{spliced}"
    );
}
