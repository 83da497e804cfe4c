//! Skeleton rules: S1 doctest calls a method the skeleton lacks, S2 instance method called on
//! the class, S3 method called without an instance, S4 skeleton and reference methods differ,
//! S5 skeleton constructor ≠ reference constructor, S6 skeleton not a valid class.

use std::collections::HashSet;

use tree_sitter::Node;

use super::doctests::{Via, doctest_calls, module_names};
use super::syntax::{edit_distance, find_all, line, node_at, text, tokens};
use super::{At, Ctx, Part};
use crate::analysis::parse::{Class, MethodDef};

pub(super) fn check(ctx: &mut Ctx<'_>) {
    if ctx.task.skeleton.trim().is_empty() {
        return;
    }
    if !skeleton_is_sound(ctx) {
        return;
    }
    ctx.skeleton_ok = true;
    doctest_rules(ctx);
    method_sets(ctx);
    constructor(ctx);
}

/// True when the skeleton parses and holds the task's class; otherwise S6 says why, and the
/// rules that read the skeleton stay quiet (their findings would only echo this one).
fn skeleton_is_sound(ctx: &mut Ctx<'_>) -> bool {
    let src = ctx.task.skeleton.as_str();
    if let Some(&first) = ctx.an.skeleton.error_lines.first() {
        let (l, message, fix) = syntax_hint(src, ctx.sk_class.as_ref()).unwrap_or((
            first,
            format!("The skeleton has a syntax error at line {first}."),
            None,
        ));
        ctx.emit("S6", At::new(Part::Skeleton, None, Some(l)), message, fix);
        return false;
    }
    if ctx.sk_class.is_some() {
        return true;
    }
    let name = &ctx.task.class_name;
    let in_string = ctx.sk_tree.as_ref().and_then(|t| {
        find_all(t.root_node(), &["string"])
            .into_iter()
            .find(|s| text(*s, src).contains(&format!("class {name}")))
            .map(|s| (line(s), s.end_position().row + 1))
    });
    let (l, message, fix) = match in_string {
        Some((a, b)) => (
            Some(a),
            format!(
                "The skeleton defines no class `{name}`: its code sits inside a string literal (lines {a}–{b})."
            ),
            Some(format!("remove the quotes at lines {a} and {b}")),
        ),
        None => (
            None,
            format!("The skeleton defines no class `{name}`."),
            None,
        ),
    };
    ctx.emit("S6", At::new(Part::Skeleton, None, l), message, fix);
    false
}

/// Why a skeleton does not parse, when it is one of the known slips.
fn syntax_hint(src: &str, class: Option<&Class>) -> Option<(usize, String, Option<String>)> {
    const CURLY: [char; 4] = ['\u{201c}', '\u{201d}', '\u{2018}', '\u{2019}'];
    for (i, l) in src.lines().enumerate() {
        let t = l.trim();
        if t.chars().count() >= 3 && t.chars().take(3).all(|c| CURLY.contains(&c)) {
            let quote: String = t.chars().take(3).collect();
            return Some((
                i + 1,
                format!(
                    "Line {} delimits a docstring with curly quotes `{quote}`.",
                    i + 1
                ),
                Some(format!("replace `{quote}` with `\"\"\"` at line {}", i + 1)),
            ));
        }
    }
    // An unclosed docstring swallows the next definition into its text.
    let m = class?.methods.iter().find(|m| {
        m.docstring.as_deref().is_some_and(|d| {
            d.lines()
                .any(|l| l.trim_start().starts_with("def ") && l.trim_end().ends_with(':'))
        })
    })?;
    Some((
        m.start_line,
        format!(
            "The docstring of `{}` is not closed: it runs into the next definition.",
            m.name
        ),
        Some(format!("close the docstring of `{}` with `\"\"\"`", m.name)),
    ))
}

