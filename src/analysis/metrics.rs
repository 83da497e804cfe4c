//! The 27 class metrics of SciTools Understand (the columns of RealClassEval's and
//! OpenClassGen's `classes_full_docstr.csv`), from a tree-sitter class node. Definitions and
//! the agreement measured on the shared classes are in `docs/metrics.md`.
//!
//! Three metrics need more than the class: `CountClassDerived` (subclasses elsewhere),
//! `CountDeclMethodAll` and `MaxInheritanceTree` (bases elsewhere). They are computed here from
//! the class alone and completed by the caller ([`resolve_inheritance`], the corpus store).

use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::Node;

use super::parse::text;

/// Understand's metric names, in the column order of `classes_full_docstr.csv`.
pub const METRIC_NAMES: [&str; 27] = [
    "AvgCountLine",
    "AvgCountLineBlank",
    "AvgCountLineCode",
    "AvgCountLineComment",
    "AvgCyclomatic",
    "CommentToCodeRatio",
    "CountClassBase",
    "CountClassCoupled",
    "CountClassCoupledModified",
    "CountClassDerived",
    "CountDeclInstanceMethod",
    "CountDeclInstanceVariable",
    "CountDeclMethod",
    "CountDeclMethodAll",
    "CountLine",
    "CountLineBlank",
    "CountLineCode",
    "CountLineCodeDecl",
    "CountLineCodeExe",
    "CountLineComment",
    "CountStmt",
    "CountStmtDecl",
    "CountStmtExe",
    "MaxCyclomatic",
    "MaxInheritanceTree",
    "MaxNesting",
    "SumCyclomatic",
];

/// Index of a metric name in [`METRIC_NAMES`].
pub fn metric_index(name: &str) -> Option<usize> {
    METRIC_NAMES.iter().position(|m| *m == name)
}

/// Builtin classes that never count as coupling (every class uses them).
const BUILTIN_TYPES: &[&str] = &[
    "object",
    "int",
    "str",
    "float",
    "bool",
    "bytes",
    "list",
    "dict",
    "set",
    "tuple",
    "type",
    "None",
    "True",
    "False",
    "Exception",
    "NotImplemented",
    "Ellipsis",
];

#[derive(Debug, Clone, PartialEq)]
pub struct ClassMetrics {
    /// Values in [`METRIC_NAMES`] order.
    pub values: [f64; 27],
    /// The class and its methods.
    pub total_program_units: u32,
    /// How many of those carry a docstring.
    pub total_doc_str: u32,
    /// Base class names as written (keywords such as `metaclass=` left out).
    pub bases: Vec<String>,
    /// Distinct method names (for inherited-method counts).
    pub methods: Vec<String>,
}

impl ClassMetrics {
    pub fn get(&self, name: &str) -> Option<f64> {
        metric_index(name).map(|i| self.values[i])
    }
    fn set(&mut self, name: &str, v: f64) {
        if let Some(i) = metric_index(name) {
            self.values[i] = v;
        }
    }
}

/// Per-line flags over a span of rows.
#[derive(Default, Clone, Copy)]
struct Line {
    blank: bool,
    code: bool,
    comment: bool,
    decl: bool,
    exe: bool,
}

/// Line counts of a span: (lines, blank, code, comment, decl, exe).
#[derive(Default, Clone, Copy)]
struct LineCounts {
    all: u32,
    blank: u32,
    code: u32,
    comment: u32,
    decl: u32,
    exe: u32,
}

struct Walk<'s> {
    src: &'s [u8],
    lines: Vec<Line>,
    first_row: usize,
    decl: u32,
    exe: u32,
    /// Statements that both declare and execute (`x = 1` binding a new name).
    both: u32,
    depth: u32,
    instance_vars: BTreeSet<String>,
    class_names: BTreeSet<String>,
}

