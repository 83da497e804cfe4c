use super::*;
use crate::exec::spec::{Limits, SuiteKind, SuiteSpec};
use crate::model::results::{EvidenceSource, SuiteFailure, SuiteResult};

fn spec(expected: &[&str]) -> SuiteSpec {
    SuiteSpec {
        files: vec![],
        kind: SuiteKind::Unittest { module: "m".into() },
        code_modules: vec![],
        code: vec![],
        expected: expected.iter().map(|s| s.to_string()).collect(),
        allowed_skips: vec![],
        limits: Limits::default(),
        hash_seed: None,
        harness: Default::default(),
        globals_module: None,
    }
}

fn obs(channel: Channel, status: &str) -> Observed {
    Observed {
        channel,
        status: Status::parse(status),
        stop: Stop::None,
        oom_killed: false,
        stdout: String::new(),
        stderr: String::new(),
        stdout_dropped: 0,
        stderr_dropped: 0,
        wall_s: 0.1,
        leftovers: vec![],
    }
}

fn rec(nonce: &str, seq: u64, body: &str) -> String {
    format!("{{\"n\":\"{nonce}\",\"s\":{seq},{body}}}\n")
}

/// A channel whose tokens are t0, t1, …
fn chan(nonce: &str) -> Channel {
    let mut i = 0;
    Channel::new(
        nonce,
        Box::new(move || {
            i += 1;
            format!("t{}", i - 1)
        }),
    )
}

