//! The module that runs: the one place that turns code written for a task (a model's reply
//! after extraction, a generated class, the reference under validation) into the source the
//! suite executes. `eval`, `run` (every strategy) and `validate` all go through
//! [`runnable`] (from `eval::suite_for`), so the same class can never get one verdict in one
//! pipeline and another in the next.
//!
//! What it does, for a task whose tests run in the same module as the code (ClassEval's
//! layout): the task's `import_statement` lines the code lacks are added after its own
//! imports — ClassEval's harness prepends them; code that already starts with them (ClassEval
//! extraction) is unchanged — and `from __future__` imports are moved to the top (after a
//! module docstring), where Python requires them: prepending imports before a class whose
//! module starts `from __future__ import annotations` would otherwise make every class of
//! such a module a `SyntaxError`. The module context the skeleton shows around the class
//! (a mined class's constants, helpers and sibling classes) is added the same way when the code
//! lacks it (`splice::merge_context`): a class written against `UNIT = 1.0` in its skeleton is
//! judged with it. For a task whose tests import the code as a module
//! (RealClassEval), the code is written as the benchmark's harness writes it; only a
//! misplaced `from __future__` line is moved.

use crate::analysis::parse::parse_tree;
use crate::analysis::splice::{merge_context, merge_imports};
use crate::model::{Task, TestLayout};

/// The source the suite runs for `code` written for `task`.
pub fn runnable(task: &Task, code: &str) -> String {
    let merged = match task.test_layout {
        TestLayout::Concatenated => {
            let imported = if task.imports.is_empty() {
                code.to_string()
            } else {
                merge_imports(code, &task.imports)
            };
            merge_context(&imported, &task.skeleton, &task.class_name)
        }
        _ => code.to_string(),
    };
    futures_first(&merged)
}

/// `source` with every top-level `from __future__ import …` statement moved before the first
/// other statement (a leading docstring stays first); unchanged when they are already there.
pub fn futures_first(source: &str) -> String {
    if !source.contains("__future__") {
        return source.to_string();
    }
    let Some(tree) = parse_tree(source) else {
        return source.to_string();
    };
    let root = tree.root_node();
    let mut cursor = root.walk();
    let statements: Vec<_> = root
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect();
    let is_future = |n: &tree_sitter::Node<'_>| n.kind() == "future_import_statement";
    let docstring = statements.first().is_some_and(|n| {
        n.kind() == "expression_statement" && n.named_child(0).is_some_and(|c| c.kind() == "string")
    });
    let head = usize::from(docstring);
    // Already where Python wants them: every future import before any other statement.
    let first_other = statements
        .iter()
        .skip(head)
        .position(|n| !is_future(n))
        .map_or(statements.len(), |p| p + head);
    if !statements[first_other..].iter().any(is_future) {
        return source.to_string();
    }
    let futures: Vec<_> = statements.iter().filter(|n| is_future(n)).collect();
    // Whole lines: a future import shares its line with nothing else worth keeping.
    let line_span = |n: &tree_sitter::Node<'_>| {
        let start = source[..n.start_byte()].rfind('\n').map_or(0, |i| i + 1);
        let end = source[n.end_byte()..]
            .find('\n')
            .map_or(source.len(), |i| n.end_byte() + i + 1);
        (start, end)
    };
    let insert_at = if docstring {
        line_span(&statements[0]).1
    } else {
        statements.first().map_or(0, |n| line_span(n).0)
    };
    let mut block = String::new();
    for f in &futures {
        block.push_str(source[f.start_byte()..f.end_byte()].trim());
        block.push('\n');
    }
    let mut out = String::with_capacity(source.len() + 1);
    let mut at = 0;
    let spans: Vec<(usize, usize)> = futures.iter().map(|f| line_span(f)).collect();
    for (start, end) in spans.iter().copied() {
        if at <= insert_at && insert_at <= start {
            out.push_str(&source[at..insert_at]);
            out.push_str(&block);
            at = insert_at;
        }
        out.push_str(&source[at..start]);
        at = end;
    }
    if at <= insert_at {
        out.push_str(&source[at..insert_at]);
        out.push_str(&block);
        at = insert_at;
    }
    out.push_str(&source[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(imports: &[&str]) -> Task {
        Task {
            id: "T".into(),
            imports: imports.iter().map(|s| s.to_string()).collect(),
            ..Task::default()
        }
    }

    /// A corpus-forged task (a class mined with the module-level names it needs): a model
    /// answering with the class alone is judged with the constant its skeleton showed, after
    /// the imports; a ClassEval-style layout with tests as a separate module is left alone.
    #[test]
    fn a_class_alone_runs_with_the_module_context_its_skeleton_showed() {
        let mut t = task(&["import math"]);
        t.class_name = "Rect".into();
        t.skeleton =
            "import math\n\n\nUNIT = 1.0\n\n\nclass Rect:\n    def area(self):\n        pass\n"
                .into();
        let answer = "class Rect:\n    def area(self):\n        return math.pi * UNIT\n";
        assert_eq!(
            runnable(&t, answer),
            format!("import math\n\nUNIT = 1.0\n\n\n{answer}")
        );
        t.test_layout = TestLayout::Module {
            code_module: "snippet_1".into(),
            test_file: "test_snippet_1.py".into(),
        };
        assert_eq!(runnable(&t, answer), answer);
    }

    #[test]
    fn future_imports_go_first_and_valid_modules_are_unchanged() {
        let ok =
            "\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\nimport os\n\nclass A: pass\n";
        assert_eq!(futures_first(ok), ok);
        assert_eq!(futures_first("import os\n"), "import os\n");
        let prepended =
            "import typing\nfrom __future__ import annotations\n\nclass A:\n    x: int\n";
        assert_eq!(
            futures_first(prepended),
            "from __future__ import annotations\nimport typing\n\nclass A:\n    x: int\n"
        );
        let doc = "\"\"\"Doc.\"\"\"\nimport a\nfrom __future__ import (annotations,\n    division)\nx = 1\n";
        assert_eq!(
            futures_first(doc),
            "\"\"\"Doc.\"\"\"\nfrom __future__ import (annotations,\n    division)\nimport a\nx = 1\n"
        );
    }

    /// docx/opc/package.py's `Unmarshaller`: the task's imports and the code's own
    /// `from __future__` line; every pipeline runs a module that compiles.
    #[test]
    fn the_tasks_imports_never_land_before_a_future_import() {
        let t = task(&["from typing import IO", "import os"]);
        let code =
            "from __future__ import annotations\n\nimport os\n\nclass Unmarshaller:\n    pass\n";
        let out = runnable(&t, code);
        assert!(
            out.starts_with("from __future__ import annotations\n"),
            "{out}"
        );
        assert!(out.contains("from typing import IO"), "{out}");
        assert_eq!(out.matches("import os").count(), 1, "{out}");
        // ClassEval's harness prepends the imports: the result is what runs.
        let prepended = format!("{}\n{code}", t.imports.join("\n"));
        let out2 = runnable(&t, &prepended);
        assert!(
            out2.starts_with("from __future__ import annotations\n"),
            "{out2}"
        );
        // ClassEval code (imports already in front) runs as ClassEval runs it.
        let classeval = "import os\nimport sys\nclass A:\n    pass\n";
        assert_eq!(
            runnable(&task(&["import os", "import sys"]), classeval),
            classeval
        );
    }
}