/// Metrics of one class. `class` is the `class_definition` node, `outer` the node with its
/// decorators (the same node when there are none).
pub fn class_metrics(source: &str, class: Node<'_>, outer: Node<'_>) -> ClassMetrics {
    let src = source.as_bytes();
    let first_row = outer.start_position().row;
    let last_row = outer.end_position().row;
    let line_start = source[..outer.start_byte()]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let lines = source
        .get(line_start..outer.end_byte())
        .unwrap_or("")
        .split('\n')
        .map(|l| Line {
            blank: l.trim().is_empty(),
            ..Line::default()
        })
        .chain(std::iter::repeat(Line::default()))
        .take(last_row - first_row + 1)
        .collect();
    let mut w = Walk {
        src,
        lines,
        first_row,
        decl: 1,
        exe: 0,
        both: 0,
        depth: 0,
        instance_vars: BTreeSet::new(),
        class_names: BTreeSet::new(),
    };
    mark_tokens(outer, &mut w);
    w.mark(
        class.start_position().row,
        header_end_row(class),
        Kind::Decl,
    );
    let body = class.child_by_field_name("body");
    let mut methods: Vec<(String, Node<'_>, Node<'_>, bool)> = Vec::new();
    let mut docs = u32::from(body.is_some_and(|b| docstring_node(b).is_some()));
    if let Some(body) = body {
        // Class-level names first: `self.x` of a class attribute is not an instance variable.
        for stmt in named(body) {
            for (k, name) in bindings(stmt, src) {
                if k == Bind::Local {
                    w.class_names.insert(name);
                }
            }
        }
        for stmt in named(body) {
            let (def, outer_def) = unwrap_decorated(stmt);
            if def.kind() == "function_definition" {
                let name = def.child_by_field_name("name").map_or("", |n| text(n, src));
                let is_static = decorator_names(outer_def, src)
                    .iter()
                    .any(|d| d == "staticmethod" || d == "classmethod");
                methods.push((name.to_string(), def, outer_def, !is_static));
            }
        }
        walk_block(body, &mut w, None);
    }
    let counts = |from: usize, to: usize, w: &Walk<'_>| -> LineCounts {
        let mut c = LineCounts::default();
        for row in from..=to {
            let Some(l) = w.lines.get(row.wrapping_sub(w.first_row)) else {
                continue;
            };
            let blank = l.blank;
            c.all += 1;
            c.blank += u32::from(blank);
            c.code += u32::from(l.code && !blank);
            c.comment += u32::from(l.comment && !blank);
            c.decl += u32::from(l.decl && l.code && !blank);
            c.exe += u32::from(l.exe && l.code && !blank);
        }
        c
    };
    let class_lines = counts(first_row, last_row, &w);
    let mut seen = BTreeSet::new();
    let mut per_method: Vec<(LineCounts, u32)> = Vec::new();
    let mut instance_methods = 0;
    let mut max_nesting = 0;
    let mut names = Vec::new();
    for (name, def, outer_def, instance) in &methods {
        let lc = counts(
            outer_def.start_position().row,
            outer_def.end_position().row,
            &w,
        );
        let body = def.child_by_field_name("body");
        let cyc = body.map_or(1, |b| 1 + decisions(b));
        max_nesting = max_nesting.max(body.map_or(0, |b| nesting(b, 0)));
        per_method.push((lc, cyc));
        if seen.insert(name.as_str()) {
            names.push(name.clone());
            instance_methods += u32::from(*instance);
            docs += u32::from(body.is_some_and(|b| docstring_node(b).is_some()));
        }
    }
    let n = per_method.len().max(1) as f64;
    let avg = |f: &dyn Fn(&(LineCounts, u32)) -> u32| -> f64 {
        if per_method.is_empty() {
            0.0
        } else {
            (per_method.iter().map(|m| f(m) as f64).sum::<f64>() / n).round()
        }
    };
    let sum_cyc: u32 = per_method.iter().map(|m| m.1).sum();
    let bases = bases_of(class, src);
    let coupled = coupled_classes(class, src);
    let mut m = ClassMetrics {
        values: [0.0; 27],
        total_program_units: 1 + names.len() as u32,
        total_doc_str: docs,
        methods: names.clone(),
        bases: bases.clone(),
    };
    m.set("AvgCountLine", avg(&|m| m.0.all));
    m.set("AvgCountLineBlank", avg(&|m| m.0.blank));
    m.set("AvgCountLineCode", avg(&|m| m.0.code));
    m.set("AvgCountLineComment", avg(&|m| m.0.comment));
    m.set("AvgCyclomatic", avg(&|m| m.1));
    let ratio = if class_lines.code == 0 {
        0.0
    } else {
        (class_lines.comment as f64 / class_lines.code as f64 * 100.0).round() / 100.0
    };
    m.set("CommentToCodeRatio", ratio);
    m.set(
        "CountClassBase",
        bases.iter().filter(|b| *b != "object").count() as f64,
    );
    m.set("CountClassCoupled", coupled.len() as f64);
    m.set("CountClassCoupledModified", 0.0);
    m.set("CountDeclInstanceMethod", instance_methods as f64);
    m.set("CountDeclInstanceVariable", w.instance_vars.len() as f64);
    m.set("CountDeclMethod", names.len() as f64);
    m.set("CountDeclMethodAll", names.len() as f64);
    m.set("CountLine", class_lines.all as f64);
    m.set("CountLineBlank", class_lines.blank as f64);
    m.set("CountLineCode", class_lines.code as f64);
    m.set("CountLineCodeDecl", class_lines.decl as f64);
    m.set("CountLineCodeExe", class_lines.exe as f64);
    m.set("CountLineComment", class_lines.comment as f64);
    // A statement that both declares and executes (`x = 1`) is one statement.
    m.set("CountStmt", (w.decl + w.exe - w.both) as f64);
    m.set("CountStmtDecl", w.decl as f64);
    m.set("CountStmtExe", w.exe as f64);
    m.set(
        "MaxCyclomatic",
        per_method.iter().map(|m| m.1).max().unwrap_or(0) as f64,
    );
    m.set(
        "MaxInheritanceTree",
        if m.get("CountClassBase") > Some(0.0) {
            1.0
        } else {
            0.0
        },
    );
    m.set("MaxNesting", max_nesting as f64);
    m.set("SumCyclomatic", sum_cyc as f64);
    m
}

