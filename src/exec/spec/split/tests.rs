use super::*;
use std::path::PathBuf;

fn dirs() -> SplitDirs {
    SplitDirs {
        tests: PathBuf::from("/t"),
        code: PathBuf::from("/c"),
        scratch: PathBuf::from("/s"),
    }
}

#[test]
fn sources_reach_python_in_chunks_below_the_argument_limit() {
    for source in [SPLIT_RUNNER, HOST] {
        let argv = python_argv(source, "{}");
        assert_eq!(argv[..3], ["-c", BOOT, "{}"]);
        assert!(
            argv[3..].iter().all(|a| a.len() <= 128 * 1024),
            "a chunk too long"
        );
        assert_eq!(argv[3..].concat(), source);
        assert!(argv[3..argv.len() - 1].iter().all(|a| a.ends_with('\n')));
    }
    assert!(
        SPLIT_RUNNER.len() > 128 * 1024,
        "the runner needs chunks at all"
    );
    let odd = "é".repeat(60_000); // no newline: cut at character boundaries
    let argv = python_argv(&odd, "{}");
    assert_eq!(argv[3..].concat(), odd);
}

#[test]
fn one_module_layout_splits_into_code_and_tests_and_back() {
    let code = "import math\n\nclass A:\n    x = 1\n";
    let tests = "import unittest\n\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(A.x, 1)\n";
    let inproc = SuiteSpec::unittest_one_module(code, tests);
    let split = inproc.clone().with_harness(Harness::Split);
    assert_eq!(split.harness, Harness::Split);
    assert_eq!(split.globals_module.as_deref(), Some(GLOBALS_MODULE));
    assert_eq!(
        split.files,
        [
            ("code_module.py".to_string(), code.to_string()),
            ("test_classeval.py".to_string(), tests.to_string())
        ]
    );
    assert_eq!(split.code[0].file, "code_module.py");
    assert_eq!(split.code[0].last, Some(4));
    assert_eq!(split.expected, inproc.expected);
    assert_eq!(split.placement("code_module.py"), Placement::Code);
    assert_eq!(split.placement("test_classeval.py"), Placement::Tests);
    assert_eq!(split.placement("data.json"), Placement::Data);
    let back = split.with_harness(Harness::Inproc);
    assert_eq!(back, inproc);
}

#[test]
fn separate_modules_keep_their_layout() {
    let spec = SuiteSpec::pytest_snippet(
        "snippet_1",
        "class G: pass\n",
        "tests/test_snippet_1.py",
        "def test_a(): pass\n",
    )
    .with_harness(Harness::Split);
    assert_eq!(spec.files.len(), 2);
    assert_eq!(spec.globals_module, None);
    assert_eq!(spec.placement("snippet_1.py"), Placement::Code);
    assert_eq!(spec.placement("tests/test_snippet_1.py"), Placement::Tests);
}

#[test]
fn specs_name_the_directories_and_the_host_never_the_tests() {
    let spec = SuiteSpec::unittest_one_module("class A: pass\n", "import unittest\n")
        .with_harness(Harness::Split);
    let runner: serde_json::Value = serde_json::from_str(&spec.runner_spec_json(&dirs())).unwrap();
    assert_eq!(runner["harness"], "split");
    assert_eq!(runner["tests_dir"], "/t");
    assert_eq!(runner["code_dir"], "/c");
    assert_eq!(runner["scratch"], "/s");
    assert_eq!(runner["host_fd"], 5);
    assert_eq!(runner["test_module"], "test_classeval");
    assert_eq!(runner["globals_module"], "code_module");
    let host_text = spec.host_spec_json(&dirs());
    let host: serde_json::Value = serde_json::from_str(&host_text).unwrap();
    assert_eq!(host["code_modules"], serde_json::json!(["code_module"]));
    assert_eq!(host["sys_path"], serde_json::json!(["/c", "/s"]));
    assert_eq!(host["host_fd"], 3);
    assert!(!host_text.contains("/t") && !host_text.contains("test_classeval"));
    // The host imports the code as it starts, held to the runner's limit for that import.
    assert_eq!(host["import_timeout"], serde_json::Value::Null);
    let limits = |import, test| super::super::Limits {
        import_timeout: import,
        test_timeout: test,
        ..super::super::Limits::default()
    };
    let secs = std::time::Duration::from_secs;
    for (import, test, want) in [
        (Some(secs(30)), Some(secs(5)), 30.0),
        (None, Some(secs(5)), 5.0),
    ] {
        let host: serde_json::Value = serde_json::from_str(
            &spec
                .clone()
                .with_limits(limits(import, test))
                .host_spec_json(&dirs()),
        )
        .unwrap();
        assert_eq!(host["import_timeout"], want);
    }
}

#[test]
fn specs_from_before_split_mode_read_as_inproc() {
    let spec = SuiteSpec::unittest_one_module("class A: pass\n", "import unittest\n");
    let mut v = serde_json::to_value(&spec).unwrap();
    let obj = v.as_object_mut().unwrap();
    obj.remove("harness");
    obj.remove("globals_module");
    let old: SuiteSpec = serde_json::from_value(v).unwrap();
    assert_eq!(old.harness, Harness::Inproc);
    assert_eq!(old, spec);
}
