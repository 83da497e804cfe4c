//! Implementation rules: I1 unused imports, I2 code that does not parse, I4 redundant code,
//! I5 commented-out code, I6 empty `__init__`.

use std::collections::HashSet;

use tree_sitter::Node;

use super::syntax::{find_all, import_bindings, line, text, walk};
use super::{At, Ctx, Part};
use crate::analysis::parse::parse_tree;
use crate::text::shorten;

pub(super) fn check(ctx: &mut Ctx<'_>) {
    syntax_errors(ctx);
    unused_imports(ctx);
    redundant_code(ctx);
    for part in [Part::Skeleton, Part::Solution, Part::Tests] {
        commented_out_code(ctx, part);
    }
    empty_init(ctx);
}

/// I2: the reference or the tests do not parse (the skeleton's case is S6).
fn syntax_errors(ctx: &mut Ctx<'_>) {
    let cases = [
        (Part::Solution, ctx.an.solution.error_lines.first().copied()),
        (
            Part::Tests,
            ctx.an
                .tests
                .error_lines
                .first()
                .copied()
                .filter(|_| !ctx.task.test_module.trim().is_empty()),
        ),
    ];
    for (part, first) in cases {
        if let Some(l) = first {
            let what = if part == Part::Solution {
                "The reference solution"
            } else {
                "The test module"
            };
            ctx.emit(
                "I2",
                At::new(part, None, Some(l)),
                format!("{what} has a syntax error at line {l}."),
                None,
            );
        }
    }
}

/// Identifiers a module uses outside its import statements; attribute names (`x.math`) and
/// keyword names (`f(math=1)`) are not uses of a variable.
fn used_names<'s>(root: Node<'_>, src: &'s str) -> HashSet<&'s str> {
    let mut used = HashSet::new();
    walk(root, |n| match n.kind() {
        "import_statement" | "import_from_statement" | "future_import_statement" => false,
        "identifier" => {
            let parent = n.parent();
            let is_attr_name = parent.is_some_and(|p| {
                p.kind() == "attribute" && p.child_by_field_name("attribute") == Some(n)
            });
            let is_keyword = parent.is_some_and(|p| {
                p.kind() == "keyword_argument" && p.child_by_field_name("name") == Some(n)
            });
            if !is_attr_name && !is_keyword {
                used.insert(text(n, src));
            }
            true
        }
        _ => true,
    });
    used
}

/// Top-level import statements of a tree.
fn imports<'t>(root: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .filter(|n| matches!(n.kind(), "import_statement" | "import_from_statement"))
        .collect()
}

/// I1: imports whose names the reference never uses, in the reference and in the skeleton.
fn unused_imports(ctx: &mut Ctx<'_>) {
    let (sol, sk) = (ctx.task.solution.as_str(), ctx.task.skeleton.as_str());
    let (Some(sol_tree), Some(sk_tree)) = (ctx.sol_tree.clone(), ctx.sk_tree.clone()) else {
        return;
    };
    if !ctx.an.solution.parses() {
        return;
    }
    let used = used_names(sol_tree.root_node(), sol);
    // ClassEval runs `solution + tests` as one module: tests may lean on the reference's
    // imports. Such an import is still dead for the model, but deleting it breaks the tests.
    let tests_lean_on: HashSet<&str> = match ctx.test_tree.as_ref() {
        Some(t) if ctx.task.test_layout == crate::model::TestLayout::Concatenated => {
            let src = ctx.task.test_module.as_str();
            let own: HashSet<String> = imports(t.root_node())
                .into_iter()
                .flat_map(|i| import_bindings(i, src))
                .map(|(n, _)| n)
                .collect();
            used_names(t.root_node(), src)
                .into_iter()
                .filter(|n| !own.contains(*n))
                .collect()
        }
        _ => HashSet::new(),
    };
    let sk_lines: HashSet<&str> = sk.lines().map(str::trim).collect();
    let mut reported: HashSet<String> = HashSet::new();
    for (part, src, root) in [
        (Part::Solution, sol, sol_tree.root_node()),
        (Part::Skeleton, sk, sk_tree.root_node()),
    ] {
        for stmt in imports(root) {
            let bindings = import_bindings(stmt, src);
            let unused: Vec<&String> = bindings
                .iter()
                .map(|(name, _)| name)
                .filter(|n| !used.contains(n.as_str()) && !reported.contains(*n))
                .collect();
            if unused.is_empty() {
                continue;
            }
            let stmt_text = text(stmt, src).trim();
            let names = unused
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ");
            let for_tests = unused.iter().any(|n| tests_lean_on.contains(n.as_str()));
            let (message, fix) = if for_tests {
                (
                    format!(
                        "{names} is imported but only the tests use it (they run in the reference's module)."
                    ),
                    format!("move {names} into the test module's imports"),
                )
            } else if part == Part::Solution {
                let also = if sk_lines.contains(stmt_text) {
                    " (the skeleton imports it too)"
                } else {
                    ""
                };
                (
                    format!("{names} is imported but the reference never uses it{also}."),
                    fix_for(stmt_text, &unused, bindings.len(), line(stmt)),
                )
            } else {
                (
                    format!(
                        "The skeleton imports {names}, which the reference neither imports nor uses."
                    ),
                    fix_for(stmt_text, &unused, bindings.len(), line(stmt)),
                )
            };
            ctx.emit(
                "I1",
                At::new(part, None, Some(line(stmt))),
                message,
                Some(fix),
            );
            reported.extend(unused.into_iter().cloned());
        }
    }
}

