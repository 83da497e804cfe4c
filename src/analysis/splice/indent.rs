//! Re-indentation of a definition's lines, and finding a method by indentation alone.

use tree_sitter::Node;

use super::nodes::{line_prefix, non_comment_children};

/// How lines move: strip `from`, rebase the body's first level, prepend `to`.
pub(super) struct Shift<'a> {
    pub(super) from: &'a str,
    pub(super) to: &'a str,
    /// (the body's first-level indentation in the source, the target's step), e.g.
    /// ("        ", "    "). Deeper lines keep their extra indentation, converted from the
    /// source's step to the target's when one is made of tabs and the other of spaces.
    pub(super) base: Option<(String, String)>,
    pub(super) newline: &'a str,
}

/// The text of `node` up to byte `end`, every line after the first shifted; the first line is
/// returned without indentation (the caller places it).
pub(super) fn relines(src: &str, node: Node<'_>, end: usize, shift: &Shift<'_>) -> String {
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
pub(super) fn split_lead<'l>(line: &'l str, from: &str) -> (&'l str, &'l str) {
    let rest = strip_indent(line, from);
    rest.split_at(rest.len() - rest.trim_start().len())
}

/// `line` without the indentation `from`; with only part of it, without that part.
pub(super) fn strip_indent<'l>(line: &'l str, from: &str) -> &'l str {
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

pub(super) fn convert_units(lead: &str, units: Option<&(String, String)>) -> String {
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

pub(super) fn uniform(unit: &str) -> bool {
    !unit.is_empty() && (unit.bytes().all(|b| b == b' ') || unit.bytes().all(|b| b == b'\t'))
}

/// A function body's indentation relative to its def line.
pub(super) fn method_unit(func: Node<'_>, src: &str, def_prefix: &str) -> Option<String> {
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
pub(super) fn verbatim_strings(node: Node<'_>) -> Vec<(usize, usize)> {
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

pub(super) fn is_docstring(string: Node<'_>) -> bool {
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

/// A method found by indentation alone, for code tree-sitter cannot make sense of: the `def`
/// line with the decorator lines right above it, up to the next line indented no deeper.
pub(super) fn method_by_indentation(src: &str, method: &str) -> Option<String> {
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
