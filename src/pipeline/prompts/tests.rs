use super::*;

const SKELETON: &str = "import re\n\nclass Shop:\n    def __init__(self):\n        self.items = []\n\n    def add(self, item):\n        \"\"\"Add an item.\"\"\"\n\n    def total(self):\n        \"\"\"Sum of prices; calls self.add.\"\"\"\n";
const STUB: &str = "def total(self):\n    \"\"\"Sum of prices.\"\"\"\n";

fn results() -> Vec<TestResult> {
    let mut failing = TestResult::new("ShopTestTotal.test_total_1", Outcome::Error);
    failing.exc_type = Some("AttributeError".into());
    failing.message = Some("'Shop' object has no attribute 'prices'".into());
    failing.traceback = Some(
        (1..=40)
            .map(|i| format!("line {i}"))
            .collect::<Vec<_>>()
            .join("\n"),
    );
    vec![
        TestResult::new("ShopTestTotal.test_total_0", Outcome::Pass),
        failing,
    ]
}

/// The first of three repair rounds of `Shop.total`, after the suite gave `results`.
fn repair_of_total(results: &[TestResult]) -> RepairContext<'_> {
    RepairContext {
        class_name: "Shop",
        partial_class: SKELETON,
        method_name: "total",
        signature_and_docstring: STUB,
        method_code: "def total(self):\n    return sum(self.prices)\n",
        public_tests: None,
        results,
        suite_error: None,
        round: 1,
        max_rounds: 3,
    }
}

/// Every prompt rendered with a sample context.
fn render_all(p: &Prompts) -> Vec<(&'static str, Vec<Message>)> {
    let results = results();
    let methods = ["__init__", "add", "total"];
    vec![
        (
            "dependency_analysis",
            p.dependency_analysis(&DependencyContext {
                class_name: "Shop",
                skeleton: SKELETON,
                methods: &methods,
            }),
        ),
        (
            "method",
            p.method(&MethodContext {
                class_name: "Shop",
                partial_class: SKELETON,
                method_name: "total",
                signature_and_docstring: STUB,
                public_tests: Some("class ShopTestTotalPublic(unittest.TestCase):\n    pass\n"),
            }),
        ),
        ("repair", p.repair(&repair_of_total(&results))),
        (
            "holistic",
            p.holistic(&HolisticContext {
                class_name: "Shop",
                skeleton: SKELETON,
            }),
        ),
        (
            "incremental",
            p.incremental(&IncrementalContext {
                class_name: "Shop",
                partial_class: SKELETON,
                method_name: "total",
                signature_and_docstring: STUB,
            }),
        ),
        (
            "compositional",
            p.compositional(&CompositionalContext {
                class_name: "Shop",
                skeleton: SKELETON,
                method_name: "total",
                signature_and_docstring: STUB,
            }),
        ),
    ]
    .into_iter()
    .map(|(n, r)| (n, r.unwrap_or_else(|e| panic!("{n}: {e}"))))
    .collect()
}

#[test]
fn every_embedded_template_renders_deterministically() {
    let p = Prompts::embedded();
    let first = render_all(&p);
    assert_eq!(
        first.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        names().to_vec()
    );
    for (name, messages) in &first {
        assert_eq!(messages.len(), 2, "{name}");
        assert_eq!(messages[0].role, "system");
        assert_eq!(messages[1].role, "user");
        let user = &messages[1].content;
        assert!(user.contains("Shop"), "{name}");
        assert!(
            !user.contains("{{") && !user.contains("{%"),
            "{name}: {user}"
        );
        assert!(
            !user.contains("\n\n\n"),
            "{name}: triple newline in\n{user}"
        );
        assert_eq!(p.origin(name), Some("embedded"));
    }
    assert_eq!(render_all(&Prompts::embedded()), first, "not deterministic");
    assert_eq!(p.fingerprint(), Prompts::embedded().fingerprint());
    assert_eq!(p.fingerprint().len(), 64);
}

#[test]
fn prompts_say_what_the_method_asks() {
    let all = render_all(&Prompts::embedded());
    let user = |name: &str| {
        all.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, m)| m[1].content.clone())
            .unwrap_or_default()
    };
    let deps = user("dependency_analysis");
    assert!(deps.contains("- `add`\n- `total`\n"), "{deps}");
    assert!(!deps.contains("- `__init__`"));
    assert!(deps.ends_with(
        "{\"dependencies\": {\"<method>\": [\"<prerequisite method>\", ...], ...}, \"order\": [\"<method>\", ...]}"
    ));
    let method = user("method");
    assert!(method.contains("It must pass these tests:\n\n```python\nclass ShopTestTotalPublic"));
    let repair = user("repair");
    assert!(
        repair.contains("- `ShopTestTotal.test_total_1`: error, AttributeError\n"),
        "{repair}"
    );
    assert!(repair.contains("Message: 'Shop' object has no attribute 'prices'"));
    assert!(repair.contains("… (15 lines cut)\nline 16\n"), "{repair}");
    assert!(!repair.contains("test_total_0"));
    assert!(!repair.contains("Its tests:"));
    for heading in [
        "### Failure analysis",
        "### Code region",
        "### Repair plan",
        "### Patch",
    ] {
        assert!(repair.contains(heading), "{heading}");
    }
}

