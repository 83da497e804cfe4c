use super::*;
use crate::dataset;
use crate::model::Method;

const SKELETON: &str = "import os\n\n\nclass Stack:\n    \"\"\"A stack.\"\"\"\n\n    def __init__(self):\n        self.items = []\n\n    def push(self, x):\n        \"\"\"\n        Push x.\n        :param x: the item\n        >>> s = Stack()\n        >>> s.push(1)\n        >>> s.items\n        [1]\n\n        \"\"\"\n\n    def pop(self):\n        \"\"\"Pop the top.\"\"\"\n";

const SOLUTION: &str = "import os\n\n\nclass Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, x):\n        \"\"\"\n        Push x.\n        :param x: the item\n        >>> s = Stack()\n        >>> s.push(1)\n        >>> s.items\n        [1]\n\n        \"\"\"\n        self.items.append(x)\n\n    def pop(self):\n        return self.items.pop()\n";

const TESTS: &str = "import unittest\nimport os\n\n\nclass StackTestPush(unittest.TestCase):\n    def setUp(self):\n        self.s = Stack()\n\n    def test_push_1(self):\n        self.s.push(1)\n        self.assertEqual(self.s.items, [1])\n\n    def test_push_2(self):\n        self.s.push(2)\n        self.assertEqual(self.s.items, [2])\n\n\nclass StackTestPop(unittest.TestCase):\n    def test_pop_1(self):\n        s = Stack()\n        s.push(1)\n        self.assertEqual(s.pop(), 1)\n\n\nif __name__ == '__main__':\n    unittest.main()\n";

fn class_src(name: &str) -> String {
    let (s, e) = class_range(TESTS, name).unwrap();
    TESTS[s..e].to_string()
}

fn task() -> Task {
    Task {
        id: "T".into(),
        class_name: "Stack".into(),
        skeleton: SKELETON.into(),
        solution: SOLUTION.into(),
        test_module: TESTS.into(),
        test_classes: vec!["StackTestPush".into(), "StackTestPop".into()],
        methods: vec![
            Method {
                name: "push".into(),
                // Indented 4, not 8, as some ClassEval descriptions are.
                description: "def push(self, x):\n    \"\"\"\n    Push x.\n    :param x: the item\n    >>> s = Stack()\n    >>> s.push(1)\n    >>> s.items\n    [1]\n\n    \"\"\"".into(),
                test_class: Some("StackTestPush".into()),
                test_code: class_src("StackTestPush"),
                solution: "def push(self, x):\n        \"\"\"\n        Push x.\n        :param x: the item\n        >>> s = Stack()\n        >>> s.push(1)\n        >>> s.items\n        [1]\n\n        \"\"\"\n        self.items.append(x)".into(),
                annotated: None,
                public_tests: None,
            },
            Method {
                name: "pop".into(),
                description: "def pop(self):\n        \"\"\"Pop the top.\"\"\"".into(),
                test_class: Some("StackTestPop".into()),
                test_code: class_src("StackTestPop"),
                solution: "def pop(self):\n        return self.items.pop()".into(),
                annotated: None,
                public_tests: None,
            },
        ],
        ..Task::default()
    }
}

fn none() -> TaskEdits {
    TaskEdits::default()
}

fn doc(m: &str) -> Target {
    Target::Docstring(m.into())
}

#[test]
fn labels_stems_methods_and_order() {
    let t = task();
    let all = targets(&t);
    assert_eq!(all.len(), 3 + 2 * 3);
    assert_eq!(
        all[..4],
        [
            Target::Skeleton,
            Target::Solution,
            Target::Tests,
            doc("push")
        ]
    );
    let labels: Vec<String> = all.iter().map(Target::label).collect();
    assert_eq!(
        labels[3..6],
        [
            "docstring of push",
            "test class of push",
            "public tests of push"
        ]
    );
    assert_eq!(Target::Skeleton.label(), "skeleton");
    assert_eq!(doc("pop").file_stem(), "pop-docstring");
    assert_eq!(
        Target::TestClass("a/b".into()).file_stem(),
        "a_b-test-class"
    );
    assert_eq!(
        Target::PublicTests("pop".into()).file_stem(),
        "pop-public-tests"
    );
    assert_eq!(Target::Tests.file_stem(), "tests");
    assert_eq!(doc("pop").method(), Some("pop"));
    assert_eq!(Target::Solution.method(), None);
}

