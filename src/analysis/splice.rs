//! Splicing one method into a class, and pulling one method out of a model reply.
//!
//! Pure and tree-sitter based. Splicing keeps every byte of the module outside the replaced
//! method; the method is re-indented to the class body. Lines that start inside a multi-line
//! string literal (other than a docstring) are never re-indented: their leading whitespace
//! is part of the string's value.

use tree_sitter::{Node, Tree};

use super::parse::{parse_module, parse_tree, text};
use crate::model::Task;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpliceError {
    #[error("no class `{0}` in the module")]
    ClassNotFound(String),
    #[error("the method source holds no function definition")]
    NoFunction,
    #[error("the method source has a syntax error at line {line}")]
    MethodSyntax { line: usize },
    #[error("class `{0}` has its body on the header line; a method cannot be spliced into it")]
    InlineBody(String),
}

/// Put `method_src` (one method definition, any indentation, decorators included) into class
/// `class_name` of `module_src`: it replaces the method of the same name, or is appended after
/// the last statement of the class body (with one blank line) when there is none.
pub fn splice_method(
    module_src: &str,
    class_name: &str,
    method_src: &str,
) -> Result<String, SpliceError> {
    let method = Snippet::parse(method_src).ok_or(SpliceError::NoFunction)?;
    if let Some(line) = first_error_line(method.tree.root_node()) {
        return Err(SpliceError::MethodSyntax {
            line: line.saturating_sub(method.line_offset).max(1),
        });
    }
    let root = method.tree.root_node();
    let (func, outer) = find_function(root, &method.src, None).ok_or(SpliceError::NoFunction)?;
    let name = name_of(func, method.src.as_bytes());
    let decorators = decorators_of(outer, method.src.as_bytes());

    let tree =
        parse_tree(module_src).ok_or_else(|| SpliceError::ClassNotFound(class_name.into()))?;
    let class = find_class(tree.root_node(), module_src.as_bytes(), class_name)
        .ok_or_else(|| SpliceError::ClassNotFound(class_name.into()))?;
    let body = class
        .child_by_field_name("body")
        .ok_or_else(|| SpliceError::InlineBody(class_name.into()))?;
    let first_stmt = non_comment_children(body).into_iter().next();
    let Some(first_stmt) =
        first_stmt.filter(|s| s.start_position().row > class.start_position().row)
    else {
        return Err(SpliceError::InlineBody(class_name.into()));
    };
    let body_indent = line_prefix(module_src, first_stmt.start_byte());
    let class_indent = line_prefix(module_src, class.start_byte());
    let newline = if module_src.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    };

    let from = line_prefix(&method.src, outer.start_byte());
    // The body's first level moves to the class's indentation step; deeper levels keep
    // their offset (ClassEval's method solutions put the body 8 columns in, nesting by 4).
    let base = match (
        method_unit(func, &method.src, from),
        body_indent.strip_prefix(class_indent),
    ) {
        (Some(m), Some(c)) if !m.is_empty() && !c.is_empty() => Some((m, c.to_string())),
        _ => None,
    };
    let shift = Shift {
        from,
        to: body_indent,
        base,
        newline,
    };
    let new_text = relines(&method.src, outer, outer.end_byte(), &shift);

    let existing = pick_existing(body, module_src.as_bytes(), &name, &decorators);
    let mut out = String::with_capacity(module_src.len() + new_text.len() + 8);
    match existing {
        Some(old) => {
            out.push_str(&module_src[..old.start_byte()]);
            out.push_str(&new_text);
            out.push_str(&module_src[old.end_byte()..]);
        }
        None => {
            let last = non_comment_children(body)
                .last()
                .copied()
                .unwrap_or(first_stmt);
            let at = line_end(module_src, last.end_byte());
            out.push_str(&module_src[..at]);
            out.push_str(newline);
            out.push_str(newline);
            out.push_str(body_indent);
            out.push_str(&new_text);
            out.push_str(&module_src[at..]);
        }
    }
    Ok(out)
}

