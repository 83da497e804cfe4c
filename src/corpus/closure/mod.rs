//! A class's executable closure: the module it needs to run as it ran in its repository — its
//! module's `from __future__` imports first, then, in their original order, the imports it uses
//! and the module-level names it uses (constants, helper functions, sibling classes), each
//! followed transitively, and the class itself — but not the module's other imports. What the
//! closure cannot carry (a third-party package, the project's other modules, a name its module
//! never defines) is listed with the reason.
//!
//! Computed at build time from ruff's AST (`plan.rs`) and stored as units per file plus a list
//! of unit numbers per class; [`module_for`] assembles the module from a store. `corpus
//! export` writes it, and the same module is what makes a mined class executable elsewhere.

mod plan;

use std::collections::BTreeSet;

use anyhow::Context as _;
use rusqlite::{OptionalExtension as _, params};
use serde::{Deserialize, Serialize};

pub use plan::{BLOCKER_ENCLOSING, BLOCKER_UNPARSED, ClassAt, ClassClosure, plan};

use super::deps::Deps;
use super::query::Store;

/// What a unit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnitKind {
    /// `from __future__ import …`: always first, always carried.
    Future,
    /// One name an import binds (`from typing import Dict`).
    Import,
    /// `from m import *`.
    Star,
    /// A module-level function.
    Def,
    /// A module-level class (its code is its row's).
    Class,
    /// Any other module-level statement that binds a name (`X = 1`, `try: import … except …`).
    Stmt,
}

impl UnitKind {
    pub fn as_str(self) -> &'static str {
        match self {
            UnitKind::Future => "future",
            UnitKind::Import => "import",
            UnitKind::Star => "star",
            UnitKind::Def => "def",
            UnitKind::Class => "class",
            UnitKind::Stmt => "stmt",
        }
    }

    pub fn parse(s: &str) -> Option<UnitKind> {
        Some(match s {
            "future" => UnitKind::Future,
            "import" => UnitKind::Import,
            "star" => UnitKind::Star,
            "def" => UnitKind::Def,
            "class" => UnitKind::Class,
            "stmt" => UnitKind::Stmt,
            _ => return None,
        })
    }

    fn is_import(self) -> bool {
        matches!(self, UnitKind::Future | UnitKind::Import | UnitKind::Star)
    }
}

/// One piece of a module a class may need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// Its number in the file (units are numbered in source order).
    pub idx: u32,
    /// The module-level statement it comes from (0-based).
    pub pos: u32,
    pub kind: UnitKind,
    /// Its source (an import is rewritten to bind one name); empty for a class.
    pub code: String,
    /// For a class: its row's id, where its code is.
    pub class_id: Option<i64>,
}

/// How a class's closure is stored (`class_text.closure`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredClosure {
    pub at: Option<u32>,
    pub units: Vec<u32>,
    pub reasons: Vec<String>,
    pub standalone: bool,
}

impl From<&ClassClosure> for StoredClosure {
    fn from(c: &ClassClosure) -> Self {
        StoredClosure {
            at: c.at,
            units: c.units.clone(),
            reasons: c.reasons.clone(),
            standalone: c.standalone,
        }
    }
}

/// A class as a module of its own.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassModule {
    #[serde(serialize_with = "crate::corpus::query::id_string")]
    pub id: i64,
    pub path: String,
    pub qualname: String,
    /// The class's own name (what the module defines).
    pub class_name: String,
    /// The module: future imports, the imports and module-level code it needs, the class.
    pub source: String,
    /// The import statements `source` carries, in order.
    pub imports: Vec<String>,
    /// The modules it imports unconditionally, by origin.
    pub deps: Deps,
    /// Why it cannot run on the standard library alone; empty when it can.
    pub reasons: Vec<String>,
    /// Whether `source` can be a module at all (compile); see [`ClassClosure::standalone`].
    pub standalone: bool,
    /// Where the class stands among its units, and the units (to put another text in its place).
    #[serde(skip)]
    pub at: Option<u32>,
    #[serde(skip)]
    pub units: Vec<Unit>,
}

impl ClassModule {
    /// The same module with `class_text` (its skeleton, a model's answer) in the class's place.
    pub fn with_class(&self, class_text: &str) -> String {
        assemble(class_text, self.at, &self.units).0
    }

    /// Runs with nothing but the standard library (what the store's `self_contained` says).
    pub fn self_contained(&self) -> bool {
        self.reasons.is_empty()
    }
}

