//! What a reviewer can edit in a task, one piece at a time (issue 5: `e` in the TUI opens
//! `$EDITOR` on it), and how an edited piece becomes an edit delta that keeps the task
//! consistent:
//!
//! - a method's docstring lives in the skeleton, in the method's `method_description`
//!   (signature + docstring) and often in the reference solution; editing it rewrites the
//!   docstring literal in each of them (every other byte kept, each literal keeping its own
//!   quotes, indentation and leading/trailing blank lines);
//! - a method's test class lives in its `test_code` and in the whole test module; editing
//!   either updates the other;
//! - public tests are a unittest fragment of their own (`methods.<name>.public_tests`).
//!
//! Also the public-test drafting helpers: tests drafted from the docstring's `>>>` examples,
//! or promoted from chosen private tests (both shared with generation, see
//! [`crate::pipeline::public_tests`]).
//!
//! Pure: text in, text out.

use tree_sitter::Node;

use crate::analysis::parse::{parse_module, parse_tree};
use crate::curate::edits::TaskEdits;
use crate::model::Task;
use crate::pipeline::public_tests;

/// One piece of a task a reviewer can edit as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The whole skeleton (`skeleton`).
    Skeleton,
    /// The whole reference solution (`solution_code`).
    Solution,
    /// The whole test module (`test`).
    Tests,
    /// That method's docstring: the text inside the quotes, dedented.
    Docstring(String),
    /// That method's private test class (ClassEval `methods_info[].test_code`).
    TestClass(String),
    /// That method's public tests (Python source of a unittest TestCase class).
    PublicTests(String),
}

impl Target {
    /// What a person calls it: `skeleton`, `docstring of pop`, `public tests of pop`.
    pub fn label(&self) -> String {
        match self {
            Target::Skeleton => "skeleton".into(),
            Target::Solution => "solution".into(),
            Target::Tests => "tests".into(),
            Target::Docstring(m) => format!("docstring of {m}"),
            Target::TestClass(m) => format!("test class of {m}"),
            Target::PublicTests(m) => format!("public tests of {m}"),
        }
    }

    /// A name safe in a file name (`pop-docstring`, `skeleton`); the caller prefixes the
    /// task id.
    pub fn file_stem(&self) -> String {
        let safe = |m: &str| -> String {
            let s: String = m
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            if s.is_empty() { "method".into() } else { s }
        };
        match self {
            Target::Skeleton => "skeleton".into(),
            Target::Solution => "solution".into(),
            Target::Tests => "tests".into(),
            Target::Docstring(m) => format!("{}-docstring", safe(m)),
            Target::TestClass(m) => format!("{}-test-class", safe(m)),
            Target::PublicTests(m) => format!("{}-public-tests", safe(m)),
        }
    }

    /// The target a `classlab curate edit` field path names: `skeleton`, `solution_code`,
    /// `test`, `methods.<name>.docstring`, `methods.<name>.test_code` or
    /// `methods.<name>.public_tests`; `None` for a plain field (`class_description`,
    /// `methods.<name>.method_description`, `methods.<name>.solution_code`).
    pub fn from_field(path: &str) -> Option<Target> {
        match path {
            "skeleton" => return Some(Target::Skeleton),
            "solution_code" => return Some(Target::Solution),
            "test" => return Some(Target::Tests),
            _ => {}
        }
        let (method, field) = path.strip_prefix("methods.")?.rsplit_once('.')?;
        let method = method.to_string();
        match field {
            "docstring" => Some(Target::Docstring(method)),
            "test_code" => Some(Target::TestClass(method)),
            "public_tests" => Some(Target::PublicTests(method)),
            _ => None,
        }
    }

    /// The method a per-method target is about.
    pub fn method(&self) -> Option<&str> {
        match self {
            Target::Skeleton | Target::Solution | Target::Tests => None,
            Target::Docstring(m) | Target::TestClass(m) | Target::PublicTests(m) => Some(m),
        }
    }
}