/// A class of a module, for [`resolve_inheritance`].
pub struct Inheritance<'a> {
    pub name: &'a str,
    pub metrics: &'a mut ClassMetrics,
}

/// Complete `CountDeclMethodAll`, `MaxInheritanceTree`, `CountClassDerived` with the classes of
/// one scope (a module, a repository): a base found there adds its methods and its depth; a
/// base not found counts as one level with no known methods.
pub fn resolve_inheritance(classes: &mut [Inheritance<'_>]) {
    let by_name: BTreeMap<String, (Vec<String>, Vec<String>)> = classes
        .iter()
        .map(|c| {
            (
                c.name.to_string(),
                (c.metrics.bases.clone(), c.metrics.methods.clone()),
            )
        })
        .collect();
    let mut derived: BTreeMap<&str, u32> = BTreeMap::new();
    for c in classes.iter() {
        for b in &c.metrics.bases {
            let short = b.rsplit('.').next().unwrap_or(b);
            if let Some((k, _)) = by_name.get_key_value(short) {
                *derived.entry(k.as_str()).or_default() += 1;
            }
        }
    }
    let derived: BTreeMap<String, u32> = derived
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    for c in classes.iter_mut() {
        let mut all: BTreeSet<String> = c.metrics.methods.iter().cloned().collect();
        let depth = depth_of(c.name, &by_name, &mut all, 0);
        c.metrics.set("CountDeclMethodAll", all.len() as f64);
        c.metrics.set("MaxInheritanceTree", depth as f64);
        c.metrics.set(
            "CountClassDerived",
            *derived.get(c.name).unwrap_or(&0) as f64,
        );
    }
}

fn depth_of(
    name: &str,
    classes: &BTreeMap<String, (Vec<String>, Vec<String>)>,
    methods: &mut BTreeSet<String>,
    guard: usize,
) -> u32 {
    let Some((bases, _)) = classes.get(name) else {
        return 0;
    };
    if guard > 50 {
        return 0; // a cycle (`class A(A)` after a rebinding); depth is undefined
    }
    let mut depth = 0;
    for b in bases.iter().filter(|b| *b != "object") {
        let short = b.rsplit('.').next().unwrap_or(b);
        if short != name
            && let Some((_, ms)) = classes.get(short)
        {
            methods.extend(ms.iter().cloned());
        }
        let d = if short == name {
            1
        } else {
            1 + depth_of(short, classes, methods, guard + 1)
        };
        depth = depth.max(d);
    }
    depth
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Decl,
    Exe,
}

impl Walk<'_> {
    fn mark(&mut self, from: usize, to: usize, kind: Kind) {
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

/// Named children, through a cursor (indexing children one by one is quadratic in tree-sitter).
fn named<'t>(node: Node<'t>) -> std::vec::IntoIter<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .collect::<Vec<_>>()
        .into_iter()
}

