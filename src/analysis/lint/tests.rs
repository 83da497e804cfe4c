//! Test-module rules: T1/T3 duplicate tests, T2 near-duplicates, T4 randomness, time or
//! network without isolation, T5 files left behind, T6 cleanup inside the test body. The
//! rules about which class tests which method live in `testnames`.

use std::collections::HashSet;

use tree_sitter::Node;

use super::syntax::{Call, calls, find_all, line, node_at, text, tokens};
use super::testnames::{TestClass, class_of, test_classes};
use super::{At, Ctx, Part};

pub(super) fn check(ctx: &mut Ctx<'_>) {
    super::testnames::check(ctx);
    let Some(tree) = ctx.test_tree.clone() else {
        return;
    };
    let src = ctx.task.test_module.as_str();
    let classes = test_classes(tree.root_node(), src);
    // The method each class tests, by class index.
    let methods: Vec<Option<String>> = classes
        .iter()
        .map(|tc| {
            ctx.targets()
                .into_iter()
                .find(|m| class_of(ctx, &classes, m).is_some_and(|c| c.name == tc.name))
        })
        .collect();
    duplicates(ctx, &classes, &methods, src);
    for (tc, method) in classes.iter().zip(&methods) {
        isolation(ctx, tc, &classes, method.as_deref());
        files(ctx, tc, &classes, method.as_deref());
    }
}

/// One statement of a test body: exact tokens, tokens with literals abstracted, and whether
/// it asserts.
struct Stmt {
    exact: Vec<String>,
    shape: Vec<String>,
    asserts: bool,
}

const LITERALS: [&str; 7] = [
    "string",
    "concatenated_string",
    "integer",
    "float",
    "true",
    "false",
    "none",
];

fn body_statements(func: Node<'_>, src: &str) -> Vec<Stmt> {
    let Some(body) = func.child_by_field_name("body") else {
        return Vec::new();
    };
    let mut cursor = body.walk();
    let stmts: Vec<Node<'_>> = body
        .named_children(&mut cursor)
        .filter(|s| s.kind() != "comment")
        .collect();
    let skip_doc = stmts.first().is_some_and(|s| {
        s.kind() == "expression_statement" && s.named_child(0).is_some_and(|e| e.kind() == "string")
    });
    stmts
        .into_iter()
        .skip(usize::from(skip_doc))
        .map(|s| {
            let toks = tokens(s, src);
            Stmt {
                exact: toks.iter().map(|(_, t)| t.to_string()).collect(),
                shape: toks
                    .iter()
                    .map(|(k, t)| {
                        if LITERALS.contains(k) {
                            format!("<{k}>")
                        } else {
                            t.to_string()
                        }
                    })
                    .collect(),
                asserts: toks.iter().any(|(_, t)| t.starts_with("assert")),
            }
        })
        .collect()
}

/// T1 (same class), T3 (another class) exact duplicates; T2 near-duplicates in one class.
fn duplicates(ctx: &mut Ctx<'_>, classes: &[TestClass<'_>], methods: &[Option<String>], src: &str) {
    struct Seen {
        class: usize,
        name: String,
        line: usize,
        stmts: Vec<Stmt>,
    }
    let mut seen: Vec<Seen> = Vec::new();
    for (ci, tc) in classes.iter().enumerate() {
        for (name, node) in tc.tests() {
            let stmts = body_statements(*node, src);
            let size: usize = stmts.iter().map(|s| s.exact.len()).sum();
            let l = line(*node);
            // A body of `pass` or one call is no copy of anything.
            if size < 4 {
                continue;
            }
            let same = |a: &[Stmt], b: &[Stmt]| {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.exact == y.exact)
            };
            if let Some(prev) = seen.iter().find(|s| same(&s.stmts, &stmts)) {
                let (code, whr) = if prev.class == ci {
                    ("T1", String::new())
                } else {
                    ("T3", format!(" of `{}`", classes[prev.class].name))
                };
                ctx.emit(
                    code,
                    At::new(Part::Tests, methods[ci].as_deref(), Some(l)),
                    format!(
                        "`{}.{name}` has the same body as `{}`{whr} (line {}).",
                        tc.name, prev.name, prev.line
                    ),
                    Some(format!("delete `{name}` (line {l})")),
                );
                continue;
            }
            if let Some(prev) = seen
                .iter()
                .find(|s| s.class == ci && near_duplicate(&s.stmts, &stmts))
            {
                ctx.emit(
                    "T2",
                    At::new(Part::Tests, methods[ci].as_deref(), Some(l)),
                    format!(
                        "`{}.{name}` repeats `{}` (line {}) with other inputs and the same assertions.",
                        tc.name, prev.name, prev.line
                    ),
                    None,
                );
            }
            seen.push(Seen {
                class: ci,
                name: name.clone(),
                line: l,
                stmts,
            });
        }
    }
}