#[test]
fn texts_of_each_target() {
    let t = task();
    assert_eq!(
        text(&t, &doc("push")),
        "Push x.\n:param x: the item\n>>> s = Stack()\n>>> s.push(1)\n>>> s.items\n[1]"
    );
    assert_eq!(text(&t, &doc("pop")), "Pop the top.");
    assert_eq!(text(&t, &doc("nope")), "");
    assert_eq!(
        text(&t, &Target::TestClass("pop".into())),
        class_src("StackTestPop")
    );
    assert_eq!(text(&t, &Target::PublicTests("pop".into())), "");
    assert_eq!(text(&t, &Target::Tests), TESTS);
}

#[test]
fn every_target_of_the_sample_and_inline_task_set_to_itself_is_no_edit() {
    let mut tasks = dataset::sample().tasks;
    tasks.push(task());
    for task in &tasks {
        for target in targets(task) {
            let now = text(task, &target);
            let e = set(task, &none(), &target, now).unwrap();
            assert!(e.is_empty(), "{} {}: {e:?}", task.id, target.label());
        }
    }
}

#[test]
fn a_docstring_edit_reaches_skeleton_description_and_solution() {
    let t = task();
    let new = "Push x on top.\n:param x: the item\n    indented more\n>>> s = Stack()";
    // As an editor gives it back: indented, a final newline.
    let typed = format!("\n  {}\n", new.replace('\n', "\n  "));
    let e = set(&t, &none(), &doc("push"), typed).unwrap();
    let edited = e.apply(&t);
    assert_eq!(text(&edited, &doc("push")), new);
    let lit = "\"\"\"\n        Push x on top.\n        :param x: the item\n            indented more\n        >>> s = Stack()\n\n        \"\"\"";
    let old_lit = &SKELETON
        [SKELETON.find("\"\"\"\n        Push").unwrap()..SKELETON.find("    def pop").unwrap() - 2];
    assert_eq!(edited.skeleton, SKELETON.replace(old_lit, lit));
    assert_eq!(edited.solution, SOLUTION.replace(old_lit, lit));
    assert_eq!(
        edited.methods[0].description,
        "def push(self, x):\n    \"\"\"\n    Push x on top.\n    :param x: the item\n        indented more\n    >>> s = Stack()\n\n    \"\"\""
    );
    assert!(
        edited.methods[0]
            .solution
            .contains("Push x on top.\n        :param")
    );
    assert!(edited.methods[0].solution.ends_with("self.items.append(x)"));
    // The other method is untouched.
    assert_eq!(edited.methods[1], t.methods[1]);
    assert_eq!(
        e.fields()
            .iter()
            .map(|(p, _)| p.as_str())
            .collect::<Vec<_>>(),
        [
            "skeleton",
            "solution_code",
            "methods.push.method_description",
            "methods.push.solution_code"
        ]
    );
    // Back to the original text: no edit.
    let back = set(&t, &e, &doc("push"), text(&t, &doc("push"))).unwrap();
    assert!(back.is_empty(), "{back:?}");
}

