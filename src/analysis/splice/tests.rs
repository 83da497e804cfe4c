use super::*;
use crate::analysis::parse::parse_module;
use crate::model::Method;

const MODULE: &str = "import os\n\n\nclass Shop:\n    \"\"\"A shop.\"\"\"\n\n    def __init__(self):\n        self.items = []\n\n    def add(self, item):\n        \"\"\"Add an item.\"\"\"\n\n    @staticmethod\n    def price(x):\n        \"\"\"Price of x.\"\"\"\n\n    def __secret(self):\n        \"\"\"Hidden.\"\"\"\n\n    class Inner:\n        def add(self):\n            return 'inner'\n\n    def total(self):\n        return len(self.items)  # count\n\n\ndef helper():\n    return 1\n";

/// Everything before `old` and after it is unchanged; what replaced it is `new`.
fn assert_replaced(module: &str, out: &str, old: &str, new: &str) {
    let start = module.find(old).expect("old text in module");
    let end = start + old.len();
    assert_eq!(&out[..start], &module[..start], "prefix changed");
    assert_eq!(
        &out[out.len() - (module.len() - end)..],
        &module[end..],
        "suffix changed"
    );
    assert_eq!(&out[start..out.len() - (module.len() - end)], new);
}

fn parses(src: &str) -> bool {
    parse_module(src).parses()
}

#[test]
fn replaces_a_skeleton_method_keeping_every_other_byte() {
    let cases: [(&str, &str, &str, &str); 4] = [
        (
            "bare method at column 0",
            "def add(self, item):\n    \"\"\"Add an item.\"\"\"\n    self.items.append(item)\n",
            "def add(self, item):\n        \"\"\"Add an item.\"\"\"\n",
            "def add(self, item):\n        \"\"\"Add an item.\"\"\"\n        self.items.append(item)\n",
        ),
        (
            "indented by 8 with a leading comment",
            "        # the fix\n        def add(self, item):\n            self.items.append(item)\n",
            "def add(self, item):\n        \"\"\"Add an item.\"\"\"\n",
            "def add(self, item):\n        self.items.append(item)\n",
        ),
        (
            "decorated static method",
            "@staticmethod\ndef price(x):\n    return x * 2\n",
            "@staticmethod\n    def price(x):\n        \"\"\"Price of x.\"\"\"\n",
            "@staticmethod\n    def price(x):\n        return x * 2\n",
        ),
        (
            "name-mangled method",
            "def __secret(self):\n    return 42\n",
            "def __secret(self):\n        \"\"\"Hidden.\"\"\"\n",
            "def __secret(self):\n        return 42\n",
        ),
    ];
    for (what, method, old, new) in cases {
        let out = splice_method(MODULE, "Shop", method).unwrap_or_else(|e| panic!("{what}: {e}"));
        // The old text ends at the method's last token; the newline after it is kept.
        let old = old.trim_end_matches('\n');
        let new = new.trim_end_matches('\n');
        assert_replaced(MODULE, &out, old, new);
        assert!(parses(&out), "{what}:\n{out}");
    }
}

#[test]
fn nested_class_method_of_the_same_name_is_untouched() {
    let out = splice_method(MODULE, "Shop", "def add(self, item):\n    return 1\n").unwrap();
    assert!(out.contains("        def add(self):\n            return 'inner'\n"));
    assert_eq!(out.matches("def add(").count(), 2);
    assert!(out.contains("    def add(self, item):\n        return 1\n"));
}

#[test]
fn appends_a_missing_method_after_the_last_statement() {
    let out = splice_method(MODULE, "Shop", "def clear(self):\n    self.items = []\n").unwrap();
    let anchor = "return len(self.items)  # count";
    let at = MODULE.find(anchor).unwrap() + anchor.len();
    assert_eq!(&out[..at], &MODULE[..at]);
    let added = "\n\n    def clear(self):\n        self.items = []";
    assert_eq!(&out[at..at + added.len()], added);
    assert_eq!(&out[at + added.len()..], &MODULE[at..]);
    assert!(parses(&out));
}

#[test]
fn tabs_in_the_module_convert_the_method_indentation() {
    let module = "class A:\n\tdef f(self):\n\t\tpass\n\n\tdef g(self):\n\t\tpass\n";
    let method = "def f(self):\n    if self:\n        return 1\n    return 2\n";
    let out = splice_method(module, "A", method).unwrap();
    assert_eq!(
        out,
        "class A:\n\tdef f(self):\n\t\tif self:\n\t\t\treturn 1\n\t\treturn 2\n\n\tdef g(self):\n\t\tpass\n"
    );
    // And the reverse: a tab-indented method into a 4-space class.
    let module = "class A:\n    def f(self):\n        pass\n";
    let out = splice_method(module, "A", "def f(self):\n\tif self:\n\t\treturn 1\n").unwrap();
    assert_eq!(
        out,
        "class A:\n    def f(self):\n        if self:\n            return 1\n"
    );
}

