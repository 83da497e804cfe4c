use super::*;

const METHODS: [&str; 4] = ["add", "total", "_price", "__secret"];

fn graph(edges: &[(&str, &[&str])]) -> BTreeMap<String, BTreeSet<String>> {
    let mut g: BTreeMap<String, BTreeSet<String>> = METHODS
        .iter()
        .map(|m| (m.to_string(), BTreeSet::new()))
        .collect();
    for (m, deps) in edges {
        g.entry(m.to_string())
            .or_default()
            .extend(deps.iter().map(|d| d.to_string()));
    }
    g
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// (what, reply, edges, order, problems that must be reported (substrings))
type DepCase<'a> = (&'a str, &'a str, Edges<'a>, Vec<&'a str>, Vec<&'a str>);
type Edges<'a> = &'a [(&'a str, &'a [&'a str])];

#[test]
fn dependency_replies_in_many_shapes() {
    let standard_graph: &[(&str, &[&str])] = &[("total", &["_price", "add"])];
    let standard_order = ["_price", "add", "total", "__secret"];
    let cases: Vec<DepCase> = vec![
        (
            "plain JSON",
            r#"{"dependencies": {"add": [], "total": ["_price", "add"], "_price": [], "__secret": []}, "order": ["_price", "add", "total", "__secret"]}"#,
            standard_graph,
            standard_order.to_vec(),
            vec![],
        ),
        (
            "json fence with prose before and after",
            "Sure! Here is the analysis:\n```json\n{\n  \"dependencies\": {\"add\": [], \"total\": [\"_price\", \"add\"], \"_price\": [], \"__secret\": []},\n  \"order\": [\"_price\", \"add\", \"total\", \"__secret\"]\n}\n```\nLet me know if {you} need more.",
            standard_graph,
            standard_order.to_vec(),
            vec![],
        ),
        (
            "braces inside strings, comments, trailing commas",
            "{\n  // total needs the price of each item\n  \"dependencies\": {\n    \"add\": [],  /* none } */\n    \"total\": [\"_price\", \"add\",],\n    \"_price\": [],\n    \"__secret\": [],\n  },\n  \"note\": \"a } brace { in a string\",\n  \"order\": [\"_price\", \"add\", \"total\", \"__secret\",],\n}",
            standard_graph,
            standard_order.to_vec(),
            vec![],
        ),
        (
            "single quotes, bare keys, Python literals",
            "{'dependencies': {add: [], 'total': ['_price', 'add'], '_price': None, '__secret': []}, order: ['_price', 'add', 'total', '__secret'], 'ok': True}",
            standard_graph,
            standard_order.to_vec(),
            vec![],
        ),
        (
            "methods list with depends_on and generation_order",
            r#"{"methods": [{"name": "add", "depends_on": []}, {"name": "total", "prerequisites": "self._price(), add"}, {"method": "_price", "dependencies": null}, {"name": "__secret"}], "generation_order": ["_price", "add", "total", "__secret"]}"#,
            standard_graph,
            standard_order.to_vec(),
            vec![],
        ),
        (
            "names with self., (), backticks; mangled private name",
            r#"{"dependencies": {"`total`": ["self._price()", "Shop.add"], "add": [], "_price": [], "_Shop__secret": ["_price"]}, "order": ["_price()", "self.add", "total", "`__secret`"]}"#,
            &[("total", &["_price", "add"]), ("__secret", &["_price"])],
            standard_order.to_vec(),
            vec![],
        ),
        (
            "unknown names, __init__, self-dependency, duplicates, omissions",
            r#"{"dependencies": {"__init__": ["add"], "add": ["__init__", "add", "validate"], "total": ["add"], "_price": []}, "order": ["add", "ghost", "add", "total"]}"#,
            &[("total", &["add"])],
            vec!["add", "total", "_price", "__secret"],
            vec![
                "unknown method `validate`",
                "`add` listed as its own prerequisite",
                "unknown method `ghost`",
                "`add` appears twice",
                "the order omits `_price`",
                "the order omits `__secret`",
                "no dependency entry for `__secret`",
            ],
        ),
        (
            "no order at all",
            r#"{"dependencies": {"add": "none", "total": "add, _price", "_price": [], "__secret": []}}"#,
            standard_graph,
            METHODS.to_vec(),
            vec!["no generation order"],
        ),
        (
            "graph keyed by method at the top level",
            r#"{"add": [], "total": ["add", "_price"], "_price": [], "__secret": []}"#,
            standard_graph,
            METHODS.to_vec(),
            vec!["no generation order"],
        ),
        (
            "wrapper object",
            r#"{"result": {"dependencies": {"total": ["add", "_price"], "add": [], "_price": [], "__secret": []}, "order": ["_price", "add", "total", "__secret"]}}"#,
            standard_graph,
            standard_order.to_vec(),
            vec![],
        ),
        (
            "unrecognized shape",
            r#"{"answer": 42}"#,
            &[],
            METHODS.to_vec(),
            vec!["no dependencies in the reply"],
        ),
    ];
    for (what, text, edges, order, problems) in cases {
        let got = parse_dependency_reply(text, &METHODS).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(got.graph, graph(edges), "{what}");
        assert_eq!(got.order, strings(&order), "{what}: {:?}", got.problems);
        for p in &problems {
            assert!(
                got.problems.iter().any(|g| g.contains(p)),
                "{what}: missing problem {p:?} in {:?}",
                got.problems
            );
        }
        if problems.is_empty() {
            assert!(got.problems.is_empty(), "{what}: {:?}", got.problems);
        }
    }
}

#[test]
fn arrow_string_order_is_read() {
    let got = parse_dependency_reply(
        r#"{"dependencies": {}, "order": "_price -> add → total, __secret"}"#,
        &METHODS,
    )
    .unwrap();
    assert_eq!(got.order, strings(&["_price", "add", "total", "__secret"]));
}

#[test]
fn no_json_is_an_error() {
    for text in [
        "",
        "I think total depends on add.",
        "{ unbalanced",
        "{\"dependencies\": [1, 2}",
    ] {
        assert!(parse_dependency_reply(text, &METHODS).is_err(), "{text:?}");
    }
}

#[test]
fn dependency_parser_never_panics() {
    let inputs = [
        "{",
        "}",
        "{}",
        "{{}}",
        "{'a': '}",
        "{\"a\": \"\\\"}",
        "{/*",
        "{//\n}",
        "{'",
        "{\"x\": [,,]}",
        "{a:b:c}",
        "{\u{0}}",
        "{\"dependencies\": {\"add\": {\"depends_on\": 3}}}",
        "{\"methods\": \"add\"}",
        "{\"order\": [null, 1, {\"name\": \"add\"}]}",
    ];
    for text in inputs {
        let _ = parse_dependency_reply(text, &METHODS);
        let _ = parse_dependency_reply(text, &[]);
    }
}

const PATCH: &str = "def total(self):\n    return sum(self._price(i) for i in self.items)\n";

/// (what, reply, analysis starts with, region starts with, plan, patched, problems)
type ReflectionCase<'a> = (
    &'a str,
    String,
    &'a str,
    &'a str,
    &'a str,
    bool,
    Vec<&'a str>,
);

#[test]
fn reflections_in_many_shapes() {
    let cases: Vec<ReflectionCase> = vec![
        (
            "as asked",
            format!("### Failure analysis\nLogic error: the price is ignored.\n\n### Code region\n`return len(self.items)`\n\n### Repair plan\nSum the prices.\n\n### Patch\n```python\n{PATCH}```\n"),
            "Logic error",
            "`return len(self.items)`",
            "Sum the prices.",
            true,
            vec![],
        ),
        (
            "bold titles with text on the same line, numbered",
            format!("1. **Failure analysis:** Logic error.\n2. **Code region:** line 2\n3. **Repair plan:** sum.\n4. **Patch:**\n```python\nclass Shop:\n    {}\n```", PATCH.replace('\n', "\n    ").trim_end()),
            "Logic error.",
            "line 2",
            "sum.",
            true,
            vec![],
        ),
        (
            "other heading levels, case, parenthesised remarks",
            format!("## FAILURE ANALYSIS (syntax / logic / dependency)\nDependency error.\n# code region\nhere\n#### Repair Plan:\n1. Check the input\n2. Fix the loop\n##### patch - minimal\n```py\n{PATCH}```"),
            "Dependency error.",
            "here",
            "1. Check the input\n2. Fix the loop",
            true,
            vec![],
        ),
        (
            "missing region and plan; python comment that looks like a heading",
            format!("### Analysis\nIt fails.\n### Patch\n```python\n# Fix\n{PATCH}```"),
            "It fails.",
            "",
            "",
            true,
            vec!["no code region section", "no repair plan section"],
        ),
        (
            "no headings at all",
            format!("The loop is wrong, here is the fix:\n```python\n{PATCH}```\nThat should work."),
            "The loop is wrong",
            "",
            "",
            true,
            vec!["no section headings"],
        ),
        (
            "patch defines another method",
            "### Failure analysis\nx\n### Code region\ny\n### Repair plan\nz\n### Patch\n```python\ndef other(self):\n    pass\n```".to_string(),
            "x",
            "y",
            "z",
            false,
            vec!["the patch does not define `total`"],
        ),
        (
            "patch section without code; code block elsewhere",
            format!("### Failure analysis\nx\n### Code region\n```python\n{PATCH}```\n### Repair plan\nz\n### Patch\nSee above."),
            "x",
            "```python",
            "z",
            false,
            vec!["the patch section holds no code"],
        ),
        (
            "plain Title: lines",
            format!("Failure analysis:\nBad sum.\nCode region:\nthe return\nRepair plan:\nAdd prices.\nPatch:\n```python\n{PATCH}```"),
            "Bad sum.",
            "the return",
            "Add prices.",
            true,
            vec![],
        ),
    ];
    for (what, text, analysis, region, plan, patched, problems) in cases {
        let r = parse_reflection(&text, "total");
        assert!(
            r.analysis.starts_with(analysis),
            "{what}: analysis {:?}",
            r.analysis
        );
        assert!(
            r.region.starts_with(region),
            "{what}: region {:?}",
            r.region
        );
        assert_eq!(r.plan, plan, "{what}");
        assert_eq!(
            r.patch_code.as_deref(),
            patched.then_some(PATCH),
            "{what}: {:?}",
            r.problems
        );
        for p in &problems {
            assert!(
                r.problems.iter().any(|g| g.contains(p)),
                "{what}: {p:?} not in {:?}",
                r.problems
            );
        }
        if problems.is_empty() {
            assert!(r.problems.is_empty(), "{what}: {:?}", r.problems);
        }
    }
}

#[test]
fn method_code_from_generation_replies() {
    let ok: [(&str, &str); 4] = [
        (
            "fenced method",
            "Here you go:\n```python\ndef total(self):\n    return 1\n```\n",
        ),
        (
            "whole class",
            "```python\nimport os\n\nclass Shop:\n    def add(self):\n        pass\n\n    def total(self):\n        return 1\n```",
        ),
        ("unfenced", "def total(self):\n    return 1\n"),
        (
            "method in a second, smaller block",
            "```python\nclass Shop:\n    def add(self):\n        x = 1\n        return x\n```\nand\n```python\ndef total(self):\n    return 1\n```",
        ),
    ];
    for (what, text) in ok {
        assert_eq!(
            method_code(text, "total").as_deref(),
            Ok("def total(self):\n    return 1\n"),
            "{what}"
        );
    }
    let err: [(&str, &str); 3] = [
        ("I cannot do that.", "no code"),
        (
            "```python\ndef add(self):\n    pass\n```",
            "it defines `add`",
        ),
        ("```python\nx = 1\n```", "defines no function"),
    ];
    for (text, want) in err {
        let e = method_code(text, "total").unwrap_err();
        assert!(e.contains(want), "{text:?}: {e}");
    }
}

#[test]
fn reflection_and_method_code_never_panic() {
    let inputs = [
        "",
        "#",
        "**",
        "**a",
        "1.",
        "(",
        "```",
        "```python\n",
        "~~~\n~~",
        "### Patch\n```python\ndef",
        "**Patch:** ```python\ndef total(:\n```",
        "\u{0}\u{feff}### Failure analysis",
        "(a",
        "Step 1",
        "### é\n**é**:",
        "__x__",
        "#######",
    ];
    for text in inputs {
        let _ = parse_reflection(text, "total");
        let _ = method_code(text, "total");
    }
}
