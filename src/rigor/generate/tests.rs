//! Each operator on a small fixture: exactly the mutants docs/rigor.md promises.

use super::*;

const SRC: &str = r#"import os

class Box:
    """A box."""

    SIZE = 3

    def __init__(self, items=None, strict=False, name="box"):
        """Make it."""
        self.items = items or []
        self.count: int = 0

    def add(self, x):
        if x in self.items and not self.strict:
            return False
        self.items.append(x)
        self.count += 1
        return True

    def get(self, i):
        try:
            return self.items[i]
        except IndexError:
            return None

    def total(self, k):
        s = 0
        for v in self.items:
            if v < 0:
                continue
            if v >= k:
                break
            s = s + v * 2
        return s

    def sign(self):
        return -self.count

    def names(self):
        return [str(v) for v in self.items]

    def check(self):
        assert self.count <= self.SIZE
        del self.items[0]
        raise ValueError("bad")

    def again(self, x):
        return self.add(x)

    def other(self, y):
        return f"{y}"
"#;

/// (line before, line after) of every mutant of `op`, whitespace-trimmed.
fn changes(op: Operator) -> Vec<(String, String)> {
    let ms = mutants(SRC, "Box").unwrap();
    ms.iter()
        .filter(|m| m.op == op)
        .map(|m| {
            let line = m.line(SRC);
            let after = m.apply(SRC).unwrap();
            let before_line = SRC.lines().nth(line - 1).unwrap().trim().to_string();
            let after_line = after.lines().nth(line - 1).unwrap().trim().to_string();
            (before_line, after_line)
        })
        .collect()
}

fn has(op: Operator, before: &str, after: &str) {
    let c = changes(op);
    assert!(
        c.iter().any(|(b, a)| b == before && a == after),
        "{op}: no {before:?} → {after:?} in {c:#?}"
    );
}

#[test]
fn statement_deletion() {
    has(Operator::StatementDeletion, "self.items.append(x)", "pass");
    has(Operator::StatementDeletion, "self.count += 1", "pass");
    has(
        Operator::StatementDeletion,
        "assert self.count <= self.SIZE",
        "pass",
    );
    has(Operator::StatementDeletion, "del self.items[0]", "pass");
    has(
        Operator::StatementDeletion,
        "raise ValueError(\"bad\")",
        "pass",
    );
    has(Operator::StatementDeletion, "SIZE = 3", "pass");
    let c = changes(Operator::StatementDeletion);
    assert!(
        !c.iter()
            .any(|(b, _)| b.starts_with("\"\"\"") || b == "self.items = items or []"),
        "no docstrings; __init__'s attribute initialisations are init_removal: {c:#?}"
    );
}

#[test]
fn return_value() {
    has(Operator::ReturnValue, "return False", "return True");
    has(Operator::ReturnValue, "return s", "return None");
    has(
        Operator::ReturnValue,
        "return [str(v) for v in self.items]",
        "return []",
    );
    has(
        Operator::ReturnValue,
        "return [str(v) for v in self.items]",
        "return None",
    );
    assert!(
        !changes(Operator::Constant)
            .iter()
            .any(|(b, _)| b == "return False")
    );
}

#[test]
fn constant() {
    has(Operator::Constant, "SIZE = 3", "SIZE = 4");
    has(Operator::Constant, "s = 0", "s = 1");
    has(
        Operator::Constant,
        "raise ValueError(\"bad\")",
        "raise ValueError(\"XXbadXX\")",
    );
    has(Operator::Constant, "s = s + v * 2", "s = s + v * 3");
    let c = changes(Operator::Constant);
    assert!(
        !c.iter().any(|(b, _)| b.contains("f\"")),
        "f-strings are left alone: {c:#?}"
    );
}

#[test]
fn arithmetic() {
    has(Operator::Arithmetic, "s = s + v * 2", "s = s - v * 2");
    has(Operator::Arithmetic, "s = s + v * 2", "s = s + v / 2");
    has(Operator::Arithmetic, "self.count += 1", "self.count -= 1");
}