/// Task-level targets first (skeleton, solution, tests), then for each method: docstring,
/// test class, public tests.
pub fn targets(task: &Task) -> Vec<Target> {
    let mut out = vec![Target::Skeleton, Target::Solution, Target::Tests];
    for m in &task.methods {
        out.push(Target::Docstring(m.name.clone()));
        out.push(Target::TestClass(m.name.clone()));
        out.push(Target::PublicTests(m.name.clone()));
    }
    out
}

/// The current text of `target` in `task` (pass the edited task to get the edited text, the
/// original for the original). A docstring comes from the skeleton, else from the method's
/// description; public tests are "" when the method has none, as is anything about a method
/// the task does not have.
pub fn text(task: &Task, target: &Target) -> String {
    match target {
        Target::Skeleton => task.skeleton.clone(),
        Target::Solution => task.solution.clone(),
        Target::Tests => task.test_module.clone(),
        Target::Docstring(m) => docstring_text(task, m).unwrap_or_default(),
        Target::TestClass(m) => task
            .method(m)
            .map(|m| m.test_code.clone())
            .unwrap_or_default(),
        Target::PublicTests(m) => task
            .method(m)
            .and_then(|m| m.public_tests.clone())
            .unwrap_or_default(),
    }
}

/// The new edit delta after the reviewer replaced `target`'s text with `text`, starting
/// from `edits` (the store's current delta for `original`). Text equal to the current text
/// changes nothing; an edit that restores the original drops out of the delta.
pub fn set(
    original: &Task,
    edits: &TaskEdits,
    target: &Target,
    text: String,
) -> Result<TaskEdits, String> {
    let text = text.replace("\r\n", "\n");
    if let Some(m) = target.method()
        && original.method(m).is_none()
    {
        return Err(format!("no method named {m}"));
    }
    let current = edits.apply(original);
    let before = self::text(&current, target);
    let unchanged = match target {
        Target::Docstring(_) => normalize_doc(&text) == normalize_doc(&before),
        _ => text.trim_end() == before.trim_end(),
    };
    if unchanged {
        return Ok(edits.clone().pruned(original));
    }
    let mut out = edits.clone();
    let label = target.label();
    match target {
        Target::Skeleton => {
            check_parses(&label, &text, &current.skeleton)?;
            // Each method's description follows its docstring.
            for m in &current.methods {
                let old = class_docstring(&current.skeleton, &current.class_name, &m.name);
                let Some(new) = class_docstring(&text, &current.class_name, &m.name) else {
                    continue;
                };
                if old.is_some_and(|old| old.text == new.text) {
                    continue;
                }
                let desc = replace_function_docstring(&m.description, &new.text)
                    .ok()
                    .or_else(|| description_from_skeleton(&text, &current.class_name, &m.name));
                if let Some(desc) = desc {
                    out.set(original, &method_path(&m.name, "method_description"), desc)?;
                }
            }
            out.set(original, "skeleton", text)?;
        }
        Target::Solution => {
            check_parses(&label, &text, &current.solution)?;
            for m in &current.methods {
                let old = method_slice(&current.solution, &current.class_name, &m.name);
                let new = method_slice(&text, &current.class_name, &m.name);
                if let (Some(old), Some(new)) = (old, new)
                    && old != new
                    && old.trim() == m.solution.trim()
                {
                    let value = with_trailing(new, &m.solution);
                    out.set(original, &method_path(&m.name, "solution_code"), value)?;
                }
            }
            out.set(original, "solution_code", text)?;
        }
        Target::Tests => {
            check_parses(&label, &text, &current.test_module)?;
            for m in &current.methods {
                let Some(name) = test_class_name(m) else {
                    continue;
                };
                let old = class_slice(&current.test_module, &name);
                let new = class_slice(&text, &name);
                if let (Some(old), Some(new)) = (old, new)
                    && old != new
                {
                    let value = with_trailing(new, &m.test_code);
                    out.set(original, &method_path(&m.name, "test_code"), value)?;
                }
            }
            out.set(original, "test", text)?;
        }
        Target::Docstring(method) => set_docstring(original, &current, &mut out, method, &text)?,
        Target::TestClass(method) => set_test_class(original, &current, &mut out, method, &text)?,
        Target::PublicTests(method) => {
            let value = if text.trim().is_empty() {
                String::new()
            } else {
                check_public_tests(method, &text)?;
                text.trim_end().to_string() + "\n"
            };
            out.set(original, &method_path(method, "public_tests"), value)?;
        }
    }
    Ok(out.pruned(original))
}