/// S1, S2, S3 over the skeleton's examples.
fn doctest_rules(ctx: &mut Ctx<'_>) {
    let Some(class) = ctx.sk_class.clone() else {
        return;
    };
    // With a base class, a name the skeleton lacks may well be inherited.
    let inherits = class.bases.iter().any(|b| b != "object");
    let mut unbound_seen: HashSet<(String, String)> = HashSet::new();
    for dc in doctest_calls(&class, &module_names(ctx)) {
        let name = &dc.call.name;
        let at = At::new(Part::Skeleton, Some(dc.host.as_str()), Some(dc.line));
        let example = short(&dc.source);
        match (dc.via, class.method(name)) {
            (Via::Class | Via::Instance, None) if !inherits => {
                let near = class
                    .method_names()
                    .into_iter()
                    .filter(|n| edit_distance(n, name) <= 2)
                    .min_by_key(|n| edit_distance(n, name));
                ctx.emit(
                    "S1",
                    at,
                    format!(
                        "The example `>>> {example}` calls `{name}`, which the skeleton does not define."
                    ),
                    near.map(|n| format!("call `{n}` instead of `{name}`")),
                );
            }
            (Via::Class, Some(def))
                if !def.is_staticmethod()
                    && !def.is_classmethod()
                    && !dc.call.splat
                    && !dc.first_arg_instance =>
            {
                let fix = uses_no_self(ctx, name)
                    .then(|| format!("decorate `{name}` with @staticmethod (it never uses self)"));
                ctx.emit(
                    "S2",
                    at,
                    format!(
                        "The example `>>> {example}` calls `{}.{name}` on the class, but `{name}` is an instance method.",
                        class.name
                    ),
                    fix,
                );
            }
            (Via::Unbound, Some(_)) => {
                let receiver = dc.call.receiver.as_deref().unwrap_or("");
                // One finding per docstring and variable, not per use.
                if !unbound_seen.insert((dc.host.clone(), receiver.to_string())) {
                    continue;
                }
                ctx.emit(
                    "S3",
                    at,
                    format!(
                        "The example `>>> {example}` calls `{name}` on `{receiver}`, which no example of this docstring creates."
                    ),
                    Some(format!(
                        "start the examples with `>>> {receiver} = {}(…)`",
                        class.name
                    )),
                );
            }
            (Via::SelfName, Some(_)) | (Via::Bare, Some(_)) => {
                ctx.emit(
                    "S3",
                    at,
                    format!(
                        "The example `>>> {example}` calls `{name}` without an instance of `{}`.",
                        class.name
                    ),
                    Some(format!("create an instance first and call `obj.{name}(…)`")),
                );
            }
            _ => {}
        }
    }
}

fn uses_no_self(ctx: &Ctx<'_>, name: &str) -> bool {
    ctx.an.method_def(name).is_some_and(|d| {
        ctx.task
            .solution
            .get(d.body_start_byte..d.end_byte)
            .is_some_and(|body| !body.contains("self"))
    })
}

fn short(source: &str) -> String {
    let first = source.lines().next().unwrap_or("");
    let more = source.lines().count() > 1;
    let mut s: String = first.chars().take(70).collect();
    if more || first.chars().count() > 70 {
        s.push('…');
    }
    s
}

/// S4: methods of the reference the skeleton lacks, and the reverse.
fn method_sets(ctx: &mut Ctx<'_>) {
    let (only_solution, only_skeleton) = ctx.an.skeleton_mismatch();
    for name in only_solution {
        let def_line = ctx.an.method_def(&name).map(|d| d.start_line);
        let tested = ctx.task.test_module.contains(&format!(".{name}("));
        let why = if tested { "; the tests call it" } else { "" };
        ctx.emit(
            "S4",
            At::new(Part::Solution, Some(&name), def_line),
            format!("The reference defines `{name}`, which the skeleton lacks{why}."),
            Some(format!(
                "add `{name}`'s signature and docstring to the skeleton, or fold it into its callers"
            )),
        );
    }
    let sk_lines: Vec<(String, usize)> = ctx
        .sk_class
        .as_ref()
        .map(|c| {
            c.methods
                .iter()
                .map(|m| (m.name.clone(), m.start_line))
                .collect()
        })
        .unwrap_or_default();
    for name in only_skeleton {
        let l = sk_lines.iter().find(|(n, _)| *n == name).map(|(_, l)| *l);
        ctx.emit(
            "S4",
            At::new(Part::Skeleton, Some(&name), l),
            format!("The skeleton declares `{name}`, which the reference does not define."),
            None,
        );
    }
}

