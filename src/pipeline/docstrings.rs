//! The docstring condition of a run (`classlab run --docstrings full|partial|none`,
//! docs/conditions.md), after RealClassEval's levels: the skeleton the model sees keeps every
//! docstring (`full`), only each docstring's first sentence (`partial`), or none (`none`; a
//! body left empty gets `pass`). Pure: source in, source out.

use std::fmt;
use std::str::FromStr;

use crate::analysis::parse::parse_tree;
use crate::model::Task;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DocstringLevel {
    #[default]
    Full,
    Partial,
    None,
}

impl DocstringLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            DocstringLevel::Full => "full",
            DocstringLevel::Partial => "partial",
            DocstringLevel::None => "none",
        }
    }
}

impl fmt::Display for DocstringLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for DocstringLevel {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "full" => Ok(DocstringLevel::Full),
            "partial" | "first-sentence" => Ok(DocstringLevel::Partial),
            "none" => Ok(DocstringLevel::None),
            other => Err(format!(
                "unknown docstring level `{other}` (full, partial or none)"
            )),
        }
    }
}

/// One docstring: the statement's byte range, the string's, its indentation, and whether it
/// is the only statement of its block.
struct Doc {
    stmt: (usize, usize),
    text: String,
    quote: &'static str,
    alone: bool,
}

fn docstrings(source: &str) -> Vec<Doc> {
    let Some(tree) = parse_tree(source) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            stack.push(child);
        }
        if !matches!(node.kind(), "class_definition" | "function_definition") {
            continue;
        }
        let Some(body) = node.child_by_field_name("body") else {
            continue;
        };
        let Some(first) = body.named_child(0) else {
            continue;
        };
        let string = first
            .named_child(0)
            .filter(|s| first.kind() == "expression_statement" && s.kind() == "string");
        let Some(string) = string else { continue };
        let raw = source
            .get(string.start_byte()..string.end_byte())
            .unwrap_or("");
        let quote = if raw.ends_with("'''") {
            "'''"
        } else {
            "\"\"\""
        };
        out.push(Doc {
            stmt: (first.start_byte(), first.end_byte()),
            text: strip_quotes(raw),
            quote,
            alone: body.named_child_count() == 1,
        });
    }
    out.sort_by_key(|d| d.stmt.0);
    out
}

/// The text of a string literal without prefix and quotes.
fn strip_quotes(raw: &str) -> String {
    let s = raw.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    for q in ["\"\"\"", "'''", "\"", "'"] {
        if let Some(inner) = s.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner.to_string();
        }
    }
    s.to_string()
}

/// The first sentence: up to the first `.`, `?` or `!` followed by white space (or the end),
/// else the first paragraph.
pub fn first_sentence(text: &str) -> String {
    let t = text.trim();
    let para = t.split("\n\n").next().unwrap_or(t);
    let chars: Vec<(usize, char)> = para.char_indices().collect();
    for (k, (i, c)) in chars.iter().enumerate() {
        if matches!(c, '.' | '?' | '!') && chars.get(k + 1).is_none_or(|(_, n)| n.is_whitespace()) {
            return collapse(&para[..i + c.len_utf8()]);
        }
    }
    collapse(para)
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `source` with every class and function docstring at `level`.
pub fn apply(source: &str, level: DocstringLevel) -> String {
    if level == DocstringLevel::Full {
        return source.to_string();
    }
    let mut out = source.to_string();
    // From the end, so earlier byte offsets stay valid.
    for d in docstrings(source).into_iter().rev() {
        let replacement = match level {
            DocstringLevel::Partial => {
                let q = d.quote;
                format!("{q}{}{q}", first_sentence(&d.text).replace(q, ""))
            }
            _ if d.alone => "pass".to_string(),
            _ => String::new(),
        };
        out.replace_range(d.stmt.0..d.stmt.1, &replacement);
    }
    if level == DocstringLevel::None {
        // Lines the removed statements left blank.
        let kept: Vec<&str> = out
            .lines()
            .zip(source.lines().chain(std::iter::repeat("")))
            .filter(|(new, old)| !new.trim().is_empty() || old.trim().is_empty())
            .map(|(new, _)| new)
            .collect();
        out = kept.join("\n") + if source.ends_with('\n') { "\n" } else { "" };
    }
    out
}

/// A task as the model sees it under `level`: skeleton, class description and each method's
/// description rewritten; reference and tests untouched.
pub fn apply_to_task(task: &Task, level: DocstringLevel) -> Task {
    if level == DocstringLevel::Full {
        return task.clone();
    }
    let mut t = task.clone();
    t.skeleton = apply(&task.skeleton, level);
    t.description = match level {
        DocstringLevel::None => String::new(),
        _ => first_sentence(&strip_quotes(task.description.trim())),
    };
    for m in &mut t.methods {
        // Method descriptions are indented class members: parse them inside a class.
        let wrapped = format!("class _W:\n{}", m.description);
        let done = apply(&wrapped, level);
        if let Some(rest) = done.strip_prefix("class _W:\n") {
            m.description = rest.to_string();
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "class Shop:\n    \"\"\"A shop. It sells things.\n\n    More.\n    \"\"\"\n\n    def add(self, item):\n        \"\"\"Add an item to the cart. Returns nothing.\"\"\"\n\n    def total(self):\n        '''Sum it up!\n        Details.'''\n        return 0\n";

    #[test]
    fn levels() {
        assert_eq!(apply(SRC, DocstringLevel::Full), SRC);
        let partial = apply(SRC, DocstringLevel::Partial);
        assert!(partial.contains("\"\"\"A shop.\"\"\""), "{partial}");
        assert!(partial.contains("\"\"\"Add an item to the cart.\"\"\""));
        assert!(partial.contains("'''Sum it up!'''"));
        assert!(!partial.contains("Returns nothing"));
        let none = apply(SRC, DocstringLevel::None);
        assert!(!none.contains("\"\"\"") && !none.contains("'''"), "{none}");
        assert!(
            none.contains("def add(self, item):\n        pass"),
            "{none}"
        );
        assert!(none.contains("return 0"));
        assert!(crate::analysis::parse_module(&none).parses(), "{none}");
        assert!(crate::analysis::parse_module(&partial).parses());
    }

    #[test]
    fn parse_levels_and_sentences() {
        assert_eq!("Partial".parse(), Ok(DocstringLevel::Partial));
        assert!("some".parse::<DocstringLevel>().is_err());
        assert_eq!(
            first_sentence("Compute v.1.2 things. More"),
            "Compute v.1.2 things."
        );
        assert_eq!(first_sentence("  No stop\n here\n\nNext"), "No stop here");
    }

    #[test]
    fn tasks_of_the_sample() {
        let ds = crate::dataset::sample();
        for t in &ds.tasks {
            let none = apply_to_task(t, DocstringLevel::None);
            assert!(
                crate::analysis::parse_module(&none.skeleton).parses(),
                "{}",
                none.skeleton
            );
            assert_eq!(none.solution, t.solution);
            assert_eq!(none.methods.len(), t.methods.len());
        }
    }
}
