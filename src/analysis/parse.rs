//! Python source → classes and methods, with tree-sitter-python. No Python needed.
//!
//! One pass over the tree collects, for every class (nested ones too), its methods with
//! signature, parameters, decorators, line span, docstring and doctests, and the names each
//! method references through `self.x`, `cls.x` or `ClassName.x` — the raw material of the
//! dependency graph (domain.md §3).

use std::cell::RefCell;
use std::collections::BTreeSet;

use tree_sitter::{Node, Parser, Tree};

/// A parsed module with the classes found in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    pub classes: Vec<Class>,
    /// Import statements at module level, verbatim.
    pub imports: Vec<String>,
    /// Names of the functions defined at module level, in order (pytest's test functions).
    pub functions: Vec<String>,
    /// Lines (1-based) where tree-sitter found a syntax error; empty when the module parses.
    pub error_lines: Vec<usize>,
}

impl Module {
    pub fn parses(&self) -> bool {
        self.error_lines.is_empty()
    }

    /// The first class with that name (outermost first).
    pub fn class(&self, name: &str) -> Option<&Class> {
        self.classes.iter().find(|c| c.name == name)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Class {
    pub name: String,
    /// Dotted path for nested classes (`Outer.Inner`, `f.<locals>.C` style is not used: a class
    /// inside a function is named `func.Inner`).
    pub qualified_name: String,
    pub bases: Vec<String>,
    /// First line including decorators, 1-based.
    pub start_line: usize,
    /// The line of the `class` keyword (what Python's `ast` calls `lineno`).
    pub header_line: usize,
    /// Byte offset of the `class` keyword.
    pub header_byte: usize,
    /// Byte range, decorators included.
    pub start_byte: usize,
    pub end_byte: usize,
    pub end_line: usize,
    pub docstring: Option<String>,
    /// Methods in source order; a name defined twice (property setter, overloads) appears twice.
    pub methods: Vec<MethodDef>,
}

impl Class {
    pub fn method(&self, name: &str) -> Option<&MethodDef> {
        self.methods.iter().find(|m| m.name == name)
    }

    /// Distinct method names in first-definition order.
    pub fn method_names(&self) -> Vec<&str> {
        let mut seen = BTreeSet::new();
        self.methods
            .iter()
            .map(|m| m.name.as_str())
            .filter(|n| seen.insert(*n))
            .collect()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodDef {
    pub name: String,
    /// `def name(params) -> ret:` as written (decorators excluded), whitespace kept.
    pub signature: String,
    pub params: Vec<String>,
    /// Decorator expressions without the `@`.
    pub decorators: Vec<String>,
    pub is_async: bool,
    /// First line of the definition including decorators, 1-based.
    pub start_line: usize,
    pub end_line: usize,
    /// Byte range of the whole definition, decorators included.
    pub start_byte: usize,
    pub end_byte: usize,
    /// Byte range of the body block (after the colon).
    pub body_start_byte: usize,
    pub docstring: Option<String>,
    /// Byte range of the docstring statement, when there is one.
    pub docstring_bytes: Option<(usize, usize)>,
    pub doctests: Vec<Doctest>,
    /// Names reached through `self.x`, `cls.x` or `<ClassName>.x` in the body (nested functions
    /// and lambdas included, nested classes excluded); `_Class__x` is folded to `__x`.
    pub self_refs: BTreeSet<String>,
    /// Attribute names reached through any other receiver (`other.deposit`, `order.total()`):
    /// not dependencies, but they explain annotations that think they are.
    pub other_refs: BTreeSet<String>,
    /// True when the body holds nothing but a docstring, `pass` or `...`.
    pub body_is_stub: bool,
}

impl MethodDef {
    pub fn is_staticmethod(&self) -> bool {
        self.decorators.iter().any(|d| d == "staticmethod")
    }
    pub fn is_classmethod(&self) -> bool {
        self.decorators.iter().any(|d| d == "classmethod")
    }
}

/// One `>>>` example in a docstring.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Doctest {
    /// The statement, with `...` continuation lines joined by newlines, prompts removed.
    pub source: String,
    /// The expected output lines, possibly empty.
    pub expected: String,
    /// Line of the `>>>` within the file, 1-based.
    pub line: usize,
}

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parse Python source with a per-thread parser. `None` only if tree-sitter gives up
/// (it does not on any input we have seen; callers treat it as a parse failure).
pub fn parse_tree(source: &str) -> Option<Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_python::LANGUAGE.into())
                .ok()?;
            *slot = Some(parser);
        }
        slot.as_mut()?.parse(source, None)
    })
}