/// Same shape, the assertions identical, and some other statement differing in literals.
fn near_duplicate(a: &[Stmt], b: &[Stmt]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.shape == y.shape && x.asserts == y.asserts && (!x.asserts || x.exact == y.exact)
        })
        && a.iter().zip(b).any(|(x, y)| x.exact != y.exact)
}

/// Calls made in a test class, and in the reference methods it reaches through instances
/// (the constructor included), each with where it happens.
fn reachable_calls(ctx: &Ctx<'_>, tc: &TestClass<'_>) -> Vec<(Call, Option<String>)> {
    let src = ctx.task.test_module.as_str();
    let mut out: Vec<(Call, Option<String>)> =
        calls(tc.node, src).into_iter().map(|c| (c, None)).collect();
    let class = ctx.task.class_name.as_str();
    let mut methods: HashSet<String> = out
        .iter()
        .filter_map(|(c, _)| match &c.receiver {
            None if c.name == class => Some("__init__".to_string()),
            Some(r) if r == class => Some(c.name.clone()),
            Some(_) if ctx.is_target(&c.name) => Some(c.name.clone()),
            _ => None,
        })
        .collect();
    let reach: Vec<String> = methods
        .iter()
        .flat_map(|m| ctx.an.graph.reachable(m))
        .collect();
    methods.extend(reach);
    let (Some(tree), Some(cls)) = (ctx.sol_tree.as_ref(), ctx.an.class.as_ref()) else {
        return out;
    };
    for def in cls.methods.iter().filter(|d| methods.contains(&d.name)) {
        if let Some(n) = node_at(tree.root_node(), def.start_byte, def.end_byte) {
            out.extend(
                calls(n, &ctx.task.solution)
                    .into_iter()
                    .map(|c| (c, Some(def.name.clone()))),
            );
        }
    }
    out
}

/// What a call does that a test must isolate.
fn hazard(c: &Call) -> Option<&'static str> {
    let r = c.receiver.as_deref().unwrap_or("");
    let n = c.name.as_str();
    let time = (r.ends_with("datetime") || r.ends_with("date"))
        && matches!(n, "now" | "today" | "utcnow")
        || r == "time"
            && (matches!(n, "time" | "localtime" | "gmtime" | "ctime" | "time_ns")
                || n == "strftime" && c.positional == 1);
    let random = (r == "random" || r.ends_with(".random")) && n != "seed" && n != "Random"
        || r == "uuid" && matches!(n, "uuid1" | "uuid4");
    let network = r == "requests"
        || n == "urlopen"
        || r == "socket"
            && matches!(
                n,
                "gethostbyname" | "gethostbyaddr" | "getaddrinfo" | "create_connection" | "socket"
            );
    if time {
        Some("the current time")
    } else if random {
        Some("randomness")
    } else if network {
        Some("the network")
    } else {
        None
    }
}

/// Module text outside classes plus the class's own text: where a seed or a mock would be.
fn isolated(tc: &TestClass<'_>, src: &str, root_text: &str) -> bool {
    let own = text(tc.node, src);
    ["mock", "patch", "seed(", "freeze"]
        .iter()
        .any(|w| own.contains(w) || root_text.contains(w))
}