/// The definition of `method` in code taken from a model reply (a bare method, a method in a
/// `class X:` wrapper, or a whole module), decorators included, dedented to column 0 and
/// ending with a newline. The first definition of that name not nested in a function wins.
/// Code that does not parse still yields the method by indentation, so a broken method can
/// be spliced, run and repaired.
pub fn method_from_reply(code: &str, method: &str) -> Option<String> {
    let snippet = Snippet::parse(code)?;
    let src = &snippet.src;
    // In broken code tree-sitter may end the function early and leave the rest of its body
    // in an error node: the indentation gives the whole method, so its error is seen later.
    if snippet.tree.root_node().has_error()
        && let Some(found) = method_by_indentation(src, method)
    {
        return Some(found);
    }
    if let Some((_, outer)) = find_function(snippet.tree.root_node(), src, Some(method)) {
        let shift = Shift {
            from: line_prefix(src, outer.start_byte()),
            to: "",
            base: None,
            newline: "\n",
        };
        let mut out = relines(src, outer, outer.end_byte(), &shift);
        out.push('\n');
        return Some(out);
    }
    method_by_indentation(src, method)
}

/// Top-level import statements of some code, verbatim (a parenthesised import stays whole).
pub fn imports_of(code: &str) -> Vec<String> {
    parse_module(code).imports
}

/// Add the imports `module_src` lacks (compared with whitespace collapsed) after its last
/// top-level import, or at the top (after a module docstring) when it has none. Every other
/// byte is kept.
pub fn merge_imports(module_src: &str, imports: &[String]) -> String {
    let Some(tree) = parse_tree(module_src) else {
        return module_src.to_string();
    };
    let root = tree.root_node();
    let src = module_src.as_bytes();
    let top = non_comment_children(root);
    let existing: Vec<Node<'_>> = top.iter().copied().filter(|n| is_import(*n)).collect();
    let mut have: Vec<String> = existing.iter().map(|n| collapse(text(*n, src))).collect();
    let mut missing = Vec::new();
    for import in imports {
        let key = collapse(import);
        if !key.is_empty() && !have.contains(&key) {
            have.push(key);
            missing.push(import.trim().replace("\r\n", "\n"));
        }
    }
    if missing.is_empty() {
        return module_src.to_string();
    }
    let newline = if module_src.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let block = missing.join("\n").replace('\n', newline);
    let (at, insert) = if let Some(last) = existing.last() {
        let at = line_end(module_src, last.end_byte());
        (at, format!("{newline}{block}"))
    } else if let Some(doc) = top.first().filter(|n| is_string_statement(**n)) {
        let at = line_end(module_src, doc.end_byte());
        (at, format!("{newline}{newline}{block}"))
    } else if let Some(first) = top.first() {
        let at = first.start_byte() - line_prefix(module_src, first.start_byte()).len();
        (at, format!("{block}{newline}{newline}"))
    } else {
        let sep = if module_src.is_empty() || module_src.ends_with('\n') {
            ""
        } else {
            newline
        };
        (module_src.len(), format!("{sep}{block}{newline}"))
    };
    let mut out = String::with_capacity(module_src.len() + insert.len());
    out.push_str(&module_src[..at]);
    out.push_str(&insert);
    out.push_str(&module_src[at..]);
    out
}

/// The signature and docstring of a target method (decorators included, no body), dedented,
/// from the task's skeleton, else from the method's dataset description.
pub fn method_stub(task: &Task, method: &str) -> Option<String> {
    stub_in(&task.skeleton, &task.class_name, method).or_else(|| {
        let desc = task.method(method)?.description.replace("\r\n", "\n");
        // Dataset descriptions start at column 0 and go on at the class body's indentation.
        let wrapped = format!("class {}:\n    {}\n", task.class_name, desc.trim_start());
        stub_in(&wrapped, &task.class_name, method)
    })
}

/// Decorators + signature + docstring of `method` in class `class_name` of `source`.
pub fn stub_in(source: &str, class_name: &str, method: &str) -> Option<String> {
    let source = source.replace("\r\n", "\n");
    let tree = parse_tree(&source)?;
    let src = source.as_bytes();
    let class = find_class(tree.root_node(), src, class_name)?;
    let body = class.child_by_field_name("body")?;
    let outer = pick_existing(body, src, method, &[])?;
    let func = definition_of(outer)?;
    let fbody = func.child_by_field_name("body")?;
    let end = match non_comment_children(fbody).first() {
        Some(doc) if is_string_statement(*doc) => doc.end_byte(),
        // No docstring: the signature only (up to and including the colon).
        _ => source[..fbody.start_byte()].trim_end().len(),
    };
    let shift = Shift {
        from: line_prefix(&source, outer.start_byte()),
        to: "",
        base: None,
        newline: "\n",
    };
    let mut out = relines(&source, outer, end, &shift);
    out.push('\n');
    Some(out)
}