/// Parse a module and collect its classes.
pub fn parse_module(source: &str) -> Module {
    let Some(tree) = parse_tree(source) else {
        return Module {
            classes: Vec::new(),
            imports: Vec::new(),
            functions: Vec::new(),
            error_lines: vec![1],
        };
    };
    module_from_tree(source, &tree)
}

/// Collect the classes of an already parsed module (the corpus reuses the tree for metrics).
pub fn module_from_tree(source: &str, tree: &Tree) -> Module {
    let root = tree.root_node();
    let mut module = Module {
        classes: Vec::new(),
        imports: Vec::new(),
        functions: Vec::new(),
        error_lines: Vec::new(),
    };
    if root.has_error() {
        collect_errors(root, &mut module.error_lines);
    }
    let src = source.as_bytes();
    let mut cursor = root.walk();
    for child in root.named_children(&mut cursor) {
        if matches!(
            child.kind(),
            "import_statement" | "import_from_statement" | "future_import_statement"
        ) {
            module.imports.push(text(child, src).to_string());
        }
        let def = match child.kind() {
            "decorated_definition" => child.child_by_field_name("definition"),
            _ => Some(child),
        };
        if let Some(def) = def.filter(|d| d.kind() == "function_definition")
            && let Some(name) = def.child_by_field_name("name")
        {
            module.functions.push(text(name, src).to_string());
        }
    }
    collect_classes(root, src, &mut module.classes);
    module
}

/// Lines of every error or missing node. Iterative: input nesting depth is unbounded.
fn collect_errors(root: Node<'_>, lines: &mut Vec<usize>) {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            lines.push(node.start_position().row + 1);
            continue;
        }
        let mut cursor = node.walk();
        stack.extend(
            node.children(&mut cursor)
                .filter(|c| c.has_error() || c.is_missing()),
        );
    }
    lines.sort_unstable();
    lines.dedup();
}

pub(crate) fn text<'s>(node: Node<'_>, src: &'s [u8]) -> &'s str {
    std::str::from_utf8(&src[node.byte_range()]).unwrap_or("")
}

/// Record every class definition below `root`, outer before inner, in source order.
/// Iterative, with an explicit stack: broken input can nest arbitrarily deep.
fn collect_classes(root: Node<'_>, src: &[u8], out: &mut Vec<Class>) {
    let mut stack: Vec<(Node<'_>, String)> = vec![(root, String::new())];
    while let Some((node, scope)) = stack.pop() {
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        // Pushed in reverse so that the first child is visited first.
        for child in children.into_iter().rev() {
            let (def, outer) = match child.kind() {
                "decorated_definition" => match child.child_by_field_name("definition") {
                    Some(def) => (def, child),
                    None => continue,
                },
                _ => (child, child),
            };
            match def.kind() {
                "class_definition" => {
                    let class = read_class(def, outer, src, &scope);
                    if let Some(body) = def.child_by_field_name("body") {
                        stack.push((body, class.qualified_name.clone()));
                    }
                    // Placeholder order is fixed below: classes are sorted by position.
                    out.push(class);
                }
                "function_definition" => {
                    let name = def.child_by_field_name("name").map_or("", |n| text(n, src));
                    if let Some(body) = def.child_by_field_name("body") {
                        stack.push((body, join_scope(&scope, name)));
                    }
                }
                // Classes under if/try/with/for/match blocks at any level.
                kind if holds_statements(kind) => stack.push((def, scope.clone())),
                _ => {}
            }
        }
    }
    // Source order, outer before inner (an outer class starts before its nested ones).
    out.sort_by_key(|c| (c.start_byte, std::cmp::Reverse(c.end_byte)));
}

fn join_scope(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        name.to_string()
    } else {
        format!("{scope}.{name}")
    }
}

/// Nodes that can hold statements, hence class definitions; nothing else is walked. `ERROR`
/// keeps classes findable in code that only partly parses.
fn holds_statements(kind: &str) -> bool {
    matches!(
        kind,
        "block"
            | "if_statement"
            | "elif_clause"
            | "else_clause"
            | "for_statement"
            | "while_statement"
            | "try_statement"
            | "except_clause"
            | "except_group_clause"
            | "finally_clause"
            | "with_statement"
            | "match_statement"
            | "case_clause"
            | "ERROR"
    )
}

