//! The statement walk behind the line and statement metrics: which lines hold code,
//! comments, declarations and executable statements, and which statements declare.

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::tree::{docstring_node, header_end_row, named, preorder, unwrap_decorated};
use crate::analysis::parse::text;

/// Per-line flags over a span of rows.
#[derive(Default, Clone, Copy)]
pub(crate) struct Line {
    pub(crate) blank: bool,
    pub(crate) code: bool,
    pub(crate) comment: bool,
    pub(crate) decl: bool,
    pub(crate) exe: bool,
}

/// What a statement walk counts over a class's rows; both front ends (tree-sitter here, ruff
/// in `corpus::ruff`) fill one.
pub(crate) struct Tally {
    pub(crate) lines: Vec<Line>,
    pub(crate) first_row: usize,
    pub(crate) decl: u32,
    pub(crate) exe: u32,
    /// Statements that both declare and execute (`x = 1` binding a new name).
    pub(crate) both: u32,
    pub(crate) depth: u32,
    pub(crate) instance_vars: BTreeSet<String>,
    pub(crate) class_names: BTreeSet<String>,
}

#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Kind {
    Decl,
    Exe,
}

impl Tally {
    /// Over `lines` from `first_row`; the class itself is the first declaration.
    pub(crate) fn new(lines: Vec<Line>, first_row: usize) -> Self {
        Tally {
            lines,
            first_row,
            decl: 1,
            exe: 0,
            both: 0,
            depth: 0,
            instance_vars: BTreeSet::new(),
            class_names: BTreeSet::new(),
        }
    }

    pub(crate) fn mark(&mut self, from: usize, to: usize, kind: Kind) {
        for row in from..=to {
            if let Some(l) = self.lines.get_mut(row.wrapping_sub(self.first_row)) {
                match kind {
                    Kind::Decl => l.decl = true,
                    Kind::Exe => l.exe = true,
                }
            }
        }
    }
}

/// Marks code and comment lines: comments and docstrings are comment, other tokens code.
pub(super) fn mark_tokens(root: Node<'_>, w: &mut Tally) {
    let mut docstrings = BTreeSet::new();
    let first_row = w.first_row;
    let lines = &mut w.lines;
    let mut mark = |node: Node<'_>, comment: bool| {
        for row in node.start_position().row..=node.end_position().row {
            if let Some(l) = lines.get_mut(row.wrapping_sub(first_row)) {
                if comment {
                    l.comment = true;
                } else {
                    l.code = true;
                }
            }
        }
    };
    preorder(root, |node, _| {
        let kind = node.kind();
        if kind == "block"
            && let Some(d) = docstring_node(node)
        {
            docstrings.insert(d.id());
        }
        if kind == "comment" || docstrings.contains(&node.id()) {
            mark(node, true);
            return false;
        }
        if kind == "string" || node.child_count() == 0 {
            mark(node, false);
            return false;
        }
        true
    });
}

#[derive(PartialEq, Clone, Copy)]
pub(super) enum Bind {
    Local,
    SelfAttr,
}

/// Names a statement binds: plain names, and `self.x` attributes.
pub(super) fn bindings(stmt: Node<'_>, src: &[u8]) -> Vec<(Bind, String)> {
    let mut targets = Vec::new();
    match stmt.kind() {
        "expression_statement" => {
            let mut cur = stmt.named_child(0);
            // `a = b = 1` nests assignments on the right.
            while let Some(a) = cur.filter(|a| a.kind() == "assignment") {
                targets.extend(a.child_by_field_name("left"));
                cur = a.child_by_field_name("right");
            }
        }
        "for_statement" => targets.extend(stmt.child_by_field_name("left")),
        "with_statement" => {
            for clause in named(stmt).filter(|n| n.kind() == "with_clause") {
                for item in named(clause) {
                    if let Some(v) = item.child_by_field_name("value")
                        && v.kind() == "as_pattern"
                    {
                        targets.extend(v.child_by_field_name("alias"));
                    }
                }
            }
        }
        _ => {}
    }
    let mut out = Vec::new();
    let mut stack = targets;
    while let Some(t) = stack.pop() {
        match t.kind() {
            "identifier" => out.push((Bind::Local, text(t, src).to_string())),
            "attribute" => {
                if let (Some(o), Some(a)) = (
                    t.child_by_field_name("object"),
                    t.child_by_field_name("attribute"),
                ) && o.kind() == "identifier"
                    && text(o, src) == "self"
                {
                    out.push((Bind::SelfAttr, text(a, src).to_string()));
                }
            }
            "subscript" => {}
            _ => stack.extend(named(t)),
        }
    }
    out
}

