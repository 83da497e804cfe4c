//! Tree helpers for the metrics: cursor walks, docstrings, headers, bases, coupling.

use std::collections::BTreeSet;

use tree_sitter::{Node, TreeCursor};

use crate::analysis::parse::text;

/// Python's builtin classes (3.11, `builtins` members that are types), sorted: Understand
/// resolves them, so a class using one is coupled to it.
pub(crate) const BUILTIN_TYPES: &[&str] = &[
    "ArithmeticError",
    "AssertionError",
    "AttributeError",
    "BaseException",
    "BaseExceptionGroup",
    "BlockingIOError",
    "BrokenPipeError",
    "BufferError",
    "BytesWarning",
    "ChildProcessError",
    "ConnectionAbortedError",
    "ConnectionError",
    "ConnectionRefusedError",
    "ConnectionResetError",
    "DeprecationWarning",
    "EOFError",
    "EncodingWarning",
    "EnvironmentError",
    "Exception",
    "ExceptionGroup",
    "FileExistsError",
    "FileNotFoundError",
    "FloatingPointError",
    "FutureWarning",
    "GeneratorExit",
    "IOError",
    "ImportError",
    "ImportWarning",
    "IndentationError",
    "IndexError",
    "InterruptedError",
    "IsADirectoryError",
    "KeyError",
    "KeyboardInterrupt",
    "LookupError",
    "MemoryError",
    "ModuleNotFoundError",
    "NameError",
    "NotADirectoryError",
    "NotImplementedError",
    "OSError",
    "OverflowError",
    "PendingDeprecationWarning",
    "PermissionError",
    "ProcessLookupError",
    "RecursionError",
    "ReferenceError",
    "ResourceWarning",
    "RuntimeError",
    "RuntimeWarning",
    "StopAsyncIteration",
    "StopIteration",
    "SyntaxError",
    "SyntaxWarning",
    "SystemError",
    "SystemExit",
    "TabError",
    "TimeoutError",
    "TypeError",
    "UnboundLocalError",
    "UnicodeDecodeError",
    "UnicodeEncodeError",
    "UnicodeError",
    "UnicodeTranslateError",
    "UnicodeWarning",
    "UserWarning",
    "ValueError",
    "Warning",
    "ZeroDivisionError",
    "bool",
    "bytearray",
    "bytes",
    "classmethod",
    "complex",
    "dict",
    "enumerate",
    "filter",
    "float",
    "frozenset",
    "int",
    "list",
    "map",
    "memoryview",
    "object",
    "property",
    "range",
    "reversed",
    "set",
    "slice",
    "staticmethod",
    "str",
    "super",
    "tuple",
    "type",
    "zip",
];

/// Named children, through a cursor (indexing children one by one is quadratic in tree-sitter).
pub(super) fn named<'t>(node: Node<'t>) -> std::vec::IntoIter<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .collect::<Vec<_>>()
        .into_iter()
}

pub(super) fn unwrap_decorated(stmt: Node<'_>) -> (Node<'_>, Node<'_>) {
    match stmt.kind() {
        "decorated_definition" => (stmt.child_by_field_name("definition").unwrap_or(stmt), stmt),
        _ => (stmt, stmt),
    }
}

pub(super) fn decorator_names(outer: Node<'_>, src: &[u8]) -> Vec<String> {
    named(outer)
        .filter(|n| n.kind() == "decorator")
        .map(|d| text(d, src).trim_start_matches('@').trim().to_string())
        .collect()
}

/// The last row of a compound statement's header (up to the colon before its body).
pub(super) fn header_end_row(node: Node<'_>) -> usize {
    let body = node
        .child_by_field_name("body")
        .or_else(|| node.child_by_field_name("consequence"));
    match body {
        Some(b) if b.start_position().row > node.start_position().row => b.start_position().row - 1,
        Some(_) => node.start_position().row,
        None => node.end_position().row,
    }
}

pub fn docstring_node(block: Node<'_>) -> Option<Node<'_>> {
    // The first named child that is not a comment, without collecting the others.
    let mut first = block.named_child(0)?;
    while first.kind() == "comment" {
        first = first.next_named_sibling()?;
    }
    let expr = (first.kind() == "expression_statement" && first.named_child_count() == 1)
        .then(|| first.named_child(0))
        .flatten()?;
    matches!(expr.kind(), "string" | "concatenated_string").then_some(first)
}

/// Preorder over a subtree with one cursor (a cursor per node costs more than the visit);
/// `visit` returns whether to enter the node's children. Iterative: depth is unbounded.
/// The cursor is passed along for the rare visitor that needs the node's field name (asking
/// for it on every node costs a lookup each).
pub fn preorder(root: Node<'_>, mut visit: impl FnMut(Node<'_>, &TreeCursor<'_>) -> bool) {
    let mut cursor = root.walk();
    let mut depth = 0usize;
    loop {
        let enter = visit(cursor.node(), &cursor);
        if enter && cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if depth == 0 {
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            cursor.goto_parent();
            depth -= 1;
        }
    }
}

pub(super) fn bases_of(class: Node<'_>, src: &[u8]) -> Vec<String> {
    class
        .child_by_field_name("superclasses")
        .map(|args| {
            named(args)
                .filter(|n| !matches!(n.kind(), "comment" | "keyword_argument"))
                .map(|n| text(n, src).to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Classes a class uses (Understand's coupling, approximated without type inference): the
/// builtin classes it names anywhere (`str`, `KeyError`, …) and the class-like names it calls
/// (capitalised, not ALL-CAPS constants), other than itself.
pub(super) fn coupled_classes(class: Node<'_>, src: &[u8]) -> BTreeSet<String> {
    let own = class
        .child_by_field_name("name")
        .map_or("", |n| text(n, src));
    let mut out = BTreeSet::new();
    let Some(body) = class.child_by_field_name("body") else {
        return out;
    };
    preorder(body, |node, _| {
        if node.kind() == "call"
            && let Some(f) = node.child_by_field_name("function")
        {
            let name = match f.kind() {
                "identifier" => text(f, src),
                "attribute" => f
                    .child_by_field_name("attribute")
                    .map_or("", |a| text(a, src)),
                _ => "",
            };
            if name.chars().next().is_some_and(char::is_uppercase)
                && name != own
                && BUILTIN_TYPES.binary_search(&name).is_err()
                && !name
                    .chars()
                    .all(|c| c.is_uppercase() || c == '_' || c.is_ascii_digit())
            {
                out.insert(name.to_string());
            }
        }
        if node.kind() == "identifier" {
            let name = text(node, src);
            if name != own && BUILTIN_TYPES.binary_search(&name).is_ok() {
                out.insert(name.to_string());
            }
        }
        true
    });
    out
}