fn fix_for(stmt: &str, unused: &[&String], total: usize, line: usize) -> String {
    if unused.len() == total {
        format!("delete line {line}: `{stmt}`")
    } else {
        let names: Vec<&str> = unused.iter().map(|s| s.as_str()).collect();
        format!("remove {} from `{stmt}`", names.join(", "))
    }
}

const JUMPS: [&str; 4] = [
    "return_statement",
    "raise_statement",
    "break_statement",
    "continue_statement",
];

/// I4: code after a jump in the same block, `pass` beside real statements, `x = x`.
fn redundant_code(ctx: &mut Ctx<'_>) {
    let Some(tree) = ctx.sol_tree.clone() else {
        return;
    };
    let src = ctx.task.solution.as_str();
    let mut found: Vec<(usize, String, String)> = Vec::new();
    for block in find_all(tree.root_node(), &["block"]) {
        let mut cursor = block.walk();
        let stmts: Vec<Node<'_>> = block
            .named_children(&mut cursor)
            .filter(|n| n.kind() != "comment")
            .collect();
        if let Some(i) = stmts.iter().position(|s| JUMPS.contains(&s.kind()))
            && let Some(dead) = stmts.get(i + 1)
        {
            let jump = text(stmts[i], src).split_whitespace().next().unwrap_or("");
            found.push((
                line(*dead),
                format!(
                    "This statement can never run: it follows `{jump}` (line {}) in the same block.",
                    line(stmts[i])
                ),
                format!("delete the unreachable statements from line {}", line(*dead)),
            ));
        }
        let real = stmts.iter().filter(|s| !is_docstring_like(**s)).count();
        for p in stmts.iter().filter(|s| s.kind() == "pass_statement") {
            if real > 1 {
                found.push((
                    line(*p),
                    "`pass` is redundant beside other statements.".into(),
                    format!("delete `pass` at line {}", line(*p)),
                ));
            }
        }
    }
    for a in find_all(tree.root_node(), &["assignment"]) {
        if let (Some(l), Some(r)) = (
            a.child_by_field_name("left"),
            a.child_by_field_name("right"),
        ) && a.child_by_field_name("type").is_none()
            && matches!(l.kind(), "identifier" | "attribute")
            && text(l, src) == text(r, src)
        {
            found.push((
                line(a),
                format!("`{}` assigns a name to itself.", text(a, src)),
                format!("delete line {}", line(a)),
            ));
        }
    }
    for (l, message, fix) in found {
        let method = method_at(ctx, l);
        ctx.emit(
            "I4",
            At::new(Part::Solution, method.as_deref(), Some(l)),
            message,
            Some(fix),
        );
    }
}

fn is_docstring_like(stmt: Node<'_>) -> bool {
    stmt.kind() == "expression_statement"
        && stmt
            .named_child(0)
            .is_some_and(|e| matches!(e.kind(), "string" | "concatenated_string"))
}

