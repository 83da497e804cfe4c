//! The 27 class metrics of SciTools Understand (the columns of RealClassEval's and
//! OpenClassGen's `classes_full_docstr.csv`), from a tree-sitter class node. Definitions and
//! the agreement measured on the shared classes are in `docs/metrics.md`.
//!
//! Three metrics need more than the class: `CountClassDerived` (subclasses elsewhere),
//! `CountDeclMethodAll` and `MaxInheritanceTree` (bases elsewhere). They are computed here from
//! the class alone and completed by the caller ([`resolve_inheritance`], the corpus store).

use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::Node;

mod statements;
mod tree;

use crate::analysis::parse::text;
pub(crate) use statements::Line;
use statements::{Bind, bindings, decisions, mark_tokens, nesting, walk_block};
pub(crate) use statements::{Kind, Tally};
pub(crate) use tree::BUILTIN_TYPES;
use tree::{bases_of, coupled_classes, decorator_names, header_end_row, named, unwrap_decorated};
pub use tree::{docstring_node, preorder};

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
    /// The classes counted in `CountClassCoupled`, sorted (the corpus resolves them for
    /// `CountClassCoupledModified`: [`coupled_modified`]).
    pub coupled: Vec<String>,
}

impl ClassMetrics {
    pub fn get(&self, name: &str) -> Option<f64> {
        metric_index(name).map(|i| self.values[i])
    }
    pub(crate) fn set(&mut self, name: &str, v: f64) {
        if let Some(i) = metric_index(name) {
            self.values[i] = v;
        }
    }
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

/// Metrics of one class. `class` is the `class_definition` node, `outer` the node with its
/// decorators (the same node when there are none).
pub fn class_metrics(source: &str, class: Node<'_>, outer: Node<'_>) -> ClassMetrics {
    let src = source.as_bytes();
    let first_row = outer.start_position().row;
    let last_row = outer.end_position().row;
    let lines = blank_lines(
        source,
        outer.start_byte(),
        outer.end_byte(),
        last_row - first_row + 1,
    );
    let mut w = Tally::new(lines, first_row);
    mark_tokens(outer, &mut w);
    w.mark(
        class.start_position().row,
        header_end_row(class),
        Kind::Decl,
    );
    let body = class.child_by_field_name("body");
    let mut methods: Vec<(String, Node<'_>, Node<'_>, bool)> = Vec::new();
    let documented = body.is_some_and(|b| docstring_node(b).is_some());
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
        walk_block(body, src, &mut w, None);
    }
    let mut per_method = Vec::new();
    for (name, def, outer_def, instance) in &methods {
        let body = def.child_by_field_name("body");
        per_method.push(MethodParts {
            name: name.clone(),
            first_row: outer_def.start_position().row,
            last_row: outer_def.end_position().row,
            cyclomatic: body.map_or(1, |b| 1 + decisions(b)),
            nesting: body.map_or(0, |b| nesting(b, 0)),
            instance: *instance,
            documented: body.is_some_and(|b| docstring_node(b).is_some()),
        });
    }
    finish(ClassParts {
        lines: &w.lines,
        first_row,
        last_row,
        decl: w.decl,
        exe: w.exe,
        both: w.both,
        instance_vars: w.instance_vars.len(),
        documented,
        methods: per_method,
        bases: bases_of(class, src),
        coupled: coupled_classes(class, src),
    })
}

/// Per-row flags of the `rows` lines from the one holding byte `start` up to byte `end`, with
/// only `blank` set.
pub(crate) fn blank_lines(source: &str, start: usize, end: usize, rows: usize) -> Vec<Line> {
    let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
    source
        .get(line_start..end)
        .unwrap_or("")
        .split('\n')
        .map(|l| Line {
            blank: l.trim().is_empty(),
            ..Line::default()
        })
        .chain(std::iter::repeat(Line::default()))
        .take(rows)
        .collect()
}