#[test]
fn a_one_line_docstring_grows_and_the_solution_without_it_is_left_alone() {
    let t = task();
    let e = set(
        &t,
        &none(),
        &doc("pop"),
        "Pop the top.\n:return: the item".into(),
    )
    .unwrap();
    let edited = e.apply(&t);
    assert!(edited.skeleton.ends_with(
        "    def pop(self):\n        \"\"\"Pop the top.\n        :return: the item\n        \"\"\"\n"
    ));
    assert_eq!(
        edited.methods[1].description,
        "def pop(self):\n        \"\"\"Pop the top.\n        :return: the item\n        \"\"\""
    );
    assert_eq!(edited.solution, t.solution);
    assert_eq!(
        text(&edited, &doc("pop")),
        "Pop the top.\n:return: the item"
    );
}

#[test]
fn docstring_errors() {
    let t = task();
    let err = |target: Target, text: &str| set(&t, &none(), &target, text.into()).unwrap_err();
    assert_eq!(err(doc("x"), "a"), "no method named x");
    assert_eq!(
        err(doc("pop"), "  \n"),
        "the docstring of pop cannot be blank"
    );
    assert_eq!(
        err(doc("pop"), "say \"\"\"hi\"\"\""),
        "the docstring of pop cannot contain \"\"\""
    );
    assert!(err(doc("pop"), "say \"hi\"").contains("cannot end with a quote"));
    // A docstring the skeleton breaks (unterminated) is for the skeleton's editing.
    let mut broken = task();
    broken.skeleton = SKELETON.replace("        [1]\n\n        \"\"\"\n", "        [1]\n\n");
    broken.methods[0].description = "def push(self, x):\n        \"\"\"\n        Push x.".into();
    let e = set(&broken, &none(), &doc("push"), "New.".into()).unwrap_err();
    assert!(
        e.starts_with("the docstring of push cannot be edited alone"),
        "{e}"
    );
    assert!(e.ends_with("edit the skeleton"), "{e}");
}

#[test]
fn a_skeleton_edit_carries_docstrings_to_descriptions_and_must_parse() {
    let t = task();
    let skeleton = SKELETON.replace("Pop the top.", "Pop the top item.");
    let e = set(&t, &none(), &Target::Skeleton, skeleton.clone()).unwrap();
    let edited = e.apply(&t);
    assert_eq!(edited.skeleton, skeleton);
    assert_eq!(
        edited.methods[1].description,
        "def pop(self):\n        \"\"\"Pop the top item.\"\"\""
    );
    assert_eq!(edited.methods[0], t.methods[0]);
    let err = set(&t, &none(), &Target::Skeleton, "class Stack(:\n".into()).unwrap_err();
    assert_eq!(err, "the skeleton does not parse: line 1");
    // A broken description is rebuilt from the skeleton.
    let mut broken = task();
    broken.methods[1].description = "def pop(self):\n        \"\"\"Pop".into();
    let e = set(&broken, &none(), &Target::Skeleton, skeleton).unwrap();
    assert_eq!(
        e.apply(&broken).methods[1].description,
        "def pop(self):\n        \"\"\"Pop the top item.\"\"\""
    );
}

#[test]
fn a_description_without_docstring_gets_one() {
    let mut t = task();
    t.methods[1].description = "def pop(self):".into();
    let e = set(&t, &none(), &doc("pop"), "Pop it.".into()).unwrap();
    assert_eq!(
        e.apply(&t).methods[1].description,
        "def pop(self):\n        \"\"\"\n        Pop it.\n        \"\"\""
    );
    t.methods[1].description = "def pop(self):\n        return 1\n".into();
    let e = set(&t, &none(), &doc("pop"), "Pop it.".into()).unwrap();
    assert_eq!(
        e.apply(&t).methods[1].description,
        "def pop(self):\n        \"\"\"\n        Pop it.\n        \"\"\"\n        return 1\n"
    );
}

