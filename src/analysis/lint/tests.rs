//! Test-module rules: T4 randomness, time or network without isolation, T5 files left
//! behind, T6 cleanup inside the test body. Duplicates (T1/T2/T3) live in `duplicates`, the
//! rules about which class tests which method in `testnames`.

use std::collections::HashSet;

use super::syntax::{Call, calls, find_all, node_at, text};
use super::testnames::{TestClass, class_of, test_classes};
use super::{At, Ctx, Part};

pub(super) fn check(ctx: &mut Ctx<'_>) {
    if !ctx.task.has_tests() {
        ctx.emit(
            "T15",
            At::new(Part::Tests, None, None),
            "the task has no tests: nothing can judge code written for it".into(),
            None,
        );
        return;
    }
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
    super::duplicates::check(ctx, &classes, &methods, src);
    for (tc, method) in classes.iter().zip(&methods) {
        isolation(ctx, tc, &classes, method.as_deref());
        files(ctx, tc, &classes, method.as_deref());
    }
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
    let hazards: Vec<(&str, Call, Option<String>)> = reachable_calls(ctx, tc)
        .into_iter()
        .filter_map(|(c, whr)| hazard(&c).map(|k| (k, c, whr)))
        .collect();
    let test_reads_clock = hazards
        .iter()
        .any(|(k, _, whr)| *k == "the current time" && whr.is_none());
    let describe = |c: &Call, whr: &Option<String>| {
        let call = format!("{}.{}", c.receiver.as_deref().unwrap_or(""), c.name);
        match whr {
            None => format!("the test calls `{call}` at line {}", c.line),
            Some(def) => format!("`{def}` calls `{call}` in the reference"),
        }
    };
    let mut kinds: Vec<&str> = Vec::new();
    for (kind, c, whr) in &hazards {
        let flagged = match (*kind, whr.as_deref()) {
            // Randomness in the reference is usually checked by properties (a length, a
            // range); a test's own unseeded draw is not.
            ("randomness", w) => w.is_none(),
            // The clock: a method whose result depends on when the test runs (a fixed date
            // against `now` is a time bomb), or two clock reads that race (test and
            // reference). A time read once by the constructor and compared with itself is
            // deterministic.
            ("the current time", None) => hazards
                .iter()
                .any(|(k, _, w)| *k == "the current time" && w.is_some()),
            ("the current time", Some(def)) => def != "__init__" || test_reads_clock,
            _ => true,
        };
        if !flagged || kinds.contains(kind) {
            continue;
        }
        kinds.push(kind);
        ctx.emit(
            "T4",
            At::new(Part::Tests, m, Some(tc.line)),
            format!(
                "`{}` depends on {kind} ({}) with no seed or mock.",
                tc.name,
                describe(c, whr)
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
        // `image.save(path)`, `document.save(path)`, `workbook.save(path)`.
        "save" if c.positional >= 1 => Some(format!("saves {first}")),
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
