//! The shapes of source the indicators look for: constant returns, paths the code was not
//! given, names of test files. Pure functions of the AST and of literals.

use rustpython_ruff_python_ast::{self as ast, Expr, Stmt};

/// Why a literal path is not one the code was given: `None` for an ordinary relative path.
pub(super) fn outside_path(path: &str) -> Option<String> {
    let shown: String = path.chars().take(60).collect();
    if path.starts_with("/proc") || path.starts_with("/sys/") {
        Some(format!("'{shown}': the process's own internals"))
    } else if path.starts_with('/') && path != "/dev/null" {
        Some(format!("'{shown}': an absolute path"))
    } else if path.split(['/', '\\']).any(|c| c == "..") {
        Some(format!("'{shown}': outside its directory"))
    } else {
        None
    }
}

/// The constant every `return` of a body gives (at least one, none bare), shown as Python
/// writes it; nested functions and classes are not the body's returns.
pub(super) fn constant_return(body: &[Stmt]) -> Option<String> {
    let mut returns = Vec::new();
    collect_returns(body, &mut returns);
    let first = constant(returns.first()?.as_deref()?)?;
    returns
        .iter()
        .all(|r| r.as_deref().and_then(constant).as_ref() == Some(&first))
        .then_some(first)
}

fn collect_returns<'a>(body: &'a [Stmt], out: &mut Vec<Option<&'a Expr>>) {
    for s in body {
        match s {
            Stmt::Return(r) => out.push(r.value.as_deref()),
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
            Stmt::If(i) => {
                collect_returns(&i.body, out);
                for c in &i.elif_else_clauses {
                    collect_returns(&c.body, out);
                }
            }
            Stmt::For(f) => {
                collect_returns(&f.body, out);
                collect_returns(&f.orelse, out);
            }
            Stmt::While(w) => {
                collect_returns(&w.body, out);
                collect_returns(&w.orelse, out);
            }
            Stmt::With(w) => collect_returns(&w.body, out),
            Stmt::Try(t) => {
                collect_returns(&t.body, out);
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    collect_returns(&h.body, out);
                }
                collect_returns(&t.orelse, out);
                collect_returns(&t.finalbody, out);
            }
            _ => {}
        }
    }
}

pub(super) fn constant(e: &Expr) -> Option<String> {
    match e {
        Expr::BooleanLiteral(b) => Some(if b.value { "True" } else { "False" }.into()),
        Expr::NoneLiteral(_) => Some("None".into()),
        Expr::NumberLiteral(n) => match &n.value {
            ast::Number::Int(i) => Some(i.to_string()),
            _ => None,
        },
        _ => None,
    }
}

/// A Python file named like a test module (`test_x.py`, `x_test.py`, `tests/…`).
pub(super) fn names_test_file(s: &str) -> bool {
    let file = s.rsplit(['/', '\\']).next().unwrap_or(s);
    let py = file.ends_with(".py");
    let stem = file.trim_end_matches(".py");
    (py && (stem.starts_with("test") || stem.ends_with("_test") || stem.ends_with("Test")))
        || s.starts_with("tests/")
}