/// Source made parseable on its own: LF line ends, and wrapped in a class when its first
/// code line is indented (so the original indentation, string contents included, is kept).
struct Snippet {
    src: String,
    tree: Tree,
    /// Lines added in front of the given text.
    line_offset: usize,
}

const WRAPPER: &str = "class __classlab_wrapper__:\n";

impl Snippet {
    fn parse(code: &str) -> Option<Snippet> {
        let code = code.replace("\r\n", "\n");
        // ClassEval's per-method solutions strip only the first line's indentation:
        // `@staticmethod\n    def f(x):\n        …` (which Python rejects, and tree-sitter
        // misreads). Give the decorator the indentation of the line after it.
        let mut lines = code.lines().enumerate().filter(|(_, l)| {
            let t = l.trim_start();
            !t.is_empty() && !t.starts_with('#')
        });
        if let (Some((i, first)), Some((_, next))) = (lines.next(), lines.next())
            && first.starts_with('@')
            && next.starts_with([' ', '\t'])
        {
            let indent = &next[..next.len() - next.trim_start().len()];
            let fixed: Vec<String> = code
                .split('\n')
                .enumerate()
                .map(|(j, l)| {
                    if j == i {
                        format!("{indent}{l}")
                    } else {
                        l.to_string()
                    }
                })
                .collect();
            return Snippet::parse_as_is(fixed.join("\n"));
        }
        Snippet::parse_as_is(code)
    }

    fn parse_as_is(code: String) -> Option<Snippet> {
        let first_code = code.lines().find(|l| {
            let t = l.trim_start();
            !t.is_empty() && !t.starts_with('#')
        })?;
        let indented = first_code.starts_with([' ', '\t']);
        let (src, line_offset) = if indented {
            (format!("{WRAPPER}{code}"), 1)
        } else {
            (code, 0)
        };
        let tree = parse_tree(&src)?;
        Some(Snippet {
            src,
            tree,
            line_offset,
        })
    }
}

/// How lines move: strip `from`, rebase the body's first level, prepend `to`.
struct Shift<'a> {
    from: &'a str,
    to: &'a str,
    /// (the body's first-level indentation in the source, the target's step), e.g.
    /// ("        ", "    "). Deeper lines keep their extra indentation, converted from the
    /// source's step to the target's when one is made of tabs and the other of spaces.
    base: Option<(String, String)>,
    newline: &'a str,
}

/// The text of `node` up to byte `end`, every line after the first shifted; the first line is
/// returned without indentation (the caller places it).
fn relines(src: &str, node: Node<'_>, end: usize, shift: &Shift<'_>) -> String {
    let protected = verbatim_strings(node);
    let start = node.start_byte();
    let end = end.clamp(start, src.len());
    let mut lines = Vec::new();
    let mut at = start;
    for line in src[start..end].split('\n') {
        let verbatim = protected.iter().any(|&(s, e)| s < at && at < e);
        lines.push((line, verbatim));
        at += line.len() + 1;
    }
    let split = |line| split_lead(line, shift.from);
    let step = shift.base.as_ref().and_then(|(base, target)| {
        let source_step = lines
            .iter()
            .skip(1)
            .filter(|(l, verbatim)| !verbatim && !l.trim().is_empty())
            .filter_map(|(l, _)| split(l).0.strip_prefix(base.as_str()))
            .filter(|extra| !extra.is_empty())
            .min_by_key(|extra| extra.len())?;
        let mixed = uniform(source_step) && uniform(target) && source_step[..1] != target[..1];
        mixed.then(|| (source_step.to_string(), target.clone()))
    });
    let mut out = String::with_capacity(end - start + 64);
    for (i, (line, verbatim)) in lines.iter().enumerate() {
        if i == 0 {
            out.push_str(line);
            continue;
        }
        out.push_str(shift.newline);
        if *verbatim {
            out.push_str(line);
        } else if !line.trim().is_empty() {
            let (lead, body) = split(line);
            out.push_str(shift.to);
            match &shift.base {
                Some((base, target)) if lead.starts_with(base.as_str()) => {
                    out.push_str(target);
                    out.push_str(&convert_units(&lead[base.len()..], step.as_ref()));
                }
                _ => out.push_str(lead),
            }
            out.push_str(body);
        }
    }
    out
}

/// (indentation after `from`, the rest) of a line.
fn split_lead<'l>(line: &'l str, from: &str) -> (&'l str, &'l str) {
    let rest = strip_indent(line, from);
    rest.split_at(rest.len() - rest.trim_start().len())
}