/// The target method of the reference class whose definition holds this line.
fn method_at(ctx: &Ctx<'_>, l: usize) -> Option<String> {
    let class = ctx.an.class.as_ref()?;
    class
        .methods
        .iter()
        .find(|m| m.start_line <= l && l <= m.end_line && ctx.is_target(&m.name))
        .map(|m| m.name.clone())
}

/// I5: comments that are code. One finding per run of consecutive commented-out lines.
fn commented_out_code(ctx: &mut Ctx<'_>, part: Part) {
    let tree = match part {
        Part::Skeleton => ctx.sk_tree.clone(),
        Part::Solution => ctx.sol_tree.clone(),
        Part::Tests => ctx.test_tree.clone(),
        Part::PublicTests => None,
    };
    let Some(tree) = tree else { return };
    let src = ctx.text(part);
    let mut runs: Vec<(usize, usize, String)> = Vec::new();
    for c in find_all(tree.root_node(), &["comment"]) {
        let body = text(c, src).trim_start_matches('#').trim();
        if !looks_like_code(body) {
            continue;
        }
        let l = line(c);
        match runs.last_mut() {
            Some((_, last, _)) if *last + 1 == l => *last = l,
            _ => runs.push((l, l, body.to_string())),
        }
    }
    for (first, last, body) in runs {
        let span = if first == last {
            format!("line {first}")
        } else {
            format!("lines {first}–{last}")
        };
        ctx.emit(
            "I5",
            At::new(part, None, Some(first)),
            format!("Commented-out code: `{}`.", shorten(&body, 60)),
            Some(format!("delete the comment ({span})")),
        );
    }
}

/// A comment is code when it parses as statements that do something. Prose rarely parses;
/// what does (`Note: x`, `TODO`) is an annotation or a bare name, which do not count.
pub(super) fn looks_like_code(body: &str) -> bool {
    const KEYWORDS: [&str; 12] = [
        "return ", "import ", "from ", "del ", "raise ", "if ", "for ", "while ", "with ", "def ",
        "class ", "assert ",
    ];
    let body = body.trim();
    if body.len() < 4
        || !(body.contains(['(', '=', '[']) || KEYWORDS.iter().any(|k| body.starts_with(k)))
    {
        return false;
    }
    // `e.g. foo(1)` parses (`e.g.foo(1)`), but code never puts a space after a dot.
    let sentence = body
        .as_bytes()
        .windows(3)
        .any(|w| w[0].is_ascii_alphanumeric() && w[1] == b'.' && w[2] == b' ');
    if sentence {
        return false;
    }
    let candidate = if body.ends_with(':') {
        format!("{body} pass")
    } else {
        body.to_string()
    };
    let Some(tree) = parse_tree(&candidate) else {
        return false;
    };
    let root = tree.root_node();
    if root.has_error() || root.named_child_count() == 0 {
        return false;
    }
    let mut cursor = root.walk();
    root.named_children(&mut cursor).all(|s| match s.kind() {
        "expression_statement" => s.named_child(0).is_some_and(|e| match e.kind() {
            "call" | "augmented_assignment" | "await" => true,
            "assignment" => e.child_by_field_name("type").is_none(),
            _ => false,
        }),
        "comment" => false,
        kind => kind.ends_with("_statement") || kind.ends_with("_definition"),
    })
}

/// I6: a constructor with nothing in it (the reference's, else the skeleton's).
fn empty_init(ctx: &mut Ctx<'_>) {
    let sol = ctx.an.class.as_ref().and_then(|c| c.method("__init__"));
    let sk = ctx.sk_class.as_ref().and_then(|c| c.method("__init__"));
    let (part, def) = match (sol, sk) {
        (Some(d), _) if d.body_is_stub => (Part::Solution, d),
        (None, Some(d)) if d.body_is_stub => (Part::Skeleton, d),
        _ => return,
    };
    let (l, end) = (def.start_line, def.end_line);
    ctx.emit(
        "I6",
        At::new(part, None, Some(l)),
        "`__init__` does nothing: its body is only `pass`, `...` or a docstring.".into(),
        Some(format!("delete `__init__` (lines {l}–{end})")),
    );
}

