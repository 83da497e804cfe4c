//! Which test class tests which method, and the rules about that mapping: T7 broken test
//! class listing, T8 a method's tests never call it, T9 a method's tests call other target
//! methods, T10 typos in test names, T13 naming convention and empty test classes, T14 a
//! method without a test class.

use std::collections::{BTreeSet, HashSet};

use tree_sitter::Node;

use super::syntax::{Call, calls, edit_distance, find_all, line, squash, text};
use super::{At, Ctx, Part};
use crate::model::camel_case as camel;

/// A top-level class of the test module with its methods.
#[derive(Debug, Clone)]
pub(super) struct TestClass<'t> {
    pub name: String,
    pub node: Node<'t>,
    pub line: usize,
    /// (name, definition node) of every method, in order.
    pub methods: Vec<(String, Node<'t>)>,
}

impl TestClass<'_> {
    pub fn tests(&self) -> impl Iterator<Item = &(String, Node<'_>)> {
        self.methods.iter().filter(|(n, _)| n.starts_with("test"))
    }
}

/// The module's top-level classes.
pub(super) fn test_classes<'t>(root: Node<'t>, src: &str) -> Vec<TestClass<'t>> {
    let mut cursor = root.walk();
    let mut out = Vec::new();
    for stmt in root.named_children(&mut cursor) {
        let def = match stmt.kind() {
            "decorated_definition" => stmt.child_by_field_name("definition"),
            _ => Some(stmt),
        };
        let Some(def) = def.filter(|d| d.kind() == "class_definition") else {
            continue;
        };
        let name = def
            .child_by_field_name("name")
            .map(|n| text(n, src).to_string())
            .unwrap_or_default();
        let mut methods = Vec::new();
        if let Some(body) = def.child_by_field_name("body") {
            let mut c = body.walk();
            for s in body.named_children(&mut c) {
                let f = match s.kind() {
                    "decorated_definition" => s.child_by_field_name("definition"),
                    _ => Some(s),
                };
                if let Some(f) = f.filter(|f| f.kind() == "function_definition")
                    && let Some(n) = f.child_by_field_name("name")
                {
                    methods.push((text(n, src).to_string(), f));
                }
            }
        }
        out.push(TestClass {
            name,
            line: line(def),
            node: def,
            methods,
        });
    }
    out
}

/// The test class of a target method: the dataset's `test_class` when the module has it,
/// else the class named `<Class>Test<Method>`.
pub(super) fn class_of<'c, 't>(
    ctx: &Ctx<'_>,
    classes: &'c [TestClass<'t>],
    method: &str,
) -> Option<&'c TestClass<'t>> {
    let listed = ctx
        .task
        .method(method)
        .and_then(|m| m.test_class.as_deref())
        .map(str::trim)
        .filter(|n| !n.is_empty());
    if let Some(c) = listed.and_then(|n| classes.iter().find(|c| c.name == n)) {
        return Some(c);
    }
    let want = format!("{}test{}", squash(&ctx.task.class_name), squash(method));
    classes.iter().find(|c| squash(&c.name) == want)
}

pub(super) fn check(ctx: &mut Ctx<'_>) {
    let Some(tree) = ctx.test_tree.clone() else {
        return;
    };
    let src = ctx.task.test_module.as_str();
    let classes = test_classes(tree.root_node(), src);
    if classes.is_empty() {
        return;
    }
    listing(ctx, &classes);
    naming(ctx, &classes);
    let targets = ctx.targets();
    let class_name = ctx.task.class_name.clone();
    for m in &targets {
        let Some(tc) = class_of(ctx, &classes, m) else {
            let listed = ctx.task.method(m).and_then(|x| x.test_class.clone());
            if listed.is_none_or(|n| n.trim().is_empty()) {
                ctx.emit(
                    "T14",
                    At::new(Part::Tests, Some(m), None),
                    format!(
                        "`{m}` has no test class (expected `{class_name}Test{}`).",
                        camel(m)
                    ),
                    None,
                );
            }
            continue;
        };
        let calls_in = calls(tc.node, src);
        let called = instance_calls(tc.node, src, &class_name, &calls_in);
        if !references(tc.node, src, m, &class_name) && !reached(ctx, &called, m) {
            ctx.emit(
                "T8",
                At::new(Part::Tests, Some(m), Some(tc.line)),
                format!("`{}`, the test class of `{m}`, never calls `{m}`.", tc.name),
                None,
            );
        }
        let others: BTreeSet<String> = called
            .into_iter()
            .filter(|n| n != m && targets.contains(n))
            .collect();
        if !others.is_empty() {
            let list: Vec<String> = others.iter().map(|o| format!("`{o}`")).collect();
            ctx.emit(
                "T9",
                At::new(Part::Tests, Some(m), Some(tc.line)),
                format!(
                    "`{}` tests `{m}` but also calls {}: it is not a unit test of `{m}`.",
                    tc.name,
                    list.join(", ")
                ),
                None,
            );
        }
        typos(ctx, tc, m);
    }
}

