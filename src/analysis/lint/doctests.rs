//! The calls a skeleton's `>>>` examples make on the class: who is called, through what
//! (the class, an instance, `self`, nothing, a variable no example binds), with which
//! arguments. Read by the S1–S3 and D5 rules.

use std::collections::HashSet;

use tree_sitter::Node;

use super::Ctx;
use super::syntax::{Call, calls, find_all, import_bindings, text};
use crate::analysis::parse::{Class, parse_tree};

/// How a doctest reaches a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Via {
    /// `Class.m(…)`.
    Class,
    /// `obj.m(…)` where `obj = Class(…)` earlier in the docstring, or `Class(…).m(…)`.
    Instance,
    /// `self.m(…)`.
    SelfName,
    /// `m(…)`.
    Bare,
    /// `obj.m(…)` where `obj` is bound nowhere in the docstring's examples.
    Unbound,
}

/// A call in a `>>>` example of the skeleton that reaches the class.
#[derive(Debug, Clone)]
pub(super) struct DocCall {
    /// The method whose docstring holds the example.
    pub host: String,
    pub via: Via,
    pub call: Call,
    /// The example's line in the skeleton.
    pub line: usize,
    /// The first argument is an instance of the class (`Class.m(obj, …)`).
    pub first_arg_instance: bool,
    pub source: String,
}

/// Calls of every example in the skeleton class's method docstrings that go to the class.
/// `globals` are names the examples may use without binding them (the skeleton's imports).
pub(super) fn doctest_calls(class: &Class, globals: &HashSet<String>) -> Vec<DocCall> {
    let own: HashSet<&str> = class.methods.iter().map(|m| m.name.as_str()).collect();
    let mut out = Vec::new();
    for m in &class.methods {
        let mut instances: HashSet<String> = HashSet::new();
        let mut defined: HashSet<String> = HashSet::new();
        for dt in &m.doctests {
            let Some(tree) = parse_tree(&dt.source) else {
                continue;
            };
            let root = tree.root_node();
            if root.has_error() {
                note_broken_binding(&dt.source, &class.name, &mut instances, &mut defined);
                continue;
            }
            note_bindings(root, &dt.source, &class.name, &mut instances, &mut defined);
            for mut call in calls(root, &dt.source) {
                // `obj._Class__m(…)` is how a doctest reaches the private method `__m`.
                if let Some(m) = call
                    .name
                    .strip_prefix(&format!("_{}", class.name.trim_start_matches('_')))
                    && m.starts_with("__")
                {
                    call.name = m.to_string();
                }
                let via = match call.receiver.as_deref() {
                    Some(r) if r == class.name => Via::Class,
                    Some("self") => Via::SelfName,
                    Some(r)
                        if instances.contains(r) || r.starts_with(&format!("{}(", class.name)) =>
                    {
                        Via::Instance
                    }
                    None if own.contains(call.name.as_str())
                        && !defined.contains(&call.name)
                        && !is_builtin(&call.name) =>
                    {
                        Via::Bare
                    }
                    // `obj.m(…)` with `obj` never created in this docstring: doctests do not
                    // share variables across docstrings.
                    Some(r)
                        if own.contains(call.name.as_str())
                            && r.chars().all(|c| c.is_alphanumeric() || c == '_')
                            && !defined.contains(r)
                            && !globals.contains(r) =>
                    {
                        Via::Unbound
                    }
                    _ => continue,
                };
                let first_arg_instance = call.args.first().is_some_and(|a| {
                    instances.contains(a) || a.starts_with(&format!("{}(", class.name))
                });
                out.push(DocCall {
                    host: m.name.clone(),
                    via,
                    first_arg_instance,
                    line: dt.line + call.line - 1,
                    source: dt.source.clone(),
                    call,
                });
            }
        }
    }
    out
}

/// Names the skeleton's imports bind: examples may use them unbound.
pub(super) fn module_names(ctx: &Ctx<'_>) -> HashSet<String> {
    let Some(tree) = ctx.sk_tree.as_ref() else {
        return HashSet::new();
    };
    let root = tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .flat_map(|s| import_bindings(s, &ctx.task.skeleton))
        .map(|(n, _)| n)
        .collect()
}

/// Names an example binds: instances (`x = Class(…)`, `x = Class.make(…)`) and anything else.
fn note_bindings(
    root: Node<'_>,
    src: &str,
    class: &str,
    instances: &mut HashSet<String>,
    defined: &mut HashSet<String>,
) {
    for a in find_all(root, &["assignment"]) {
        let (Some(left), Some(right)) = (
            a.child_by_field_name("left"),
            a.child_by_field_name("right"),
        ) else {
            continue;
        };
        let name = text(left, src).to_string();
        let creates = right.kind() == "call"
            && right.child_by_field_name("function").is_some_and(|f| {
                let f = text(f, src);
                f == class || f.strip_prefix(class).is_some_and(|r| r.starts_with('.'))
            });
        if creates {
            instances.insert(name);
        } else {
            instances.remove(&name);
            // `a, b = …` binds both.
            defined.extend(
                find_all(left, &["identifier"])
                    .into_iter()
                    .map(|n| text(n, src).to_string()),
            );
            defined.insert(name);
        }
    }
    for n in find_all(root, &["for_statement", "for_in_clause", "as_pattern"]) {
        let target = n
            .child_by_field_name("left")
            .or_else(|| n.child_by_field_name("alias"));
        if let Some(t) = target {
            defined.extend(
                find_all(t, &["identifier"])
                    .into_iter()
                    .map(|i| text(i, src).to_string()),
            );
        }
    }
    for d in find_all(root, &["function_definition", "class_definition"]) {
        if let Some(n) = d.child_by_field_name("name") {
            defined.insert(text(n, src).to_string());
        }
    }
    for i in find_all(root, &["import_statement", "import_from_statement"]) {
        defined.extend(import_bindings(i, src).into_iter().map(|(n, _)| n));
    }
}

/// `x = …` read from an example that does not parse (a statement continued without `...`).
fn note_broken_binding(
    source: &str,
    class: &str,
    instances: &mut HashSet<String>,
    defined: &mut HashSet<String>,
) {
    let Some((left, right)) = source.split_once('=') else {
        return;
    };
    let name = left.trim();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
    {
        return;
    }
    if right.trim_start().starts_with(&format!("{class}(")) {
        instances.insert(name.to_string());
    } else {
        defined.insert(name.to_string());
    }
}

fn is_builtin(name: &str) -> bool {
    const BUILTINS: [&str; 24] = [
        "print", "len", "sum", "min", "max", "sorted", "open", "round", "format", "abs", "list",
        "dict", "set", "str", "int", "float", "type", "range", "filter", "map", "zip", "any",
        "all", "repr",
    ];
    BUILTINS.contains(&name)
}
