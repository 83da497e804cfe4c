//! S1–S6 firing and not firing on minimal tasks.

use super::super::testutil::{codes_for, task};

const SOL: &str = "class A:\n    def __init__(self):\n        self.x = 1\n\n    def f(self, a):\n        return a\n\n    @staticmethod\n    def s(a):\n        return a\n";

/// A skeleton of `A` whose `f` docstring holds `example` as its only `>>>` line.
fn sk(example: &str) -> String {
    format!(
        "class A:\n    def __init__(self):\n        self.x = 1\n\n    def f(self, a):\n        \"\"\"\n        F.\n        {example}\n        \"\"\"\n\n    @staticmethod\n    def s(a):\n        \"\"\"S.\"\"\"\n"
    )
}

#[test]
fn doctest_rules_table() {
    // (example, the rule that must fire or None, rules that must not)
    let cases: [(&str, Option<&str>); 10] = [
        (">>> a = A()\n        >>> a.f(1)", None),
        (">>> A().f(1)", None),
        (">>> A.s(1)", None),
        (">>> a = A()\n        >>> a.g(1)", Some("S1")),
        (">>> A().missing()", Some("S1")),
        (">>> A.f(1)", Some("S2")),
        (">>> a = A()\n        >>> A.f(a, 1)", None),
        (">>> self.f(1)", Some("S3")),
        (">>> f(1)", Some("S3")),
        (">>> def f(x): return x\n        >>> f(1)", None),
    ];
    for (example, want) in cases {
        let t = task(&sk(example), SOL, "");
        for code in ["S1", "S2", "S3"] {
            let n = codes_for(&t, code).len();
            let expected = usize::from(want == Some(code));
            assert_eq!(n, expected, "{code} on {example:?}");
        }
    }
}

#[test]
fn s1_suggests_a_close_name_and_knows_mangled_names() {
    let t = task(&sk(">>> a = A()\n        >>> a.ff(1)"), SOL, "");
    let f = codes_for(&t, "S1");
    assert_eq!(f[0].fix.as_deref(), Some("call `f` instead of `ff`"));
    assert_eq!(f[0].line, Some(9));
    let sk = "class A:\n    def g(self):\n        \"\"\"G.\n        >>> A()._A__h()\n        \"\"\"\n\n    def __h(self):\n        \"\"\"H.\"\"\"\n";
    let sol =
        "class A:\n    def g(self):\n        return 1\n\n    def __h(self):\n        return 2\n";
    assert!(codes_for(&task(sk, sol, ""), "S1").is_empty());
}

#[test]
fn s4_method_sets() {
    let same = task(&sk(""), SOL, "");
    assert!(codes_for(&same, "S4").is_empty());
    let extra = format!("{SOL}\n    def helper(self):\n        return 2\n");
    let t = task(&sk(""), &extra, "obj.helper()");
    let f = codes_for(&t, "S4");
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].message.contains("the tests call it"));
    assert_eq!(f[0].method.as_deref(), Some("helper"));
    let only_sk = format!("{}\n    def ghost(self):\n        \"\"\"G.\"\"\"\n", sk(""));
    assert_eq!(codes_for(&task(&only_sk, SOL, ""), "S4").len(), 1);
}

#[test]
fn s5_constructor() {
    let same = task(&sk(""), SOL, "");
    assert!(codes_for(&same, "S5").is_empty());
    // A docstring and a comment in the reference's constructor change nothing.
    let sol = SOL.replace(
        "        self.x = 1\n",
        "        \"\"\"Doc.\"\"\"\n        # why\n        self.x = 1\n",
    );
    assert!(codes_for(&task(&sk(""), &sol, ""), "S5").is_empty());
    let sol = SOL.replace("self.x = 1", "self.x = 2");
    let f = codes_for(&task(&sk(""), &sol, ""), "S5");
    assert_eq!(f.len(), 1);
    assert!(
        f[0].message
            .contains("`self.x = 1` where the reference has `self.x = 2`")
    );
    let sol = SOL.replace("def __init__(self):", "def __init__(self, y):");
    assert!(
        codes_for(&task(&sk(""), &sol, ""), "S5")[0]
            .message
            .contains("takes (self)")
    );
}

#[test]
fn s6_broken_skeletons() {
    assert!(codes_for(&task(&sk(""), SOL, ""), "S6").is_empty());
    // No skeleton at all is not a broken one.
    assert!(codes_for(&task("", SOL, ""), "S6").is_empty());
    let quoted = format!("'''\n{}'''\n", sk(""));
    let f = codes_for(&task(&quoted, SOL, ""), "S6");
    assert_eq!(f.len(), 1);
    assert!(f[0].message.contains("inside a string literal"), "{f:?}");
    let curly = sk("").replace(
        "        \"\"\"S.\"\"\"",
        "        \u{201c}\u{201d}\u{201c}\n        S.\n        \"\"\"",
    );
    let f = codes_for(&task(&curly, SOL, ""), "S6");
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0].fix.as_deref().is_some_and(|x| x.contains("replace")),
        "{f:?}"
    );
    let open = "class A:\n    def f(self, a):\n        \"\"\"\n        F.\n\n    @staticmethod\n    def s(a):\n        \"\"\"\n        S.\n        \"\"\"\n";
    let f = codes_for(&task(open, SOL, ""), "S6");
    assert_eq!(f.len(), 1, "{f:?}");
    // The docstring rules stay quiet on a broken skeleton.
    assert!(codes_for(&task(open, SOL, ""), "D7").is_empty());
}