#[test]
fn a_solution_edit_carries_the_changed_method_solution() {
    let t = task();
    let solution = SOLUTION.replace("return self.items.pop()", "return self.items.pop(-1)");
    let e = set(&t, &none(), &Target::Solution, solution.clone()).unwrap();
    let edited = e.apply(&t);
    assert_eq!(edited.solution, solution);
    assert_eq!(
        edited.methods[1].solution,
        "def pop(self):\n        return self.items.pop(-1)"
    );
    assert_eq!(edited.methods[0], t.methods[0]);
    let err = set(&t, &none(), &Target::Solution, "def (".into()).unwrap_err();
    assert!(err.starts_with("the solution does not parse"), "{err}");
}

#[test]
fn a_test_class_edit_reaches_the_test_module_and_back() {
    let t = task();
    let target = Target::TestClass("pop".into());
    let new = "class StackTestPop(unittest.TestCase):\n    def test_pop_2(self):\n        self.assertEqual(1, 1)\n";
    let e = set(&t, &none(), &target, new.into()).unwrap();
    let edited = e.apply(&t);
    assert_eq!(edited.methods[1].test_code, new.trim_end());
    assert_eq!(
        edited.test_module,
        TESTS.replace(&class_src("StackTestPop"), new.trim_end())
    );
    assert_eq!(edited.methods[0], t.methods[0]);
    // Editing the module: the test class of the changed class follows, the other does not.
    let module = TESTS.replace("self.s.push(2)", "self.s.push(3)");
    let e2 = set(&t, &e, &Target::Tests, module.clone()).unwrap();
    let edited = e2.apply(&t);
    assert_eq!(edited.test_module, module);
    assert!(edited.methods[0].test_code.contains("self.s.push(3)"));
    assert_eq!(edited.methods[1].test_code, t.methods[1].test_code);
    // The module back as it was: no edit at all.
    assert!(
        set(&t, &e2, &Target::Tests, TESTS.into())
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_test_class_is_added_to_the_module_when_it_is_not_there() {
    let mut t = task();
    t.test_module = TESTS.replace(&class_src("StackTestPop"), "");
    let new = "class StackTestPop(unittest.TestCase):\n    def test_pop(self):\n        pass\n";
    let e = set(&t, &none(), &Target::TestClass("pop".into()), new.into()).unwrap();
    let module = e.apply(&t).test_module;
    assert!(
        module.contains(&format!("{}\n\n\nif __name__", new.trim_end())),
        "{module}"
    );
    assert!(parse_module(&module).parses());
}

#[test]
fn test_class_and_test_module_errors() {
    let t = task();
    let tc = Target::TestClass("pop".into());
    let err = |target: &Target, text: &str| set(&t, &none(), target, text.into()).unwrap_err();
    assert_eq!(
        err(&Target::TestClass("x".into()), "class A: pass"),
        "no method named x"
    );
    assert!(err(&tc, "").contains("cannot be blank"));
    assert_eq!(
        err(&tc, "class A(:\n"),
        "the test class of pop does not parse: line 1"
    );
    assert_eq!(err(&tc, "x = 1\n"), "the test class of pop holds no class");
    assert!(
        err(&tc, "class Renamed(unittest.TestCase):\n    pass\n")
            .starts_with("the test class of pop must keep its name StackTestPop"),
    );
    assert_eq!(
        err(&Target::Tests, "class A(:\n"),
        "the tests do not parse: line 1"
    );
}

#[test]
fn public_tests_are_checked_and_blank_removes_them() {
    let t = task();
    let target = Target::PublicTests("pop".into());
    let err = |text: &str| set(&t, &none(), &target, text.into()).unwrap_err();
    assert_eq!(
        err("class A(:\n    pass\n\n"),
        "the public tests of pop do not parse: line 1"
    );
    assert_eq!(
        err("class A:\n    def test_a(self): pass\n"),
        "the public tests of pop hold no unittest.TestCase class"
    );
    assert_eq!(
        err("class A(unittest.TestCase):\n    def helper(self): pass\n"),
        "the public tests of pop have no test method (def test_…)"
    );
    assert_eq!(err("x"), err("x"));
    assert_eq!(
        set(&t, &none(), &Target::PublicTests("x".into()), "".into()).unwrap_err(),
        "no method named x"
    );
    let code = "class StackTestPopPublic(unittest.TestCase):\n    def test_a(self):\n        pass";
    let e = set(&t, &none(), &target, code.into()).unwrap();
    let edited = e.apply(&t);
    assert_eq!(
        edited.methods[1].public_tests.as_deref(),
        Some(&*format!("{code}\n"))
    );
    assert_eq!(text(&edited, &target), format!("{code}\n"));
    // Blank: removed, which for a method that had none is no edit at all.
    let e2 = set(&t, &e, &target, "\n".into()).unwrap();
    assert!(e2.is_empty(), "{e2:?}");
    let mut with = task();
    with.methods[1].public_tests = Some(format!("{code}\n"));
    let e3 = set(&with, &none(), &target, " ".into()).unwrap();
    assert_eq!(e3.apply(&with).methods[1].public_tests, None);
}

#[test]
fn drafting_from_doctests() {
    let t = task();
    let code = draft_from_doctests(&t, "push").unwrap();
    assert!(
        code.contains("class StackTestPushDoctest(unittest.TestCase):"),
        "{code}"
    );
    assert!(code.contains("s.push(1)"), "{code}");
    assert_eq!(draft_from_doctests(&t, "pop"), None);
    assert_eq!(draft_from_doctests(&t, "x"), None);
    // What is drafted is accepted as public tests.
    set(&t, &none(), &Target::PublicTests("push".into()), code).unwrap();
}

#[test]
fn promoting_chosen_private_tests() {
    let t = task();
    assert_eq!(private_tests(&t, "push"), ["test_push_1", "test_push_2"]);
    assert!(private_tests(&t, "x").is_empty());
    let code = promote(&t, "push", &["test_push_2".into()]).unwrap();
    assert_eq!(
        code,
        "import os\n\n\nclass StackTestPush(unittest.TestCase):\n    def setUp(self):\n        self.s = Stack()\n\n    def test_push_2(self):\n        self.s.push(2)\n        self.assertEqual(self.s.items, [2])\n"
    );
    set(&t, &none(), &Target::PublicTests("push".into()), code).unwrap();
    assert_eq!(
        promote(&t, "x", &["a".into()]).unwrap_err(),
        "no method named x"
    );
    assert_eq!(
        promote(&t, "push", &[]).unwrap_err(),
        "choose at least one test of push to promote"
    );
    assert_eq!(
        promote(&t, "push", &["test_nope".into()]).unwrap_err(),
        "the test class of push has no test named test_nope (it has test_push_1, test_push_2)"
    );
    let mut bare = task();
    bare.methods[1].test_class = None;
    bare.methods[1].test_code = String::new();
    assert_eq!(
        promote(&bare, "pop", &["test_pop_1".into()]).unwrap_err(),
        "pop has no private test class"
    );
}

#[test]
fn field_paths_name_targets_and_plain_fields_none() {
    use super::Target as T;
    assert_eq!(T::from_field("skeleton"), Some(T::Skeleton));
    assert_eq!(T::from_field("solution_code"), Some(T::Solution));
    assert_eq!(T::from_field("test"), Some(T::Tests));
    let m = |s: &str| s.to_string();
    assert_eq!(
        T::from_field("methods.pop.docstring"),
        Some(T::Docstring(m("pop")))
    );
    assert_eq!(
        T::from_field("methods.pop.test_code"),
        Some(T::TestClass(m("pop")))
    );
    assert_eq!(
        T::from_field("methods.__len__.public_tests"),
        Some(T::PublicTests(m("__len__")))
    );
    for plain in [
        "class_description",
        "methods.pop.method_description",
        "methods.pop.solution_code",
        "methods.pop",
        "nonsense",
    ] {
        assert_eq!(T::from_field(plain), None, "{plain}");
    }
}