/// Statements of a block: declarations (class, def, first binding of a name) and executable
/// statements, with their lines. `scope` is the function's bound names (`None` at class level,
/// where every binding declares a class attribute).
pub(super) fn walk_block(
    block: Node<'_>,
    src: &[u8],
    w: &mut Tally,
    mut scope: Option<&mut BTreeSet<String>>,
) {
    // Python itself stops at 100 levels; deeper input is hostile and not worth a stack.
    if w.depth > 200 {
        return;
    }
    w.depth += 1;
    let doc = docstring_node(block).map(|d| d.id());
    for stmt in named(block) {
        if stmt.kind() == "comment" || Some(stmt.id()) == doc {
            continue;
        }
        let (def, outer) = unwrap_decorated(stmt);
        match def.kind() {
            "function_definition" => {
                w.decl += 1;
                w.mark(outer.start_position().row, header_end_row(def), Kind::Decl);
                let mut params = def
                    .child_by_field_name("parameters")
                    .map(|p| param_names(p, src))
                    .unwrap_or_default();
                if let Some(body) = def.child_by_field_name("body") {
                    walk_block(body, src, w, Some(&mut params));
                }
                continue;
            }
            "class_definition" => {
                w.decl += 1;
                w.mark(outer.start_position().row, header_end_row(def), Kind::Decl);
                if let Some(body) = def.child_by_field_name("body") {
                    walk_block(body, src, w, None);
                }
                continue;
            }
            _ => {}
        }
        w.exe += 1;
        let simple = compound_blocks(stmt).is_empty();
        let exe_to = if simple {
            stmt.end_position().row
        } else {
            header_end_row(stmt)
        };
        w.mark(stmt.start_position().row, exe_to, Kind::Exe);
        let mut new = false;
        for (k, name) in bindings(stmt, src) {
            match (k, scope.as_deref_mut()) {
                (Bind::Local, None) => new = true,
                (Bind::Local, Some(s)) => new |= s.insert(name),
                (Bind::SelfAttr, _) => {
                    if !w.class_names.contains(&name) {
                        new |= w.instance_vars.insert(name);
                    }
                }
            }
        }
        if new {
            w.decl += 1;
            w.both += 1;
            w.mark(stmt.start_position().row, exe_to, Kind::Decl);
        }
        for (counts, block) in compound_blocks(stmt) {
            let clause = block.parent();
            // An `elif` is no statement of its own, but its condition is executable code.
            let elif = clause.is_some_and(|c| c.kind() == "elif_clause");
            if counts || elif {
                let row = clause.map_or(block.start_position().row, |p| p.start_position().row);
                w.mark(row, row, Kind::Exe);
            }
            if counts {
                w.exe += 1;
            }
            walk_block(block, src, w, scope.as_deref_mut());
        }
    }
    w.depth -= 1;
}

/// Parameter names of a `parameters` node (`self`, `x: int = 1`, `*args`, `**kw`).
pub(super) fn param_names(params: Node<'_>, src: &[u8]) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for p in named(params) {
        let ident = match p.kind() {
            "identifier" => Some(p),
            "default_parameter" | "typed_default_parameter" => p.child_by_field_name("name"),
            _ => {
                let mut stack: Vec<Node<'_>> = named(p).collect();
                let mut found = None;
                while let Some(n) = stack.pop() {
                    if n.kind() == "identifier" {
                        found = Some(n);
                        break;
                    }
                    if n.kind() != "type" {
                        stack.extend(named(n));
                    }
                }
                found
            }
        };
        if let Some(i) = ident {
            names.insert(text(i, src).to_string());
        }
    }
    names
}

/// The blocks inside a compound statement, each with whether its clause counts as a
/// statement of its own (`except`, try's `else`/`finally`, `case`; not `elif`), as Understand
/// counts them.
pub(super) fn compound_blocks(stmt: Node<'_>) -> Vec<(bool, Node<'_>)> {
    let mut out = Vec::new();
    match stmt.kind() {
        "if_statement" | "for_statement" | "while_statement" | "with_statement" => {
            out.extend(clause_body(stmt).map(|b| (false, b)));
            for alt in named(stmt).filter(|n| matches!(n.kind(), "elif_clause" | "else_clause")) {
                out.extend(clause_body(alt).map(|b| (false, b)));
            }
        }
        "try_statement" => {
            out.extend(clause_body(stmt).map(|b| (false, b)));
            for clause in named(stmt).filter(|n| n.kind() != "block") {
                out.extend(clause_body(clause).map(|b| (true, b)));
            }
        }
        "match_statement" => {
            if let Some(b) = stmt.child_by_field_name("body") {
                for case in named(b).filter(|n| n.kind() == "case_clause") {
                    out.extend(clause_body(case).map(|b| (true, b)));
                }
            }
        }
        _ => {}
    }
    out
}

pub(super) fn clause_body(n: Node<'_>) -> Option<Node<'_>> {
    n.child_by_field_name("body")
        .or_else(|| n.child_by_field_name("consequence"))
        .or_else(|| named(n).find(|c| c.kind() == "block"))
}

/// Decision points of a function body (Understand's standard Cyclomatic): `if`, `elif`, `for`,
/// `while`, `except`, `case` and conditional expressions; `and`/`or` are not counted (that is
/// CyclomaticStrict). Nested functions and classes are units of their own.
pub(super) fn decisions(root: Node<'_>) -> u32 {
    let mut n = 0;
    preorder(root, |node, _| match node.kind() {
        "if_statement"
        | "elif_clause"
        | "for_statement"
        | "while_statement"
        | "except_clause"
        | "conditional_expression"
        | "case_clause" => {
            n += 1;
            true
        }
        "function_definition" | "class_definition" | "lambda" => node.id() == root.id(),
        _ => true,
    });
    n
}

/// Deepest nesting of control structures (`if`, loops, `try`, `with`, `match`) in a body;
/// `elif`/`else`/`except` are at the level of their statement.
pub(super) fn nesting(block: Node<'_>, depth: u32) -> u32 {
    // Recursion bounded by the block structure, not expressions; deep input is still handled
    // because only statements are followed.
    if depth > 200 {
        return depth;
    }
    let mut max = depth;
    for stmt in named(block) {
        let blocks = compound_blocks(stmt);
        for (_, b) in blocks {
            max = max.max(nesting(b, depth + 1));
        }
    }
    max
}
