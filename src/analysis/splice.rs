//! Splicing one method into a class, and pulling one method out of a model reply.
//!
//! Pure and tree-sitter based. Splicing keeps every byte of the module outside the replaced
//! method; the method is re-indented to the class body. Lines that start inside a multi-line
//! string literal (other than a docstring) are never re-indented: their leading whitespace
//! is part of the string's value.

mod context;
mod indent;
mod nodes;

use tree_sitter::{Node, Tree};

use super::parse::{parse_module, parse_tree, text};
use crate::model::Task;
pub use context::merge_context;
use indent::{Shift, method_by_indentation, method_unit, relines};
use nodes::{
    collapse, decorators_of, definition_of, find_class, find_function, first_error_line, is_import,
    is_string_statement, line_end, line_prefix, name_of, non_comment_children, pick_existing,
};

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

#[cfg(test)]
mod tests;