#[test]
fn crlf_module_gets_crlf_method() {
    let module =
        "class A:\r\n    def f(self):\r\n        pass\r\n\r\n    def g(self):\r\n        pass\r\n";
    let out = splice_method(module, "A", "def f(self):\n    return 1\n").unwrap();
    assert_eq!(
        out,
        "class A:\r\n    def f(self):\r\n        return 1\r\n\r\n    def g(self):\r\n        pass\r\n"
    );
    let out = splice_method(module, "A", "def h(self):\r\n    return 2\r\n").unwrap();
    assert!(
        out.ends_with("        pass\r\n\r\n    def h(self):\r\n        return 2\r\n"),
        "{out:?}"
    );
}

#[test]
fn multiline_strings_keep_their_content_docstrings_follow_the_code() {
    let method = "def f(self):\n    \"\"\"Doc\n    more.\n    \"\"\"\n    text = \"\"\"a\n  b\nc\"\"\"\n    return text\n";
    let out = splice_method("class A:\n    def f(self):\n        pass\n", "A", method).unwrap();
    assert_eq!(
        out,
        "class A:\n    def f(self):\n        \"\"\"Doc\n        more.\n        \"\"\"\n        text = \"\"\"a\n  b\nc\"\"\"\n        return text\n"
    );
}

#[test]
fn property_setter_replaces_the_setter() {
    let module = "class A:\n    @property\n    def x(self):\n        return 1\n\n    @x.setter\n    def x(self, v):\n        pass\n";
    let out = splice_method(module, "A", "@x.setter\ndef x(self, v):\n    self._x = v\n").unwrap();
    assert!(out.contains("@property\n    def x(self):\n        return 1\n"));
    assert!(out.ends_with("@x.setter\n    def x(self, v):\n        self._x = v\n"));
}

#[test]
fn splice_errors_say_what_is_wrong() {
    let cases: [(&str, &str, &str, SpliceError); 5] = [
        (
            "class A:\n    pass\n",
            "B",
            "def f(self):\n    pass\n",
            SpliceError::ClassNotFound("B".into()),
        ),
        (
            "class A:\n    pass\n",
            "A",
            "x = 1\n",
            SpliceError::NoFunction,
        ),
        (
            "class A:\n    pass\n",
            "A",
            "   \n# only a comment\n",
            SpliceError::NoFunction,
        ),
        (
            "class A:\n    pass\n",
            "A",
            "def f(self):\n    x = 1\n    return (x +\n",
            SpliceError::MethodSyntax { line: 3 },
        ),
        (
            "class A: pass\n",
            "A",
            "def f(self):\n    pass\n",
            SpliceError::InlineBody("A".into()),
        ),
    ];
    for (module, class, method, want) in cases {
        let got = splice_method(module, class, method);
        match (&got, &want) {
            (Err(SpliceError::MethodSyntax { line }), SpliceError::MethodSyntax { .. }) => {
                assert!((2..=4).contains(line), "{got:?}")
            }
            _ => assert_eq!(got, Err(want.clone())),
        }
        if let Err(e) = got {
            assert!(!e.to_string().is_empty());
        }
    }
}

#[test]
fn method_from_reply_finds_the_method_in_any_shape() {
    let want = "@staticmethod\ndef price(x):\n    \"\"\"P.\"\"\"\n    return x * 2\n";
    let cases: [(&str, &str); 5] = [
        (
            "bare",
            "@staticmethod\ndef price(x):\n    \"\"\"P.\"\"\"\n    return x * 2\n",
        ),
        (
            "class wrapper",
            "class Shop:\n    @staticmethod\n    def price(x):\n        \"\"\"P.\"\"\"\n        return x * 2\n",
        ),
        (
            "module with imports and other methods",
            "import math\n\nclass Shop:\n    def __init__(self):\n        pass\n\n    def other(self):\n        def price(y):\n            return 0\n        return price(1)\n\n    @staticmethod\n    def price(x):\n        \"\"\"P.\"\"\"\n        return x * 2\n\n    def after(self):\n        pass\n",
        ),
        (
            "indented bare",
            "    @staticmethod\n    def price(x):\n        \"\"\"P.\"\"\"\n        return x * 2\n",
        ),
        (
            "crlf",
            "@staticmethod\r\ndef price(x):\r\n    \"\"\"P.\"\"\"\r\n    return x * 2\r\n",
        ),
    ];
    for (what, code) in cases {
        assert_eq!(
            method_from_reply(code, "price").as_deref(),
            Some(want),
            "{what}"
        );
    }
    assert_eq!(method_from_reply("def other():\n    pass\n", "price"), None);
    assert_eq!(method_from_reply("", "price"), None);
    assert_eq!(
        method_from_reply("def pricey(self):\n    pass\n", "price"),
        None
    );
}

#[test]
fn broken_method_comes_back_whole_for_the_splice_to_report() {
    let code = "class A:\n    def f(self):\n        x = = 1\n        return x\n\n    def g(self):\n        pass\n";
    let got = method_from_reply(code, "f").unwrap();
    assert_eq!(got, "def f(self):\n    x = = 1\n    return x\n");
    let err = splice_method("class A:\n    pass\n", "A", &got).unwrap_err();
    assert!(
        matches!(err, SpliceError::MethodSyntax { line: 2 }),
        "{err:?}"
    );
}