/// One method, as the metrics need it.
pub(crate) struct MethodParts {
    pub name: String,
    /// Rows (0-based) of the definition, decorators included.
    pub first_row: usize,
    pub last_row: usize,
    pub cyclomatic: u32,
    pub nesting: u32,
    /// Not a `@staticmethod` or `@classmethod`.
    pub instance: bool,
    pub documented: bool,
}

/// What a front end (tree-sitter or ruff) measured of a class; [`finish`] makes the metrics.
pub(crate) struct ClassParts<'a> {
    /// Per-row flags from `first_row` to `last_row`.
    pub lines: &'a [Line],
    pub first_row: usize,
    pub last_row: usize,
    pub decl: u32,
    pub exe: u32,
    pub both: u32,
    pub instance_vars: usize,
    /// The class has a docstring.
    pub documented: bool,
    pub methods: Vec<MethodParts>,
    pub bases: Vec<String>,
    pub coupled: BTreeSet<String>,
}

/// The 27 metrics from what a front end measured: one definition for both front ends.
pub(crate) fn finish(p: ClassParts<'_>) -> ClassMetrics {
    let counts = |from: usize, to: usize| -> LineCounts {
        let mut c = LineCounts::default();
        for row in from..=to {
            let Some(l) = p.lines.get(row.wrapping_sub(p.first_row)) else {
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
    let class_lines = counts(p.first_row, p.last_row);
    let mut seen = BTreeSet::new();
    let mut per_method: Vec<(LineCounts, u32)> = Vec::new();
    let mut instance_methods = 0;
    let mut max_nesting = 0;
    let mut names = Vec::new();
    let mut docs = u32::from(p.documented);
    for m in &p.methods {
        let lc = counts(m.first_row, m.last_row);
        max_nesting = max_nesting.max(m.nesting);
        per_method.push((lc, m.cyclomatic));
        if seen.insert(m.name.as_str()) {
            names.push(m.name.clone());
            instance_methods += u32::from(m.instance);
            docs += u32::from(m.documented);
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
    let bases = p.bases;
    let coupled = p.coupled;
    let mut m = ClassMetrics {
        values: [0.0; 27],
        total_program_units: 1 + names.len() as u32,
        total_doc_str: docs,
        methods: names.clone(),
        bases: bases.clone(),
        coupled: coupled.iter().cloned().collect(),
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
    // Needs to know where each name comes from: 0 until the caller resolves it.
    m.set("CountClassCoupledModified", 0.0);
    m.set("CountDeclInstanceMethod", instance_methods as f64);
    m.set("CountDeclInstanceVariable", p.instance_vars as f64);
    m.set("CountDeclMethod", names.len() as f64);
    m.set("CountDeclMethodAll", names.len() as f64);
    m.set("CountLine", class_lines.all as f64);
    m.set("CountLineBlank", class_lines.blank as f64);
    m.set("CountLineCode", class_lines.code as f64);
    m.set("CountLineCodeDecl", class_lines.decl as f64);
    m.set("CountLineCodeExe", class_lines.exe as f64);
    m.set("CountLineComment", class_lines.comment as f64);
    // A statement that both declares and executes (`x = 1`) is one statement.
    m.set("CountStmt", (p.decl + p.exe - p.both) as f64);
    m.set("CountStmtDecl", p.decl as f64);
    m.set("CountStmtExe", p.exe as f64);
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

/// Complete `CountClassCoupledModified`: of the coupled classes, those that are neither builtin
/// nor standard-library nor third-party — the project's own classes (Understand counts the
/// classes whose source it analysed). `is_project(name)` says whether a name resolves to the
/// project (defined in the same file, or imported from the project's own modules).
pub fn coupled_modified(m: &mut ClassMetrics, is_project: impl Fn(&str) -> bool) {
    let n = m
        .coupled
        .iter()
        .filter(|c| BUILTIN_TYPES.binary_search(&c.as_str()).is_err() && is_project(c))
        .count();
    m.set("CountClassCoupledModified", n as f64);
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
