use super::doctest::py_str;
use super::*;
use crate::model::Method;
use crate::model::camel_case as camel;

const SKELETON: &str = r#"import re


class Counter:
    """Counts things."""

    def __init__(self):
        self.n = 0

    def bump(self, by=1):
        """
        Add to the count and return it.
        >>> c = Counter()
        >>> c.bump()
        1
        >>> c.bump(2)
        3
        >>> c.n
        3
        """

    def names(self):
        """
        >>> c = Counter()
        >>> print('a\nb'.upper())
        A
        B
        >>> c.names()
        ['x', 'y']
        >>> for k in range(2):
        ...     print(k)
        0
        1
        >>> c.fail()
        Traceback (most recent call last):
          ...
        ValueError: no
        >>> c.bad(
        """

    def quiet(self):
        """No examples."""
"#;

const TESTS: &str = r#"import unittest
import os


class CounterTestBump(unittest.TestCase):
    def setUp(self):
        self.c = Counter()

    def test_bump_1(self):
        self.assertEqual(self.c.bump(), 1)

    # a comment about the second test
    def test_bump_2(self):
        self.assertEqual(self.c.bump(2), 2)

    def helper(self):
        return 1

    def test_bump_3(self):
        self.assertEqual(self.c.bump(3), 3)

    def tearDown(self):
        pass


class CounterTestMain(unittest.TestCase):
    def test_main(self):
        pass
"#;

fn method(name: &str, public: Option<&str>) -> Method {
    Method {
        name: name.into(),
        description: String::new(),
        test_class: Some(format!("CounterTest{}", camel(name))),
        test_code: String::new(),
        solution: String::new(),
        annotated: None,
        public_tests: public.map(String::from),
    }
}

fn task() -> Task {
    Task {
        id: "T".into(),
        class_name: "Counter".into(),
        skeleton: SKELETON.into(),
        test_module: TESTS.into(),
        methods: vec![
            method("bump", None),
            method("names", None),
            method("quiet", None),
            method(
                "public",
                Some(
                    "import os\n\nclass CounterTestPublicPublic(unittest.TestCase):\n    def test_a(self):\n        pass\n\n    def test_b(self):\n        pass\n",
                ),
            ),
        ],
        ..Task::default()
    }
}

#[test]
fn modes_parse_and_display() {
    let ok = [
        ("dataset", PublicTestsMode::Dataset),
        ("doctest", PublicTestsMode::Doctest),
        (" Split:3 ", PublicTestsMode::Split(3)),
    ];
    for (text, want) in ok {
        assert_eq!(text.parse::<PublicTestsMode>(), Ok(want));
        assert_eq!(want.to_string().parse::<PublicTestsMode>(), Ok(want));
    }
    for bad in ["split:0", "split:", "split:x", "tests", ""] {
        assert!(bad.parse::<PublicTestsMode>().is_err(), "{bad}");
    }
}

#[test]
fn dataset_public_tests_win_in_every_mode() {
    for mode in [
        PublicTestsMode::Dataset,
        PublicTestsMode::Doctest,
        PublicTestsMode::Split(1),
    ] {
        let p = public_tests(&task(), "public", mode).unwrap();
        assert_eq!(p.source, "dataset");
        assert_eq!(p.class_name, "CounterTestPublicPublic");
        assert_eq!(p.test_names, ["test_a", "test_b"]);
        assert!(!p.seen_private);
        assert_eq!(
            p.ids(),
            [
                "CounterTestPublicPublic.test_a",
                "CounterTestPublicPublic.test_b"
            ]
        );
    }
    assert_eq!(
        public_tests(&task(), "bump", PublicTestsMode::Dataset),
        None
    );
}

#[test]
fn doctest_examples_become_one_test() {
    let p = public_tests(&task(), "bump", PublicTestsMode::Doctest).unwrap();
    assert_eq!(p.source, "doctest");
    assert_eq!(p.class_name, "CounterTestBumpDoctest");
    assert_eq!(p.test_names, ["test_bump_doctest"]);
    assert!(p.code.contains(
        "    def test_bump_doctest(self):\n        c = Counter()\n        self._check_output(lambda: c.bump(), '1')\n        self._check_output(lambda: c.bump(2), '3')\n        self._check_output(lambda: c.n, '3')\n"
    ), "{}", p.code);
    assert!(parse_module(&p.runnable()).parses());
    assert_eq!(p.ids(), ["CounterTestBumpDoctest.test_bump_doctest"]);
}