#[test]
fn imports_are_listed_and_merged() {
    assert_eq!(
        imports_of("import os\nfrom a import (\n    b,\n)\nclass A:\n    import sys\n"),
        ["import os", "from a import (\n    b,\n)"]
    );
    let cases: [(&str, &str, &[&str], &str); 6] = [
        (
            "after the last import",
            "import os\nimport re  # regex\n\nclass A:\n    pass\n",
            &["import  os", "import json"],
            "import os\nimport re  # regex\nimport json\n\nclass A:\n    pass\n",
        ),
        (
            "at the top",
            "class A:\n    pass\n",
            &["import json"],
            "import json\n\nclass A:\n    pass\n",
        ),
        (
            "after the module docstring",
            "\"\"\"Doc.\"\"\"\nclass A:\n    pass\n",
            &["import json"],
            "\"\"\"Doc.\"\"\"\n\nimport json\nclass A:\n    pass\n",
        ),
        (
            "nothing missing",
            "import os\n",
            &["import os"],
            "import os\n",
        ),
        ("empty module", "", &["import a", "import a"], "import a\n"),
        (
            "crlf",
            "import os\r\nx = 1\r\n",
            &["import re"],
            "import os\r\nimport re\r\nx = 1\r\n",
        ),
    ];
    for (what, module, imports, want) in cases {
        let imports: Vec<String> = imports.iter().map(|s| s.to_string()).collect();
        assert_eq!(merge_imports(module, &imports), want, "{what}");
    }
}

fn task(skeleton: &str, description: &str) -> Task {
    Task {
        class_name: "A".into(),
        skeleton: skeleton.into(),
        methods: vec![Method {
            name: "f".into(),
            description: description.into(),
            test_class: None,
            test_code: String::new(),
            solution: String::new(),
            annotated: None,
            public_tests: None,
        }],
        ..Task::default()
    }
}

#[test]
fn method_stub_takes_signature_and_docstring() {
    let skeleton = "import os\n\nclass A:\n    def __init__(self):\n        self.x = 1\n\n    @staticmethod\n    def f(a,\n          b):\n        \"\"\"Do f.\n        >>> A.f(1, 2)\n        3\n        \"\"\"\n";
    let want = "@staticmethod\ndef f(a,\n      b):\n    \"\"\"Do f.\n    >>> A.f(1, 2)\n    3\n    \"\"\"\n";
    assert_eq!(method_stub(&task(skeleton, ""), "f").as_deref(), Some(want));
    // Not in the skeleton: the dataset's description (ClassEval layout).
    let desc = "def f(self):\n        \"\"\"Doc.\"\"\"";
    assert_eq!(
        method_stub(&task("", desc), "f").as_deref(),
        Some("def f(self):\n    \"\"\"Doc.\"\"\"\n")
    );
    let no_doc = "class A:\n    def f(self) -> int:\n        pass\n";
    assert_eq!(
        method_stub(&task(no_doc, ""), "f").as_deref(),
        Some("def f(self) -> int:\n")
    );
    assert_eq!(method_stub(&task("", ""), "f"), None);
    assert_eq!(method_stub(&task(no_doc, ""), "g"), None);
}

#[test]
fn no_panic_on_garbage() {
    let inputs = [
        "",
        "\0",
        "def",
        "class",
        "def f(:\n",
        "\u{feff}def f(): pass",
        "class A:\n\tdef",
        "@\n",
        "\r\r\n",
    ];
    for a in inputs {
        for b in inputs {
            let _ = splice_method(a, "A", b);
            let _ = method_from_reply(a, "f");
            let _ = merge_imports(a, &[b.to_string()]);
            let _ = stub_in(a, "A", "f");
        }
    }
}

#[test]
fn classeval_method_solutions_with_only_the_first_line_dedented() {
    let solution = "@staticmethod\n    def price(x):\n        if x:\n            return x * 2\n        return 0";
    let out = splice_method(MODULE, "Shop", solution).unwrap();
    assert!(
        out.contains("    @staticmethod\n    def price(x):\n        if x:\n            return x * 2\n        return 0\n\n    def __secret"),
        "{out}"
    );
    assert_eq!(
        method_from_reply(solution, "price").as_deref(),
        Some("@staticmethod\ndef price(x):\n    if x:\n        return x * 2\n    return 0\n")
    );
}

#[test]
fn body_indented_deeper_than_its_nesting_step_keeps_its_nesting() {
    // ClassEval's layout: body 8 columns in, nested blocks 4 further.
    let solution = "def add(self, item):\n        for i in item:\n            if i:\n                self.items.append(i)\n        return self.items";
    let out = splice_method(MODULE, "Shop", solution).unwrap();
    assert!(
        out.contains("    def add(self, item):\n        for i in item:\n            if i:\n                self.items.append(i)\n        return self.items\n\n    @staticmethod"),
        "{out}"
    );
    assert!(parses(&out));
}