fn unwrap_decorated(stmt: Node<'_>) -> (Node<'_>, Node<'_>) {
    match stmt.kind() {
        "decorated_definition" => (stmt.child_by_field_name("definition").unwrap_or(stmt), stmt),
        _ => (stmt, stmt),
    }
}

fn decorator_names(outer: Node<'_>, src: &[u8]) -> Vec<String> {
    named(outer)
        .filter(|n| n.kind() == "decorator")
        .map(|d| text(d, src).trim_start_matches('@').trim().to_string())
        .collect()
}

/// The last row of a compound statement's header (up to the colon before its body).
fn header_end_row(node: Node<'_>) -> usize {
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
pub fn preorder(root: Node<'_>, mut visit: impl FnMut(Node<'_>, Option<&str>) -> bool) {
    let mut cursor = root.walk();
    let mut depth = 0usize;
    loop {
        let enter = visit(cursor.node(), cursor.field_name());
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

/// Marks code and comment lines: comments and docstrings are comment, other tokens code.
fn mark_tokens(root: Node<'_>, w: &mut Walk<'_>) {
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
enum Bind {
    Local,
    SelfAttr,
}

/// Names a statement binds: plain names, and `self.x` attributes.
fn bindings(stmt: Node<'_>, src: &[u8]) -> Vec<(Bind, String)> {
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
fn walk_block(block: Node<'_>, w: &mut Walk<'_>, mut scope: Option<&mut BTreeSet<String>>) {
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
                    .map(|p| param_names(p, w.src))
                    .unwrap_or_default();
                if let Some(body) = def.child_by_field_name("body") {
                    walk_block(body, w, Some(&mut params));
                }
                continue;
            }
            "class_definition" => {
                w.decl += 1;
                w.mark(outer.start_position().row, header_end_row(def), Kind::Decl);
                if let Some(body) = def.child_by_field_name("body") {
                    walk_block(body, w, None);
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
        for (k, name) in bindings(stmt, w.src) {
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
            if counts {
                w.exe += 1;
                let row = block
                    .parent()
                    .map_or(block.start_position().row, |p| p.start_position().row);
                w.mark(row, row, Kind::Exe);
            }
            walk_block(block, w, scope.as_deref_mut());
        }
    }
    w.depth -= 1;
}

/// Parameter names of a `parameters` node (`self`, `x: int = 1`, `*args`, `**kw`).
fn param_names(params: Node<'_>, src: &[u8]) -> BTreeSet<String> {
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
/// statement of its own (`elif`, `except`, try's `else`/`finally`, `case`), as Understand does.
fn compound_blocks(stmt: Node<'_>) -> Vec<(bool, Node<'_>)> {
    let mut out = Vec::new();
    match stmt.kind() {
        "if_statement" | "for_statement" | "while_statement" | "with_statement" => {
            out.extend(clause_body(stmt).map(|b| (false, b)));
            for alt in named(stmt).filter(|n| matches!(n.kind(), "elif_clause" | "else_clause")) {
                out.extend(clause_body(alt).map(|b| (alt.kind() == "elif_clause", b)));
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

fn clause_body(n: Node<'_>) -> Option<Node<'_>> {
    n.child_by_field_name("body")
        .or_else(|| n.child_by_field_name("consequence"))
        .or_else(|| named(n).find(|c| c.kind() == "block"))
}

/// Decision points of a function body (Understand's standard Cyclomatic): `if`, `elif`, `for`,
/// `while`, `except`, `case` and conditional expressions; `and`/`or` are not counted (that is
/// CyclomaticStrict). Nested functions and classes are units of their own.
fn decisions(root: Node<'_>) -> u32 {
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
fn nesting(block: Node<'_>, depth: u32) -> u32 {
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

fn bases_of(class: Node<'_>, src: &[u8]) -> Vec<String> {
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

/// Classes a class uses (Understand's coupling, approximated without type inference): names
/// that look like classes (capitalised) in calls, bases, annotations and `isinstance` checks,
/// other than the class itself and builtin types.
fn coupled_classes(class: Node<'_>, src: &[u8]) -> BTreeSet<String> {
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
                && !BUILTIN_TYPES.contains(&name)
                && !name
                    .chars()
                    .all(|c| c.is_uppercase() || c == '_' || c.is_ascii_digit())
            {
                out.insert(name.to_string());
            }
        }
        true
    });
    out
}