#[test]
fn clean_run() {
    let mut c = chan("abc");
    c.feed(rec("abc", 0, r#""t":"start""#).as_bytes());
    let t = rec(
        "abc",
        1,
        r#""t":"test","k":"t0","id":"A.test_x","o":"fail","et":"AssertionError","msg":"1 != 2","line":3,"d":0.5"#,
    );
    // Split across reads.
    c.feed(&t.as_bytes()[..10]);
    c.feed(&t.as_bytes()[10..]);
    c.feed(rec("abc", 2, r#""t":"final","count":1"#).as_bytes());
    c.close();
    let r = assemble(
        &spec(&["A.test_x", "A.test_y"]),
        obs(c, "pid 7\npython exit 0 1000 2000 900\n"),
    );
    assert_eq!(r.failure, None);
    assert_eq!(r.tests.len(), 2);
    assert_eq!(r.tests[0].outcome, Outcome::Fail);
    assert_eq!(r.tests[0].code_line, Some(3));
    assert_eq!(r.tests[1].outcome, Outcome::NotRun);
}

#[test]
fn forged_records_are_rejected_and_passes_discarded() {
    let mut c = chan("abc");
    c.feed(rec("abc", 0, r#""t":"start""#).as_bytes());
    c.feed(
        rec(
            "abc",
            1,
            r#""t":"test","k":"t0","id":"A.test_x","o":"pass","d":0"#,
        )
        .as_bytes(),
    );
    c.feed(rec("zzz", 2, r#""t":"test","id":"A.test_y","o":"pass","d":0"#).as_bytes());
    c.feed(b"garbage\n");
    c.feed(rec("abc", 2, r#""t":"final","count":1"#).as_bytes());
    c.close();
    assert_eq!(c.violations.len(), 2);
    let r = assemble(
        &spec(&["A.test_x", "A.test_y"]),
        obs(c, "python exit 0 0 0 0"),
    );
    assert!(matches!(r.failure, Some(SuiteFailure::Tampered { .. })));
    assert_eq!(r.tests[0].outcome, Outcome::Tampered);
    assert_eq!(r.tests[1].outcome, Outcome::Tampered);
}

#[test]
fn sequence_gaps_duplicates_and_late_records() {
    let mut c = chan("n");
    c.feed(rec("n", 0, r#""t":"test","k":"t0","id":"A.t","o":"pass","d":0"#).as_bytes());
    c.feed(rec("n", 5, r#""t":"test","k":"t1","id":"A.u","o":"pass","d":0"#).as_bytes());
    c.feed(rec("n", 1, r#""t":"test","k":"t1","id":"A.t","o":"pass","d":0"#).as_bytes());
    c.feed(rec("n", 2, r#""t":"final","count":1"#).as_bytes());
    c.feed(rec("n", 3, r#""t":"test","id":"A.v","o":"pass","d":0"#).as_bytes());
    c.feed(b"{\"n\":\"n\"");
    c.close();
    assert_eq!(c.violations.len(), 3, "{:?}", c.violations);
    let r = assemble(&spec(&["A.t"]), obs(c, "python exit 0 0 0 0"));
    let Some(SuiteFailure::Tampered { detail }) = r.failure else {
        panic!()
    };
    assert!(detail.contains("twice"), "{detail}");
}

#[test]
fn crash_classification() {
    let none = || chan("n");
    let r = assemble(&spec(&["A.t"]), obs(none(), "python signal 11 0 0 0"));
    assert!(matches!(
        r.failure,
        Some(SuiteFailure::Crashed {
            signal: Some(11),
            ..
        })
    ));
    let r = assemble(&spec(&["A.t"]), obs(none(), "python exit 0 0 0 0"));
    let Some(SuiteFailure::Crashed { detail, .. }) = r.failure else {
        panic!()
    };
    assert!(detail.contains("before the harness's final record"));
    let r = assemble(&spec(&["A.t"]), obs(none(), "python signal 24 2000000 0 0"));
    assert!(matches!(r.failure, Some(SuiteFailure::Timeout { .. })));
    let mut o = obs(none(), "python signal 9 100 0 0");
    o.oom_killed = true;
    assert_eq!(
        assemble(&spec(&["A.t"]), o).failure,
        Some(SuiteFailure::Memory)
    );
    let mut o = obs(none(), "");
    o.stop = Stop::WallTimeout;
    assert!(matches!(
        assemble(&spec(&["A.t"]), o).failure,
        Some(SuiteFailure::Timeout { .. })
    ));
    let r = assemble(
        &spec(&[]),
        obs(none(), "error unshare: Operation not permitted"),
    );
    let Some(SuiteFailure::Crashed { detail, .. }) = r.failure else {
        panic!()
    };
    assert!(detail.contains("setup failed"));
}

#[test]
fn unexpected_skip_is_a_failure_and_params_replace_their_function() {
    let mut c = chan("n");
    c.feed(
        rec(
            "n",
            0,
            r#""t":"test","k":"t0","id":"A.t","o":"skip","et":"SkipTest","msg":"why","d":0"#,
        )
        .as_bytes(),
    );
    c.feed(
        rec(
            "n",
            1,
            r#""t":"test","k":"t1","id":"f[1]","o":"pass","d":0"#,
        )
        .as_bytes(),
    );
    c.feed(
        rec(
            "n",
            2,
            r#""t":"test","k":"t2","id":"f[2]","o":"fail","d":0"#,
        )
        .as_bytes(),
    );
    c.feed(
        rec(
            "n",
            3,
            r#""t":"test","k":"t3","id":"A.tearDownClass","o":"error","d":0"#,
        )
        .as_bytes(),
    );
    c.feed(rec("n", 4, r#""t":"final","count":4"#).as_bytes());
    let mut sp = spec(&["A.t", "f"]);
    let r = assemble(&sp, obs(c, "python exit 0 0 0 0"));
    assert_eq!(r.failure, None);
    let ids: Vec<&str> = r.tests.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["A.t", "f[1]", "f[2]", "A.tearDownClass"]);
    assert_eq!(r.tests[0].outcome, Outcome::Fail);
    assert_eq!(r.tests[0].exc_type.as_deref(), Some("SkipTest"));
    sp.allowed_skips = vec!["A.t".into()];
    let mut c = chan("n");
    c.feed(rec("n", 0, r#""t":"test","k":"t0","id":"A.t","o":"skip","d":0"#).as_bytes());
    let r = assemble(&sp, obs(c, "python exit 0 0 0 0"));
    assert_eq!(r.tests[0].outcome, Outcome::Skip);
}

#[test]
fn import_failure() {
    let mut c = chan("n");
    c.feed(rec("n", 0, r#""t":"import","et":"SyntaxError","msg":"bad","line":4,"tb":"","where":"code","env":false"#).as_bytes());
    c.feed(rec("n", 1, r#""t":"final","count":0"#).as_bytes());
    let r = assemble(&spec(&["A.t"]), obs(c, "python exit 0 0 0 0"));
    assert_eq!(
        r.failure,
        Some(SuiteFailure::Import {
            exc_type: "SyntaxError".into(),
            message: "bad".into(),
            line: Some(4),
            traceback: None,
            origin: None,
        })
    );
    assert_eq!(r.tests[0].outcome, Outcome::NotRun);
}

#[test]
fn verdicts_are_paced_by_tokens() {
    // Written ahead of the tests: no token, or a token not issued yet.
    let mut c = chan("n");
    assert_eq!(c.greeting(), "n\nt0\n");
    c.feed(rec("n", 0, r#""t":"test","id":"A.a","o":"pass","d":0"#).as_bytes());
    c.feed(rec("n", 1, r#""t":"test","k":"t1","id":"A.b","o":"pass","d":0"#).as_bytes());
    assert_eq!(c.violations.len(), 2, "{:?}", c.violations);
    assert!(c.outbox.is_empty());
    // Issued in turn; the next token only once a verdict is accepted.
    let mut c = chan("n");
    c.feed(rec("n", 0, r#""t":"test","k":"t0","id":"A.a","o":"fail","d":0"#).as_bytes());
    assert_eq!(c.outbox, ["t1"]);
    // A second error of the same test may carry its token (unittest reports each error).
    c.feed(
        rec(
            "n",
            1,
            r#""t":"test","k":"t0","id":"A.a","o":"error","d":0"#,
        )
        .as_bytes(),
    );
    // … but not a pass, nor another test.
    c.feed(rec("n", 2, r#""t":"test","k":"t0","id":"A.a","o":"pass","d":0"#).as_bytes());
    c.feed(rec("n", 3, r#""t":"test","k":"t0","id":"A.b","o":"fail","d":0"#).as_bytes());
    assert_eq!(c.violations.len(), 2, "{:?}", c.violations);
    c.feed(rec("n", 4, r#""t":"test","k":"t1","id":"A.b","o":"pass","d":0"#).as_bytes());
    assert_eq!(c.outbox, ["t1", "t2"]);
    assert_eq!(c.records.len(), 3);
}

#[test]
fn a_forged_verdict_then_the_harness_own_is_tampering() {
    // The code under test wrote a pass with the running test's token; the harness's own
    // verdict for that test then carries a spent token.
    let mut c = chan("n");
    c.feed(rec("n", 0, r#""t":"test","k":"t0","id":"A.a","o":"pass","d":0"#).as_bytes());
    c.feed(rec("n", 1, r#""t":"test","k":"t0","id":"A.a","o":"fail","d":0"#).as_bytes());
    c.feed(rec("n", 2, r#""t":"final","count":1"#).as_bytes());
    let r = assemble(&spec(&["A.a"]), obs(c, "python exit 0 0 0 0"));
    assert!(
        matches!(r.failure, Some(SuiteFailure::Tampered { .. })),
        "{r:?}"
    );
    assert_ne!(r.tests[0].outcome, Outcome::Pass);
}

#[test]
fn unasked_expected_failures_fail_and_tampered_tests_void_the_suite() {
    let mut c = chan("n");
    c.feed(
        rec(
            "n",
            0,
            r#""t":"test","k":"t0","id":"A.a","o":"xfail","d":0"#,
        )
        .as_bytes(),
    );
    c.feed(rec("n", 1, r#""t":"test","k":"t1","id":"A.b","o":"pass","d":0"#).as_bytes());
    c.feed(rec("n", 2, r#""t":"final","count":2"#).as_bytes());
    let mut sp = spec(&["A.a", "A.b"]);
    let r = assemble(&sp, obs(c, "python exit 0 0 0 0"));
    assert_eq!(r.failure, None);
    assert_eq!(r.tests[0].outcome, Outcome::Fail);
    sp.allowed_skips = vec!["A.a".into()];
    let mut c = chan("n");
    c.feed(
        rec(
            "n",
            0,
            r#""t":"test","k":"t0","id":"A.a","o":"xfail","d":0"#,
        )
        .as_bytes(),
    );
    c.feed(
        rec(
            "n",
            1,
            r#""t":"test","k":"t1","id":"A.b","o":"tampered","d":0"#,
        )
        .as_bytes(),
    );
    c.feed(rec("n", 2, r#""t":"final","count":2"#).as_bytes());
    let r = assemble(&sp, obs(c, "python exit 0 0 0 0"));
    assert!(matches!(r.failure, Some(SuiteFailure::Tampered { .. })));
    assert_eq!(r.tests[0].outcome, Outcome::Tampered);
    assert_eq!(r.tests[1].outcome, Outcome::Tampered);
}

#[test]
fn a_tampered_suite_says_which_test_and_what_was_seen() {
    let mut c = chan("n");
    c.feed(rec("n", 0, r#""t":"test","k":"t0","id":"A.a","o":"pass","d":0"#).as_bytes());
    let long = "x".repeat(400);
    c.feed(
        rec(
            "n",
            1,
            &format!(
                r#""t":"test","k":"t1","id":"A.b","o":"tampered","et":"Forged","msg":"an object of type m.B compares equal to 3, in a suite whose objects guess {long}","d":0"#
            ),
        )
        .as_bytes(),
    );
    c.feed(rec("n", 2, r#""t":"final","count":2"#).as_bytes());
    let r = assemble(&spec(&["A.a", "A.b"]), obs(c, "python exit 0 0 0 0"));
    let Some(SuiteFailure::Tampered { detail }) = r.failure else {
        panic!("{r:?}")
    };
    assert!(
        detail.contains("(A.b: an object of type m.B compares equal to 3"),
        "{detail}"
    );
    assert!(detail.ends_with("…)"), "{detail}");
    // The pass before it is discarded with the suite; the tampered test keeps what was seen.
    assert_eq!(r.tests[0].outcome, Outcome::Tampered);
    assert!(
        r.tests[1]
            .message
            .as_deref()
            .unwrap_or("")
            .starts_with("an object of type m.B")
    );
}

#[test]
fn evidence_records_reach_the_result_with_their_source() {
    let mut c = chan("abc");
    c.feed(rec("abc", 0, r#""t":"start""#).as_bytes());
    c.feed(
        rec(
            "abc",
            1,
            r#""t":"test","k":"t0","id":"A.test_x","o":"tampered","et":"Forged","d":0"#,
        )
        .as_bytes(),
    );
    c.feed(
        rec(
            "abc",
            2,
            r#""t":"evidence","source":"runner","items":[{"test":"A.test_x","detail":"an object of type m.B compares equal to both 1 and a decoy 2"}]"#,
        )
        .as_bytes(),
    );
    c.feed(
        rec(
            "abc",
            3,
            r#""t":"evidence","source":"host","items":[{"test":null,"detail":"replaced unittest.case.TestCase.run"},{"nodetail":1}]"#,
        )
        .as_bytes(),
    );
    c.feed(rec("abc", 4, r#""t":"final","count":1"#).as_bytes());
    c.close();
    let r = assemble(&spec(&["A.test_x"]), obs(c, "python exit 0 1 1 1\n"));
    assert!(c_violations_free(&r), "{r:?}");
    assert_eq!(r.evidence.len(), 2);
    assert_eq!(r.evidence[0].source, EvidenceSource::Runner);
    assert_eq!(r.evidence[0].test.as_deref(), Some("A.test_x"));
    assert_eq!(r.evidence[1].source, EvidenceSource::Host);
    assert_eq!(r.evidence[1].test, None);
    assert_eq!(r.tests[0].outcome, Outcome::Tampered);
    assert!(matches!(r.failure, Some(SuiteFailure::Tampered { .. })));
}

#[test]
fn evidence_of_an_unknown_source_is_a_malformed_record() {
    let mut c = chan("abc");
    c.feed(rec("abc", 0, r#""t":"evidence","source":"oracle","items":[]"#).as_bytes());
    assert_eq!(c.violations, ["malformed record"]);
}

fn c_violations_free(r: &SuiteResult) -> bool {
    !matches!(&r.failure, Some(SuiteFailure::Tampered { detail }) if detail.contains("result channel"))
}
