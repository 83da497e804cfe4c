//! Skeletons: a class with its method bodies removed, signatures and docstrings kept.
//!
//! `__init__` is kept whole, as benchmark skeletons give it implemented.

use super::parse::{Class, Module};

/// The skeleton of `class` in `source` (which `module` was parsed from): module imports, the
/// class header and docstring, `__init__` whole, every other method as decorators + signature +
/// docstring (or `pass` when it has none). Nested classes are left out.
pub fn skeleton_of(source: &str, module: &Module, class: &Class) -> String {
    let mut out = String::new();
    for import in &module.imports {
        out.push_str(import);
        out.push('\n');
    }
    if !module.imports.is_empty() {
        out.push('\n');
    }
    let header = line_at(source, class.header_byte);
    let class_indent = indent_of(header);
    out.push_str(header.trim_end());
    out.push('\n');
    let body_indent = format!("{class_indent}    ");
    if let Some(doc) = &class.docstring {
        push_docstring(&mut out, &body_indent, doc);
        out.push('\n');
    }
    for method in &class.methods {
        let def_text = source.get(method.start_byte..method.end_byte).unwrap_or("");
        if method.name == "__init__" {
            out.push_str(&body_indent);
            out.push_str(def_text.trim_end());
            out.push_str("\n\n");
            continue;
        }
        // Everything up to the body (decorators + signature), then the docstring.
        let head = source
            .get(method.start_byte..method.body_start_byte)
            .unwrap_or("")
            .trim_end();
        out.push_str(&body_indent);
        out.push_str(head);
        out.push('\n');
        let inner = format!("{body_indent}    ");
        match method.docstring_bytes.and_then(|(s, e)| source.get(s..e)) {
            Some(doc) => {
                out.push_str(&inner);
                out.push_str(doc.trim_end());
                out.push('\n');
            }
            None => {
                out.push_str(&inner);
                out.push_str("pass\n");
            }
        }
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// The whole line holding byte `at` (without its newline).
fn line_at(source: &str, at: usize) -> &str {
    let at = at.min(source.len());
    let start = source[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = source[at..].find('\n').map_or(source.len(), |i| at + i);
    source.get(start..end).unwrap_or("")
}

fn indent_of(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

fn push_docstring(out: &mut String, indent: &str, doc: &str) {
    out.push_str(indent);
    out.push_str("\"\"\"");
    out.push_str(&doc.replace("\"\"\"", "\\\"\\\"\\\""));
    out.push_str("\"\"\"\n");
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse_module;
    use super::*;

    #[test]
    fn removes_bodies_keeps_docstrings_and_init() {
        let src = "import os\n\nclass A:\n    \"\"\"Doc.\"\"\"\n    def __init__(self):\n        self.x = 1\n\n    @staticmethod\n    def f(a):\n        \"\"\"F doc.\"\"\"\n        return a + 1\n\n    def g(self):\n        return self.f(2)\n";
        let m = parse_module(src);
        let sk = skeleton_of(src, &m, m.class("A").unwrap());
        let want = "import os\n\nclass A:\n    \"\"\"Doc.\"\"\"\n\n    def __init__(self):\n        self.x = 1\n\n    @staticmethod\n    def f(a):\n        \"\"\"F doc.\"\"\"\n\n    def g(self):\n        pass\n";
        assert_eq!(sk, want);
        // The skeleton parses and keeps the method set.
        let again = parse_module(&sk);
        assert!(again.parses());
        assert_eq!(
            again.class("A").unwrap().method_names(),
            ["__init__", "f", "g"]
        );
    }
}