#[cfg(test)]
mod unit {
    use super::super::testutil::{codes_for, task};
    use super::*;

    #[test]
    fn i1_unused_import_fires_and_not() {
        let used = task(
            "import math\n\nclass A:\n    def f(self):\n        \"\"\"F.\"\"\"\n",
            "import math\n\nclass A:\n    def f(self):\n        return math.pi\n",
            "",
        );
        assert!(codes_for(&used, "I1").is_empty());
        let unused = task(
            "import math\nimport os\n\nclass A:\n    def f(self):\n        \"\"\"F.\"\"\"\n",
            "import math, json\n\nclass A:\n    def f(self):\n        return json.dumps(self.math)\n",
            "",
        );
        let f = codes_for(&unused, "I1");
        assert_eq!(f.len(), 2, "{f:?}");
        assert_eq!((f[0].part, f[0].line), (Part::Skeleton, Some(2)));
        assert!(f[0].message.contains("`os`"));
        assert_eq!(f[0].fix.as_deref(), Some("delete line 2: `import os`"));
        assert_eq!((f[1].part, f[1].line), (Part::Solution, Some(1)));
        assert_eq!(
            f[1].fix.as_deref(),
            Some("remove math from `import math, json`")
        );
    }

    #[test]
    fn i1_import_the_tests_lean_on_is_moved_not_deleted() {
        let sol = "from PIL import Image, ImageChops\n\nclass A:\n    def f(self):\n        return Image.new('RGB', (1, 1))\n";
        let tests = "import unittest\n\nclass ATestF(unittest.TestCase):\n    def test_f(self):\n        ImageChops.difference(A().f(), A().f())\n";
        let f = codes_for(&task("", sol, tests), "I1");
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(
            f[0].fix.as_deref(),
            Some("move `ImageChops` into the test module's imports")
        );
    }

    #[test]
    fn i2_syntax_errors() {
        let bad = task(
            "class A:\n    pass\n",
            "class A:\n    def f(self:\n",
            "def (",
        );
        let f = codes_for(&bad, "I2");
        assert_eq!(f.len(), 2, "{f:?}");
        let ok = task("class A:\n    pass\n", "class A:\n    pass\n", "");
        assert!(codes_for(&ok, "I2").is_empty());
    }

    #[test]
    fn i4_redundant_code() {
        let sol = "class A:\n    def f(self, x):\n        if x:\n            return 1\n            x += 1\n        else:\n            pass\n        x = x\n        pass\n        return x\n";
        let f = codes_for(&task("", sol, ""), "I4");
        let lines: Vec<_> = f.iter().map(|f| f.line).collect();
        assert_eq!(lines, [Some(5), Some(8), Some(9)], "{f:?}");
        let clean = "class A:\n    def f(self, x):\n        \"\"\"Doc.\"\"\"\n        pass\n\n    def g(self):\n        for i in range(3):\n            if i:\n                continue\n            return i\n";
        assert!(codes_for(&task("", clean, ""), "I4").is_empty());
    }

    #[test]
    fn i5_commented_out_code() {
        for (comment, code) in [
            ("print(x)", true),
            ("self.total = 0", true),
            ("for x in xs:", true),
            ("return self.items[0]", true),
            ("Note: x", false),
            ("TODO fix this", false),
            ("type: ignore", false),
            ("pylint: disable=invalid-name", false),
            ("return the result (or None)", false),
            ("e.g. foo(1)", false),
            ("if the list is empty:", false),
            ("(optional)", false),
        ] {
            assert_eq!(looks_like_code(comment), code, "{comment}");
        }
        let sol = "class A:\n    def f(self):\n        # print(self)\n        # x = 1\n        return 1  # the answer\n";
        let f = codes_for(&task("", sol, ""), "I5");
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].fix.as_deref(), Some("delete the comment (lines 3–4)"));
    }

    #[test]
    fn i6_empty_init() {
        let sol = "class A:\n    def __init__(self):\n        pass\n";
        assert_eq!(codes_for(&task("", sol, ""), "I6").len(), 1);
        let sol = "class A:\n    def __init__(self):\n        self.x = 1\n";
        assert!(codes_for(&task("", sol, ""), "I6").is_empty());
    }
}
