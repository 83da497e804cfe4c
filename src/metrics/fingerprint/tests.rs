use std::collections::BTreeSet;

use super::*;

fn t(id: &str, outcome: Outcome, exc: Option<&str>, msg: &str) -> TestResult {
    TestResult {
        id: id.into(),
        outcome,
        exc_type: exc.map(String::from),
        message: (!msg.is_empty()).then(|| msg.to_string()),
        traceback: None,
        code_line: None,
        duration_s: 0.0,
        origin: None,
    }
}

fn suite(tests: Vec<TestResult>, failure: Option<SuiteFailure>) -> SuiteResult {
    SuiteResult::new(tests, failure)
}

fn import(exc: &str, msg: &str) -> SuiteFailure {
    SuiteFailure::Import {
        exc_type: exc.into(),
        message: msg.into(),
        line: None,
        traceback: None,
        origin: None,
    }
}

/// `passed` passes and `failed` assertion failures.
fn rate_suite(passed: usize, failed: usize) -> SuiteResult {
    let mut tests = Vec::new();
    for i in 0..passed {
        tests.push(t(&format!("T.test_p{i}"), Outcome::Pass, None, ""));
    }
    for i in 0..failed {
        tests.push(t(
            &format!("T.test_f{i}"),
            Outcome::Fail,
            Some("AssertionError"),
            "",
        ));
    }
    suite(tests, None)
}

fn ctx() -> EnvContext {
    EnvContext::from_sources([
        "import numpy as np\nfrom nltk.stem import WordNetLemmatizer",
        "import unittest, os.path\n    from .local import x\nfrom PyPDF2 import PdfFileReader",
    ])
    .with_data_files(["data/input.xlsx"])
}