/// Public tests drafted from the doctests in `method`'s docstring: a unittest TestCase class
/// (`<Class>Test<Method>Doctest`, a fragment without `import unittest`, as the dataset's
/// public tests are) run after the class in one module like ClassEval's tests; `None` when
/// the docstring has no doctest that makes a test.
pub fn draft_from_doctests(task: &Task, method: &str) -> Option<String> {
    public_tests::doctest_public_tests(task, method).map(|p| p.code)
}

/// The names of the private test methods (`test…`) in `method`'s test class, in source
/// order; empty when it has none.
pub fn private_tests(task: &Task, method: &str) -> Vec<String> {
    public_tests::private_test_names(task, method).unwrap_or_default()
}

/// Public tests made of the chosen private tests of `method`: its test class with just those
/// test methods (setUp, tearDown and helpers kept), the test module's imports in front.
pub fn promote(task: &Task, method: &str, chosen: &[String]) -> Result<String, String> {
    if task.method(method).is_none() {
        return Err(format!("no method named {method}"));
    }
    if chosen.is_empty() {
        return Err(format!("choose at least one test of {method} to promote"));
    }
    let known = public_tests::private_test_names(task, method)
        .ok_or_else(|| format!("{method} has no private test class"))?;
    let unknown: Vec<&str> = chosen
        .iter()
        .filter(|c| !known.contains(c))
        .map(String::as_str)
        .collect();
    if !unknown.is_empty() {
        return Err(format!(
            "the test class of {method} has no test named {} (it has {})",
            unknown.join(", "),
            known.join(", ")
        ));
    }
    public_tests::private_selection(task, method, &|_, name| chosen.iter().any(|c| c == name))
        .map(|p| p.code)
}

// ---------------------------------------------------------------------------------------------
// Docstrings

/// A docstring literal found in some source.
#[derive(Debug, Clone, PartialEq, Eq)]
struct DocLiteral {
    /// Byte range of the string literal.
    start: usize,
    end: usize,
    /// The whitespace before the literal on its line.
    line_indent: String,
    /// The dedented text (blank lines around it removed).
    text: String,
    /// How to write new text in its place.
    layout: Layout,
}

/// How a docstring literal is written around its text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Layout {
    /// String prefix (`r`, `u` …) and the quotes: `"""` or `'''`.
    prefix: String,
    quote: String,
    /// What comes between the opening quotes and the first line of text (`"\n"`, or "").
    lead: String,
    /// What comes between the last line of text and the closing quotes (`"\n\n        "`).
    trail: String,
    /// The indentation of the text's lines after the first (`None`: only one line).
    indent: Option<String>,
}

