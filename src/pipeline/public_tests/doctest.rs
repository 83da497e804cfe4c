//! Docstring `>>>` examples as one unittest test per method.
//!
//! Each example becomes a statement of the test, in order; an example with output compares
//! it as doctest does (printed output, then the repr of a value that is not None), falling
//! back to comparing the value with the expected text evaluated. Benchmark docstrings are
//! noisy, so the translation mends what it safely can: a statement split over several
//! `>>>` lines is joined, and an instance the examples use without creating it is created
//! the way the class's other examples create one.

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::PublicTests;
use crate::analysis::parse::{Class, Doctest, parse_module, parse_tree, text};
use crate::model::{Task, camel_case as camel};

/// The class as the skeleton has it, else as the method descriptions give it.
fn class_of(task: &Task, method: &str) -> Option<Class> {
    let skeleton = parse_module(&task.skeleton)
        .class(&task.class_name)
        .filter(|c| c.method(method).is_some_and(|m| !m.doctests.is_empty()))
        .cloned();
    skeleton.or_else(|| {
        let mut wrapped = format!("class {}:\n", task.class_name);
        for m in &task.methods {
            let desc = m.description.replace("\r\n", "\n");
            wrapped.push_str(&format!("    {}\n\n", desc.trim_start()));
        }
        parse_module(&wrapped).class(&task.class_name).cloned()
    })
}

const DOCTEST_HELPER: &str = r#"    def _check_output(self, run, expected):
        # doctest's rule: printed output, then the repr of a value that is not None;
        # a value whose repr differs may still equal the expected text evaluated.
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            value = run()
        got = printed.getvalue() + ('' if value is None else repr(value))
        if got.rstrip() == expected.rstrip():
            return
        if value is not None and not printed.getvalue():
            try:
                want = eval(expected)
            except Exception:
                pass
            else:
                self.assertEqual(value, want)
                return
        self.assertEqual(got.rstrip(), expected.rstrip())
"#;

const INDENT: &str = "        ";

pub(super) fn from_doctests(task: &Task, method: &str) -> Option<PublicTests> {
    let class = class_of(task, method)?;
    let examples = join_split_statements(&class.method(method)?.doctests);
    let trimmed = method.trim_start_matches('_');
    let trimmed = if trimmed.is_empty() {
        "method"
    } else {
        trimmed
    };
    let class_name = format!("{}Test{}Doctest", task.class_name, camel(trimmed));
    let test_name = format!("test_{trimmed}_doctest");
    let mut notes = Vec::new();
    let mut body = String::new();
    let mut kept = Vec::new();
    for ex in &examples {
        match example_code(ex) {
            Ok(code) => {
                body.push_str(&code);
                kept.push(ex.source.as_str());
            }
            Err(why) => notes.push(format!("example at line {} left out: {why}", ex.line)),
        }
    }
    if body.is_empty() {
        return None;
    }
    let setup = setup_lines(task, &class, &kept, &mut notes);
    let code = format!(
        "import contextlib\nimport io\n\n\nclass {class_name}(unittest.TestCase):\n    \"\"\"The `>>>` examples of {}.{method}, in order.\"\"\"\n\n{DOCTEST_HELPER}\n    def {test_name}(self):\n{setup}{body}",
        task.class_name
    );
    // A fragment that does not parse would be blamed on the model: better no tests.
    if parse_tree(&code).is_none_or(|t| t.root_node().has_error()) {
        return None;
    }
    Some(PublicTests {
        code,
        class_name,
        test_names: vec![test_name],
        source: "doctest",
        seen_private: false,
        notes,
    })
}

/// Why an example's source cannot stand alone as a statement, if it cannot.
fn broken(source: &str) -> Option<&'static str> {
    if source.starts_with([' ', '\t']) {
        return Some("indented");
    }
    let Some(tree) = parse_tree(source) else {
        return Some("unparsable");
    };
    let root = tree.root_node();
    if root.has_error() {
        return Some("syntax error");
    }
    // tree-sitter accepts `for x in y:` with nothing after it; Python does not.
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.kind() == "block" && n.named_child_count() == 0 {
            return Some("a block without a body");
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    None
}

/// Examples that write one statement as several `>>>` lines (instead of `...`
/// continuations) joined back; an example that does not parse alone and joins with
/// nothing stays as it is (and is left out later).
fn join_split_statements(examples: &[Doctest]) -> Vec<Doctest> {
    const MAX_JOIN: usize = 30;
    let mut out = Vec::new();
    let mut i = 0;
    while i < examples.len() {
        let first = &examples[i];
        if broken(&first.source).is_some() && first.expected.is_empty() {
            let mut source = first.source.clone();
            let mut joined = None;
            for (j, next) in examples.iter().enumerate().skip(i + 1).take(MAX_JOIN) {
                source.push('\n');
                source.push_str(&next.source);
                if broken(&source).is_none() {
                    joined = Some((j, source.clone()));
                    break;
                }
                if !next.expected.is_empty() {
                    break;
                }
            }
            if let Some((j, source)) = joined {
                out.push(Doctest {
                    source,
                    expected: examples[j].expected.clone(),
                    line: first.line,
                });
                i = j + 1;
                continue;
            }
        }
        out.push(first.clone());
        i += 1;
    }
    out
}