fn read_class(def: Node<'_>, outer: Node<'_>, src: &[u8], scope: &str) -> Class {
    let name = def
        .child_by_field_name("name")
        .map(|n| text(n, src).to_string())
        .unwrap_or_default();
    let bases = def
        .child_by_field_name("superclasses")
        .map(|args| {
            let mut cursor = args.walk();
            args.named_children(&mut cursor)
                .filter(|n| n.kind() != "comment")
                .map(|n| text(n, src).to_string())
                .collect()
        })
        .unwrap_or_default();
    let body = def.child_by_field_name("body");
    let docstring = body.and_then(|b| docstring_of(b, src)).map(|(s, _)| s);
    let mut methods = Vec::new();
    if let Some(body) = body {
        let mut cursor = body.walk();
        for stmt in body.named_children(&mut cursor) {
            let (func, outer_node, decorators) = match stmt.kind() {
                "function_definition" => (stmt, stmt, Vec::new()),
                "decorated_definition" => match stmt.child_by_field_name("definition") {
                    Some(d) if d.kind() == "function_definition" => {
                        (d, stmt, decorators_of(stmt, src))
                    }
                    _ => continue,
                },
                _ => continue,
            };
            methods.push(read_method(func, outer_node, decorators, src, &name));
        }
    }
    Class {
        qualified_name: join_scope(scope, &name),
        name,
        bases,
        start_line: outer.start_position().row + 1,
        header_line: def.start_position().row + 1,
        header_byte: def.start_byte(),
        start_byte: outer.start_byte(),
        end_byte: outer.end_byte(),
        end_line: outer.end_position().row + 1,
        docstring,
        methods,
    }
}

fn decorators_of(decorated: Node<'_>, src: &[u8]) -> Vec<String> {
    let mut cursor = decorated.walk();
    decorated
        .named_children(&mut cursor)
        .filter(|n| n.kind() == "decorator")
        .map(|d| text(d, src).trim_start_matches('@').trim().to_string())
        .collect()
}

fn read_method(
    func: Node<'_>,
    outer: Node<'_>,
    decorators: Vec<String>,
    src: &[u8],
    class_name: &str,
) -> MethodDef {
    let name = func
        .child_by_field_name("name")
        .map(|n| text(n, src).to_string())
        .unwrap_or_default();
    let body = func.child_by_field_name("body");
    let body_start = body.map_or(func.end_byte(), |b| b.start_byte());
    let signature = std::str::from_utf8(&src[func.start_byte()..body_start])
        .unwrap_or("")
        .trim_end()
        .to_string();
    let params = func
        .child_by_field_name("parameters")
        .map(|p| params_of(p, src))
        .unwrap_or_default();
    let is_async = {
        let mut cursor = func.walk();
        func.children(&mut cursor).any(|c| c.kind() == "async")
    };
    let doc = body.and_then(|b| docstring_of(b, src));
    let doctests = match (&doc, body) {
        (Some((text, _)), Some(b)) => {
            let first = b.named_child(0).map_or(0, |n| n.start_position().row + 1);
            doctests_of(text, first)
        }
        _ => Vec::new(),
    };
    let mut refs = Refs::default();
    if let Some(b) = body {
        collect_refs(b, src, class_name, &mut refs);
    }
    MethodDef {
        signature,
        params,
        decorators,
        is_async,
        start_line: outer.start_position().row + 1,
        end_line: outer.end_position().row + 1,
        start_byte: outer.start_byte(),
        end_byte: outer.end_byte(),
        body_start_byte: body_start,
        docstring_bytes: doc.as_ref().map(|(_, r)| *r),
        docstring: doc.map(|(s, _)| s),
        doctests,
        self_refs: refs.own,
        other_refs: refs.other,
        body_is_stub: body.is_none_or(|b| is_stub_body(b, src)),
        name,
    }
}

fn params_of(params: Node<'_>, src: &[u8]) -> Vec<String> {
    let mut cursor = params.walk();
    params
        .named_children(&mut cursor)
        .filter_map(|p| match p.kind() {
            "identifier" => Some(text(p, src).to_string()),
            "typed_parameter" | "list_splat_pattern" | "dictionary_splat_pattern" => {
                // `x: int`, `*args`, `**kw`: the first identifier is the name.
                let mut c = p.walk();
                let ident = p.named_children(&mut c).find(|n| n.kind() == "identifier");
                let prefix = if text(p, src).starts_with("**") {
                    "**"
                } else if text(p, src).starts_with('*') {
                    "*"
                } else {
                    ""
                };
                ident.map(|n| format!("{prefix}{}", text(n, src)))
            }
            "default_parameter" | "typed_default_parameter" => p
                .child_by_field_name("name")
                .map(|n| text(n, src).to_string()),
            "keyword_separator" => Some("*".into()),
            "positional_separator" => Some("/".into()),
            _ => None,
        })
        .collect()
}