/// Parse a string literal `lit` as a docstring: `None` unless it is one plain
/// triple-quoted string. Gives the text (blank lines around it dropped, the common
/// indentation of its lines after the first removed) and how to write text back in its
/// place byte for byte.
fn doc_literal(lit: &str) -> Option<(String, Layout)> {
    let prefix_len = lit.find(|c: char| !"rRuU".contains(c)).unwrap_or(lit.len());
    let (prefix, rest) = lit.split_at(prefix_len);
    let quote = ["\"\"\"", "'''"]
        .into_iter()
        .find(|q| rest.starts_with(q) && rest.len() >= 6 && rest.ends_with(q))?;
    let inner = &rest[3..rest.len() - 3];
    let lines: Vec<&str> = inner.split('\n').collect();
    let blank = |l: &&str| l.trim().is_empty();
    let Some(first) = lines.iter().position(|l| !blank(l)) else {
        // All blank: no text; new text goes on its own lines.
        let layout = Layout {
            prefix: prefix.into(),
            quote: quote.into(),
            lead: String::new(),
            trail: String::new(),
            indent: None,
        };
        return Some((String::new(), layout));
    };
    let last = lines.iter().rposition(|l| !blank(l)).unwrap_or(first);
    let offset = |i: usize| -> usize { lines[..i].iter().map(|l| l.len() + 1).sum() };
    let (indent, lead, head) = if first == 0 {
        // Text on the quotes' line: the lines after it give the indentation.
        let l = lines[0];
        let head = l.trim_start();
        let indent = common_indent(&lines[1..=last]);
        (indent, l[..l.len() - head.len()].to_string(), head)
    } else {
        let indent = common_indent(&lines[first..=last]).unwrap_or_default();
        let head = &lines[first][indent.len()..];
        let lead = inner[..offset(first)].to_string() + &indent;
        (Some(indent), lead, head)
    };
    let strip = |l: &str| -> String {
        match &indent {
            _ if l.trim().is_empty() => String::new(),
            Some(i) => l.strip_prefix(i.as_str()).unwrap_or(l).to_string(),
            None => l.to_string(),
        }
    };
    let mut text = head.to_string();
    for l in &lines[first + 1..=last] {
        text.push('\n');
        text.push_str(&strip(l));
    }
    let text_end = offset(last) + lines[last].len();
    let layout = Layout {
        prefix: prefix.into(),
        quote: quote.into(),
        lead,
        trail: inner[text_end..].to_string(),
        indent,
    };
    Some((text, layout))
}

/// The longest whitespace prefix shared by the non-blank lines (`None` when there are none).
fn common_indent(lines: &[&str]) -> Option<String> {
    let mut common: Option<&str> = None;
    for l in lines.iter().filter(|l| !l.trim().is_empty()) {
        let ws = &l[..l.len() - l.trim_start().len()];
        common = Some(match common {
            None => ws,
            Some(c) => {
                let n = c
                    .bytes()
                    .zip(ws.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                &c[..n]
            }
        });
    }
    common.map(String::from)
}

/// `text` written as a literal in `layout`; `line_indent` is where the literal starts.
fn render(text: &str, layout: &Layout, line_indent: &str) -> String {
    let indent = layout.indent.as_deref().unwrap_or(line_indent);
    let mut trail = layout.trail.clone();
    if layout.indent.is_none() && trail.is_empty() && text.contains('\n') {
        // A one-line docstring becoming several lines: the closing quotes on their own line.
        trail = format!("\n{line_indent}");
    }
    let mut body = String::new();
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            body.push('\n');
            if !line.is_empty() {
                body.push_str(indent);
            }
        }
        body.push_str(line);
    }
    format!(
        "{}{}{}{body}{trail}{}",
        layout.prefix, layout.quote, layout.lead, layout.quote
    )
}

