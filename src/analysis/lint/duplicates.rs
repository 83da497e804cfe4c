//! Duplicate tests: T1 the same body twice in one class, T3 in two classes, T2 a
//! near-duplicate (same shape, same assertions and expected values, inputs of the same kind).

use tree_sitter::Node;

use super::syntax::{find_all, line, text, tokens};
use super::testnames::TestClass;
use super::{At, Ctx, Part};

/// One statement of a test body as (kind, text) tokens, comments and layout aside.
struct Stmt {
    toks: Vec<(String, String)>,
    asserts: bool,
    /// Names passed straight to an assertion (`assertEqual(actual, expected)`).
    asserted: Vec<String>,
}

impl Stmt {
    fn same(&self, other: &Stmt) -> bool {
        self.toks == other.toks
    }

    /// Same tokens, literals aside.
    fn same_shape(&self, other: &Stmt) -> bool {
        self.toks.len() == other.toks.len()
            && self
                .toks
                .iter()
                .zip(&other.toks)
                .all(|((k1, t1), (k2, t2))| k1 == k2 && (is_literal(k1) || t1 == t2))
    }

    /// `name = <literals only>`: the name of an expected value, when it is one.
    fn literal_assignment(&self) -> Option<&str> {
        let (first, rest) = self.toks.split_first()?;
        let (eq, value) = rest.split_first()?;
        let literal_only = value.iter().all(|(k, t)| {
            is_literal(k)
                || matches!(
                    t.as_str(),
                    "[" | "]" | "(" | ")" | "{" | "}" | "," | ":" | "-"
                )
        });
        (first.0 == "identifier" && eq.1 == "=" && literal_only).then_some(first.1.as_str())
    }
}

const LITERALS: [&str; 7] = [
    "string",
    "concatenated_string",
    "integer",
    "float",
    "true",
    "false",
    "none",
];

fn is_literal(kind: &str) -> bool {
    LITERALS.contains(&kind)
}

fn body_statements(func: Node<'_>, src: &str) -> Vec<Stmt> {
    let Some(body) = func.child_by_field_name("body") else {
        return Vec::new();
    };
    let mut cursor = body.walk();
    let stmts: Vec<Node<'_>> = body
        .named_children(&mut cursor)
        .filter(|s| s.kind() != "comment")
        .collect();
    let skip_doc = stmts.first().is_some_and(|s| {
        s.kind() == "expression_statement" && s.named_child(0).is_some_and(|e| e.kind() == "string")
    });
    stmts
        .into_iter()
        .skip(usize::from(skip_doc))
        .map(|s| {
            let toks: Vec<(String, String)> = tokens(s, src)
                .into_iter()
                .map(|(k, t)| (k.to_string(), t.to_string()))
                .collect();
            let asserts = toks.iter().any(|(_, t)| t.starts_with("assert"));
            Stmt {
                toks,
                asserts,
                asserted: asserted_names(s, src),
            }
        })
        .collect()
}

/// Identifiers that are direct operands of an assertion: `self.assertX(a, b)` or `assert a == b`.
fn asserted_names(stmt: Node<'_>, src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut push_idents = |n: Node<'_>| {
        let mut c = n.walk();
        out.extend(
            n.named_children(&mut c)
                .filter(|a| a.kind() == "identifier")
                .map(|a| text(a, src).to_string()),
        );
    };
    for call in find_all(stmt, &["call"]) {
        let is_assert = call.child_by_field_name("function").is_some_and(|f| {
            text(f, src)
                .rsplit('.')
                .next()
                .is_some_and(|n| n.starts_with("assert"))
        });
        if let (true, Some(args)) = (is_assert, call.child_by_field_name("arguments")) {
            push_idents(args);
        }
    }
    for a in find_all(stmt, &["assert_statement"]) {
        push_idents(a);
        for cmp in find_all(a, &["comparison_operator"]) {
            push_idents(cmp);
        }
    }
    out
}