#[test]
fn doctest_prints_loops_exceptions_and_broken_examples() {
    let p = public_tests(&task(), "names", PublicTestsMode::Doctest).unwrap();
    let want = [
        "        self._check_output(lambda: print('a\\nb'.upper()), 'A\\nB')\n",
        "        self._check_output(lambda: c.names(), \"['x', 'y']\")\n",
        "        with contextlib.redirect_stdout(io.StringIO()) as printed:\n            for k in range(2):\n                print(k)\n        self.assertEqual(printed.getvalue().rstrip(), '0\\n1')\n",
        "        with self.assertRaises(Exception) as caught:\n            c.fail()\n        self.assertEqual(type(caught.exception).__name__, 'ValueError')\n",
    ];
    for w in want {
        assert!(p.code.contains(w), "missing {w:?} in\n{}", p.code);
    }
    assert_eq!(p.notes.len(), 1, "{:?}", p.notes);
    assert!(p.notes[0].contains("syntax error"));
    assert!(parse_module(&p.runnable()).parses());
    // No examples: nothing to run.
    assert_eq!(
        public_tests(&task(), "quiet", PublicTestsMode::Doctest),
        None
    );
    assert_eq!(
        public_tests(&task(), "ghost", PublicTestsMode::Doctest),
        None
    );
}

#[test]
fn split_keeps_the_first_k_tests_and_the_fixtures() {
    let p = public_tests(&task(), "bump", PublicTestsMode::Split(1)).unwrap();
    assert_eq!(p.source, "split");
    assert!(p.seen_private);
    assert_eq!(p.class_name, "CounterTestBump");
    assert_eq!(p.test_names, ["test_bump_1"]);
    assert_eq!(
        p.code,
        "import os\n\n\nclass CounterTestBump(unittest.TestCase):\n    def setUp(self):\n        self.c = Counter()\n\n    def test_bump_1(self):\n        self.assertEqual(self.c.bump(), 1)\n\n    # a comment about the second test\n    def helper(self):\n        return 1\n\n    def tearDown(self):\n        pass\n"
    );
    let all = public_tests(&task(), "bump", PublicTestsMode::Split(10)).unwrap();
    assert_eq!(
        all.test_names,
        ["test_bump_1", "test_bump_2", "test_bump_3"]
    );
    assert!(all.code.contains("def test_bump_3"));
    // No test class for this method.
    assert_eq!(
        public_tests(&task(), "quiet", PublicTestsMode::Split(2)),
        None
    );
}

#[test]
fn python_string_literals() {
    let cases = [
        ("a", "'a'"),
        ("it's", "\"it's\""),
        ("'\"", "'\\'\"'"),
        ("a\\b\nc\t\u{1}", "'a\\\\b\\nc\\t\\x01'"),
        ("é", "'é'"),
    ];
    for (s, want) in cases {
        assert_eq!(py_str(s), want);
    }
}

#[test]
fn examples_from_the_description_when_the_skeleton_lacks_them() {
    let mut t = task();
    t.skeleton = String::new();
    t.methods[0].description =
        "def bump(self):\n        \"\"\"\n        >>> Counter().bump()\n        1\n        \"\"\""
            .into();
    let p = public_tests(&t, "bump", PublicTestsMode::Doctest).unwrap();
    assert!(
        p.code
            .contains("self._check_output(lambda: Counter().bump(), '1')")
    );
}