/// The docstring text as `set` keeps it: Unix line ends, no blank lines around it, no
/// trailing whitespace at its end, and no common indentation.
fn normalize_doc(text: &str) -> String {
    let text = text.replace("\r\n", "\n");
    let lines: Vec<&str> = text.split('\n').collect();
    let first = lines.iter().position(|l| !l.trim().is_empty());
    let Some(first) = first else {
        return String::new();
    };
    let last = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .unwrap_or(first);
    let lines = &lines[first..=last];
    let indent = common_indent(lines).unwrap_or_default();
    let text = lines
        .iter()
        .map(|l| l.strip_prefix(indent.as_str()).unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    text.trim_end().to_string()
}

/// The docstring statement's literal in a function node's body.
/// A function holding a syntax error has no docstring one can trust (an unterminated one
/// swallows what follows).
fn function_doc(func: Node<'_>, src: &str) -> Option<DocLiteral> {
    if func.has_error() {
        return None;
    }
    let body = func.child_by_field_name("body")?;
    let first = body.named_child(0)?;
    if first.kind() != "expression_statement" || first.named_child_count() != 1 {
        return None;
    }
    let lit = first.named_child(0)?;
    if lit.kind() != "string" {
        return None;
    }
    let (start, end) = (lit.start_byte(), lit.end_byte());
    let (text, layout) = doc_literal(&src[start..end])?;
    Some(DocLiteral {
        start,
        end,
        line_indent: line_prefix(src, start).to_string(),
        text,
        layout,
    })
}

fn line_prefix(src: &str, at: usize) -> &str {
    let start = src[..at].rfind('\n').map_or(0, |i| i + 1);
    let prefix = &src[start..at];
    if prefix.trim().is_empty() { prefix } else { "" }
}

/// The definition of kind `kind` (`function_definition`, `class_definition`) named `name`
/// directly in `scope` (a module or a class body), and the node that starts it (the
/// decorated definition when there are decorators).
fn find_named<'t>(
    scope: Node<'t>,
    src: &str,
    kind: &str,
    name: &str,
) -> Option<(Node<'t>, Node<'t>)> {
    let mut cursor = scope.walk();
    let children: Vec<Node<'t>> = scope.named_children(&mut cursor).collect();
    children.into_iter().find_map(|n| {
        let def = match n.kind() {
            "decorated_definition" => n.child_by_field_name("definition")?,
            k if k == kind => n,
            _ => return None,
        };
        (def.kind() == kind
            && def
                .child_by_field_name("name")
                .is_some_and(|x| &src[x.byte_range()] == name))
        .then_some((def, n))
    })
}

/// The method `name` directly in a class body: its definition and the node that starts it.
fn find_def<'t>(scope: Node<'t>, src: &str, name: &str) -> Option<(Node<'t>, Node<'t>)> {
    find_named(scope, src, "function_definition", name)
}

/// The top-level class `name` of a module (the decorated definition when decorated).
fn find_class<'t>(root: Node<'t>, src: &str, name: &str) -> Option<Node<'t>> {
    find_named(root, src, "class_definition", name).map(|(_, outer)| outer)
}

fn class_body<'t>(class: Node<'t>) -> Option<Node<'t>> {
    let def = match class.kind() {
        "decorated_definition" => class.child_by_field_name("definition")?,
        _ => class,
    };
    def.child_by_field_name("body")
}

/// The docstring of method `method` of class `class` in `src`.
fn class_docstring(src: &str, class: &str, method: &str) -> Option<DocLiteral> {
    let tree = parse_tree(src)?;
    let class = find_class(tree.root_node(), src, class)?;
    let (func, _) = find_def(class_body(class)?, src, method)?;
    function_doc(func, src)
}

/// The docstring of the function a method description (or method solution) defines.
fn function_docstring(src: &str) -> Option<DocLiteral> {
    let tree = parse_tree(src)?;
    let root = tree.root_node();
    let mut cursor = root.walk();
    let first = root
        .named_children(&mut cursor)
        .find(|n| matches!(n.kind(), "function_definition" | "decorated_definition"))?;
    let func = match first.kind() {
        "decorated_definition" => first.child_by_field_name("definition")?,
        _ => first,
    };
    function_doc(func, src)
}

fn splice(src: &str, lit: &DocLiteral, text: &str) -> String {
    format!(
        "{}{}{}",
        &src[..lit.start],
        render(text, &lit.layout, &lit.line_indent),
        &src[lit.end..]
    )
}