/// Does the class reference the method (`x.m`, `Class.m`, `x._Class__m`, `getattr(x, "m")`)?
fn references(node: Node<'_>, src: &str, method: &str, class: &str) -> bool {
    let mangled = format!("_{}{method}", class.trim_start_matches('_'));
    let quoted = [format!("'{method}'"), format!("\"{method}\"")];
    find_all(node, &["attribute"]).into_iter().any(|a| {
        a.child_by_field_name("attribute")
            .is_some_and(|n| text(n, src) == method || text(n, src) == mangled)
    }) || quoted.iter().any(|q| text(node, src).contains(q.as_str()))
}

/// Is `method` run by the reference when the test calls `called` (the constructor included,
/// under the name `__init__`)? A private helper tested through its caller is still tested.
fn reached(ctx: &Ctx<'_>, called: &HashSet<String>, method: &str) -> bool {
    called.iter().any(|c| {
        let direct = ctx
            .an
            .method_def(c)
            .is_some_and(|d| d.self_refs.contains(method));
        direct
            || ctx.an.graph.reachable(c).contains(method)
            || ctx.an.method_def(c).is_some_and(|d| {
                d.self_refs
                    .iter()
                    .any(|r| ctx.an.graph.reachable(r).contains(method))
            })
    })
}

/// Names of the methods called on instances of the class (or on the class) in a test class.
fn instance_calls(node: Node<'_>, src: &str, class: &str, calls_in: &[Call]) -> HashSet<String> {
    let mut instances: HashSet<String> = HashSet::new();
    for a in find_all(node, &["assignment"]) {
        if let (Some(l), Some(r)) = (
            a.child_by_field_name("left"),
            a.child_by_field_name("right"),
        ) && r.kind() == "call"
            && r.child_by_field_name("function").is_some_and(|f| {
                let f = text(f, src);
                f == class || f.strip_prefix(class).is_some_and(|x| x.starts_with('.'))
            })
        {
            instances.insert(text(l, src).to_string());
        }
    }
    let mut out: HashSet<String> = calls_in
        .iter()
        .filter(|c| {
            c.receiver.as_deref().is_some_and(|r| {
                r == class || instances.contains(r) || r.starts_with(&format!("{class}("))
            })
        })
        .map(|c| c.name.trim_start_matches(&format!("_{class}")).to_string())
        .collect();
    if calls_in
        .iter()
        .any(|c| c.receiver.is_none() && c.name == class)
    {
        out.insert("__init__".into());
    }
    out
}

/// T7: names the dataset lists that are not classes of the test module.
fn listing(ctx: &mut Ctx<'_>, classes: &[TestClass<'_>]) {
    let names: HashSet<&str> = classes.iter().map(|c| c.name.as_str()).collect();
    let mut listed: Vec<(String, Option<String>)> = ctx
        .task
        .test_classes
        .iter()
        .map(|n| (n.clone(), None))
        .collect();
    listed.extend(
        ctx.task
            .methods
            .iter()
            .filter_map(|m| m.test_class.clone().map(|t| (t, Some(m.name.clone())))),
    );
    let mut seen = HashSet::new();
    for (name, method) in listed {
        if names.contains(name.as_str()) || name.is_empty() || !seen.insert(name.clone()) {
            continue;
        }
        let trimmed = name.trim();
        let (line, message, fix) = match classes.iter().find(|c| c.name == trimmed) {
            Some(c) => (
                Some(c.line),
                format!(
                    "The dataset lists the test class as `{name:?}`, with whitespace around the name `{trimmed}`."
                ),
                Some(format!("list it as `{trimmed}`")),
            ),
            None => (
                None,
                format!(
                    "The dataset lists the test class `{name}`, which the test module does not define."
                ),
                None,
            ),
        };
        ctx.emit(
            "T7",
            At::new(Part::Tests, method.as_deref(), line),
            message,
            fix,
        );
    }
}