#[test]
fn comparison_and_boundary() {
    has(Operator::Comparison, "if v < 0:", "if v > 0:");
    has(Operator::Comparison, "if v >= k:", "if v <= k:");
    has(
        Operator::Comparison,
        "if x in self.items and not self.strict:",
        "if x not in self.items and not self.strict:",
    );
    has(Operator::Boundary, "if v < 0:", "if v <= 0:");
    has(Operator::Boundary, "if v >= k:", "if v > k:");
    has(
        Operator::Boundary,
        "assert self.count <= self.SIZE",
        "assert self.count < self.SIZE",
    );
    assert!(
        !changes(Operator::Boundary)
            .iter()
            .any(|(b, _)| b.contains(" in "))
    );
}

#[test]
fn boolean_unary_negation() {
    has(
        Operator::Boolean,
        "if x in self.items and not self.strict:",
        "if x in self.items or not self.strict:",
    );
    has(
        Operator::Unary,
        "if x in self.items and not self.strict:",
        "if x in self.items and self.strict:",
    );
    has(Operator::Unary, "return -self.count", "return self.count");
    has(Operator::Negation, "if v < 0:", "if not (v < 0):");
    has(
        Operator::Negation,
        "if x in self.items and not self.strict:",
        "if not (x in self.items and not self.strict):",
    );
}

#[test]
fn a_membership_or_identity_test_is_negated_once() {
    // `not (x in s)` compiles to `x not in s`: the comparison operator's mutant, not twice.
    let code = "class S:\n    def has(self, x, s):\n        if x in s:\n            return 1\n        if x is None:\n            return 2\n        return 3\n";
    let all = mutants(code, "S").unwrap();
    let texts: Vec<String> = all.iter().map(|m| m.apply(code).unwrap()).collect();
    assert!(texts.iter().any(|t| t.contains("if x not in s:")));
    assert!(texts.iter().any(|t| t.contains("if x is not None:")));
    assert!(!texts.iter().any(|t| t.contains("not (x")), "{texts:#?}");
}

#[test]
fn break_continue_and_handlers() {
    has(Operator::BreakContinue, "continue", "break");
    has(Operator::BreakContinue, "break", "continue");
    has(Operator::ExceptionHandler, "return None", "raise");
}

#[test]
fn class_level_operators() {
    // Attributes in order of first assignment: items, count.
    has(
        Operator::SelfAttribute,
        "self.count += 1",
        "self.items += 1",
    );
    has(
        Operator::SelfAttribute,
        "self.items = items or []",
        "self.count = items or []",
    );
    has(
        Operator::SiblingCall,
        "return self.add(x)",
        "return self.get(x)",
    );
    has(Operator::InitRemoval, "self.items = items or []", "pass");
    has(Operator::InitRemoval, "self.count: int = 0", "pass");
    has(
        Operator::DefaultArgument,
        r#"def __init__(self, items=None, strict=False, name="box"):"#,
        r#"def __init__(self, items=0, strict=False, name="box"):"#,
    );
    has(
        Operator::DefaultArgument,
        r#"def __init__(self, items=None, strict=False, name="box"):"#,
        r#"def __init__(self, items=None, strict=True, name="box"):"#,
    );
    has(
        Operator::DefaultArgument,
        r#"def __init__(self, items=None, strict=False, name="box"):"#,
        r#"def __init__(self, items=None, strict=False, name="XXboxXX"):"#,
    );
}

#[test]
fn header_mutants_point_at_the_body_and_nothing_leaves_the_class() {
    let ms = mutants(SRC, "Box").unwrap();
    let class_start = SRC.find("class Box").unwrap();
    assert!(
        ms.iter().all(|m| m.start >= class_start),
        "`import os` is not the class's"
    );
    let d = ms
        .iter()
        .find(|m| m.op == Operator::DefaultArgument)
        .unwrap();
    let (body_first, _) = d.scope.expect("a default's tests are the body's");
    assert_eq!(
        SRC.lines().nth(body_first - 1).unwrap().trim(),
        "\"\"\"Make it.\"\"\""
    );
    // Sorted, distinct, and each changes the text.
    assert!(
        ms.windows(2)
            .all(|w| (w[0].start, w[0].end) <= (w[1].start, w[1].end))
    );
    assert!(ms.iter().all(|m| m.apply(SRC).unwrap() != SRC));
}

#[test]
fn bad_input_is_a_clear_error() {
    assert_eq!(mutants("class A(:\n", "A"), Err(GenerateError::Syntax));
    assert_eq!(
        mutants("class A:\n    pass\n", "B"),
        Err(GenerateError::NoClass("B".into()))
    );
    assert_eq!(mutants("class A:\n    pass\n", "A"), Ok(Vec::new()));
}