/// The module of class `class_id` of `store`.
pub fn module_for(store: &Store, class_id: i64) -> anyhow::Result<ClassModule> {
    let conn = store.connection();
    let row = conn
        .prepare_cached(
            "SELECT c.path, c.qualname, c.name, t.code, t.closure, l.deps
             FROM classes c JOIN class_text t ON t.seq = c.seq
                  JOIN class_lists l ON l.seq = c.seq
             WHERE c.id = ?1",
        )?
        .query_row(params![class_id], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, String>(5)?,
            ))
        })
        .optional()?;
    let Some((path, qualname, class_name, code, closure, deps)) = row else {
        anyhow::bail!("class {class_id} is not in the store");
    };
    let closure: StoredClosure = serde_json::from_str(&closure)
        .with_context(|| format!("class {class_id}: its stored closure is not readable"))?;
    let deps: Deps = serde_json::from_str(&deps).unwrap_or_default();
    let wanted: BTreeSet<u32> = closure.units.iter().copied().collect();
    let mut units = Vec::with_capacity(wanted.len());
    let mut stmt = conn.prepare_cached(
        "SELECT idx, pos, kind, code, class_id FROM units WHERE path = ?1 ORDER BY idx",
    )?;
    let mut rows = stmt.query(params![path])?;
    while let Some(r) = rows.next()? {
        let idx: u32 = r.get(0)?;
        if !wanted.contains(&idx) {
            continue;
        }
        let kind: String = r.get(2)?;
        let mut unit = Unit {
            idx,
            pos: r.get(1)?,
            kind: UnitKind::parse(&kind)
                .with_context(|| format!("{path}: unit {idx} of unknown kind `{kind}`"))?,
            code: r.get(3)?,
            class_id: r.get(4)?,
        };
        if let Some(id) = unit.class_id {
            unit.code = store.text(id)?.map(|t| t.code).unwrap_or_default();
        }
        units.push(unit);
    }
    if units.len() != wanted.len() {
        anyhow::bail!(
            "{path}: class {class_id} needs {} units, the store has {}; build the store again",
            wanted.len(),
            units.len()
        );
    }
    let (source, imports) = assemble(&code, closure.at, &units);
    Ok(ClassModule {
        id: class_id,
        path,
        qualname,
        class_name,
        source,
        imports,
        deps,
        reasons: closure.reasons,
        standalone: closure.standalone,
        at: closure.at,
        units,
    })
}

/// The module's text: future imports, then the units before the class's statement, the class,
/// the units after it; imports one per line, other pieces apart by a blank line. Also the
/// import statements it carries.
pub fn assemble(class_code: &str, at: Option<u32>, units: &[Unit]) -> (String, Vec<String>) {
    let mut sorted: Vec<&Unit> = units.iter().collect();
    // Future imports must come first; the rest keeps its source order.
    sorted.sort_by_key(|u| (u.kind != UnitKind::Future, u.idx));
    let merged = merge_imports(&sorted);
    let ordered: Vec<&Unit> = merged.iter().collect();
    let imports = ordered
        .iter()
        .filter(|u| u.kind.is_import())
        .map(|u| u.code.clone())
        .collect();
    let split = ordered
        .iter()
        .position(|u| u.kind != UnitKind::Future && at.is_some_and(|a| u.pos > a))
        .unwrap_or(ordered.len());
    let mut pieces: Vec<(bool, &str)> = ordered[..split]
        .iter()
        .map(|u| (u.kind.is_import(), u.code.as_str()))
        .collect();
    pieces.push((false, class_code.trim_end()));
    pieces.extend(
        ordered[split..]
            .iter()
            .map(|u| (u.kind.is_import(), u.code.as_str())),
    );
    let mut out = String::new();
    let mut prev_import = None;
    for (is_import, code) in pieces {
        match prev_import {
            None => {}
            Some(true) if is_import => out.push('\n'),
            Some(_) => out.push_str("\n\n\n"),
        }
        out.push_str(code.trim_end());
        prev_import = Some(is_import);
    }
    out.push('\n');
    (out, imports)
}

/// The names one import statement binds, back in one statement (`from typing import Dict,
/// Optional` rather than one line each).
fn merge_imports(units: &[&Unit]) -> Vec<Unit> {
    let mut out: Vec<Unit> = Vec::with_capacity(units.len());
    for u in units {
        if let Some(last) = out.last_mut()
            && u.kind == UnitKind::Import
            && last.kind == UnitKind::Import
            && last.pos == u.pos
            && let Some((head, name)) = split_import(&u.code)
            && split_import(&last.code).is_some_and(|(h, _)| h == head)
        {
            last.code.push_str(", ");
            last.code.push_str(name);
            continue;
        }
        out.push((*u).clone());
    }
    out
}

/// `from m import x as y` → (`from m import `, `x as y`); `import a.b` → (`import `, `a.b`).
fn split_import(code: &str) -> Option<(&str, &str)> {
    if code.starts_with("from ") {
        let at = code.find(" import ")? + " import ".len();
        Some((&code[..at], &code[at..]))
    } else {
        code.strip_prefix("import ").map(|name| ("import ", name))
    }
}

#[cfg(test)]
mod tests;