/// `line` without the indentation `from`; with only part of it, without that part.
fn strip_indent<'l>(line: &'l str, from: &str) -> &'l str {
    if let Some(rest) = line.strip_prefix(from) {
        return rest;
    }
    let common = line
        .bytes()
        .zip(from.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    &line[common..]
}

fn convert_units(lead: &str, units: Option<&(String, String)>) -> String {
    let Some((from, to)) = units else {
        return lead.to_string();
    };
    let mut rest = lead;
    let mut out = String::new();
    while let Some(r) = rest.strip_prefix(from.as_str()) {
        out.push_str(to);
        rest = r;
    }
    out.push_str(rest);
    out
}

fn uniform(unit: &str) -> bool {
    !unit.is_empty() && (unit.bytes().all(|b| b == b' ') || unit.bytes().all(|b| b == b'\t'))
}

/// A function body's indentation relative to its def line.
fn method_unit(func: Node<'_>, src: &str, def_prefix: &str) -> Option<String> {
    let body = func.child_by_field_name("body")?;
    let first = non_comment_children(body).into_iter().next()?;
    if first.start_position().row == func.start_position().row {
        return None;
    }
    line_prefix(src, first.start_byte())
        .strip_prefix(def_prefix)
        .map(str::to_string)
}

/// Byte ranges of multi-line string literals below `node` whose content must stay verbatim
/// (every one but docstrings, whose indentation follows the code by convention).
fn verbatim_strings(node: Node<'_>) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind() == "string" {
            if n.start_position().row != n.end_position().row && !is_docstring(n) {
                out.push((n.start_byte(), n.end_byte()));
            }
            continue;
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    out
}

fn is_docstring(string: Node<'_>) -> bool {
    let mut n = string;
    if let Some(p) = n.parent().filter(|p| p.kind() == "concatenated_string") {
        n = p;
    }
    let Some(stmt) = n.parent().filter(|p| p.kind() == "expression_statement") else {
        return false;
    };
    stmt.parent()
        .filter(|b| matches!(b.kind(), "block" | "module"))
        .and_then(|b| non_comment_children(b).first().copied())
        == Some(stmt)
}

fn is_string_statement(node: Node<'_>) -> bool {
    node.kind() == "expression_statement"
        && node.named_child_count() == 1
        && node
            .named_child(0)
            .is_some_and(|e| matches!(e.kind(), "string" | "concatenated_string"))
}

fn is_import(node: Node<'_>) -> bool {
    matches!(
        node.kind(),
        "import_statement" | "import_from_statement" | "future_import_statement"
    )
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn non_comment_children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|c| c.kind() != "comment")
        .collect()
}

/// The whitespace before byte `at` on its line ("" when something else precedes it).
fn line_prefix(src: &str, at: usize) -> &str {
    let at = at.min(src.len());
    let start = src[..at].rfind('\n').map_or(0, |i| i + 1);
    let prefix = &src[start..at];
    if prefix.trim().is_empty() { prefix } else { "" }
}

/// The end of the line holding byte `at`, before its line break (`\n` or `\r\n`).
fn line_end(src: &str, at: usize) -> usize {
    let at = at.min(src.len());
    let end = src[at..].find('\n').map_or(src.len(), |i| at + i);
    if end > at && src.as_bytes().get(end - 1) == Some(&b'\r') {
        end - 1
    } else {
        end
    }
}

fn first_error_line(root: Node<'_>) -> Option<usize> {
    if !root.has_error() {
        return None;
    }
    let mut stack = vec![root];
    let mut best: Option<usize> = None;
    while let Some(n) = stack.pop() {
        if n.is_error() || n.is_missing() {
            let line = n.start_position().row + 1;
            best = Some(best.map_or(line, |b| b.min(line)));
            continue;
        }
        let mut cursor = n.walk();
        stack.extend(
            n.children(&mut cursor)
                .filter(|c| c.has_error() || c.is_missing()),
        );
    }
    best
}

fn name_of(func: Node<'_>, src: &[u8]) -> String {
    func.child_by_field_name("name")
        .map(|n| text(n, src).to_string())
        .unwrap_or_default()
}

fn decorators_of(outer: Node<'_>, src: &[u8]) -> Vec<String> {
    if outer.kind() != "decorated_definition" {
        return Vec::new();
    }
    let mut cursor = outer.walk();
    outer
        .named_children(&mut cursor)
        .filter(|n| n.kind() == "decorator")
        .map(|d| collapse(text(d, src)))
        .collect()
}

