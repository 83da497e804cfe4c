//! The reference's constant pool (its literals and lookup keys) and the docstrings' examples.

use rustpython_ruff_python_ast::visitor::{self, Visitor};
use rustpython_ruff_python_ast::{self as ast, Expr};
use rustpython_ruff_python_parser::{parse_expression, parse_module};
use rustpython_ruff_text_size::Ranged;

use super::Example;

/// Every distinct literal of the reference (strings, bytes, numbers, booleans), as source.
pub(super) fn literals(reference: &str) -> Vec<String> {
    struct Lits<'s> {
        src: &'s str,
        out: Vec<String>,
    }
    impl<'a> Visitor<'a> for Lits<'_> {
        fn visit_expr(&mut self, e: &'a Expr) {
            let lit = match e {
                Expr::StringLiteral(s) if s.value.len() <= 200 => {
                    Some(python_str(s.value.to_str()))
                }
                Expr::NumberLiteral(_) | Expr::BooleanLiteral(_) | Expr::BytesLiteral(_) => {
                    Some(self.src[e.range()].to_string())
                }
                Expr::UnaryOp(u)
                    if matches!(u.op, ast::UnaryOp::USub)
                        && matches!(u.operand.as_ref(), Expr::NumberLiteral(_)) =>
                {
                    Some(self.src[e.range()].to_string())
                }
                _ => None,
            };
            if let Some(l) = lit {
                if !self.out.contains(&l) && self.out.len() < 500 {
                    self.out.push(l);
                }
                return;
            }
            visitor::walk_expr(self, e);
        }
    }
    let Ok(parsed) = parse_module(reference) else {
        return Vec::new();
    };
    let mut v = Lits {
        src: reference,
        out: Vec::new(),
    };
    for s in &parsed.syntax().body {
        v.visit_stmt(s);
    }
    v.out
}

/// String literals the reference uses as keys: subscripts (`x['k']`) and the first argument of
/// `get`, `pop`, `setdefault` calls; each once, in order.
pub(super) fn keys(reference: &str) -> Vec<String> {
    struct Keys(Vec<String>);
    impl Keys {
        fn add(&mut self, e: &Expr) {
            if let Expr::StringLiteral(s) = e {
                let k = python_str(s.value.to_str());
                if s.value.len() <= 100 && !self.0.contains(&k) && self.0.len() < 200 {
                    self.0.push(k);
                }
            }
        }
    }
    impl<'a> Visitor<'a> for Keys {
        fn visit_expr(&mut self, e: &'a Expr) {
            match e {
                Expr::Subscript(s) => self.add(&s.slice),
                Expr::Call(c) => {
                    if let Expr::Attribute(a) = c.func.as_ref()
                        && matches!(a.attr.as_str(), "get" | "pop" | "setdefault")
                        && let Some(first) = c.arguments.args.first()
                    {
                        self.add(first);
                    }
                }
                _ => {}
            }
            visitor::walk_expr(self, e);
        }
    }
    let Ok(parsed) = parse_module(reference) else {
        return Vec::new();
    };
    let mut v = Keys(Vec::new());
    for s in &parsed.syntax().body {
        v.visit_stmt(s);
    }
    v.0
}

/// A Python string literal for `s` (single-quoted, escapes as `repr` writes them).
pub fn python_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// Calls in doctest lines (`>>> obj.method(1, 'a')`, `>>> Class(3)`) whose arguments are all
/// literals, or names an earlier line of the same docstring bound to one (`>>> s = {"name":
/// "John"}` then `>>> r.register(s)`): examples for that method (`__init__` for the class).
pub(super) fn collect_examples(
    doc: &str,
    class_name: &str,
    out: &mut std::collections::BTreeMap<String, Vec<Example>>,
) {
    let mut bound: std::collections::HashMap<String, String> = Default::default();
    for d in crate::analysis::parse::doctests_of(doc, 0) {
        // `x = Class(...)` or a bare call.
        let (target, src) = d
            .source
            .split_once(" = ")
            .map_or((None, d.source.as_str()), |(l, r)| (Some(l.trim()), r));
        let Ok(parsed) = parse_expression(src) else {
            continue;
        };
        if let Some(name) = target
            && is_literal(parsed.expr())
            && name.chars().all(|c| c.is_alphanumeric() || c == '_')
        {
            bound.insert(name.to_string(), src.trim().to_string());
            continue;
        }
        let Expr::Call(call) = parsed.expr() else {
            continue;
        };
        let name = match call.func.as_ref() {
            Expr::Attribute(a) => a.attr.to_string(),
            Expr::Name(n) if n.id.as_str() == class_name => "__init__".to_string(),
            _ => continue,
        };
        if !call.arguments.keywords.is_empty() {
            continue;
        }
        let args: Option<Vec<String>> = call
            .arguments
            .args
            .iter()
            .map(|a| match a {
                Expr::Name(n) => bound.get(n.id.as_str()).cloned(),
                a => is_literal(a).then(|| src[a.range()].to_string()),
            })
            .collect();
        if let Some(args) = args {
            let list = out.entry(name).or_default();
            if !list.iter().any(|e| e.args == args) {
                list.push(Example { args });
            }
        }
    }
}

/// `{'name': str, 'major': str}` for an example dict literal whose keys are strings (the
/// value types as the example's values have them, `any` for `None`): the shape the explorer
/// builds that parameter's dicts in (`forge_values.parse_type` reads it as a record).
/// A list of such dicts gives `list[{...}]` (ClassEval_33's cart of items).
pub(super) fn record_type(example: &str) -> Option<String> {
    let parsed = parse_expression(example).ok()?;
    match parsed.expr() {
        Expr::Dict(d) => record_of(d),
        Expr::List(l) => match l.elts.first() {
            Some(Expr::Dict(d)) => record_of(d).map(|r| format!("list[{r}]")),
            _ => None,
        },
        _ => None,
    }
}

fn record_of(d: &ast::ExprDict) -> Option<String> {
    let mut fields = Vec::new();
    for item in &d.items {
        let Some(Expr::StringLiteral(k)) = &item.key else {
            return None;
        };
        let ty = match &item.value {
            Expr::StringLiteral(_) => "str",
            Expr::NumberLiteral(n) => match n.value {
                ast::Number::Int(_) => "int",
                _ => "float",
            },
            Expr::BooleanLiteral(_) => "bool",
            Expr::List(_) => "list",
            Expr::Dict(_) => "dict",
            Expr::Tuple(_) => "tuple",
            _ => "any",
        };
        fields.push(format!("{}: {ty}", python_str(k.value.to_str())));
    }
    (!fields.is_empty()).then(|| format!("{{{}}}", fields.join(", ")))
}

/// A literal, or a container of literals (what `ast.literal_eval` reads).
pub(in crate::forge) fn is_literal(e: &Expr) -> bool {
    match e {
        Expr::StringLiteral(_)
        | Expr::BytesLiteral(_)
        | Expr::NumberLiteral(_)
        | Expr::BooleanLiteral(_)
        | Expr::NoneLiteral(_) => true,
        Expr::UnaryOp(u) => matches!(u.operand.as_ref(), Expr::NumberLiteral(_)),
        Expr::List(l) => l.elts.iter().all(is_literal),
        Expr::Tuple(t) => t.elts.iter().all(is_literal),
        Expr::Set(s) => s.elts.iter().all(is_literal),
        Expr::Dict(d) => d
            .items
            .iter()
            .all(|i| i.key.as_ref().is_some_and(is_literal) && is_literal(&i.value)),
        _ => false,
    }
}
