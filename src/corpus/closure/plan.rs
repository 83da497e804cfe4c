//! Build time: a file's module-level statements cut into *units* (one per import binding, one per
//! other statement that binds a name), and for each class the units it needs, transitively,
//! resolved by Python's scoping rules (`scope.rs`), with the modules those units import and
//! the reasons, if any, why the result cannot run on the standard library alone.

use std::collections::BTreeSet;

use rustc_hash::{FxHashMap, FxHashSet};
use rustpython_ruff_python_ast::{self as ast, Expr, Stmt};
use rustpython_ruff_text_size::Ranged;

use super::{Unit, UnitKind};
use crate::corpus::deps::{Deps, Origin, classify, is_builtin, origin};
use crate::corpus::ruff::RuffModule;
use crate::corpus::scope;

/// What a class needs from its module (stored with the class).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClassClosure {
    /// The module-level statement the class is (or is nested in): where it goes among its units.
    pub at: Option<u32>,
    /// The units it needs (`Unit::idx`), ascending.
    pub units: Vec<u32>,
    /// The modules its closure imports (unconditionally), sorted by origin.
    pub deps: Deps,
    /// Why it cannot run on the standard library alone, one sentence each (empty: it can).
    pub reasons: Vec<String>,
    /// The same, as short keys the funnel counts (`third-party: numpy`, `project: relative
    /// import`, `unresolved name`, …), sorted and distinct.
    pub blockers: Vec<String>,
    /// Whether its module can exist at all (compile): not when the class's own module does not
    /// parse, or when it assigns variables of a function around it (`nonlocal`).
    pub standalone: bool,
}

impl ClassClosure {
    /// For a class whose module Python 3 cannot parse: no closure, and why.
    pub fn unparsed(deps: Deps) -> Self {
        ClassClosure {
            at: None,
            units: Vec::new(),
            deps,
            reasons: vec![
                "its module does not parse as Python 3, so it never ran as it is".to_string(),
            ],
            blockers: vec![BLOCKER_UNPARSED.to_string()],
            standalone: false,
        }
    }
}

pub const BLOCKER_UNPARSED: &str = "module does not parse";
pub const BLOCKER_ENCLOSING: &str = "nonlocal of an enclosing function";
const BLOCKER_UNRESOLVED: &str = "unresolved name";

/// An import somewhere in a unit or class, and whether its failure is survivable (inside a
/// `try` that catches `ImportError`, or under `if TYPE_CHECKING:`, which never runs).
struct Import {
    module: String,
    optional: bool,
}

/// A candidate unit with what it binds, reads and imports.
struct Candidate<'a> {
    unit: Unit,
    defines: Vec<&'a str>,
    free: Vec<&'a str>,
    imports: Vec<Import>,
}

/// A class of the file: its node, the byte it starts at, its row id.
pub struct ClassAt<'a> {
    pub def: &'a ast::StmtClassDef,
    pub start: usize,
    pub id: i64,
    /// Defined inside a function or another class.
    pub nested: bool,
}

