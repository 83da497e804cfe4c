//! Docstring rules over the skeleton (what the model reads): D2 constructor without
//! docstring, D4 `:param` ≠ signature, D5 example arguments ≠ signature, D7 missing docstring,
//! D8 no description, D10 undocumented parameter, D13 non-Python type names, D14 undocumented
//! return value, D15 mutator without `:return: None`, D16 mixed styles, D17 mixed verb forms,
//! D19 containers without element types. D16/D17 (the class's
//! style as a whole) live in `docstyle`.

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::docfields::{Doc, Field, parse_doc};
use super::doctests::{Via, doctest_calls, module_names};
use super::syntax::{edit_distance, line_of_byte, node_at, squash, text, walk};
use super::{At, Ctx, Part};
use crate::analysis::parse::MethodDef;

pub(super) fn check(ctx: &mut Ctx<'_>) {
    if !ctx.skeleton_ok {
        return;
    }
    let Some(class) = ctx.sk_class.clone() else {
        return;
    };
    if let Some(init) = class.method("__init__")
        && init.docstring.is_none()
    {
        ctx.emit(
            "D2",
            At::new(Part::Skeleton, None, Some(init.start_line)),
            "The constructor has no docstring.".into(),
            None,
        );
    }
    let mut docs: Vec<(MethodDef, Doc, usize)> = Vec::new();
    for def in &class.methods {
        if !ctx.is_target(&def.name) || docs.iter().any(|(d, _, _)| d.name == def.name) {
            continue;
        }
        let Some(doc) = &def.docstring else {
            ctx.emit(
                "D7",
                At::new(Part::Skeleton, Some(&def.name), Some(def.start_line)),
                format!("`{}` has no docstring.", def.name),
                None,
            );
            continue;
        };
        let first = def
            .docstring_bytes
            .map_or(def.start_line, |(s, _)| line_of_byte(&ctx.task.skeleton, s));
        let parsed = parse_doc(doc);
        method_doc(ctx, def, &parsed, first);
        docs.push((def.clone(), parsed, first));
    }
    super::docstyle::mixed_styles(ctx, &docs);
    super::docstyle::mixed_verbs(ctx, &docs);
    example_arguments(ctx);
}

/// Parameter names a docstring should document: no `self`/`cls`, no `*`/`/` markers.
fn documentable(def: &MethodDef) -> Vec<String> {
    let skip_first = !def.is_staticmethod();
    def.params
        .iter()
        .enumerate()
        .filter(|(i, p)| !(skip_first && *i == 0 && (*p == "self" || *p == "cls")))
        .map(|(_, p)| p.trim_start_matches('*').to_string())
        .filter(|p| !p.is_empty() && p != "/")
        .collect()
}

/// D4, D8, D10, D13, D14, D15, D19 for one method.
fn method_doc(ctx: &mut Ctx<'_>, def: &MethodDef, doc: &Doc, first: usize) {
    let name = def.name.as_str();
    let at = |l: usize| At::new(Part::Skeleton, Some(name), Some(first + l));
    let params = documentable(def);
    let has_kwargs = def.params.iter().any(|p| p.starts_with("**"));
    let documented: Vec<&Field> = doc.params().collect();
    let unknown: Vec<&Field> = documented
        .iter()
        .copied()
        .filter(|f| !params.contains(&f.name))
        .collect();
    let missing: Vec<&String> = params
        .iter()
        .filter(|p| !documented.iter().any(|f| f.name == **p))
        .collect();
    let renames = pair_renames(&unknown, &missing);
    if !has_kwargs {
        for (f, to) in unknown.iter().zip(&renames) {
            let fix = to.map(|p| format!("rename `:param {}:` to `:param {p}:`", f.name));
            ctx.emit(
                "D4",
                at(f.line),
                format!(
                    "The docstring documents `:param {}`, but `{name}` has no parameter `{}` (its parameters: {}).",
                    f.name,
                    f.name,
                    if params.is_empty() { "none".into() } else { params.join(", ") }
                ),
                fix,
            );
        }
    }
    // A parameter a D4 rename will document is not reported again.
    let renamed: Vec<&str> = if has_kwargs {
        Vec::new()
    } else {
        renames.iter().flatten().copied().collect()
    };
    for p in missing.iter().filter(|p| !renamed.contains(&p.as_str())) {
        ctx.emit(
            "D10",
            At::new(Part::Skeleton, Some(name), Some(def.start_line)),
            format!("Parameter `{p}` of `{name}` has no `:param` line."),
            Some(format!("add `:param {p}: <type>, <meaning>`")),
        );
    }
    if doc.description.is_empty() {
        ctx.emit(
            "D8",
            at(0),
            format!("The docstring of `{name}` has no description of what it does."),
            None,
        );
    }
    for f in &doc.fields {
        type_names(ctx, name, f, first);
        bare_container(ctx, name, f, first);
    }
    if doc.returns().is_none() {
        match returns_value(ctx, name) {
            Some(true) => ctx.emit(
                "D14",
                At::new(Part::Skeleton, Some(name), Some(def.start_line)),
                format!("`{name}` returns a value, but its docstring has no `:return:` field."),
                Some("add `:return: <type>, <meaning>`".into()),
            ),
            Some(false) => ctx.emit(
                "D15",
                At::new(Part::Skeleton, Some(name), Some(def.start_line)),
                format!(
                    "`{name}` returns nothing, and its docstring does not say `:return: None`."
                ),
                Some("add `:return: None`".into()),
            ),
            None => {}
        }
    }
}

