//! Tree and text lookups: classes, functions, decorators, statements, line bounds.

use tree_sitter::Node;

use crate::analysis::parse::text;

pub(super) fn is_string_statement(node: Node<'_>) -> bool {
    node.kind() == "expression_statement"
        && node.named_child_count() == 1
        && node
            .named_child(0)
            .is_some_and(|e| matches!(e.kind(), "string" | "concatenated_string"))
}

pub(super) fn is_import(node: Node<'_>) -> bool {
    matches!(
        node.kind(),
        "import_statement" | "import_from_statement" | "future_import_statement"
    )
}

pub(super) fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(super) fn non_comment_children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|c| c.kind() != "comment")
        .collect()
}

/// The whitespace before byte `at` on its line ("" when something else precedes it).
pub(super) fn line_prefix(src: &str, at: usize) -> &str {
    let at = at.min(src.len());
    let start = src[..at].rfind('\n').map_or(0, |i| i + 1);
    let prefix = &src[start..at];
    if prefix.trim().is_empty() { prefix } else { "" }
}

/// The end of the line holding byte `at`, before its line break (`\n` or `\r\n`).
pub(super) fn line_end(src: &str, at: usize) -> usize {
    let at = at.min(src.len());
    let end = src[at..].find('\n').map_or(src.len(), |i| at + i);
    if end > at && src.as_bytes().get(end - 1) == Some(&b'\r') {
        end - 1
    } else {
        end
    }
}

pub(super) fn first_error_line(root: Node<'_>) -> Option<usize> {
    if !root.has_error() {
        return None;
    }
    let mut stack = vec![root];
    let mut best: Option<usize> = None;
    while let Some(n) = stack.pop() {
        if n.is_error() || n.is_missing() {
            let line = n.start_position().row + 1;
            best = Some(best.map_or(line, |b| b.min(line)));
            continue;
        }
        let mut cursor = n.walk();
        stack.extend(
            n.children(&mut cursor)
                .filter(|c| c.has_error() || c.is_missing()),
        );
    }
    best
}

pub(super) fn name_of(func: Node<'_>, src: &[u8]) -> String {
    func.child_by_field_name("name")
        .map(|n| text(n, src).to_string())
        .unwrap_or_default()
}

pub(super) fn decorators_of(outer: Node<'_>, src: &[u8]) -> Vec<String> {
    if outer.kind() != "decorated_definition" {
        return Vec::new();
    }
    let mut cursor = outer.walk();
    outer
        .named_children(&mut cursor)
        .filter(|n| n.kind() == "decorator")
        .map(|d| collapse(text(d, src)))
        .collect()
}

/// The function inside a statement (`def` or decorated `def`).
pub(super) fn definition_of(stmt: Node<'_>) -> Option<Node<'_>> {
    match stmt.kind() {
        "function_definition" => Some(stmt),
        "decorated_definition" => stmt
            .child_by_field_name("definition")
            .filter(|d| d.kind() == "function_definition"),
        _ => None,
    }
}

/// The first function (named `name`, when given) in source order, not looking inside other
/// functions: (the function, the node including its decorators).
pub(super) fn find_function<'t>(
    root: Node<'t>,
    src: &str,
    name: Option<&str>,
) -> Option<(Node<'t>, Node<'t>)> {
    let bytes = src.as_bytes();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.kind() == "function_definition" {
            if name.is_none_or(|want| name_of(n, bytes) == want) {
                let outer = n
                    .parent()
                    .filter(|p| p.kind() == "decorated_definition")
                    .unwrap_or(n);
                return Some((n, outer));
            }
            continue;
        }
        let mut cursor = n.walk();
        let children: Vec<Node<'t>> = n.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    None
}

/// The class named `name`, outermost first (then in source order).
pub(super) fn find_class<'t>(root: Node<'t>, src: &[u8], name: &str) -> Option<Node<'t>> {
    let mut best: Option<(usize, Node<'t>)> = None;
    let mut stack = vec![(root, 0usize)];
    while let Some((n, depth)) = stack.pop() {
        let mut child_depth = depth;
        if n.kind() == "class_definition" {
            let matches = n
                .child_by_field_name("name")
                .is_some_and(|id| text(id, src) == name);
            if matches && best.is_none_or(|(d, b)| (depth, n.start_byte()) < (d, b.start_byte())) {
                best = Some((depth, n));
            }
            child_depth += 1;
        } else if n.kind() == "function_definition" {
            child_depth += 1;
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor).map(|c| (c, child_depth)));
    }
    best.map(|(_, n)| n)
}

/// The statement of class body `body` defining method `name`. With several (a property's
/// getter and setter), the one with the same decorators, else the same setter/deleter role.
pub(super) fn pick_existing<'t>(
    body: Node<'t>,
    src: &[u8],
    name: &str,
    decorators: &[String],
) -> Option<Node<'t>> {
    let candidates: Vec<Node<'t>> = non_comment_children(body)
        .into_iter()
        .filter(|s| definition_of(*s).is_some_and(|f| name_of(f, src) == name))
        .collect();
    if candidates.len() <= 1 {
        return candidates.first().copied();
    }
    let role = |decs: &[String]| {
        decs.iter()
            .find_map(|d| [".setter", ".deleter"].into_iter().find(|r| d.ends_with(r)))
    };
    let want = role(decorators);
    candidates
        .iter()
        .find(|c| decorators_of(**c, src) == decorators)
        .or_else(|| {
            candidates
                .iter()
                .find(|c| role(&decorators_of(**c, src)) == want)
        })
        .or(candidates.first())
        .copied()
}