/// S5: the given constructor (skeleton) ≠ the reference's, docstrings and comments aside.
fn constructor(ctx: &mut Ctx<'_>) {
    let (Some(sk_def), Some(sol_def)) = (
        ctx.sk_class
            .as_ref()
            .and_then(|c| c.method("__init__"))
            .cloned(),
        ctx.an
            .class
            .as_ref()
            .and_then(|c| c.method("__init__"))
            .cloned(),
    ) else {
        return;
    };
    let (Some(sk_tree), Some(sol_tree)) = (ctx.sk_tree.clone(), ctx.sol_tree.clone()) else {
        return;
    };
    let (sk_src, sol_src) = (ctx.task.skeleton.as_str(), ctx.task.solution.as_str());
    let sk_stmts = statements(sk_tree.root_node(), sk_src, &sk_def);
    let sol_stmts = statements(sol_tree.root_node(), sol_src, &sol_def);
    let at = |l| At::new(Part::Skeleton, None, Some(l));
    let fix = Some("make the skeleton's constructor the reference's".to_string());
    if sk_def.params != sol_def.params {
        ctx.emit(
            "S5",
            at(sk_def.start_line),
            format!(
                "The skeleton's `__init__` takes ({}) but the reference's takes ({}).",
                sk_def.params.join(", "),
                sol_def.params.join(", ")
            ),
            fix,
        );
        return;
    }
    let n = sk_stmts.len().max(sol_stmts.len());
    for i in 0..n {
        let (sk, sol) = (sk_stmts.get(i), sol_stmts.get(i));
        if sk.map(|s| &s.1) == sol.map(|s| &s.1) {
            continue;
        }
        let message = match (sk, sol) {
            (Some(a), Some(b)) => format!(
                "The skeleton's `__init__` has `{}` where the reference has `{}`.",
                short(&a.2),
                short(&b.2)
            ),
            (Some(a), None) => format!(
                "The skeleton's `__init__` has `{}`, which the reference lacks.",
                short(&a.2)
            ),
            (None, Some(b)) => format!(
                "The skeleton's `__init__` lacks the reference's `{}`.",
                short(&b.2)
            ),
            (None, None) => break,
        };
        let l = sk.map_or(sk_def.start_line, |s| s.0);
        ctx.emit("S5", at(l), message, fix);
        return;
    }
}

/// The statements of a method body without its docstring: (line, tokens, text).
fn statements(root: Node<'_>, src: &str, def: &MethodDef) -> Vec<(usize, Vec<String>, String)> {
    let Some(node) = node_at(root, def.start_byte, def.end_byte) else {
        return Vec::new();
    };
    let func = if node.kind() == "decorated_definition" {
        node.child_by_field_name("definition")
    } else {
        Some(node)
    };
    let Some(body) = func.and_then(|f| f.child_by_field_name("body")) else {
        return Vec::new();
    };
    let mut cursor = body.walk();
    body.named_children(&mut cursor)
        .filter(|s| s.kind() != "comment")
        .filter(|s| {
            !(s.kind() == "expression_statement"
                && s.named_child(0)
                    .is_some_and(|e| matches!(e.kind(), "string" | "concatenated_string")))
        })
        .filter(|s| s.kind() != "pass_statement")
        .map(|s| {
            let toks = tokens(s, src)
                .into_iter()
                .map(|(_, t)| t.to_string())
                .collect();
            (line(s), toks, text(s, src).to_string())
        })
        .collect()
}

#[cfg(test)]
#[path = "skeleton_unit.rs"]
mod unit;