/// For each unknown documented name, the parameter it most likely means: a close spelling
/// (`plaintext` → `plain_text`) first; then, when as many names as parameters are left over,
/// the leftovers in order (`grade` → `score`).
fn pair_renames<'p>(unknown: &[&Field], missing: &[&'p String]) -> Vec<Option<&'p str>> {
    let mut out: Vec<Option<&str>> = vec![None; unknown.len()];
    let mut free: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
    for (i, f) in unknown.iter().enumerate() {
        let close = free
            .iter()
            .position(|p| squash(p) == squash(&f.name) || edit_distance(p, &f.name) <= 2);
        if let Some(j) = close {
            out[i] = Some(free.remove(j));
        }
    }
    let left: Vec<usize> = (0..unknown.len()).filter(|i| out[*i].is_none()).collect();
    if left.len() == free.len() {
        for (i, p) in left.into_iter().zip(free) {
            out[i] = Some(p);
        }
    }
    out
}

/// Non-Python type words and what Python calls them.
const TYPE_WORDS: [(&str, &str); 18] = [
    ("string", "str"),
    ("strings", "str"),
    ("String", "str"),
    ("integer", "int"),
    ("integers", "int"),
    ("Integer", "int"),
    ("boolean", "bool"),
    ("booleans", "bool"),
    ("Boolean", "bool"),
    ("Bool", "bool"),
    ("Int", "int"),
    ("Str", "str"),
    ("Float", "float"),
    ("dictionary", "dict"),
    ("dictionaries", "dict"),
    ("Dictionary", "dict"),
    ("double", "float"),
    ("char", "str"),
];

/// D13: a non-Python type name in the type slot of a field. The slot must look like a type
/// (a few words): longer text is prose, where "string" is an ordinary word.
fn type_names(ctx: &mut Ctx<'_>, method: &str, f: &Field, first: usize) {
    let words: Vec<&str> =
        f.ty.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
    if words.is_empty() || words.len() > 4 {
        return;
    }
    let numbered = words
        .windows(2)
        .find(|w| ["float", "int", "integer"].contains(&w[0]) && w[1] == "number")
        .map(|w| {
            (
                format!("{} {}", w[0], w[1]),
                if w[0] == "float" { "float" } else { "int" },
            )
        });
    let hit = numbered.or_else(|| {
        words.iter().find_map(|w| {
            TYPE_WORDS
                .iter()
                .find(|(bad, _)| bad == w)
                .map(|(bad, good)| (bad.to_string(), *good))
        })
    });
    if let Some((bad, good)) = hit {
        ctx.emit(
            "D13",
            At::new(Part::Skeleton, Some(method), Some(first + f.line)),
            format!(
                "`{}` names the type `{bad}`; Python calls it `{good}`.",
                f.raw
            ),
            Some(format!("write `{good}` instead of `{bad}`")),
        );
    }
}