/// T13: classes off `<Class>Test<Method>` / `<Class>Test[Main]`, and classes without tests.
fn naming(ctx: &mut Ctx<'_>, classes: &[TestClass<'_>]) {
    let prefix = format!("{}test", squash(&ctx.task.class_name));
    let targets: HashSet<String> = ctx.targets().iter().map(|t| squash(t)).collect();
    for c in classes {
        let is_case = text(c.node, ctx.task.test_module.as_str())
            .lines()
            .next()
            .is_some_and(|h| h.contains("TestCase"));
        if !is_case {
            continue;
        }
        let sq = squash(&c.name);
        let rest = sq.strip_prefix(&prefix);
        let well_named = rest.is_some_and(|r| r.is_empty() || r == "main" || targets.contains(r));
        let empty = c.tests().next().is_none();
        // A private base without tests (`_FreshDir`: the forge's shared setUp) is no test class.
        if empty && c.name.starts_with('_') {
            continue;
        }
        let message = match (well_named, empty) {
            (true, false) => continue,
            (false, false) => format!(
                "Test class `{}` does not follow `{}Test<Method>`.",
                c.name, ctx.task.class_name
            ),
            (true, true) => format!("Test class `{}` has no test methods.", c.name),
            (false, true) => format!(
                "Test class `{}` has no test methods and does not follow `{}Test<Method>`.",
                c.name, ctx.task.class_name
            ),
        };
        ctx.emit(
            "T13",
            At::new(Part::Tests, None, Some(c.line)),
            message,
            None,
        );
    }
}

/// T10: a test name that misspells its method, or a method that misspells `test` and so
/// never runs.
fn typos(ctx: &mut Ctx<'_>, tc: &TestClass<'_>, method: &str) {
    let src = ctx.task.test_module.as_str();
    let want = squash(method);
    let others: Vec<String> = ctx
        .targets()
        .iter()
        .map(|t| squash(t))
        .filter(|t| *t != want)
        .collect();
    for (name, node) in &tc.methods {
        let lower = name.to_ascii_lowercase();
        let head: String = lower.chars().take(4).collect();
        if !name.starts_with("test")
            && (lower.starts_with("test") || edit_distance(&head, "test") == 1)
            && !is_helper(tc, src, name)
            && !matches!(
                name.as_str(),
                "setUp" | "tearDown" | "setUpClass" | "tearDownClass"
            )
        {
            let fixed = format!("test{}", name.get(4..).unwrap_or(""));
            ctx.emit(
                "T10",
                At::new(Part::Tests, Some(method), Some(line(*node))),
                format!(
                    "`{name}` looks like a test but does not start with `test`, so it never runs."
                ),
                Some(format!("rename it `{fixed}`")),
            );
            continue;
        }
        let Some(core) = name.strip_prefix("test") else {
            continue;
        };
        let core = squash(core);
        if want.chars().count() < 5 || core.starts_with(&want) {
            continue;
        }
        let head: String = core.chars().take(want.chars().count()).collect();
        let limit = if want.chars().count() >= 8 { 2 } else { 1 };
        let d = edit_distance(&head, &want);
        // Typos keep the first letter; another method's name is no typo (`set_x` vs `get_x`).
        let other_method = others.iter().any(|o| core.starts_with(o.as_str()));
        if (1..=limit).contains(&d) && head.chars().next() == want.chars().next() && !other_method {
            ctx.emit(
                "T10",
                At::new(Part::Tests, Some(method), Some(line(*node))),
                format!("Test `{name}` misspells the method name `{method}`."),
                None,
            );
        }
    }
}

/// A method that other code of the class calls (`self.name(…)`) is a helper, not a test.
fn is_helper(tc: &TestClass<'_>, src: &str, name: &str) -> bool {
    text(tc.node, src).contains(&format!("self.{name}"))
}

#[cfg(test)]
#[path = "testnames_unit.rs"]
mod unit;