/// The docstring of a block: its first statement when that is a bare string.
fn docstring_of(block: Node<'_>, src: &[u8]) -> Option<(String, (usize, usize))> {
    let first = block.named_child(0)?;
    if first.kind() != "expression_statement" || first.named_child_count() != 1 {
        return None;
    }
    let expr = first.named_child(0)?;
    let value = match expr.kind() {
        "string" => string_value(text(expr, src)),
        "concatenated_string" => {
            let mut cursor = expr.walk();
            expr.named_children(&mut cursor)
                .map(|s| string_value(text(s, src)))
                .collect()
        }
        _ => return None,
    };
    Some((value, (first.start_byte(), first.end_byte())))
}

/// The contents of a string literal: prefix and quotes removed, escapes left as written.
pub fn string_value(literal: &str) -> String {
    let body = literal.trim_start_matches(|c: char| "rRuUbBfF".contains(c));
    for quote in ["\"\"\"", "'''", "\"", "'"] {
        if let Some(inner) = body.strip_prefix(quote) {
            return inner.strip_suffix(quote).unwrap_or(inner).to_string();
        }
    }
    body.to_string()
}

pub(crate) fn doctests_of(doc: &str, first_line: usize) -> Vec<Doctest> {
    let mut out: Vec<Doctest> = Vec::new();
    let mut in_example = false;
    for (i, raw) in doc.lines().enumerate() {
        let line = raw.trim();
        if let Some(src) = line.strip_prefix(">>>") {
            out.push(Doctest {
                source: src.strip_prefix(' ').unwrap_or(src).to_string(),
                expected: String::new(),
                line: first_line + i,
            });
            in_example = true;
        } else if in_example
            && (line.starts_with("...") && out.last().is_some_and(|d| d.expected.is_empty()))
        {
            if let Some(last) = out.last_mut() {
                let cont = &line[3..];
                last.source.push('\n');
                last.source.push_str(cont.strip_prefix(' ').unwrap_or(cont));
            }
        } else if in_example && !line.is_empty() {
            if let Some(last) = out.last_mut() {
                if !last.expected.is_empty() {
                    last.expected.push('\n');
                }
                last.expected.push_str(line);
            }
        } else {
            in_example = false;
        }
    }
    out
}

fn is_stub_body(block: Node<'_>, src: &[u8]) -> bool {
    let mut cursor = block.walk();
    block
        .named_children(&mut cursor)
        .all(|stmt| match stmt.kind() {
            "pass_statement" | "comment" => true,
            "expression_statement" => {
                let mut c = stmt.walk();
                stmt.named_children(&mut c)
                    .all(|e| matches!(e.kind(), "string" | "concatenated_string" | "ellipsis"))
                    || text(stmt, src).trim() == "..."
            }
            _ => false,
        })
}

#[derive(Default)]
struct Refs {
    own: BTreeSet<String>,
    other: BTreeSet<String>,
}

/// Record `x` for every `self.x`, `cls.x` or `ClassName.x` below `root` (and, apart, attributes
/// of any other receiver), skipping nested classes: their `self` is another object.
fn collect_refs(root: Node<'_>, src: &[u8], class_name: &str, out: &mut Refs) {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "class_definition" {
            continue;
        }
        if node.kind() == "attribute"
            && let (Some(object), Some(attr)) = (
                node.child_by_field_name("object"),
                node.child_by_field_name("attribute"),
            )
        {
            let receiver = text(object, src);
            let own = object.kind() == "identifier"
                && (receiver == "self" || receiver == "cls" || receiver == class_name);
            let name = unmangle(text(attr, src), class_name);
            if own {
                out.own.insert(name);
            } else {
                out.other.insert(name);
            }
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
}