#[test]
fn task_modules_from_sources() {
    let c = ctx();
    let want: BTreeSet<String> = ["PyPDF2", "nltk", "numpy", "os", "unittest"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(c.task_modules, want);
}

#[test]
fn rate_bucket_boundaries() {
    let th = Thresholds::default();
    // (passed, failed) → bucket; rates 19.99 %, 20 %, 59.99 %, 60 %, 97.99 %, 98 %, 99.99 %, 100 %.
    let cases: &[((usize, usize), Option<Bucket>)] = &[
        ((1, 9999), Some(Bucket::Fail)),
        ((1999, 8001), Some(Bucket::Fail)),  // 19.99 %
        ((1, 4), Some(Bucket::Weak)),        // 20 %
        ((2000, 8000), Some(Bucket::Weak)),  // 20.00 %
        ((5999, 4001), Some(Bucket::Weak)),  // 59.99 %
        ((3, 2), Some(Bucket::Strong)),      // 60 %
        ((9799, 201), Some(Bucket::Strong)), // 97.99 %
        ((49, 1), Some(Bucket::NearPerf)),   // 98 %
        ((9999, 1), Some(Bucket::NearPerf)), // 99.99 %
        ((5, 0), Some(Bucket::Perfect)),     // 100 %
        ((0, 5), Some(Bucket::LogicErr)),    // 0 %, assertions
    ];
    for ((p, f), want) in cases {
        let got = classify_suite(&rate_suite(*p, *f), &EnvContext::default(), &th);
        assert_eq!(got.bucket, *want, "{p} passed, {f} failed");
        assert_eq!((got.passed, got.judged), (*p, p + f));
    }
    // Thresholds are configuration.
    let strict = Thresholds {
        weak: 0.5,
        strong: 0.9,
        near_perfect: 0.99,
    };
    assert_eq!(strict.rate_bucket(2, 5), Some(Bucket::Fail));
    assert_eq!(strict.rate_bucket(3, 5), Some(Bucket::Weak));
    assert_eq!(strict.rate_bucket(98, 100), Some(Bucket::Strong));
    assert_eq!(th.rate_bucket(0, 5), None);
    assert_eq!(th.rate_bucket(1, 0), None);
    let nan = Thresholds {
        weak: f64::NAN,
        strong: f64::NAN,
        near_perfect: f64::NAN,
    };
    assert_eq!(nan.rate_bucket(1, 2), Some(Bucket::Fail));
    // Serde: missing fields take defaults.
    let parsed: Thresholds = serde_json::from_str(r#"{"weak": 0.25}"#).unwrap();
    assert_eq!(parsed.weak, 0.25);
    assert_eq!(parsed.near_perfect, 0.98);
}

#[test]
fn class_buckets() {
    use Outcome::*;
    let th = Thresholds::default();
    let c = ctx();
    let cases: Vec<(&str, SuiteResult, Option<Bucket>)> = vec![
        (
            "syntax error at import",
            suite(
                vec![t("T.a", NotRun, None, "")],
                Some(import("IndentationError", "unexpected indent")),
            ),
            Some(Bucket::SyntaxErr),
        ),
        (
            "model-only module missing (jwt) is the model's",
            suite(
                vec![t("T.a", NotRun, None, "")],
                Some(import("ModuleNotFoundError", "No module named 'jwt'")),
            ),
            Some(Bucket::RuntimeErr),
        ),
        (
            "task module, not verified missing, is the model's",
            suite(
                vec![t("T.a", NotRun, None, "")],
                Some(import(
                    "ModuleNotFoundError",
                    "No module named 'numpy.linalg'",
                )),
            ),
            Some(Bucket::RuntimeErr),
        ),
        (
            "API change of a task package, without the reference's evidence",
            suite(
                vec![],
                Some(import(
                    "ImportError",
                    "cannot import name 'PdfFileReader' from 'PyPDF2' (/x/__init__.py)",
                )),
            ),
            Some(Bucket::RuntimeErr),
        ),
        (
            "other import-time exception",
            suite(vec![], Some(import("NameError", "name 'x' is not defined"))),
            Some(Bucket::RuntimeErr),
        ),
        (
            "every test errors with non-assertion exceptions",
            suite(
                vec![
                    t("T.a", Error, Some("AttributeError"), ""),
                    t("T.b", Error, Some("TypeError"), ""),
                ],
                None,
            ),
            Some(Bucket::RuntimeErr),
        ),
        (
            "no pass, mixed errors and assertion failures",
            suite(
                vec![
                    t("T.a", Error, Some("TypeError"), ""),
                    t("T.b", Fail, Some("AssertionError"), ""),
                ],
                None,
            ),
            Some(Bucket::LogicErr),
        ),
        (
            "an error typed AssertionError counts as an assertion",
            suite(vec![t("T.a", Error, Some("AssertionError"), "")], None),
            Some(Bucket::LogicErr),
        ),
        (
            "nltk data missing, no evidence: the model's",
            suite(
                vec![
                    t("T.a", Pass, None, ""),
                    t(
                        "T.b",
                        Error,
                        Some("LookupError"),
                        "Resource 'wordnet' not found.",
                    ),
                ],
                None,
            ),
            Some(Bucket::Weak),
        ),
        (
            "network, no evidence: the model's",
            suite(
                vec![t(
                    "T.a",
                    Error,
                    Some("urllib.error.URLError"),
                    "<urlopen error>",
                )],
                None,
            ),
            Some(Bucket::RuntimeErr),
        ),
        (
            "name resolution through OSError, no evidence: the model's",
            suite(
                vec![t(
                    "T.a",
                    Error,
                    Some("OSError"),
                    "[Errno -3] Temporary failure in name resolution",
                )],
                None,
            ),
            Some(Bucket::RuntimeErr),
        ),
        (
            "expected data file missing, no evidence: the model's",
            suite(
                vec![t(
                    "T.a",
                    Error,
                    Some("FileNotFoundError"),
                    "[Errno 2] No such file or directory: '/tmp/x/input.xlsx'",
                )],
                None,
            ),
            Some(Bucket::RuntimeErr),
        ),
        (
            "a file the model invented is the model's",
            suite(
                vec![t(
                    "T.a",
                    Error,
                    Some("FileNotFoundError"),
                    "[Errno 2] No such file or directory: 'other.txt'",
                )],
                None,
            ),
            Some(Bucket::RuntimeErr),
        ),
        (
            "suite timeout with unfinished tests",
            suite(
                vec![t("T.a", Pass, None, ""), t("T.b", NotRun, None, "")],
                Some(SuiteFailure::Timeout { limit_s: 5.0 }),
            ),
            Some(Bucket::Timeout),
        ),
        (
            "a test timed out",
            suite(
                vec![
                    t("T.a", Pass, None, ""),
                    t("T.b", Error, Some("Timeout"), ""),
                ],
                None,
            ),
            Some(Bucket::Timeout),
        ),
        (
            "crash with unfinished tests",
            suite(
                vec![t("T.a", NotRun, None, "")],
                Some(SuiteFailure::Crashed {
                    signal: Some(11),
                    exit_code: None,
                    detail: "SIGSEGV".into(),
                }),
            ),
            Some(Bucket::RuntimeErr),
        ),
        (
            "lost test (no suite failure) counts as failed",
            suite(
                vec![t("T.a", Pass, None, ""), t("T.b", NotRun, None, "")],
                None,
            ),
            Some(Bucket::Weak),
        ),
        (
            "skips are not judged",
            suite(
                vec![t("T.a", Pass, None, ""), t("T.b", Skip, None, "")],
                None,
            ),
            Some(Bucket::Perfect),
        ),
        (
            "xfail passes, xpass fails",
            suite(
                vec![t("T.a", Xfail, None, ""), t("T.b", Xpass, None, "")],
                None,
            ),
            Some(Bucket::Weak),
        ),
        (
            "nothing to judge",
            suite(vec![t("T.a", Skip, None, "")], None),
            None,
        ),
        ("no tests at all", suite(vec![], None), None),
    ];
    for (name, s, want) in cases {
        assert_eq!(classify_suite(&s, &c, &th).bucket, want, "{name}");
    }
}

#[test]
fn env_vs_model_import_errors() {
    let c = ctx();
    let cases: &[(&str, &str, Option<EnvCause>)] = &[
        ("ModuleNotFoundError", "No module named 'jwt'", None),
        (
            "ModuleNotFoundError",
            "No module named 'sklearn.metrics'",
            None,
        ),
        (
            "ModuleNotFoundError",
            "No module named 'nltk'",
            Some(EnvCause::MissingModule("nltk".into())),
        ),
        (
            "ImportError",
            "No module named numpy",
            Some(EnvCause::MissingModule("numpy".into())),
        ),
        (
            "ImportError",
            "cannot import name 'foo' from 'os' (/usr/lib/os.py)",
            Some(EnvCause::MissingModule("os".into())),
        ),
        (
            "ImportError",
            "cannot import name 'x' from partially initialized module 'jwt'",
            None,
        ),
        ("ImportError", "something odd", None),
        (
            "LookupError",
            "\n  Resource 'punkt' not found.\n  Please use the NLTK Downloader",
            Some(EnvCause::MissingData("punkt".into())),
        ),
        (
            "LookupError",
            "unknown encoding: foo",
            Some(EnvCause::MissingData("nltk data".into())),
        ), // an nltk task
        (
            "AttributeError",
            "`np.mat` was removed in the NumPy 2.0 release. Use `np.asmatrix` instead.",
            Some(EnvCause::IncompatibleVersion("numpy".into())),
        ),
        (
            "DeprecationError",
            "PdfFileReader is deprecated and was removed in PyPDF2 3.0.0. Use PdfReader instead.",
            Some(EnvCause::IncompatibleVersion("PyPDF2".into())),
        ),
        (
            "AttributeError",
            "'Foo' object has no attribute 'bar'",
            None,
        ),
        (
            "socket.gaierror",
            "[Errno -2] Name or service not known",
            Some(EnvCause::Network),
        ),
        (
            "ConnectionRefusedError",
            "[Errno 111] Connection refused",
            Some(EnvCause::Network),
        ),
        (
            "requests.exceptions.ConnectionError",
            "HTTPSConnectionPool",
            Some(EnvCause::Network),
        ),
        (
            "FileNotFoundError",
            "[Errno 2] No such file or directory: 'data/input.xlsx'",
            Some(EnvCause::MissingData("data/input.xlsx".into())),
        ),
        (
            "FileNotFoundError",
            "[Errno 2] No such file or directory: ''",
            None,
        ),
        ("ValueError", "bad", None),
        ("", "", None),
    ];
    for (exc, msg, want) in cases {
        assert_eq!(env_cause(exc, msg, &c), *want, "{exc}: {msg}");
    }
}

#[test]
fn lookup_error_outside_nltk_tasks_is_the_models() {
    let plain = EnvContext::from_sources(["import os"]);
    assert_eq!(
        env_cause("LookupError", "unknown encoding: foo", &plain),
        None
    );
    assert_eq!(
        env_cause("LookupError", "Resource punkt not found", &plain),
        Some(EnvCause::MissingData("nltk data".into()))
    );
    assert_eq!(
        env_cause("AttributeError", "x was removed in NumPy 2", &plain),
        None
    );
}

#[test]
fn taxonomy_mapping() {
    let cases: &[(&str, ExcKind)] = &[
        ("AttributeError", ExcKind::AttributeError),
        ("TypeError", ExcKind::TypeError),
        ("AssertionError", ExcKind::AssertionError),
        ("ValueError", ExcKind::ValueError),
        ("json.JSONDecodeError", ExcKind::ValueError),
        ("json.decoder.JSONDecodeError", ExcKind::ValueError),
        ("UnicodeDecodeError", ExcKind::ValueError),
        ("NameError", ExcKind::NameError),
        ("UnboundLocalError", ExcKind::NameError),
        ("KeyError", ExcKind::KeyError),
        ("IndexError", ExcKind::IndexError),
        ("ZeroDivisionError", ExcKind::ZeroDivisionError),
        ("decimal.DivisionByZero", ExcKind::ZeroDivisionError),
        ("FileNotFoundError", ExcKind::FileNotFoundError),
        ("ModuleNotFoundError", ExcKind::ImportError),
        ("ImportError", ExcKind::ImportError),
        ("RuntimeError", ExcKind::RuntimeError),
        ("NotImplementedError", ExcKind::RuntimeError),
        ("SyntaxError", ExcKind::SyntaxError),
        ("IndentationError", ExcKind::SyntaxError),
        ("TabError", ExcKind::SyntaxError),
        ("RecursionError", ExcKind::RecursionError),
        ("Timeout", ExcKind::Timeout),
        ("func_timeout.exceptions.FunctionTimedOut", ExcKind::Timeout),
        ("TimeoutError", ExcKind::Timeout),
        ("OSError", ExcKind::Other),
        ("PermissionError", ExcKind::Other),
        ("OverflowError", ExcKind::Other),
        ("LookupError", ExcKind::Other),
        ("sqlite3.OperationalError", ExcKind::Other),
        (" KeyError ", ExcKind::KeyError),
        ("", ExcKind::Other),
        ("...", ExcKind::Other),
    ];
    for (name, want) in cases {
        assert_eq!(exc_kind(name), *want, "{name:?}");
    }
}

#[test]
fn per_method_buckets() {
    use Outcome::*;
    let s = suite(
        vec![
            t("TestAdd.test_1", Pass, None, ""),
            t("TestAdd.test_2", Pass, None, ""),
            t("TestSub.test_1", Fail, Some("AssertionError"), ""),
            t("TestMul.test_1", Pass, None, ""),
            t("TestMul.test_2", NotRun, None, ""),
        ],
        Some(SuiteFailure::Timeout { limit_s: 5.0 }),
    );
    let methods: Vec<(String, String)> = [
        ("add", "TestAdd"),
        ("sub", "TestSub"),
        ("mul", "TestMul"),
        ("div", "TestDiv"),
    ]
    .iter()
    .map(|(m, c)| (m.to_string(), c.to_string()))
    .collect();
    let got: Vec<(String, Option<Bucket>)> =
        classify_methods(&s, &methods, &EnvContext::default(), &Thresholds::default())
            .into_iter()
            .map(|(m, c)| (m, c.bucket))
            .collect();
    assert_eq!(
        got,
        vec![
            ("add".to_string(), Some(Bucket::Perfect)),
            ("sub".to_string(), Some(Bucket::LogicErr)),
            ("mul".to_string(), Some(Bucket::Timeout)),
            // No tests for the method in a suite that timed out: unfinished.
            ("div".to_string(), Some(Bucket::Timeout)),
        ]
    );
    // An import failure judges every method alike.
    let broken = suite(vec![], Some(import("SyntaxError", "invalid syntax")));
    assert!(
        classify_methods(
            &broken,
            &methods,
            &EnvContext::default(),
            &Thresholds::default()
        )
        .iter()
        .all(|(_, c)| c.bucket == Some(Bucket::SyntaxErr))
    );
}

#[test]
fn histograms_and_serde_names() {
    use Outcome::*;
    // T.d's LookupError is the environment's: the reference fails it so here too.
    let c = ctx().with_reference(reference_failing(&[("T.d", Error, Some("LookupError"))]));
    let th = Thresholds::default();
    let mut fp = Fingerprint::default();
    fp.add_suite(
        &suite(
            vec![
                t("T.a", Pass, None, ""),
                t("T.b", Fail, None, ""),
                t("T.c", Error, Some("json.JSONDecodeError"), ""),
                t(
                    "T.d",
                    Error,
                    Some("LookupError"),
                    "Resource 'wordnet' not found",
                ),
            ],
            None,
        ),
        &c,
        &th,
    );
    fp.add_suite(
        &suite(
            vec![t("T.a", NotRun, None, ""), t("T.b", NotRun, None, "")],
            Some(import("ModuleNotFoundError", "No module named 'jwt'")),
        ),
        &c,
        &th,
    );
    fp.add_suite(
        &suite(
            vec![t("T.a", Pass, None, ""), t("T.b", NotRun, None, "")],
            Some(SuiteFailure::Timeout { limit_s: 5.0 }),
        ),
        &c,
        &th,
    );
    assert_eq!(fp.spectrum.get(Bucket::EnvErr), 1);
    assert_eq!(fp.spectrum.get(Bucket::RuntimeErr), 1);
    assert_eq!(fp.spectrum.get(Bucket::Timeout), 1);
    assert_eq!(fp.spectrum.total(), 3);
    assert_eq!(fp.spectrum.model_total(), 1);
    assert_eq!(fp.exceptions.get(ExcKind::AssertionError), 1);
    assert_eq!(fp.exceptions.get(ExcKind::ValueError), 1);
    assert_eq!(fp.exceptions.get(ExcKind::ImportError), 2);
    assert_eq!(fp.exceptions.get(ExcKind::Timeout), 1);
    assert_eq!(fp.env_exceptions.get(ExcKind::Other), 1); // LookupError, kept apart
    let json = serde_json::to_value(&fp).unwrap();
    assert_eq!(json["spectrum"]["SyntaxErr"], 0);
    assert_eq!(json["spectrum"]["EnvErr"], 1);
    assert_eq!(json["spectrum"]["NearPerf"], 0);
    assert_eq!(json["exceptions"]["ImportError"], 2);
    let names: Vec<String> = Bucket::ALL.iter().map(|b| b.as_str().to_string()).collect();
    let keys: Vec<String> = json["spectrum"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(names, keys);
    let back: Fingerprint = serde_json::from_value(json).unwrap();
    assert_eq!(back, fp);
    let kinds: Vec<String> = ExcKind::ALL
        .iter()
        .map(|k| {
            serde_json::to_value(k)
                .unwrap()
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(kinds[9], "ImportError");
    assert_eq!(kinds[13], "Timeout");
    assert_eq!(kinds[14], "Other");
    let sp: Spectrum = [Bucket::Perfect, Bucket::Perfect, Bucket::Fail]
        .into_iter()
        .collect();
    assert_eq!((sp.get(Bucket::Perfect), sp.total()), (2, 3));
}

/// A failing test as the harness reports it, with where it says the exception came from
/// (which classlab no longer believes).
fn at(id: &str, exc: &str, msg: &str, origin: Option<crate::model::Origin>) -> TestResult {
    TestResult {
        origin,
        ..t(id, Outcome::Error, Some(exc), msg)
    }
}

/// The reference's run: `T.a` passes, the given tests fail as given.
fn reference_failing(failing: &[(&str, Outcome, Option<&str>)]) -> ReferenceEvidence {
    let mut tests = vec![t("T.a", Outcome::Pass, None, "")];
    tests.extend(
        failing
            .iter()
            .map(|(id, o, exc)| t(id, *o, *exc, "whatever it said")),
    );
    ReferenceEvidence::of(&suite(tests, None))
}

#[test]
fn env_needs_classlabs_evidence() {
    use crate::model::Origin::*;
    use Outcome::*;
    let th = Thresholds::default();
    let base = ctx().with_missing_modules(["nltk", "jwt"]);
    let with_ref = |r: ReferenceEvidence| base.clone().with_reference(r);
    // The laundering round: an exception the code built, claiming the environment.
    let net = ("ConnectionError", "[Errno 101] Network is unreachable");
    let lookup = ("LookupError", "\n  Resource 'punkt' not found.\n");
    let removed = (
        "AttributeError",
        "`np.mat` was removed in the NumPy 2.0 release.",
    );
    let data = (
        "FileNotFoundError",
        "[Errno 2] No such file or directory: 'data/input.xlsx'",
    );
    let nltk = ("ModuleNotFoundError", "No module named 'nltk'");
    let numpy = ("ModuleNotFoundError", "No module named 'numpy'");
    let jwt = ("ModuleNotFoundError", "No module named 'jwt'");
    let unjudged = (
        "Unjudged",
        "the protocol cannot carry a generator of the tests",
    );
    let none = ReferenceEvidence::default();
    // (name, (exception, message), origin the harness claimed, context, environment's?)
    type Case<'a> = (
        &'a str,
        (&'a str, &'a str),
        Option<crate::model::Origin>,
        EnvContext,
        bool,
    );
    let cases: Vec<Case> = vec![
        (
            "network cause never raised (library)",
            net,
            Some(Library),
            base.clone(),
            false,
        ),
        (
            "network, from the tests",
            net,
            Some(Tests),
            base.clone(),
            false,
        ),
        ("network, no origin", net, None, base.clone(), false),
        (
            "exec'd nltk LookupError",
            lookup,
            Some(Library),
            base.clone(),
            false,
        ),
        (
            "removed-API message",
            removed,
            Some(Library),
            base.clone(),
            false,
        ),
        ("listed data file", data, Some(Tests), base.clone(), false),
        (
            "reference clean",
            net,
            Some(Library),
            with_ref(none.clone()),
            false,
        ),
        (
            "reference fails it the same way",
            net,
            Some(Code),
            with_ref(reference_failing(&[(
                "T.b",
                Error,
                Some("ConnectionError"),
            )])),
            true,
        ),
        (
            "reference fails it, dotted type",
            net,
            Some(Code),
            with_ref(reference_failing(&[(
                "T.b",
                Error,
                Some("requests.exceptions.ConnectionError"),
            )])),
            true,
        ),
        (
            "reference fails it another way",
            net,
            Some(Library),
            with_ref(reference_failing(&[("T.b", Fail, None)])),
            false,
        ),
        (
            "reference fails another test that way",
            net,
            Some(Library),
            with_ref(reference_failing(&[(
                "T.c",
                Error,
                Some("ConnectionError"),
            )])),
            false,
        ),
        (
            "nltk data: the reference's LookupError",
            lookup,
            Some(Code),
            with_ref(reference_failing(&[("T.b", Error, Some("LookupError"))])),
            true,
        ),
        (
            "task module verified missing",
            nltk,
            Some(Code),
            base.clone(),
            true,
        ),
        (
            "task module not verified missing",
            numpy,
            Some(Tests),
            base.clone(),
            false,
        ),
        (
            "missing module only the model imports",
            jwt,
            Some(Code),
            base.clone(),
            false,
        ),
        (
            "Unjudged where the reference passes",
            unjudged,
            None,
            with_ref(none.clone()),
            false,
        ),
        (
            "Unjudged for the reference too",
            unjudged,
            None,
            with_ref(reference_failing(&[("T.b", Error, Some("Unjudged"))])),
            true,
        ),
    ];
    for (name, (exc, msg), origin, c, env) in &cases {
        let failing = at("T.b", exc, msg, *origin);
        let s = suite(vec![t("T.a", Pass, None, ""), failing.clone()], None);
        let got = classify_suite(&s, c, &th);
        let want = if *env { Bucket::EnvErr } else { Bucket::Weak };
        assert_eq!(got.bucket, Some(want), "{name}");
        assert_eq!(got.env_cause.is_some(), *env, "{name}");
        let ex = suite_exceptions(&s, c);
        assert_eq!(
            (ex.model.total(), ex.env.total()),
            if *env { (0, 1) } else { (1, 0) },
            "{name}: taxonomy"
        );
        assert_eq!(test_env_cause(&failing, c).is_some(), *env, "{name}: test");
    }
    // An assertion that depends on the machine (today's date, the hostname, root).
    let dated = ReferenceEvidence::of(&suite(vec![t("T.b", Fail, None, "")], None));
    assert_eq!(dated.failing["T.b"], "AssertionError");
    let c = with_ref(dated);
    let s = suite(
        vec![
            t("T.a", Pass, None, ""),
            t("T.b", Fail, Some("AssertionError"), ""),
        ],
        None,
    );
    assert_eq!(
        classify_suite(&s, &c, &th).env_cause,
        Some(EnvCause::Reference("T.b".into()))
    );
}

#[test]
fn import_failures_need_the_same_evidence() {
    let th = Thresholds::default();
    let base = ctx().with_missing_modules(["nltk"]);
    let reference_import = |exc: &str| {
        base.clone().with_reference(ReferenceEvidence::of(&suite(
            vec![t("T.a", Outcome::NotRun, None, "")],
            Some(import(
                exc,
                "cannot import name 'PdfFileReader' from 'PyPDF2'",
            )),
        )))
    };
    let pdf = import(
        "ImportError",
        "cannot import name 'PdfFileReader' from 'PyPDF2' (/x/PyPDF2/__init__.py)",
    );
    let cases: Vec<(&str, SuiteFailure, EnvContext, Option<Bucket>)> = vec![
        (
            "PyPDF2 3, no evidence",
            pdf.clone(),
            base.clone(),
            Some(Bucket::RuntimeErr),
        ),
        (
            "PyPDF2 3, the reference's import fails too",
            pdf.clone(),
            reference_import("ImportError"),
            Some(Bucket::EnvErr),
        ),
        (
            "the reference's import failed otherwise",
            pdf.clone(),
            reference_import("AttributeError"),
            Some(Bucket::RuntimeErr),
        ),
        (
            "a syntax error is the model's",
            import("SyntaxError", "invalid syntax"),
            reference_import("ImportError"),
            Some(Bucket::SyntaxErr),
        ),
        (
            "a task module verified missing",
            import("ModuleNotFoundError", "No module named 'nltk.stem'"),
            base.clone(),
            Some(Bucket::EnvErr),
        ),
        (
            "network at import, never raised",
            import("ConnectionError", "[Errno 101] Network is unreachable"),
            base.clone(),
            Some(Bucket::RuntimeErr),
        ),
    ];
    for (name, f, c, want) in cases {
        let s = suite(vec![t("T.a", Outcome::NotRun, None, "")], Some(f));
        assert_eq!(classify_suite(&s, &c, &th).bucket, want, "{name}");
    }
    // A reference that could not import explains each test failing with that type.
    let c = reference_import("ImportError");
    let s = suite(
        vec![t("T.a", Outcome::Error, Some("ImportError"), "x")],
        None,
    );
    assert_eq!(classify_suite(&s, &c, &th).bucket, Some(Bucket::EnvErr));
}

#[test]
fn reference_evidence_is_what_the_reference_failed() {
    use Outcome::*;
    let r = ReferenceEvidence::of(&suite(
        vec![
            t("T.a", Pass, None, ""),
            t("T.b", Fail, None, ""),
            t("T.c", Error, Some("nltk.LookupError"), "Resource"),
            t("T.d", NotRun, None, ""),
            t("T.e", Tampered, None, ""),
            t("T.f", Skip, None, ""),
            t("T.g", Xpass, None, ""),
        ],
        None,
    ));
    let failing: Vec<(&str, &str)> = r
        .failing
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        failing,
        [
            ("T.b", "AssertionError"),
            ("T.c", "LookupError"),
            ("T.g", "Xpass")
        ]
    );
    assert_eq!(r.import, None);
    assert!(!r.is_clean());
    assert!(ReferenceEvidence::of(&rate_suite(3, 0)).is_clean());
}

#[test]
fn tampering_is_the_models_failure() {
    use Outcome::*;
    // T.c's LookupError is the environment's (the reference fails it so): still no excuse.
    let c = ctx().with_reference(reference_failing(&[("T.c", Error, Some("LookupError"))]));
    let th = Thresholds::default();
    let tampered = || SuiteFailure::Tampered {
        detail: "the test module was rewritten".into(),
    };
    let env = || {
        t(
            "T.c",
            Error,
            Some("LookupError"),
            "Resource 'wordnet' not found.",
        )
    };
    // (name, suite, passed, judged)
    let cases: Vec<(&str, SuiteResult, usize, usize)> = vec![
        (
            "tampered suite, every test said pass",
            suite(
                vec![t("T.a", Pass, None, ""), t("T.b", Pass, None, "")],
                Some(tampered()),
            ),
            0,
            2,
        ),
        (
            "tampered suite, nothing reported",
            suite(vec![t("T.a", NotRun, None, "")], Some(tampered())),
            0,
            1,
        ),
        (
            "one tampered test among passes",
            suite(
                vec![
                    t("T.a", Pass, None, ""),
                    t("T.b", Tampered, None, ""),
                    t("T.s", Skip, None, ""),
                ],
                None,
            ),
            0,
            2,
        ),
        (
            "tampering beats an environment error",
            suite(
                vec![t("T.a", Tampered, None, "verdict rewritten"), env()],
                None,
            ),
            0,
            2,
        ),
        (
            "tampering beats a timeout",
            suite(
                vec![t("T.a", Tampered, None, ""), t("T.b", NotRun, None, "")],
                Some(SuiteFailure::Timeout { limit_s: 5.0 }),
            ),
            0,
            2,
        ),
    ];
    for (name, s, passed, judged) in cases {
        let got = classify_suite(&s, &c, &th);
        assert_eq!(got.bucket, Some(Bucket::RuntimeErr), "{name}");
        assert_eq!((got.passed, got.judged), (passed, judged), "{name}");
        assert_eq!(got.env_cause, None, "{name}");
        assert!(is_tampered(&s), "{name}");
        assert!(!tampering(&s).is_empty(), "{name}");
        let ex = suite_exceptions(&s, &c);
        assert_eq!(ex.env.total(), 0, "{name}: nothing is the environment's");
        let mut fp = Fingerprint::default();
        fp.add_suite(&s, &c, &th);
        assert_eq!(fp.spectrum.get(Bucket::RuntimeErr), 1, "{name}");
        assert_eq!(fp.spectrum.model_total(), 1, "{name}");
    }
    // Every method of a class with one tampered test is judged on the model.
    let s = suite(
        vec![
            t("TestAdd.test_1", Pass, None, ""),
            t("TestSub.test_1", Tampered, None, ""),
        ],
        None,
    );
    let methods = vec![
        ("add".to_string(), "TestAdd".to_string()),
        ("sub".to_string(), "TestSub".to_string()),
    ];
    assert!(
        classify_methods(&s, &methods, &c, &th)
            .iter()
            .all(|(_, v)| v.bucket == Some(Bucket::RuntimeErr))
    );
    assert_eq!(
        tampering(&suite(vec![t("T.x", Tampered, None, "")], Some(tampered()))),
        vec!["the test module was rewritten".to_string()],
        "the suite's own account says it all"
    );
    let many: Vec<TestResult> = (0..5)
        .map(|i| t(&format!("T.x{i}"), Tampered, None, ""))
        .collect();
    assert_eq!(
        tampering(&suite(many, None)),
        vec![
            "T.x0: verdict tampered with".to_string(),
            "T.x1: verdict tampered with".to_string(),
            "T.x2: verdict tampered with".to_string(),
            "and 2 more tests".to_string()
        ]
    );
    assert!(!is_tampered(&rate_suite(3, 1)));
}

/// Issue 21 item 8: a suite whose last test class timed out ran 21 tests (15 passed) before
/// it; the verdict counts them instead of `0/0`.
#[test]
fn a_timed_out_suite_counts_the_tests_that_ran() {
    use Outcome::*;
    let mut tests = Vec::new();
    for i in 0..15 {
        tests.push(t(&format!("A.test_p{i}"), Pass, None, ""));
    }
    for i in 0..6 {
        tests.push(t(&format!("A.test_f{i}"), Fail, Some("AssertionError"), ""));
    }
    tests.push(t("B.test_slow", Error, Some("Timeout"), ""));
    tests.push(t("B.test_next", NotRun, None, ""));
    tests.push(t("C.test_skip", Skip, None, ""));
    let cut_short = suite(tests.clone(), Some(SuiteFailure::Timeout { limit_s: 5.0 }));
    let c = classify_suite(&cut_short, &ctx(), &Thresholds::default());
    assert_eq!(c.bucket, Some(Bucket::Timeout));
    assert_eq!((c.passed, c.judged), (15, 22));
    // A test that timed out inside a suite that ended normally: the same count.
    tests.retain(|t| t.outcome != NotRun);
    let c = classify_suite(&suite(tests, None), &ctx(), &Thresholds::default());
    assert_eq!(c.bucket, Some(Bucket::Timeout));
    assert_eq!((c.passed, c.judged), (15, 22));
    // A crash before anything ran still counts nothing.
    let c = classify_suite(
        &suite(
            vec![t("A.test_a", NotRun, None, "")],
            Some(SuiteFailure::Memory),
        ),
        &ctx(),
        &Thresholds::default(),
    );
    assert_eq!(
        (c.bucket, c.passed, c.judged),
        (Some(Bucket::RuntimeErr), 0, 0)
    );
}
