//! The module context a task's skeleton shows around its class (constants, helper functions,
//! sibling classes: what a class mined from a real module needs), put back into code that
//! lacks it — as ClassEval's harness puts back the import lines. A model shown
//! `UNIT = 1.0` above the class and answering with the class alone wrote correct code; run
//! without `UNIT`, it would fail with a `NameError` it did not cause.

use std::collections::HashSet;

use tree_sitter::Node;

use super::nodes::{is_import, is_string_statement, line_prefix, non_comment_children};
use crate::analysis::parse::{parse_tree, text};

/// `code` with each top-level statement of `skeleton` that binds a name `code` does not bind
/// (an assignment, a `def`, a class other than `class_name`) inserted, in the skeleton's order:
/// those before the class in the skeleton go before `code`'s first statement that is not an
/// import or the module docstring, those after it (`DEFAULT = Rect(1, 1)` needs the class) at
/// `code`'s end. Statements that bind nothing (a bare call such as `nltk.download(…)`) or that
/// do not parse are never added, and `code` that already binds every such name is returned
/// unchanged.
pub fn merge_context(code: &str, skeleton: &str, class_name: &str) -> String {
    let Some(sk_tree) = parse_tree(skeleton) else {
        return code.to_string();
    };
    let sk = skeleton.as_bytes();
    let mut after_class = false;
    let mut context: Vec<(Node<'_>, Vec<String>, bool)> = Vec::new();
    for n in non_comment_children(sk_tree.root_node()) {
        if n.has_error() || is_import(n) || is_string_statement(n) {
            continue;
        }
        let names = bound_names(n, sk);
        if names.iter().any(|b| b == class_name) {
            after_class = true;
        } else if !names.is_empty() {
            context.push((n, names, after_class));
        }
    }
    if context.is_empty() {
        return code.to_string();
    }
    let Some(tree) = parse_tree(code) else {
        return code.to_string();
    };
    let src = code.as_bytes();
    let top = non_comment_children(tree.root_node());
    let mut have: HashSet<String> = top.iter().flat_map(|n| bound_names(*n, src)).collect();
    let (mut before, mut after) = (Vec::new(), Vec::new());
    for (node, names, follows) in &context {
        if names.iter().all(|b| !have.contains(b)) {
            have.extend(names.iter().cloned());
            let text = text(*node, sk).replace("\r\n", "\n");
            if *follows {
                after.push(text)
            } else {
                before.push(text)
            }
        }
    }
    if before.is_empty() && after.is_empty() {
        return code.to_string();
    }
    let newline = if code.contains("\r\n") { "\r\n" } else { "\n" };
    let block = |parts: &[String]| parts.join("\n\n\n").replace('\n', newline);
    let head = top
        .iter()
        .take_while(|n| is_import(**n) || is_string_statement(**n))
        .count();
    let mut out = String::with_capacity(code.len() + 64);
    let mut rest = code;
    if !before.is_empty()
        && let Some(first) = top.get(head)
    {
        let at = first.start_byte() - line_prefix(code, first.start_byte()).len();
        out.push_str(&code[..at]);
        out.push_str(&block(&before));
        out.push_str(&newline.repeat(3));
        rest = &code[at..];
    } else {
        // Nothing but imports: everything goes at the end, in the skeleton's order.
        after.splice(0..0, before);
    }
    out.push_str(rest);
    if !after.is_empty() {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push_str(newline);
        }
        out.push_str(&newline.repeat(2));
        out.push_str(&block(&after));
        out.push_str(newline);
    }
    out
}

/// The names a top-level statement binds: a `def` or class (decorated or not), the targets of
/// an assignment (chained, tuple or annotated), the names an import brings in.
fn bound_names(node: Node<'_>, src: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    match node.kind() {
        "function_definition" | "class_definition" => {
            if let Some(name) = node.child_by_field_name("name") {
                out.push(text(name, src).to_string());
            }
        }
        "decorated_definition" => {
            if let Some(def) = node.child_by_field_name("definition") {
                out = bound_names(def, src);
            }
        }
        "expression_statement" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                let mut assignment = Some(child).filter(|c| c.kind() == "assignment");
                // `a = b = 1` nests: each `right` that is an assignment binds its `left` too.
                while let Some(a) = assignment {
                    if let Some(left) = a.child_by_field_name("left") {
                        targets(left, src, &mut out);
                    }
                    assignment = a
                        .child_by_field_name("right")
                        .filter(|r| r.kind() == "assignment");
                }
            }
        }
        // `try: from gettext import gettext` / `except ImportError: def gettext(…)`: the
        // names its blocks bind (a `__main__` block binds nothing anyone imports).
        "try_statement" | "if_statement" | "with_statement" => {
            let main_guard = node
                .child_by_field_name("condition")
                .is_some_and(|c| text(c, src).contains("__name__"));
            if !main_guard {
                blocks(node, src, &mut out);
            }
        }
        "import_statement" | "import_from_statement" => {
            let mut cursor = node.walk();
            for child in node.children_by_field_name("name", &mut cursor) {
                let bound = match child.kind() {
                    "aliased_import" => child.child_by_field_name("alias"),
                    _ => Some(child),
                };
                if let Some(b) = bound {
                    // `import a.b` binds `a`.
                    let t = text(b, src);
                    out.push(t.split('.').next().unwrap_or(t).trim().to_string());
                }
            }
        }
        _ => {}
    }
    out
}