/// `src` (a single function: a method description or method solution) with its docstring
/// replaced by `text`, or a docstring inserted after the signature when it has none.
fn replace_function_docstring(src: &str, text: &str) -> Result<String, String> {
    if let Some(lit) = function_docstring(src) {
        return Ok(splice(src, &lit, text));
    }
    let tree = parse_tree(src).ok_or("unparsable")?;
    let root = tree.root_node();
    let mut cursor = root.walk();
    let func = root
        .named_children(&mut cursor)
        .find_map(|n| match n.kind() {
            "function_definition" => Some(n),
            "decorated_definition" => n.child_by_field_name("definition"),
            _ => None,
        });
    let layout = Layout {
        prefix: String::new(),
        quote: "\"\"\"".into(),
        lead: String::new(),
        trail: String::new(),
        indent: None,
    };
    match func.and_then(|f| f.child_by_field_name("body")) {
        Some(body)
            if !root.has_error()
                && body.named_child_count() > 0
                && body.start_position().row > func.map_or(0, |f| f.start_position().row) =>
        {
            let at = body.start_byte();
            let indent = line_prefix(src, at).to_string();
            let literal = render_new(text, &layout, &indent);
            Ok(format!("{}{literal}\n{indent}{}", &src[..at], &src[at..]))
        }
        _ => {
            // Only a signature (a description without docstring): the docstring goes below
            // it, where ClassEval's descriptions put it (8 columns in).
            let trimmed = src.trim_end();
            let def_indent = line_prefix(trimmed, trimmed.find("def").unwrap_or(0)).to_string();
            let indent = format!("{def_indent}        ");
            let signature_only = !trimmed.contains('\n')
                && trimmed.trim_start().starts_with(['d', 'a', '@'])
                && trimmed.ends_with(':');
            if !signature_only {
                return Err("it does not parse".into());
            }
            let literal = render_new(text, &layout, &indent);
            Ok(format!(
                "{trimmed}\n{indent}{literal}{}",
                &src[trimmed.len()..]
            ))
        }
    }
}

/// A new docstring literal at `indent`: quotes on their own lines.
fn render_new(text: &str, layout: &Layout, indent: &str) -> String {
    let layout = Layout {
        lead: format!("\n{indent}"),
        trail: format!("\n{indent}"),
        indent: Some(indent.to_string()),
        ..layout.clone()
    };
    render(text, &layout, indent)
}

/// ClassEval's method description from a skeleton: from `def` (decorators left out) to the
/// end of the docstring.
fn description_from_skeleton(skeleton: &str, class: &str, method: &str) -> Option<String> {
    let tree = parse_tree(skeleton)?;
    let class = find_class(tree.root_node(), skeleton, class)?;
    let (func, _) = find_def(class_body(class)?, skeleton, method)?;
    let doc = function_doc(func, skeleton)?;
    Some(skeleton[func.start_byte()..doc.end].to_string())
}

/// The first line of a syntax error inside method `method` of `class`, if it has one.
fn broken_def_line(src: &str, class: &str, method: &str) -> Option<usize> {
    let tree = parse_tree(src)?;
    let class = find_class(tree.root_node(), src, class)?;
    let (func, _) = find_def(class_body(class)?, src, method)?;
    if !func.has_error() {
        return None;
    }
    let errors = parse_module(&src[..func.end_byte()]).error_lines;
    let first = func.start_position().row + 1;
    errors
        .into_iter()
        .filter(|l| *l >= first)
        .min()
        .or(Some(first))
}

/// The docstring of `method`: from the skeleton, else from its description.
fn docstring_text(task: &Task, method: &str) -> Option<String> {
    class_docstring(&task.skeleton, &task.class_name, method)
        .or_else(|| function_docstring(&task.method(method)?.description))
        .map(|d| d.text)
}