/// `_Class__x` (how `__x` looks after Python's name mangling) back to `__x`.
pub(crate) fn unmangle(attr: &str, class_name: &str) -> String {
    let bare = class_name.trim_start_matches('_');
    match attr.strip_prefix('_').and_then(|a| a.strip_prefix(bare)) {
        Some(rest) if rest.starts_with("__") && !bare.is_empty() => rest.to_string(),
        _ => attr.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = r#"import os
from a import b

class Outer(Base, metaclass=M):
    """Outer doc."""

    def __init__(self, x):
        self.x = x

    @staticmethod
    def helper(a, b=1, *args, c: int = 2, **kw):
        return a

    @property
    def value(self):
        """The value.
        >>> Outer(1).value
        1
        """
        return self.__private() + Outer.helper(1)

    def __private(self):
        def inner():
            return self._Outer__other
        class Local:
            def f(self):
                return self.value
        return inner()

    async def fetch(self, url, /, *, timeout):
        pass

    class Inner:
        def g(self):
            ...
"#;

    #[test]
    fn finds_classes_including_nested() {
        let m = parse_module(SRC);
        assert!(m.parses());
        let names: Vec<_> = m
            .classes
            .iter()
            .map(|c| c.qualified_name.as_str())
            .collect();
        assert_eq!(names, ["Outer", "Outer.__private.Local", "Outer.Inner"]);
        assert_eq!(m.imports, ["import os", "from a import b"]);
        assert!(m.functions.is_empty());
        let p = parse_module(
            "import pytest\n@pytest.mark.xfail(strict=True)\ndef test_a():\n    pass\ndef helper():\n    pass\n",
        );
        assert_eq!(p.functions, ["test_a", "helper"]);
        assert_eq!(m.classes[0].bases, ["Base", "metaclass=M"]);
        assert_eq!(m.classes[0].docstring.as_deref(), Some("Outer doc."));
    }

    #[test]
    fn reads_methods() {
        let m = parse_module(SRC);
        let c = m.class("Outer").unwrap();
        assert_eq!(
            c.method_names(),
            ["__init__", "helper", "value", "__private", "fetch"]
        );
        let helper = c.method("helper").unwrap();
        assert!(helper.is_staticmethod());
        assert_eq!(helper.params, ["a", "b", "*args", "c", "**kw"]);
        assert_eq!(helper.start_line, 10);
        let fetch = c.method("fetch").unwrap();
        assert!(fetch.is_async && fetch.body_is_stub);
        assert_eq!(fetch.params, ["self", "url", "/", "*", "timeout"]);
        let value = c.method("value").unwrap();
        assert_eq!(value.decorators, ["property"]);
        assert_eq!(value.doctests.len(), 1);
        assert_eq!(value.doctests[0].source, "Outer(1).value");
        assert_eq!(value.doctests[0].expected, "1");
        assert_eq!(value.doctests[0].line, 17);
        assert!(!value.body_is_stub);
    }

    #[test]
    fn self_refs_cover_self_cls_classname_and_mangling_but_not_nested_classes() {
        let m = parse_module(SRC);
        let c = m.class("Outer").unwrap();
        let refs = |n: &str| {
            c.method(n)
                .unwrap()
                .self_refs
                .iter()
                .cloned()
                .collect::<Vec<_>>()
        };
        assert_eq!(refs("value"), ["__private", "helper"]);
        // `self.value` inside the nested class `Local` is not Outer's.
        assert_eq!(refs("__private"), ["__other"]);
        assert_eq!(refs("__init__"), ["x"]);
        let other: Vec<_> = c
            .method("value")
            .unwrap()
            .other_refs
            .iter()
            .cloned()
            .collect();
        assert!(other.is_empty(), "{other:?}");
    }

    #[test]
    fn reports_syntax_errors_with_lines() {
        let m = parse_module("class A:\n    def f(self:\n        pass\n");
        assert!(!m.parses());
        assert!(!m.error_lines.is_empty());
    }

    #[test]
    fn deep_nesting_does_not_overflow_the_stack() {
        let deep = format!(
            "class A:\n    def f(self):\n        return {}self.g{}\n    def g(self):\n        if {}1{}:\n            class B: pass\n",
            "[".repeat(100_000),
            "]".repeat(100_000),
            "(".repeat(100_000),
            ")".repeat(100_000)
        );
        let handle = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || parse_module(&deep))
            .unwrap();
        let m = handle.join().expect("no stack overflow");
        assert!(m.class("A").is_some());
    }

    #[test]
    fn no_panic_on_garbage() {
        for src in [
            "",
            "\0\0",
            "class",
            "def (",
            "class A(:\n  '''",
            "\u{feff}class A: pass",
        ] {
            let _ = parse_module(src);
        }
    }

    #[test]
    fn string_values() {
        assert_eq!(string_value(r#""""a""""#), "a");
        assert_eq!(string_value("r'''b'''"), "b");
        assert_eq!(string_value("'c'"), "c");
    }
}