/// The units of a file that at least one class needs, and each class's closure (in `classes`'
/// order).
pub fn plan(
    rm: &RuffModule<'_>,
    classes: &[ClassAt<'_>],
    project: &BTreeSet<String>,
) -> (Vec<Unit>, Vec<ClassClosure>) {
    let ids: FxHashMap<usize, i64> = classes.iter().map(|c| (c.start, c.id)).collect();
    let cands = candidates(rm, &ids);
    let mut defs: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    for (i, c) in cands.iter().enumerate() {
        for name in &c.defines {
            defs.entry(name).or_default().push(i);
        }
    }
    let body = rm.body();
    let mut used = BTreeSet::new();
    let closures: Vec<ClassClosure> = classes
        .iter()
        .map(|c| {
            let at = body.partition_point(|s| (s.start().to_usize()) <= c.start);
            let at = at.checked_sub(1).map(|a| a as u32);
            let closure = close(c, at, &cands, &defs, project);
            used.extend(closure.units.iter().copied());
            closure
        })
        .collect();
    let units = cands
        .into_iter()
        .filter(|c| used.contains(&c.unit.idx))
        .map(|c| c.unit)
        .collect();
    (units, closures)
}

fn close(
    class: &ClassAt<'_>,
    at: Option<u32>,
    cands: &[Candidate<'_>],
    defs: &FxHashMap<&str, Vec<usize>>,
    project: &BTreeSet<String>,
) -> ClassClosure {
    let mut taken: FxHashSet<usize> = FxHashSet::default();
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    let names = scope::of_class(class.def);
    let mut todo: Vec<&str> = names.free;
    let mut unresolved: BTreeSet<&str> = BTreeSet::new();
    let mut imports: Vec<Import> = Vec::new();
    imports_within(&class.def.body, false, &mut imports);
    while let Some(name) = todo.pop() {
        if !seen.insert(name) {
            continue;
        }
        match defs.get(name) {
            Some(found) => {
                for &i in found {
                    // The class itself (a top-level class reached back through a helper).
                    if cands[i].unit.class_id == Some(class.id) {
                        continue;
                    }
                    if taken.insert(i) {
                        todo.extend(cands[i].free.iter().copied());
                    }
                }
            }
            None if is_builtin(name) => {}
            None => {
                unresolved.insert(name);
            }
        }
    }
    // A star import may define what nothing else does: take them all, and trust them.
    let stars: Vec<usize> = (0..cands.len())
        .filter(|&i| cands[i].unit.kind == UnitKind::Star)
        .collect();
    if !unresolved.is_empty() && !stars.is_empty() {
        taken.extend(stars);
        unresolved.clear();
    }
    // `from __future__` imports change how the code compiles: always carried.
    taken.extend((0..cands.len()).filter(|&i| cands[i].unit.kind == UnitKind::Future));
    let mut units: Vec<u32> = taken.iter().map(|&i| cands[i].unit.idx).collect();
    units.sort_unstable();
    for &i in &taken {
        for imp in &cands[i].imports {
            imports.push(Import {
                module: imp.module.clone(),
                optional: imp.optional,
            });
        }
    }
    let needed: BTreeSet<&str> = imports
        .iter()
        .filter(|i| !i.optional && i.module != "__future__")
        .map(|i| i.module.as_str())
        .collect();
    let deps = classify(needed.iter().copied(), project);
    let mut reasons = Vec::new();
    let mut blockers = BTreeSet::new();
    for m in &needed {
        let top = m.split('.').next().unwrap_or(m);
        match origin(m, project) {
            Origin::Stdlib => {}
            Origin::ThirdParty => {
                reasons.push(format!("imports `{m}` (third-party)"));
                blockers.insert(format!("third-party: {top}"));
            }
            Origin::Project if m.starts_with('.') => {
                reasons.push(format!(
                    "imports `{m}` (a relative import: its own project)"
                ));
                blockers.insert("project: relative import".to_string());
            }
            Origin::Project => {
                reasons.push(format!("imports `{m}` (its own project)"));
                blockers.insert(format!("project: {top}"));
            }
        }
    }
    for n in &unresolved {
        reasons.push(format!(
            "uses `{n}`, which its module neither defines nor imports{}",
            if class.nested {
                " (a name of a scope around it?)"
            } else {
                ""
            }
        ));
        blockers.insert(BLOCKER_UNRESOLVED.to_string());
    }
    for n in &names.nonlocal {
        reasons.push(format!(
            "assigns `nonlocal {n}`, a variable of the function it is defined in: it cannot \
             stand alone"
        ));
        blockers.insert(BLOCKER_ENCLOSING.to_string());
    }
    ClassClosure {
        at,
        units,
        deps,
        reasons,
        blockers: blockers.into_iter().collect(),
        standalone: names.nonlocal.is_empty(),
    }
}

/// Every module-level statement as candidate units: imports one per bound name, definitions
/// and other binding statements whole. Statements that bind nothing are no unit.
fn candidates<'a>(rm: &'a RuffModule<'_>, ids: &FxHashMap<usize, i64>) -> Vec<Candidate<'a>> {
    let mut out: Vec<Candidate<'a>> = Vec::new();
    for (pos, stmt) in rm.body().iter().enumerate() {
        let pos = pos as u32;
        let mut push = |kind: UnitKind,
                        code: String,
                        defines: Vec<&'a str>,
                        free: Vec<&'a str>,
                        imports: Vec<Import>,
                        class_id: Option<i64>| {
            let idx = out.len() as u32;
            out.push(Candidate {
                unit: Unit {
                    idx,
                    pos,
                    kind,
                    code,
                    class_id,
                },
                defines,
                free,
                imports,
            });
        };
        match stmt {
            Stmt::ImportFrom(i)
                if i.level == 0
                    && i.module
                        .as_ref()
                        .is_some_and(|m| m.as_str() == "__future__") =>
            {
                push(
                    UnitKind::Future,
                    rm.text(stmt.range()).to_string(),
                    Vec::new(),
                    Vec::new(),
                    Vec::new(),
                    None,
                );
            }
            Stmt::Import(i) => {
                for a in &i.names {
                    let bound = match &a.asname {
                        Some(x) => x.as_str(),
                        None => a.name.as_str().split('.').next().unwrap_or(""),
                    };
                    let module = a.name.as_str().to_string();
                    push(
                        UnitKind::Import,
                        format!("import {}", rm.text(a.range())),
                        vec![bound],
                        Vec::new(),
                        vec![Import {
                            module,
                            optional: false,
                        }],
                        None,
                    );
                }
            }
            Stmt::ImportFrom(i) => {
                let module = from_module(i);
                for a in &i.names {
                    let star = a.name.as_str() == "*";
                    let defines = if star {
                        Vec::new()
                    } else {
                        vec![a.asname.as_ref().unwrap_or(&a.name).as_str()]
                    };
                    push(
                        if star {
                            UnitKind::Star
                        } else {
                            UnitKind::Import
                        },
                        format!("from {module} import {}", rm.text(a.range())),
                        defines,
                        Vec::new(),
                        vec![Import {
                            module: module.clone(),
                            optional: false,
                        }],
                        None,
                    );
                }
            }
            _ => {
                let names = scope::of_statement(stmt);
                if names.bound.is_empty() {
                    continue;
                }
                let mut imports = Vec::new();
                imports_within(std::slice::from_ref(stmt), false, &mut imports);
                let (kind, class_id) = match stmt {
                    Stmt::FunctionDef(_) => (UnitKind::Def, None),
                    Stmt::ClassDef(c) => match ids.get(&c.start().to_usize()) {
                        Some(id) => (UnitKind::Class, Some(*id)),
                        None => (UnitKind::Stmt, None),
                    },
                    _ => (UnitKind::Stmt, None),
                };
                // A class's code is its row's: not stored twice.
                let code = if class_id.is_some() {
                    String::new()
                } else {
                    rm.text(stmt.range()).to_string()
                };
                push(kind, code, names.bound, names.free, imports, class_id);
            }
        }
    }
    out
}

/// `from ..a.b import x` → `..a.b`.
fn from_module(i: &ast::StmtImportFrom) -> String {
    let mut m = ".".repeat(i.level as usize);
    if let Some(name) = &i.module {
        m.push_str(name.as_str());
    }
    m
}

/// Every import inside `body` (at any depth: function bodies, branches, handlers).
fn imports_within(body: &[Stmt], optional: bool, out: &mut Vec<Import>) {
    for stmt in body {
        match stmt {
            Stmt::Import(i) => out.extend(i.names.iter().map(|a| Import {
                module: a.name.as_str().to_string(),
                optional,
            })),
            Stmt::ImportFrom(i) => out.push(Import {
                module: from_module(i),
                optional,
            }),
            Stmt::FunctionDef(f) => imports_within(&f.body, optional, out),
            Stmt::ClassDef(c) => imports_within(&c.body, optional, out),
            Stmt::If(i) => {
                imports_within(&i.body, optional || is_type_checking(&i.test), out);
                for c in &i.elif_else_clauses {
                    imports_within(&c.body, optional, out);
                }
            }
            Stmt::Try(t) => {
                let guarded = t.handlers.iter().any(catches_import_error);
                imports_within(&t.body, optional || guarded, out);
                for ast::ExceptHandler::ExceptHandler(h) in &t.handlers {
                    imports_within(&h.body, optional, out);
                }
                imports_within(&t.orelse, optional, out);
                imports_within(&t.finalbody, optional, out);
            }
            Stmt::With(w) => imports_within(&w.body, optional, out),
            Stmt::For(f) => {
                imports_within(&f.body, optional, out);
                imports_within(&f.orelse, optional, out);
            }
            Stmt::While(w) => {
                imports_within(&w.body, optional, out);
                imports_within(&w.orelse, optional, out);
            }
            Stmt::Match(m) => {
                for c in &m.cases {
                    imports_within(&c.body, optional, out);
                }
            }
            _ => {}
        }
    }
}

/// `TYPE_CHECKING` or `typing.TYPE_CHECKING`: a branch that never runs.
fn is_type_checking(test: &Expr) -> bool {
    match test {
        Expr::Name(n) => n.id.as_str() == "TYPE_CHECKING",
        Expr::Attribute(a) => a.attr.as_str() == "TYPE_CHECKING",
        _ => false,
    }
}

/// A handler that an `ImportError` ends in (so the `try` body's imports may fail).
fn catches_import_error(h: &ast::ExceptHandler) -> bool {
    let ast::ExceptHandler::ExceptHandler(h) = h;
    let catches = |e: &Expr| {
        let name = match e {
            Expr::Name(n) => n.id.as_str(),
            Expr::Attribute(a) => a.attr.as_str(),
            _ => return false,
        };
        matches!(
            name,
            "ImportError" | "ModuleNotFoundError" | "Exception" | "BaseException"
        )
    };
    match h.type_.as_deref() {
        None => true,
        Some(Expr::Tuple(t)) => t.elts.iter().any(catches),
        Some(e) => catches(e),
    }
}
