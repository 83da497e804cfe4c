//! Constant tables: public fields the reference's `__init__` sets to a non-empty literal
//! container (`self.BMI_std = [{"male": [20, 25]}, …]`). Such a field is a lookup table, how
//! the class stores a constant: a candidate may hold the same facts in another shape (a dict
//! instead of a list of dicts), so a test never asserts a table as the constructor leaves it —
//! only a value some method later gives it, and what the methods return from it.

use rustpython_ruff_python_ast::{Expr, Stmt};
use rustpython_ruff_python_parser::parse_module;

use super::explored::{Assertion, Explored};
use super::plan::is_literal;

/// The constant-table fields of `class_name` in `reference`.
pub fn constant_tables(reference: &str, class_name: &str) -> Vec<String> {
    let Ok(parsed) = parse_module(reference) else {
        return Vec::new();
    };
    let init = parsed.syntax().body.iter().find_map(|s| match s {
        Stmt::ClassDef(c) if c.name.as_str() == class_name => c.body.iter().find_map(|s| match s {
            Stmt::FunctionDef(f) if f.name.as_str() == "__init__" => Some(f),
            _ => None,
        }),
        _ => None,
    });
    let mut out = Vec::new();
    for st in init.map(|f| f.body.as_slice()).unwrap_or_default() {
        if let Stmt::Assign(a) = st
            && let [Expr::Attribute(t)] = a.targets.as_slice()
            && matches!(t.value.as_ref(), Expr::Name(n) if n.id.as_str() == "self")
            && !t.attr.starts_with('_')
            && is_table(&a.value)
        {
            out.push(t.attr.to_string());
        }
    }
    out
}

/// A non-empty container literal of literals.
fn is_table(e: &Expr) -> bool {
    let empty = match e {
        Expr::List(l) => l.elts.is_empty(),
        Expr::Tuple(t) => t.elts.is_empty(),
        Expr::Set(s) => s.elts.is_empty(),
        Expr::Dict(d) => d.items.is_empty(),
        _ => return false,
    };
    !empty && is_literal(e)
}

/// Drop each test's first assertion of a table field per instance: the table as the
/// constructor leaves it. Later ones (a method changed it) stay.
pub fn unassert_tables(tests: &mut [Explored], tables: &[String]) {
    if tables.is_empty() {
        return;
    }
    for t in tests {
        let mut seen = std::collections::BTreeSet::new();
        t.assertions.retain(|a| match a {
            Assertion::Field { inst, field, .. } if tables.contains(field) => {
                !seen.insert((*inst, field.clone()))
            }
            _ => true,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_containers_set_in_init_are_tables() {
        let src = r#"class F:
    def __init__(self, sex):
        self.sex = sex
        self.BMI_std = [{"male": [20, 25]}, {"female": [19, 24]}]
        self.items = {}
        self.board = [[' '] * 3 for _ in range(3)]
        self.units = ('m', 'km')
        self._hidden = [1, 2]
        self.limits = {"a": -1, "b": x}
"#;
        assert_eq!(constant_tables(src, "F"), ["BMI_std", "units"]);
        assert!(constant_tables("class (", "F").is_empty());
    }

    #[test]
    fn only_the_constructors_view_of_a_table_is_dropped() {
        let mut t: Explored = serde_json::from_str(
            r#"{"seq": {"init": [], "calls": [{"method": "grow", "args": []}]}, "trace": [],
                "assertions": [
                  {"kind": "field", "step": 0, "inst": 0, "field": "table", "src": "[1]"},
                  {"kind": "field", "step": 0, "inst": 0, "field": "n", "src": "0"},
                  {"kind": "field", "step": 1, "inst": 0, "field": "table", "src": "[1, 2]"}]}"#,
        )
        .unwrap();
        unassert_tables(std::slice::from_mut(&mut t), &["table".to_string()]);
        let steps: Vec<(usize, &str)> = t
            .assertions
            .iter()
            .map(|a| match a {
                Assertion::Field { step, field, .. } => (*step, field.as_str()),
                _ => (99, ""),
            })
            .collect();
        assert_eq!(steps, [(0, "n"), (1, "table")]);
    }
}