/// One example as test statements (8-space indented, newline-terminated).
fn example_code(ex: &Doctest) -> Result<String, String> {
    let source = ex.source.trim_end();
    if let Some(why) = broken(source) {
        return Err(why.into());
    }
    let tree = parse_tree(source).ok_or("unparsable")?;
    let root = tree.root_node();
    let mut cursor = root.walk();
    let stmts: Vec<Node<'_>> = root
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect();
    if stmts.is_empty() {
        return Err("no statement".into());
    }
    let is_expression = stmts.len() == 1
        && stmts[0].kind() == "expression_statement"
        && stmts[0].named_child_count() == 1
        && stmts[0]
            .named_child(0)
            .is_some_and(|e| !matches!(e.kind(), "assignment" | "augmented_assignment" | "yield"));
    let expected = ex
        .expected
        .lines()
        .map(|l| if l.trim() == "<BLANKLINE>" { "" } else { l })
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = String::new();
    if let Some(exc) = raised(&expected) {
        out.push_str(&format!(
            "{INDENT}with self.assertRaises(Exception) as caught:\n"
        ));
        out.push_str(&indented(source, &format!("{INDENT}    ")));
        out.push_str(&format!(
            "{INDENT}self.assertEqual(type(caught.exception).__name__, {})\n",
            py_str(exc)
        ));
    } else if expected.trim().is_empty() {
        out.push_str(&indented(source, INDENT));
    } else if is_expression {
        let call = if source.contains('\n') {
            format!(
                "lambda: (\n{}{INDENT})",
                indented(source, &format!("{INDENT}    "))
            )
        } else {
            format!("lambda: {source}")
        };
        out.push_str(&format!(
            "{INDENT}self._check_output({call}, {})\n",
            py_str(&expected)
        ));
    } else {
        // A statement that prints: compare what it printed.
        out.push_str(&format!(
            "{INDENT}with contextlib.redirect_stdout(io.StringIO()) as printed:\n"
        ));
        out.push_str(&indented(source, &format!("{INDENT}    ")));
        out.push_str(&format!(
            "{INDENT}self.assertEqual(printed.getvalue().rstrip(), {})\n",
            py_str(expected.trim_end())
        ));
    }
    Ok(out)
}

/// Set-up for instances the examples use but never create (`>>> parser.parse(...)` with no
/// `parser = …`): created as another example of the class creates one, else with
/// `ClassName()` when the constructor needs no argument.
fn setup_lines(task: &Task, class: &Class, sources: &[&str], notes: &mut Vec<String>) -> String {
    let mut bound: BTreeSet<String> = import_names(&task.imports);
    bound.extend(BUILTINS.iter().map(|s| s.to_string()));
    bound.insert(task.class_name.clone());
    bound.insert("self".into());
    let mut receivers = Vec::new();
    for source in sources {
        let Some(tree) = parse_tree(source) else {
            continue;
        };
        collect_names(
            tree.root_node(),
            source.as_bytes(),
            &mut bound,
            &mut receivers,
        );
    }
    // Every creation of an instance in the class's docstrings: (variable, expression).
    let creations: Vec<(String, String)> = class
        .methods
        .iter()
        .flat_map(|m| &m.doctests)
        .filter_map(|d| {
            let (var, rhs) = d.source.split_once('=')?;
            let (var, rhs) = (var.trim(), rhs.trim());
            let is_name = !var.is_empty() && var.chars().all(|c| c.is_alphanumeric() || c == '_');
            (is_name && rhs.starts_with(&format!("{}(", task.class_name)) && !rhs.contains('\n'))
                .then(|| (var.to_string(), rhs.to_string()))
        })
        .collect();
    let mut out = String::new();
    for name in receivers {
        let same_name = creations.iter().find(|(v, _)| *v == name);
        let rhs = match same_name.or(creations.first()) {
            Some((_, rhs)) => rhs.clone(),
            None if constructor_needs_no_argument(task) => format!("{}()", task.class_name),
            None => {
                notes.push(format!(
                    "`{name}` is used but never created, and the constructor needs arguments"
                ));
                continue;
            }
        };
        notes.push(format!(
            "`{name}` is used but never created: set up as `{rhs}`"
        ));
        out.push_str(&format!(
            "{INDENT}{name} = {rhs}  # set-up the examples assume\n"
        ));
    }
    out
}