/// D19: a bare container type whose field never says what it holds.
fn bare_container(ctx: &mut Ctx<'_>, method: &str, f: &Field, first: usize) {
    let ty = f.ty.to_ascii_lowercase();
    let ty = ty.trim_start_matches("a ").trim_start_matches("an ");
    if !["list", "dict", "set", "tuple", "dictionary"].contains(&ty) {
        return;
    }
    let rest = f.text.to_ascii_lowercase();
    let explained = [
        " of ", "key", "each", "element", "item", "[", "contain", "with", "pair", "->", "map",
    ]
    .iter()
    .any(|w| rest.contains(w));
    if !explained {
        let what = if f.name.is_empty() {
            "return value".to_string()
        } else {
            format!("parameter `{}`", f.name)
        };
        ctx.emit(
            "D19",
            At::new(Part::Skeleton, Some(method), Some(first + f.line)),
            format!("The {what} is a bare `{ty}`: its element types (or keys) are not documented."),
            None,
        );
    }
}

/// Whether the reference method returns a value: `Some(true)` when a `return <expr>` (not
/// `None`) or a `yield` is in its own body; `None` when the method is not found or only raises.
fn returns_value(ctx: &Ctx<'_>, name: &str) -> Option<bool> {
    let def = ctx.an.method_def(name)?;
    let tree = ctx.sol_tree.as_ref()?;
    let node = node_at(tree.root_node(), def.start_byte, def.end_byte)?;
    let src = ctx.task.solution.as_str();
    let mut value = false;
    let mut raises_only = true;
    let body = match node.kind() {
        "decorated_definition" => node.child_by_field_name("definition")?,
        _ => node,
    }
    .child_by_field_name("body")?;
    walk(body, |n: Node<'_>| match n.kind() {
        "function_definition" | "lambda" | "class_definition" => false,
        "return_statement" => {
            raises_only = false;
            if n.named_child(0).is_some_and(|v| text(v, src) != "None") {
                value = true;
            }
            true
        }
        "yield" => {
            value = true;
            true
        }
        "raise_statement" | "block" | "expression_statement" | "string" | "comment" => true,
        _ => {
            raises_only = false;
            true
        }
    });
    if raises_only && !value {
        return None;
    }
    Some(value)
}

/// D5: an example calls a method with a keyword the signature lacks, or with too many
/// positional arguments.
fn example_arguments(ctx: &mut Ctx<'_>) {
    let Some(class) = ctx.sk_class.clone() else {
        return;
    };
    let mut seen = BTreeSet::new();
    for dc in doctest_calls(&class, &module_names(ctx)) {
        let Some(def) = class.method(&dc.call.name) else {
            continue;
        };
        let bound = match dc.via {
            Via::Instance | Via::Unbound => !def.is_staticmethod(),
            Via::Class if def.is_classmethod() => true,
            Via::Class if def.is_staticmethod() => false,
            _ => continue,
        };
        if dc.call.splat
            || def.params.iter().any(|p| p.starts_with("**")) && !dc.call.keywords.is_empty()
        {
            continue;
        }
        let params: Vec<&str> = def
            .params
            .iter()
            .skip(usize::from(bound))
            .map(String::as_str)
            .collect();
        let unknown: Vec<&String> = dc
            .call
            .keywords
            .iter()
            .map(|(k, _)| k)
            .filter(|k| {
                !params
                    .iter()
                    .any(|p| p.trim_start_matches('*') == k.as_str())
            })
            .collect();
        let star = params.iter().position(|p| p.starts_with('*'));
        let positional = params
            .iter()
            .take(star.unwrap_or(params.len()))
            .filter(|p| **p != "/")
            .count();
        let varargs = params
            .iter()
            .any(|p| p.starts_with('*') && !p.starts_with("**") && *p != "*");
        let message = if let Some(k) = unknown.first() {
            format!(
                "The example calls `{}` with `{k}=`, which is not a parameter of it.",
                def.name
            )
        } else if !varargs && dc.call.positional > positional {
            format!(
                "The example passes {} positional arguments to `{}`, which takes {positional}.",
                dc.call.positional, def.name
            )
        } else {
            continue;
        };
        if seen.insert((dc.line, def.name.clone())) {
            ctx.emit(
                "D5",
                At::new(Part::Skeleton, Some(&dc.host), Some(dc.line)),
                message,
                None,
            );
        }
    }
}

#[cfg(test)]
#[path = "docstrings_unit.rs"]
mod unit;