/// T4: randomness, current time or network reached by a test class without seed or mock.
fn isolation(ctx: &mut Ctx<'_>, tc: &TestClass<'_>, classes: &[TestClass<'_>], m: Option<&str>) {
    let src = ctx.task.test_module.as_str();
    let outside = outside_classes(src, classes);
    if isolated(tc, src, &outside) {
        return;
    }
    let mut kinds: Vec<&str> = Vec::new();
    for (c, in_method) in reachable_calls(ctx, tc) {
        let Some(kind) = hazard(&c) else { continue };
        if kinds.contains(&kind) {
            continue;
        }
        kinds.push(kind);
        let whr = match &in_method {
            None => format!(
                "the test calls `{}.{}` at line {}",
                c.receiver.as_deref().unwrap_or(""),
                c.name,
                c.line
            ),
            Some(def) => format!(
                "`{def}` calls `{}.{}` in the reference",
                c.receiver.as_deref().unwrap_or(""),
                c.name
            ),
        };
        ctx.emit(
            "T4",
            At::new(Part::Tests, m, Some(tc.line)),
            format!(
                "`{}` depends on {kind} ({whr}) with no seed or mock.",
                tc.name
            ),
            None,
        );
    }
}

fn outside_classes(src: &str, classes: &[TestClass<'_>]) -> String {
    let mut out = String::new();
    let mut at = 0;
    for c in classes {
        out.push_str(src.get(at..c.node.start_byte()).unwrap_or(""));
        at = c.node.end_byte();
    }
    out.push_str(src.get(at..).unwrap_or(""));
    out
}

/// Does a call write a file (or a database file)? Returns a short description.
fn writes(c: &Call) -> Option<String> {
    let r = c.receiver.as_deref().unwrap_or("");
    let literal_path = |a: &str| a.starts_with(['\'', '"']) && a.contains('.');
    let mode = c
        .args
        .get(1)
        .cloned()
        .or_else(|| {
            c.keywords
                .iter()
                .find(|(k, _)| k == "mode")
                .map(|(_, v)| v.clone())
        })
        .unwrap_or_default();
    let writes_mode = mode.starts_with(['\'', '"']) && mode.contains(['w', 'a', 'x', '+']);
    let first = c.args.first().map(String::as_str).unwrap_or("");
    match c.name.as_str() {
        "open" if writes_mode => Some(format!("opens {first} for writing")),
        "ZipFile" | "TarFile" if writes_mode => Some(format!("creates the archive {first}")),
        "connect" if r == "sqlite3" && !first.contains(":memory:") => {
            Some(format!("creates the SQLite database {first}"))
        }
        "mkdir" | "makedirs" if r == "os" => Some(format!("creates the directory {first}")),
        "copy" | "copyfile" | "copytree" | "move" if r == "shutil" => Some("copies files".into()),
        "to_csv" | "to_excel" | "savefig" | "write_text" | "write_bytes" | "touch" => {
            Some(format!("writes a file with `{}`", c.name))
        }
        "save" if literal_path(first) => Some(format!("saves {first}")),
        _ => None,
    }
}

fn removes(c: &Call) -> bool {
    let r = c.receiver.as_deref().unwrap_or("");
    matches!(
        c.name.as_str(),
        "remove" | "unlink" | "rmtree" | "rmdir" | "removedirs"
    ) && (r == "os" || r == "shutil" || r.ends_with("path") || c.name == "unlink")
        || matches!(
            c.name.as_str(),
            "TemporaryDirectory"
                | "mkdtemp"
                | "NamedTemporaryFile"
                | "TemporaryFile"
                | "addCleanup"
        )
}

/// T5/T6: a test class creates files (itself or through the reference) and removes them
/// never (T5) or only where a failing assertion skips the removal (T6).
fn files(ctx: &mut Ctx<'_>, tc: &TestClass<'_>, classes: &[TestClass<'_>], m: Option<&str>) {
    let src = ctx.task.test_module.as_str();
    let mut all = reachable_calls(ctx, tc);
    // `OtherTest.setUpClass()`: helpers of another test class count as this class's code.
    let helper_calls: Vec<(Call, Option<String>)> = all
        .iter()
        .filter_map(|(c, _)| {
            let other = classes
                .iter()
                .find(|o| Some(o.name.as_str()) == c.receiver.as_deref())?;
            let (_, node) = other.methods.iter().find(|(n, _)| *n == c.name)?;
            Some(calls(*node, src).into_iter().map(|x| (x, None)))
        })
        .flatten()
        .collect();
    all.extend(helper_calls);
    let Some(what) = all.iter().find_map(|(c, _)| writes(c)) else {
        return;
    };
    let cleanup_here = |names: &[&str]| {
        tc.methods
            .iter()
            .filter(|(n, _)| names.contains(&n.as_str()))
            .any(|(_, node)| {
                calls(*node, src).iter().any(|c| {
                    removes(c)
                        || classes.iter().any(|o| {
                            Some(o.name.as_str()) == c.receiver.as_deref()
                                && o.methods.iter().any(|(n, d)| {
                                    *n == c.name && calls(*d, src).iter().any(removes)
                                })
                        })
                })
            })
    };
    let temp = all.iter().any(|(c, _)| {
        matches!(
            c.name.as_str(),
            "TemporaryDirectory" | "mkdtemp" | "NamedTemporaryFile" | "addCleanup"
        )
    });
    let module_teardown = find_all(
        ctx.test_tree.as_ref().map_or(tc.node, |t| t.root_node()),
        &["function_definition"],
    )
    .into_iter()
    .any(|f| {
        f.child_by_field_name("name")
            .is_some_and(|n| text(n, src) == "tearDownModule")
            && calls(f, src).iter().any(removes)
    });
    if temp || module_teardown || cleanup_here(&["tearDown", "tearDownClass"]) {
        return;
    }
    let removes_somewhere = all.iter().any(|(c, _)| removes(c));
    let (code, message) = if removes_somewhere {
        (
            "T6",
            format!(
                "`{}` {what} and removes files only inside test bodies or setUp, which a failing assertion skips.",
                tc.name
            ),
        )
    } else {
        (
            "T5",
            format!("`{}` {what} and nothing removes it.", tc.name),
        )
    };
    ctx.emit(
        code,
        At::new(Part::Tests, m, Some(tc.line)),
        message,
        Some("remove the files in `tearDown` (or work in a `tempfile.TemporaryDirectory`)".into()),
    );
}

#[cfg(test)]
#[path = "tests_unit.rs"]
mod unit;