/// The kind of value a literal is, as far as a test's intent goes: a test with `''` or `0`
/// checks an edge case, and `'first_name'` vs `'firstName'` checks case handling, so only
/// literals of one kind make a near-duplicate.
fn literal_class(kind: &str, text: &str) -> String {
    match kind {
        "integer" | "float" => {
            let v: f64 = text.replace('_', "").parse().unwrap_or(1.0);
            let sign = if v == 0.0 {
                "zero"
            } else if text.starts_with('-') {
                "neg"
            } else {
                "pos"
            };
            format!("{kind}:{sign}")
        }
        "string" | "concatenated_string" => {
            let inner = crate::analysis::parse::string_value(text);
            let class = |f: fn(char) -> bool| inner.chars().any(f);
            format!(
                "str:{}{}{}{}{}{}",
                inner.is_empty() as u8,
                class(|c| c.is_lowercase()) as u8,
                class(|c| c.is_uppercase()) as u8,
                class(|c| c.is_numeric()) as u8,
                class(char::is_whitespace) as u8,
                class(|c| !c.is_alphanumeric() && !c.is_whitespace()) as u8,
            )
        }
        _ => text.to_string(),
    }
}

/// Same shape, identical assertions, no differing expected value assigned to a name the
/// assertions use, and every differing literal of the same kind as the one it replaces.
fn near_duplicate(a: &[Stmt], b: &[Stmt]) -> bool {
    if a.len() != b.len() || !a.iter().zip(b).all(|(x, y)| x.same_shape(y)) {
        return false;
    }
    let asserted: Vec<&str> = a
        .iter()
        .flat_map(|s| s.asserted.iter().map(String::as_str))
        .collect();
    let mut differs = false;
    for (x, y) in a.iter().zip(b) {
        if x.same(y) {
            continue;
        }
        if x.asserts
            || x.literal_assignment()
                .is_some_and(|n| asserted.contains(&n))
        {
            return false;
        }
        differs = true;
        let same_kinds = x
            .toks
            .iter()
            .zip(&y.toks)
            .filter(|(p, q)| p.1 != q.1)
            .all(|((k, t1), (_, t2))| literal_class(k, t1) == literal_class(k, t2));
        if !same_kinds {
            return false;
        }
    }
    differs
}

/// T1 (same class), T3 (another class) exact duplicates; T2 near-duplicates in one class.
pub(super) fn check(
    ctx: &mut Ctx<'_>,
    classes: &[TestClass<'_>],
    methods: &[Option<String>],
    src: &str,
) {
    struct Seen {
        class: usize,
        name: String,
        line: usize,
        stmts: Vec<Stmt>,
    }
    let mut seen: Vec<Seen> = Vec::new();
    for (ci, tc) in classes.iter().enumerate() {
        for (name, node) in tc.tests() {
            let stmts = body_statements(*node, src);
            let size: usize = stmts.iter().map(|s| s.toks.len()).sum();
            let l = line(*node);
            // A body of `pass` or one call is no copy of anything.
            if size < 4 {
                continue;
            }
            let at = At::new(Part::Tests, methods[ci].as_deref(), Some(l));
            let same =
                |a: &[Stmt]| a.len() == stmts.len() && a.iter().zip(&stmts).all(|(x, y)| x.same(y));
            if let Some(prev) = seen.iter().find(|s| same(&s.stmts)) {
                let (code, whr) = if prev.class == ci {
                    ("T1", String::new())
                } else {
                    ("T3", format!(" of `{}`", classes[prev.class].name))
                };
                ctx.emit(
                    code,
                    at,
                    format!(
                        "`{}.{name}` has the same body as `{}`{whr} (line {}).",
                        tc.name, prev.name, prev.line
                    ),
                    Some(format!("delete `{name}` (line {l})")),
                );
                continue;
            }
            if let Some(prev) = seen
                .iter()
                .find(|s| s.class == ci && near_duplicate(&s.stmts, &stmts))
            {
                ctx.emit(
                    "T2",
                    at,
                    format!(
                        "`{}.{name}` repeats `{}` (line {}) with other inputs of the same kind and the same assertions.",
                        tc.name, prev.name, prev.line
                    ),
                    None,
                );
            }
            seen.push(Seen {
                class: ci,
                name: name.clone(),
                line: l,
                stmts,
            });
        }
    }
}

#[cfg(test)]
mod unit {
    use super::literal_class;

    #[test]
    fn literal_kinds() {
        assert_eq!(literal_class("integer", "3"), literal_class("integer", "7"));
        assert_ne!(literal_class("integer", "0"), literal_class("integer", "7"));
        assert_ne!(
            literal_class("integer", "-1"),
            literal_class("integer", "7")
        );
        assert_eq!(
            literal_class("string", "'11:00'"),
            literal_class("string", "'12:00'")
        );
        assert_ne!(
            literal_class("string", "''"),
            literal_class("string", "'a'")
        );
        assert_ne!(
            literal_class("string", "'first_name'"),
            literal_class("string", "'firstName'")
        );
    }
}