fn set_docstring(
    original: &Task,
    current: &Task,
    out: &mut TaskEdits,
    method: &str,
    text: &str,
) -> Result<(), String> {
    let label = format!("the docstring of {method}");
    let text = normalize_doc(text);
    if text.is_empty() {
        return Err(format!("{label} cannot be blank"));
    }
    let m = current
        .method(method)
        .ok_or_else(|| format!("no method named {method}"))?;
    let old_text = docstring_text(current, method);
    let skeleton_doc = class_docstring(&current.skeleton, &current.class_name, method);
    let description_doc = function_docstring(&m.description);
    for quote in [skeleton_doc.as_ref(), description_doc.as_ref()]
        .into_iter()
        .flatten()
        .map(|d| d.layout.quote.as_str())
        .chain(std::iter::once("\"\"\""))
    {
        if text.contains(quote) {
            return Err(format!("{label} cannot contain {quote}"));
        }
    }
    let closes_on_text = [skeleton_doc.as_ref(), description_doc.as_ref()]
        .into_iter()
        .flatten()
        .any(|d| d.layout.trail.is_empty());
    if closes_on_text && text.ends_with(['"', '\'', '\\']) {
        return Err(format!(
            "{label} cannot end with a quote or a backslash: its closing quotes follow the text"
        ));
    }
    if skeleton_doc.is_none()
        && let Some(line) = broken_def_line(&current.skeleton, &current.class_name, method)
    {
        return Err(format!(
            "{label} cannot be edited alone: the skeleton has a syntax error in {method} (line {line}); edit the skeleton"
        ));
    }
    // Skeleton: the docstring rewritten in place; a method the skeleton lacks is left to the
    // skeleton's own editing.
    if let Some(doc) = &skeleton_doc {
        let skeleton = splice(&current.skeleton, doc, &text);
        if let Some(line) = new_error_line(&current.skeleton, &skeleton) {
            return Err(format!(
                "{label} would break the skeleton: syntax error at line {line}"
            ));
        }
        out.set(original, "skeleton", skeleton)?;
    }
    let description = match replace_function_docstring(&m.description, &text) {
        Ok(d) => d,
        // A description that does not parse is rebuilt from the skeleton.
        Err(why) => {
            let skeleton = out.apply(original).skeleton;
            description_from_skeleton(&skeleton, &current.class_name, method)
                .ok_or_else(|| format!("{label}: the method description: {why}"))?
        }
    };
    out.set(
        original,
        &method_path(method, "method_description"),
        description,
    )?;
    // The solution follows when it had the same docstring.
    if let Some(old_text) = &old_text {
        if let Some(doc) = class_docstring(&current.solution, &current.class_name, method)
            && doc.text == *old_text
        {
            let solution = splice(&current.solution, &doc, &text);
            if new_error_line(&current.solution, &solution).is_none() {
                out.set(original, "solution_code", solution)?;
            }
        }
        if let Some(doc) = function_docstring(&m.solution)
            && doc.text == *old_text
        {
            let solution = splice(&m.solution, &doc, &text);
            out.set(original, &method_path(method, "solution_code"), solution)?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Test classes and public tests

fn set_test_class(
    original: &Task,
    current: &Task,
    out: &mut TaskEdits,
    method: &str,
    text: &str,
) -> Result<(), String> {
    let label = format!("the test class of {method}");
    let m = current
        .method(method)
        .ok_or_else(|| format!("no method named {method}"))?;
    if text.trim().is_empty() {
        return Err(format!(
            "{label} cannot be blank (edit the tests to remove a test class)"
        ));
    }
    let module = parse_module(text);
    if let Some(line) = module.error_lines.first() {
        return Err(format!("{label} does not parse: line {line}"));
    }
    let classes: Vec<&str> = module
        .classes
        .iter()
        .filter(|c| !c.qualified_name.contains('.'))
        .map(|c| c.name.as_str())
        .collect();
    let name = match (&m.test_class, classes.first()) {
        (_, None) => return Err(format!("{label} holds no class")),
        (Some(want), Some(_)) if !classes.contains(&want.as_str()) => {
            return Err(format!(
                "{label} must keep its name {want} (the task names it as {method}'s test class); found {}",
                classes.join(", ")
            ));
        }
        (Some(want), _) => want.clone(),
        (None, Some(first)) => first.to_string(),
    };
    let value = with_trailing(text, &m.test_code);
    // The test module: the class replaced where it is, else added at the end (before a
    // `if __name__ == "__main__":` block).
    let module_src = &current.test_module;
    let new_module = match class_range(module_src, &name) {
        Some((start, end)) => format!(
            "{}{}{}",
            &module_src[..start],
            text.trim_end(),
            &module_src[end..]
        ),
        None => append_class(module_src, text.trim_end()),
    };
    if let Some(line) = new_error_line(module_src, &new_module) {
        return Err(format!(
            "{label} would break the tests: syntax error at line {line}"
        ));
    }
    out.set(original, &method_path(method, "test_code"), value)?;
    out.set(original, "test", new_module)?;
    Ok(())
}

fn check_public_tests(method: &str, text: &str) -> Result<(), String> {
    let label = format!("the public tests of {method}");
    let module = parse_module(text);
    if let Some(line) = module.error_lines.first() {
        return Err(format!("{label} do not parse: line {line}"));
    }
    let cases: Vec<_> = module
        .classes
        .iter()
        .filter(|c| !c.qualified_name.contains('.'))
        .filter(|c| c.bases.iter().any(|b| b.ends_with("TestCase")))
        .collect();
    if cases.is_empty() {
        return Err(format!("{label} hold no unittest.TestCase class"));
    }
    if !cases
        .iter()
        .any(|c| c.methods.iter().any(|m| m.name.starts_with("test")))
    {
        return Err(format!("{label} have no test method (def test_…)"));
    }
    Ok(())
}

/// The name of `m`'s test class: as the dataset names it, else the first class of its code.
fn test_class_name(m: &crate::model::Method) -> Option<String> {
    m.test_class.clone().or_else(|| {
        parse_module(&m.test_code)
            .classes
            .into_iter()
            .find(|c| !c.qualified_name.contains('.'))
            .map(|c| c.name)
    })
}

/// Byte range of the top-level class `name` (decorators included).
fn class_range(src: &str, name: &str) -> Option<(usize, usize)> {
    let tree = parse_tree(src)?;
    find_class(tree.root_node(), src, name).map(|n| (n.start_byte(), n.end_byte()))
}

fn class_slice<'s>(src: &'s str, name: &str) -> Option<&'s str> {
    class_range(src, name).map(|(s, e)| &src[s..e])
}

/// The source of method `method` of `class`, from `def` (decorators included) to its end.
fn method_slice<'s>(src: &'s str, class: &str, method: &str) -> Option<&'s str> {
    let tree = parse_tree(src)?;
    let class = find_class(tree.root_node(), src, class)?;
    let (_, outer) = find_def(class_body(class)?, src, method)?;
    Some(&src[outer.byte_range()])
}

