//! D2–D19 firing and not firing on minimal tasks.

use super::super::docstyle::verb_form;
use super::super::testutil::{codes_for, task};

/// A one-method task: `def f(self, <params>)` with this docstring body, and a reference whose
/// body is `body`.
fn one(params: &str, doc: &str, body: &str) -> crate::model::Task {
    let sig = if params.is_empty() {
        "self".to_string()
    } else {
        format!("self, {params}")
    };
    let sk = format!(
        "class A:\n    def __init__(self):\n        \"\"\"Make one.\"\"\"\n        self.x = 1\n\n    def f({sig}):\n        \"\"\"\n{doc}\n        \"\"\"\n"
    );
    let sol = format!(
        "class A:\n    def __init__(self):\n        self.x = 1\n\n    def f({sig}):\n        {body}\n"
    );
    task(&sk, &sol, "")
}

const CLEAN: &str = "        Return twice a number.\n        :param n: int, the number\n        :return: int, twice n";

#[test]
fn clean_docstring_has_no_findings() {
    let t = one("n", CLEAN, "return 2 * n");
    let codes: Vec<_> = super::super::lint_task(&t)
        .into_iter()
        .filter(|f| f.code.starts_with('D'))
        .collect();
    assert!(codes.is_empty(), "{codes:?}");
}

#[test]
fn rules_table() {
    // (params, docstring, reference body, rule, findings expected)
    let cases: [(&str, &str, &str, &str, usize); 14] = [
        (
            "n",
            "        Return.\n        :param m: int, x\n        :return: int, y",
            "return n",
            "D4",
            1,
        ),
        ("n", CLEAN, "return n", "D4", 0),
        (
            "n, k",
            "        Return.\n        :param n: int, x\n        :return: int, y",
            "return n",
            "D10",
            1,
        ),
        ("n", CLEAN, "return n", "D10", 0),
        (
            "n",
            "        :param n: int, x\n        :return: int, y",
            "return n",
            "D8",
            1,
        ),
        ("n", CLEAN, "return n", "D8", 0),
        (
            "n",
            "        Return.\n        :param n: string, x\n        :return: int, y",
            "return n",
            "D13",
            1,
        ),
        (
            "n",
            "        Return.\n        :param n: the input string to be reversed, x\n        :return: int, y",
            "return n",
            "D13",
            0,
        ),
        (
            "n",
            "        Return.\n        :param n: int, x",
            "return n",
            "D14",
            1,
        ),
        (
            "n",
            "        Return.\n        :param n: int, x",
            "self.x = n",
            "D15",
            1,
        ),
        (
            "n",
            "        Return.\n        :param n: int, x\n        :return: None",
            "self.x = n",
            "D15",
            0,
        ),
        (
            "n",
            "        Return.\n        :param n: int, x",
            "raise NotImplementedError",
            "D14",
            0,
        ),
        (
            "n",
            "        Return.\n        :param n: list, x\n        :return: int, y",
            "return n",
            "D19",
            1,
        ),
        (
            "n",
            "        Return.\n        :param n: list, the names of each player\n        :return: int, y",
            "return n",
            "D19",
            0,
        ),
    ];
    for (params, doc, body, code, n) in cases {
        let f = codes_for(&one(params, doc, body), code);
        assert_eq!(f.len(), n, "{code} on {doc:?}: {f:?}");
    }
}

#[test]
fn d4_rename_fix_and_no_double_d10() {
    let t = one(
        "score",
        "        Add.\n        :param grade: int, x\n        :return: None",
        "self.x = score",
    );
    let f = codes_for(&t, "D4");
    assert_eq!(
        f[0].fix.as_deref(),
        Some("rename `:param grade:` to `:param score:`")
    );
    assert_eq!(f[0].line, Some(9));
    assert!(codes_for(&t, "D10").is_empty());
    // A close spelling pairs even when another parameter is undocumented too.
    let t = one(
        "plain_text, rails",
        "        Go.\n        :param plaintext: str, x\n        :return: None",
        "self.x = rails",
    );
    assert_eq!(
        codes_for(&t, "D4")[0].fix.as_deref(),
        Some("rename `:param plaintext:` to `:param plain_text:`")
    );
    assert_eq!(codes_for(&t, "D10").len(), 1);
}

#[test]
fn d2_and_d7() {
    let sk =
        "class A:\n    def __init__(self):\n        self.x = 1\n\n    def f(self):\n        pass\n";
    let sol = "class A:\n    def __init__(self):\n        self.x = 1\n\n    def f(self):\n        return 1\n";
    let t = task(sk, sol, "");
    assert_eq!(codes_for(&t, "D2").len(), 1);
    assert_eq!(codes_for(&t, "D7").len(), 1);
    let t = one("n", CLEAN, "return n");
    assert!(codes_for(&t, "D2").is_empty() && codes_for(&t, "D7").is_empty());
}

#[test]
fn d5_example_arguments() {
    let doc = |ex: &str| {
        format!(
            "        Return.\n        :param n: int, x\n        :return: int, y\n        >>> a = A()\n        >>> {ex}"
        )
    };
    for (ex, n) in [
        ("a.f(1)", 0),
        ("a.f(n=1)", 0),
        ("a.f(m=1)", 1),
        ("a.f(1, 2)", 1),
    ] {
        let f = codes_for(&one("n", &doc(ex), "return n"), "D5");
        assert_eq!(f.len(), n, "{ex}: {f:?}");
    }
    assert!(codes_for(&one("*ns", &doc("a.f(1, 2)"), "return 1"), "D5").is_empty());
}

#[test]
fn d16_and_d17_across_methods() {
    let method = |name: &str, doc: &str| {
        format!("    def {name}(self, n):\n        \"\"\"\n{doc}\n        \"\"\"\n\n")
    };
    let rest = "        :param n: int, x\n        :return: int, y";
    let google =
        "        Return n.\n        Args:\n            n: int\n        Returns:\n            int";
    let sk = format!(
        "class A:\n{}{}{}",
        method("f", &format!("        Return n.\n{rest}")),
        method("g", &format!("        Return n.\n{rest}")),
        method("h", google)
    );
    let sol = "class A:\n    def f(self, n):\n        return n\n    def g(self, n):\n        return n\n    def h(self, n):\n        return n\n";
    let f = codes_for(&task(&sk, sol, ""), "D16");
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].method.as_deref(), Some("h"));
    assert!(codes_for(&task(&sk, sol, ""), "D17").is_empty());
    let sk = format!(
        "class A:\n{}{}{}",
        method("f", &format!("        Return n.\n{rest}")),
        method("g", &format!("        Return n.\n{rest}")),
        method("h", &format!("        Returns n.\n{rest}"))
    );
    let f = codes_for(&task(&sk, sol, ""), "D17");
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].method.as_deref(), Some("h"));
    assert!(codes_for(&task(&sk, sol, ""), "D16").is_empty());
}

#[test]
fn verb_forms() {
    assert_eq!(verb_form("Return the sum"), Some(true));
    assert_eq!(verb_form("Returns the sum"), Some(false));
    assert_eq!(verb_form("Calculates it"), Some(false));
    assert_eq!(verb_form("Searches it"), Some(false));
    assert_eq!(verb_form("The sum"), None);
    assert_eq!(verb_form(""), None);
}