/// Names the examples bind (assignment and loop targets, `as` names, imports, defs) go to
/// `bound`; receivers of attribute access not bound before their first use go to `unbound`.
fn collect_names(
    root: Node<'_>,
    src: &[u8],
    bound: &mut BTreeSet<String>,
    unbound: &mut Vec<String>,
) {
    // Pre-order, in source order, so a name bound by an earlier example counts.
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause" => {
                if let Some(left) = n.child_by_field_name("left") {
                    bind_all(left, src, bound);
                }
            }
            "import_statement" | "import_from_statement" => bind_all(n, src, bound),
            "as_pattern_target" => bind_all(n, src, bound),
            "function_definition" | "class_definition" => {
                if let Some(name) = n.child_by_field_name("name") {
                    bound.insert(text(name, src).to_string());
                }
            }
            "attribute" => {
                if let Some(object) = n.child_by_field_name("object")
                    && object.kind() == "identifier"
                {
                    let name = text(object, src).to_string();
                    // Instances are named in lower case; `Other.x` is a class or module.
                    let instance_like = !name.starts_with(|c: char| c.is_uppercase());
                    if instance_like && !bound.contains(&name) && !unbound.contains(&name) {
                        unbound.push(name);
                    }
                }
            }
            _ => {}
        }
        let mut cursor = n.walk();
        let children: Vec<Node<'_>> = n.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
}

fn bind_all(node: Node<'_>, src: &[u8], bound: &mut BTreeSet<String>) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind() == "identifier" {
            bound.insert(text(n, src).to_string());
        } else if n.kind() != "attribute" && n.kind() != "subscript" {
            let mut cursor = n.walk();
            stack.extend(n.named_children(&mut cursor));
        }
    }
}

/// Names bound by import lines: `import a.b as c` → `c`, `import a.b` → `a`,
/// `from x import y as z` → `z`.
fn import_names(imports: &[String]) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in imports {
        let line = line.trim();
        let list = if let Some(rest) = line.strip_prefix("from ") {
            rest.split_once(" import ").map_or("", |(_, l)| l)
        } else {
            line.strip_prefix("import ").unwrap_or("")
        };
        for item in list.trim_matches(|c| c == '(' || c == ')').split(',') {
            let item = item.trim();
            let name = match item.split_once(" as ") {
                Some((_, alias)) => alias.trim(),
                None => item.split('.').next().unwrap_or(""),
            };
            if !name.is_empty() {
                names.insert(name.to_string());
            }
        }
    }
    names
}

/// Builtins examples call methods on (`str.join`, `dict.fromkeys` …).
const BUILTINS: [&str; 12] = [
    "str", "int", "float", "dict", "list", "set", "tuple", "bytes", "object", "type", "print",
    "len",
];

fn constructor_needs_no_argument(task: &Task) -> bool {
    let in_skeleton = parse_module(&task.skeleton)
        .class(&task.class_name)
        .cloned();
    let class = in_skeleton
        .filter(|c| c.method("__init__").is_some())
        .or_else(|| {
            parse_module(&task.constructor)
                .class(&task.class_name)
                .cloned()
        });
    let Some(init) = class.as_ref().and_then(|c| c.method("__init__")) else {
        return true;
    };
    let probe = format!("{}\n    pass\n", init.signature.trim());
    let Some(tree) = parse_tree(&probe) else {
        return false;
    };
    let root = tree.root_node();
    let params = root
        .named_child(0)
        .and_then(|f| f.child_by_field_name("parameters"));
    let Some(params) = params else {
        return false;
    };
    let mut cursor = params.walk();
    let required = params
        .named_children(&mut cursor)
        .filter(|p| matches!(p.kind(), "identifier" | "typed_parameter"))
        .count();
    required <= 1
}

/// The exception name of an expected `Traceback (most recent call last):` output.
fn raised(expected: &str) -> Option<&str> {
    let first = expected.lines().next()?.trim();
    if !first.starts_with("Traceback (most recent call last)") {
        return None;
    }
    let last = expected
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())?
        .trim();
    let name = last.split(':').next()?.trim();
    let name = name.rsplit('.').next()?;
    (!name.is_empty()).then_some(name)
}

/// Every line prefixed with `indent`, except lines inside a triple-quoted string (their
/// leading whitespace is part of the value).
fn indented(source: &str, indent: &str) -> String {
    let verbatim = source.contains("\"\"\"") || source.contains("'''");
    let mut out = String::new();
    for (i, line) in source.lines().enumerate() {
        if i == 0 || !verbatim {
            out.push_str(indent);
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// A Python string literal for `s`.
pub(super) fn py_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}