#[test]
fn an_override_directory_wins() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("method.jinja"),
        "notes\n---system---\nSYS {{ class_name }}\n---user---\nUSER {{ method_name }}\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("methdo.jinja"), "---user---\nx").unwrap();
    std::fs::write(dir.path().join("README.md"), "not a template").unwrap();
    let p = Prompts::load(Some(dir.path())).unwrap();
    let m = p
        .method(&MethodContext {
            class_name: "Shop",
            partial_class: "",
            method_name: "total",
            signature_and_docstring: "",
            public_tests: None,
        })
        .unwrap();
    assert_eq!(
        m,
        vec![Message::system("SYS Shop"), Message::user("USER total")]
    );
    let path = dir.path().join("method.jinja").display().to_string();
    assert_eq!(p.origin("method"), Some(path.as_str()));
    assert_eq!(p.origin("repair"), Some("embedded"));
    assert_ne!(p.fingerprint(), Prompts::embedded().fingerprint());
    assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
    assert!(p.warnings[0].contains("methdo.jinja"));
}

#[test]
fn errors_name_the_file_and_line() {
    let cases: [(&str, &str, Option<usize>); 3] = [
        // Syntax error on file line 5.
        (
            "notes\n---system---\nS\n---user---\n{% if x %}\nno endif\n",
            "unexpected end",
            Some(6),
        ),
        // A name the context lacks, printed on file line 4.
        (
            "---system---\nS\n---user---\nhello {{ nope }}\n",
            "undefined",
            Some(4),
        ),
        ("---system---\nno user part\n", "no `---user---` line", None),
    ];
    for (text, want, line) in cases {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("holistic.jinja");
        std::fs::write(&path, text).unwrap();
        let err = Prompts::from_dir(dir.path()).and_then(|p| {
            p.holistic(&HolisticContext {
                class_name: "A",
                skeleton: "",
            })
        });
        let err = err.expect_err(text);
        let shown = err.to_string();
        assert!(shown.contains(&path.display().to_string()), "{shown}");
        assert!(shown.to_lowercase().contains(want), "{shown}");
        if let Some(line) = line {
            assert!(
                matches!(err, PromptError::Template { line: Some(l), .. } if l == line),
                "{err:?}"
            );
        }
    }
    assert!(Prompts::from_dir(Path::new("/nonexistent/classlab/prompts")).is_err());
}

#[test]
fn no_system_part_means_no_system_message() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("holistic.jinja"),
        "---user---\nonly {{ class_name }}\n",
    )
    .unwrap();
    let p = Prompts::from_dir(dir.path()).unwrap();
    let m = p
        .holistic(&HolisticContext {
            class_name: "A",
            skeleton: "",
        })
        .unwrap();
    assert_eq!(m, vec![Message::user("only A")]);
}

#[test]
fn tracebacks_and_messages_are_trimmed() {
    assert_eq!(trim_traceback("a\nb\nc\n", 5), "a\nb\nc");
    assert_eq!(trim_traceback("a\nb\nc", 2), "… (1 lines cut)\nb\nc");
    assert_eq!(cap_chars("héllo", 2), "hé … (3 more characters)");
    assert_eq!(cap_chars("hé", 2), "hé");
}

#[test]
fn tampered_tests_are_among_the_failing_ones() {
    let mut results = results();
    let mut forged = TestResult::new("ShopTestTotal.test_total_2", Outcome::Tampered);
    forged.message = Some("result record forged".into());
    results.push(forged);
    results.push(TestResult::new("ShopTestTotal.test_total_3", Outcome::Skip));
    let messages = Prompts::embedded()
        .repair(&repair_of_total(&results))
        .unwrap();
    let text: String = messages.iter().map(|m| m.content.as_str()).collect();
    assert!(text.contains("ShopTestTotal.test_total_2"), "{text}");
    assert!(text.contains("tampered with"), "{text}");
    assert!(text.contains("result record forged"), "{text}");
    assert!(text.contains("ShopTestTotal.test_total_1"), "{text}");
    assert!(
        !text.contains("ShopTestTotal.test_total_3"),
        "a skip is no failure"
    );
    assert!(
        !text.contains("ShopTestTotal.test_total_0"),
        "a pass is no failure"
    );
}