/// The function inside a statement (`def` or decorated `def`).
fn definition_of(stmt: Node<'_>) -> Option<Node<'_>> {
    match stmt.kind() {
        "function_definition" => Some(stmt),
        "decorated_definition" => stmt
            .child_by_field_name("definition")
            .filter(|d| d.kind() == "function_definition"),
        _ => None,
    }
}

/// The first function (named `name`, when given) in source order, not looking inside other
/// functions: (the function, the node including its decorators).
fn find_function<'t>(
    root: Node<'t>,
    src: &str,
    name: Option<&str>,
) -> Option<(Node<'t>, Node<'t>)> {
    let bytes = src.as_bytes();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.kind() == "function_definition" {
            if name.is_none_or(|want| name_of(n, bytes) == want) {
                let outer = n
                    .parent()
                    .filter(|p| p.kind() == "decorated_definition")
                    .unwrap_or(n);
                return Some((n, outer));
            }
            continue;
        }
        let mut cursor = n.walk();
        let children: Vec<Node<'t>> = n.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    None
}

/// The class named `name`, outermost first (then in source order).
fn find_class<'t>(root: Node<'t>, src: &[u8], name: &str) -> Option<Node<'t>> {
    let mut best: Option<(usize, Node<'t>)> = None;
    let mut stack = vec![(root, 0usize)];
    while let Some((n, depth)) = stack.pop() {
        let mut child_depth = depth;
        if n.kind() == "class_definition" {
            let matches = n
                .child_by_field_name("name")
                .is_some_and(|id| text(id, src) == name);
            if matches && best.is_none_or(|(d, b)| (depth, n.start_byte()) < (d, b.start_byte())) {
                best = Some((depth, n));
            }
            child_depth += 1;
        } else if n.kind() == "function_definition" {
            child_depth += 1;
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor).map(|c| (c, child_depth)));
    }
    best.map(|(_, n)| n)
}

/// The statement of class body `body` defining method `name`. With several (a property's
/// getter and setter), the one with the same decorators, else the same setter/deleter role.
fn pick_existing<'t>(
    body: Node<'t>,
    src: &[u8],
    name: &str,
    decorators: &[String],
) -> Option<Node<'t>> {
    let candidates: Vec<Node<'t>> = non_comment_children(body)
        .into_iter()
        .filter(|s| definition_of(*s).is_some_and(|f| name_of(f, src) == name))
        .collect();
    if candidates.len() <= 1 {
        return candidates.first().copied();
    }
    let role = |decs: &[String]| {
        decs.iter()
            .find_map(|d| [".setter", ".deleter"].into_iter().find(|r| d.ends_with(r)))
    };
    let want = role(decorators);
    candidates
        .iter()
        .find(|c| decorators_of(**c, src) == decorators)
        .or_else(|| {
            candidates
                .iter()
                .find(|c| role(&decorators_of(**c, src)) == want)
        })
        .or(candidates.first())
        .copied()
}

/// A method found by indentation alone, for code tree-sitter cannot make sense of: the `def`
/// line with the decorator lines right above it, up to the next line indented no deeper.
fn method_by_indentation(src: &str, method: &str) -> Option<String> {
    let lines: Vec<&str> = src.split('\n').collect();
    let is_def = |l: &str| {
        let t = l.trim_start();
        let t = t.strip_prefix("async").map_or(t, str::trim_start);
        t.strip_prefix("def")
            .filter(|r| r.starts_with([' ', '\t']))
            .map(str::trim_start)
            .and_then(|r| r.strip_prefix(method))
            .is_some_and(|r| r.trim_start().starts_with('('))
    };
    let def = lines.iter().position(|l| is_def(l))?;
    let indent = &lines[def][..lines[def].len() - lines[def].trim_start().len()];
    let mut first = def;
    while first > 0 && lines[first - 1].trim_start().starts_with('@') {
        first -= 1;
    }
    let mut last = def;
    for (i, l) in lines.iter().enumerate().skip(def + 1) {
        let t = l.trim_start();
        if t.is_empty() {
            continue;
        }
        let deeper = l.len() - t.len() > indent.len();
        if !deeper && !t.starts_with([')', ']', '}']) {
            break;
        }
        last = i;
    }
    let mut out = String::new();
    for l in &lines[first..=last] {
        if !l.trim().is_empty() {
            out.push_str(strip_indent(l, indent));
        }
        out.push('\n');
    }
    Some(out)
}

#[cfg(test)]
#[path = "splice_tests.rs"]
mod tests;