#[test]
fn doctest_mends_split_statements_and_missing_set_up() {
    let skeleton = r#"class Grid:
    def __init__(self, size):
        self.size = size

    def cells(self):
        """
        >>> g = Grid(2)
        >>> g.cells()
        4
        """

    def rows(self):
        """
        >>> g.rows()
        2
        >>> table = [
        >>>     1,
        >>>     2]
        >>> for r in table:
        >>>     print(r)
        1
        2
        >>> for r in table:
        """
"#;
    let mut t = task();
    t.class_name = "Grid".into();
    t.skeleton = skeleton.into();
    t.methods = vec![method("cells", None), method("rows", None)];
    let p = public_tests(&t, "rows", PublicTestsMode::Doctest).unwrap();
    assert!(
        p.code.ends_with(
            "    def test_rows_doctest(self):\n        g = Grid(2)  # set-up the examples assume\n        self._check_output(lambda: g.rows(), '2')\n        table = [\n            1,\n            2]\n        with contextlib.redirect_stdout(io.StringIO()) as printed:\n            for r in table:\n                print(r)\n        self.assertEqual(printed.getvalue().rstrip(), '1\\n2')\n"
        ),
        "{}",
        p.code
    );
    assert_eq!(p.notes.len(), 2, "{:?}", p.notes);
    assert!(
        p.notes[0].contains("a block without a body"),
        "{:?}",
        p.notes
    );
    assert!(p.notes[1].contains("`g` is used but never created"));
    // A constructor without required arguments: `Counter()`.
    let mut t = task();
    t.skeleton = t
        .skeleton
        .replace(">>> c = Counter()\n        >>> c.bump()", ">>> c.bump()");
    let p = public_tests(&t, "bump", PublicTestsMode::Doctest).unwrap();
    assert!(
        p.code
            .contains("        c = Counter()  # set-up the examples assume\n"),
        "{}",
        p.code
    );
}

#[test]
fn no_panic_on_garbage_tasks() {
    let garbage = [
        "",
        "class",
        "class Counter:\n    def bump(self):\n        \"\"\"\n        >>>\n        >>> (\n        ...\n        \"\"\"\n",
        "class Counter:\n    def bump(self):\n        '''>>> x = \n>>> Traceback (most recent call last):\n'''",
        "\u{0}>>> é",
    ];
    for text in garbage {
        let mut t = task();
        t.skeleton = text.into();
        t.test_module = text.into();
        t.methods[0].description = text.into();
        t.methods[0].test_code = text.into();
        for mode in [
            PublicTestsMode::Dataset,
            PublicTestsMode::Doctest,
            PublicTestsMode::Split(1),
        ] {
            let _ = public_tests(&t, "bump", mode);
        }
    }
}

#[test]
fn without_cuts_the_tests_named_and_keeps_the_rest_runnable() {
    let tests = from_dataset(
        "import json\n\n\nclass ATest(unittest.TestCase):\n    def setUp(self):\n        self.x = 1\n\n    def test_one(self):\n        self.assertEqual(self.x, 1)\n\n    def test_two(self):\n        self.assertEqual(self.x, 2)\n\n\nclass BTest(unittest.TestCase):\n    def test_three(self):\n        self.assertTrue(True)\n",
    )
    .unwrap();
    assert_eq!(
        tests.ids(),
        ["ATest.test_one", "ATest.test_two", "BTest.test_three"]
    );
    // (dropped, ids left)
    let cases: [(&[&str], &[&str]); 4] = [
        (
            &[],
            &["ATest.test_one", "ATest.test_two", "BTest.test_three"],
        ),
        (&["ATest.test_two"], &["ATest.test_one", "BTest.test_three"]),
        (&["BTest.test_three"], &["ATest.test_one", "ATest.test_two"]),
        (&["ATest.test_one", "ATest.test_two"], &["BTest.test_three"]),
    ];
    for (drop, want) in cases {
        let kept = tests.without(&|id| drop.contains(&id)).unwrap();
        assert_eq!(kept.ids(), want, "{drop:?}:\n{}", kept.code);
        assert!(kept.code.contains("import json"), "{}", kept.code);
        assert!(
            parse_module(&kept.runnable()).parses(),
            "it parses:\n{}",
            kept.code
        );
    }
    // A class left without its only test still parses; nothing left at all is `None`.
    let only_a = tests.without(&|id| id.starts_with("BTest")).unwrap();
    assert!(only_a.code.contains("class BTest"), "{}", only_a.code);
    assert!(tests.without(&|_| true).is_none());
}
