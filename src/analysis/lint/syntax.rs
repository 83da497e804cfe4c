//! Small tree-sitter helpers the rules share: iterative walks (deep code must not overflow the
//! stack), node text that never panics, calls with their receivers and arguments.

use tree_sitter::Node;

/// The source text of a node ("" when the range is not on a char boundary).
pub(crate) fn text<'s>(node: Node<'_>, src: &'s str) -> &'s str {
    src.get(node.byte_range()).unwrap_or("")
}

/// 1-based line of a node's start.
pub(crate) fn line(node: Node<'_>) -> usize {
    node.start_position().row + 1
}

/// 1-based line of a byte offset.
pub(crate) fn line_of_byte(src: &str, byte: usize) -> usize {
    let end = byte.min(src.len());
    src.as_bytes()[..end]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// Visit `root` and its descendants in source order; `f` returns false to skip a subtree.
pub(crate) fn walk<'t>(root: Node<'t>, mut f: impl FnMut(Node<'t>) -> bool) {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if !f(node) {
            continue;
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
}

/// Every descendant of `root` (itself included) of one of these kinds, in source order.
pub(crate) fn find_all<'t>(root: Node<'t>, kinds: &[&str]) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    walk(root, |n| {
        if kinds.contains(&n.kind()) {
            out.push(n);
        }
        true
    });
    out
}

/// The node spanning exactly `start..end`, or the smallest one that covers it.
pub(crate) fn node_at<'t>(root: Node<'t>, start: usize, end: usize) -> Option<Node<'t>> {
    root.descendant_for_byte_range(start, end.saturating_sub(1).max(start))
        .map(|mut n| {
            while n.end_byte() < end
                && let Some(p) = n.parent()
            {
                n = p;
            }
            n
        })
}

/// One call expression.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    /// The receiver as written (`self.book`, `GradeBook`), `None` for a bare call `f(…)`.
    pub receiver: Option<String>,
    pub name: String,
    pub line: usize,
    pub positional: usize,
    /// Positional arguments as written.
    pub args: Vec<String>,
    /// Keyword arguments: (name, value as written).
    pub keywords: Vec<(String, String)>,
    /// `*args` or `**kw` at the call site: the argument count is unknown.
    pub splat: bool,
}

/// Calls below `root` (nested ones too), in source order.
pub(crate) fn calls(root: Node<'_>, src: &str) -> Vec<Call> {
    find_all(root, &["call"])
        .into_iter()
        .filter_map(|c| {
            let func = c.child_by_field_name("function")?;
            let (receiver, name) = match func.kind() {
                "identifier" => (None, text(func, src).to_string()),
                "attribute" => (
                    Some(text(func.child_by_field_name("object")?, src).to_string()),
                    text(func.child_by_field_name("attribute")?, src).to_string(),
                ),
                _ => return None,
            };
            let mut args = Vec::new();
            let mut keywords = Vec::new();
            let mut splat = false;
            if let Some(list) = c.child_by_field_name("arguments")
                && list.kind() == "argument_list"
            {
                let mut cursor = list.walk();
                for a in list.named_children(&mut cursor) {
                    match a.kind() {
                        "keyword_argument" => keywords.push((
                            a.child_by_field_name("name")
                                .map_or("", |n| text(n, src))
                                .to_string(),
                            a.child_by_field_name("value")
                                .map_or("", |n| text(n, src))
                                .to_string(),
                        )),
                        "list_splat" | "dictionary_splat" => splat = true,
                        "comment" => {}
                        _ => args.push(text(a, src).to_string()),
                    }
                }
            }
            Some(Call {
                receiver,
                name,
                line: line(c),
                positional: args.len(),
                args,
                keywords,
                splat,
            })
        })
        .collect()
}

/// The leaf tokens of a subtree as (kind, text), comments left out: the shape of code
/// regardless of layout.
pub(crate) fn tokens<'t, 's>(root: Node<'t>, src: &'s str) -> Vec<(&'t str, &'s str)> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "comment" {
            continue;
        }
        // Strings are one token: their inner parts are not code.
        if node.child_count() == 0 || node.kind() == "string" {
            out.push((node.kind(), text(node, src)));
            continue;
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    out
}

/// Names bound by an import statement: (bound name, the dotted name it imports).
pub(crate) fn import_bindings<'t>(stmt: Node<'t>, src: &str) -> Vec<(String, Node<'t>)> {
    let mut out = Vec::new();
    let mut cursor = stmt.walk();
    let from = stmt.kind() == "import_from_statement";
    let module = stmt.child_by_field_name("module_name").map(|n| n.id());
    for child in stmt.named_children(&mut cursor) {
        if Some(child.id()) == module {
            continue;
        }
        match child.kind() {
            "dotted_name" => {
                let t = text(child, src);
                // `import a.b` binds `a`; `from m import a` binds `a`.
                let bound = if from {
                    t
                } else {
                    t.split('.').next().unwrap_or(t)
                };
                out.push((bound.trim().to_string(), child));
            }
            "aliased_import" => {
                if let Some(alias) = child.child_by_field_name("alias") {
                    out.push((text(alias, src).to_string(), child));
                }
            }
            _ => {}
        }
    }
    out
}

/// Edit distance with adjacent transpositions (optimal string alignment), on chars.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// A method name as test class names spell it: `add_grade` → `addgrade`, `__normalize` →
/// `normalize` (lower case, underscores dropped, so `Text2Int` matches `text2int`).
pub(crate) fn squash(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod unit {
    use super::*;
    use crate::analysis::parse::parse_tree;

    #[test]
    fn calls_with_receivers_and_arguments() {
        let src = "x = a.b(1, 2, k=3)\nf(*xs)\nself.c.d()\n";
        let tree = parse_tree(src).unwrap();
        let cs = calls(tree.root_node(), src);
        let got: Vec<_> = cs
            .iter()
            .map(|c| (c.receiver.clone(), c.name.as_str(), c.positional, c.splat))
            .collect();
        assert_eq!(
            got,
            [
                (Some("a".into()), "b", 2, false),
                (None, "f", 0, true),
                (Some("self.c".into()), "d", 0, false)
            ]
        );
        assert_eq!(cs[0].keywords, [("k".to_string(), "3".to_string())]);
        assert_eq!(cs[0].args, ["1", "2"]);
    }

    #[test]
    fn import_names() {
        let src = "import os.path, json as j\nfrom a.b import c, d as e\nfrom x import *\n";
        let tree = parse_tree(src).unwrap();
        let root = tree.root_node();
        let mut names = Vec::new();
        let mut cursor = root.walk();
        for s in root.named_children(&mut cursor) {
            names.extend(import_bindings(s, src).into_iter().map(|(n, _)| n));
        }
        assert_eq!(names, ["os", "j", "c", "e"]);
    }

    #[test]
    fn distances_and_squash() {
        assert_eq!(edit_distance("average", "avrage"), 1);
        assert_eq!(edit_distance("tset", "test"), 1);
        assert_eq!(edit_distance("", "ab"), 2);
        assert_eq!(squash("__normalize"), "normalize");
        assert_eq!(squash("Text2Int"), "text2int");
        assert_eq!(line_of_byte("a\nb\nc", 2), 2);
        assert_eq!(line_of_byte("a", 99), 1);
    }
}