/// The names the statements in the blocks of a compound statement bind (not looking into
/// functions or classes, whose bodies bind nothing at module level).
fn blocks(node: Node<'_>, src: &[u8], out: &mut Vec<String>) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "block"
            | "except_clause"
            | "except_group_clause"
            | "else_clause"
            | "elif_clause"
            | "finally_clause" => blocks(child, src, out),
            _ => out.extend(bound_names(child, src)),
        }
    }
}

/// Plain names among assignment targets (`x`, `x, y`, `(x, [y, *z])`); attributes and
/// subscripts bind nothing new.
fn targets(node: Node<'_>, src: &[u8], out: &mut Vec<String>) {
    match node.kind() {
        "identifier" => out.push(text(node, src).to_string()),
        "pattern_list"
        | "tuple_pattern"
        | "list_pattern"
        | "list_splat_pattern"
        | "parenthesized_expression"
        | "tuple"
        | "list" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                targets(child, src, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::merge_context;

    const SKELETON: &str = "import math\n\n\nUNIT = 1.0\n\n\ndef helper(x):\n    return x * UNIT\n\n\nclass Rect:\n    \"\"\"A rectangle.\"\"\"\n\n    def area(self):\n        \"\"\"The area.\"\"\"\n";

    #[test]
    fn a_class_alone_gets_the_constants_and_helpers_it_was_shown() {
        let code = "import math\n\nclass Rect:\n    def area(self):\n        return helper(UNIT)\n";
        let out = merge_context(code, SKELETON, "Rect");
        assert_eq!(
            out,
            "import math\n\nUNIT = 1.0\n\n\ndef helper(x):\n    return x * UNIT\n\n\nclass Rect:\n    def area(self):\n        return helper(UNIT)\n"
        );
        // Whatever the code binds itself stays its own, and nothing is added twice.
        let own = "UNIT = 2.0\n\ndef helper(x):\n    return x\n\nclass Rect:\n    pass\n";
        assert_eq!(merge_context(own, SKELETON, "Rect"), own);
        assert_eq!(merge_context(&out, SKELETON, "Rect"), out);
    }

    #[test]
    fn what_follows_the_class_in_the_skeleton_follows_it_in_the_code() {
        let skeleton = "UNIT = 1.0\n\nclass Rect:\n    pass\n\nDEFAULT = Rect()\n";
        let out = merge_context("class Rect:\n    x = UNIT\n", skeleton, "Rect");
        assert_eq!(
            out,
            "UNIT = 1.0\n\n\nclass Rect:\n    x = UNIT\n\n\nDEFAULT = Rect()\n"
        );
        // A skeleton whose class does not parse (ClassEval_22's bodiless method) adds nothing.
        let broken = "class K:\n    def f(self):\n";
        assert_eq!(
            merge_context("class K: pass\n", broken, "K"),
            "class K: pass\n"
        );
    }

    #[test]
    fn a_try_block_binds_what_its_branches_bind_and_a_main_block_nothing() {
        let skeleton = "try:\n    from _collections import deque as _deque\nexcept ImportError:\n    from collections import deque as _deque\n\nif __name__ == '__main__':\n    X = 1\n\nclass K:\n    pass\n";
        let out = merge_context("class K:\n    d = _deque()\n", skeleton, "K");
        assert!(
            out.starts_with("try:\n    from _collections import deque as _deque\n"),
            "{out}"
        );
        assert!(!out.contains("__main__"), "{out}");
        let own = "from collections import deque as _deque\nclass K:\n    pass\n";
        assert_eq!(merge_context(own, skeleton, "K"), own);
    }

    #[test]
    fn only_what_the_code_lacks_and_never_a_bare_call_or_the_class() {
        let skeleton = "import nltk\nnltk.download('punkt')\nA, (B, *C) = 1, (2, 3)\nD = E = 4\n@dec\ndef f(): pass\nclass K:\n    pass\n";
        let code = "B = 0\nclass K:\n    pass\n";
        let out = merge_context(code, skeleton, "K");
        assert!(!out.contains("download"), "{out}");
        assert!(!out.contains("A, (B"), "{out}");
        assert!(
            out.starts_with("D = E = 4\n\n\n@dec\ndef f(): pass\n\n\nB = 0\n"),
            "{out}"
        );
        assert_eq!(out.matches("class K").count(), 1, "{out}");
        // A module docstring and imports stay first; code with nothing else gets the context
        // at its end.
        let out = merge_context("\"\"\"Doc.\"\"\"\nimport os\n", skeleton, "K");
        assert!(
            out.starts_with(
                "\"\"\"Doc.\"\"\"\nimport os\n\n\nA, (B, *C) = 1, (2, 3)\n\n\nD = E = 4"
            ),
            "{out}"
        );
        // No context (ClassEval's skeletons: imports and the class): unchanged.
        let ce = "import os\nclass K:\n    pass\n";
        assert_eq!(merge_context("class K: pass\n", ce, "K"), "class K: pass\n");
    }
}