/// `module` with `class` added after its last class (before a trailing `if __name__` block).
fn append_class(module: &str, class: &str) -> String {
    let main = module
        .find("\nif __name__")
        .map(|i| i + 1)
        .unwrap_or(module.len());
    let head = module[..main].trim_end();
    let tail = &module[main..];
    let sep = if head.is_empty() { "" } else { "\n\n\n" };
    let after = if tail.is_empty() { "\n" } else { "\n\n\n" };
    format!("{head}{sep}{class}{after}{tail}")
}

/// `text` ending the way `like` ends (its trailing whitespace), so a class's text keeps the
/// dataset's convention.
fn with_trailing(text: &str, like: &str) -> String {
    let trailing = &like[like.trim_end().len()..];
    format!("{}{trailing}", text.trim_end())
}

/// The first syntax error line of `new` when `old` had none.
fn new_error_line(old: &str, new: &str) -> Option<usize> {
    if !parse_module(old).parses() {
        return None;
    }
    parse_module(new).error_lines.first().copied()
}

fn check_parses(label: &str, new: &str, old: &str) -> Result<(), String> {
    match new_error_line(old, new) {
        Some(line) => Err(format!("the {label} do not parse: line {line}")
            .replace("the skeleton do ", "the skeleton does ")
            .replace("the solution do ", "the solution does ")),
        None => Ok(()),
    }
}

fn method_path(method: &str, field: &str) -> String {
    format!("methods.{method}.{field}")
}

#[cfg(test)]
mod tests;
