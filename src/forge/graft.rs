//! A skeleton that does not parse (ClassEval_22's unterminated docstring, ClassEval_46's curly
//! quotes) still documents its methods: each method's docstring is cut out of the skeleton's
//! text and grafted onto the reference's method of the same name, so the plan keeps the
//! documented types, examples and exceptions instead of falling back to bare signatures.

use rustpython_ruff_python_ast::Stmt;
use rustpython_ruff_python_parser::parse_module;
use rustpython_ruff_text_size::Ranged;

/// The reference with every method of `class_name` led by the docstring the skeleton's text
/// gives it (none when the reference does not parse or no docstring is found).
pub fn graft_docstrings(skeleton: &str, reference: &str, class_name: &str) -> Option<String> {
    let parsed = parse_module(reference).ok()?;
    let class = parsed.syntax().body.iter().find_map(|s| match s {
        Stmt::ClassDef(c) if c.name.as_str() == class_name => Some(c),
        _ => None,
    })?;
    let mut inserts: Vec<(usize, String)> = Vec::new();
    for stmt in &class.body {
        let Stmt::FunctionDef(f) = stmt else { continue };
        let (Some(first), Some(doc)) = (f.body.first(), docstring_in(skeleton, f.name.as_str()))
        else {
            continue;
        };
        let at = usize::from(first.start());
        let line_start = reference[..at].rfind('\n').map_or(0, |i| i + 1);
        let indent = &reference[line_start..at];
        if !indent.chars().all(char::is_whitespace) {
            continue; // `def f(self): return 1`: no line of its own to lead
        }
        let escaped = doc.replace('\\', "\\\\").replace('"', "\\\"");
        inserts.push((line_start, format!("{indent}\"\"\"{escaped}\"\"\"\n")));
    }
    if inserts.is_empty() {
        return None;
    }
    let mut out = reference.to_string();
    for (at, text) in inserts.into_iter().rev() {
        out.insert_str(at, &text);
    }
    Some(out)
}

/// The text of the first triple-quoted string after `def name(` in `skeleton`, up to its
/// closing quotes or the next `def`/`class` line (an unterminated docstring ends there).
fn docstring_in(skeleton: &str, name: &str) -> Option<String> {
    let lines: Vec<&str> = skeleton.lines().collect();
    let is_def = |l: &str, n: &str| {
        l.trim_start().strip_prefix("def ").is_some_and(|r| {
            r.trim_start()
                .strip_prefix(n)
                .is_some_and(|r| r.trim_start().starts_with('('))
        })
    };
    let start = lines.iter().position(|l| is_def(l, name))?;
    let end = lines[start + 1..]
        .iter()
        .position(|l| {
            let t = l.trim_start();
            t.starts_with("def ") || t.starts_with("class ") || t.starts_with('@')
        })
        .map_or(lines.len(), |k| start + 1 + k);
    let segment = lines[start..end].join("\n");
    let (open, quote) = ["\"\"\"", "'''"]
        .iter()
        .filter_map(|q| segment.find(q).map(|i| (i, *q)))
        .min()?;
    let body = &segment[open + 3..];
    let doc = body.find(quote).map_or(body, |close| &body[..close]);
    Some(doc.trim_end().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unterminated_docstring_is_grafted_onto_the_reference() {
        let skeleton = "class R:\n    def add(self, name):\n        \"\"\"\n        :param name: str\n        >>> r.add(\"a\\\\b\")\n\n    def size(self):\n        \"\"\"The size.\"\"\"\n";
        let reference = "class R:\n    def add(self, name):\n        self.n = name\n\n    def size(self): return 1\n\n    def other(self):\n        pass\n";
        let grafted = graft_docstrings(skeleton, reference, "R").unwrap();
        assert!(parse_module(&grafted).is_ok(), "{grafted}");
        assert!(
            grafted.contains("        \"\"\"\n        :param name: str\n        >>> r.add(\\\"a\\\\\\\\b\\\")\"\"\"\n        self.n = name"),
            "{grafted}"
        );
        // one-line bodies and methods the skeleton lacks are left as they are
        assert!(grafted.contains("def size(self): return 1\n"));
        assert!(grafted.contains("def other(self):\n        pass"));
        assert_eq!(graft_docstrings("x", reference, "Missing"), None);
    }
}
