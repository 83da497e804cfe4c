//! The type a parameter is used as, read from the reference when neither an annotation nor the
//! docstring names one: `amount < 0` and `range(n)` take numbers, `text.split()` a string,
//! `items.append(x)` a list, `request['path']` a dict. Arguments of undocumented parameters are
//! drawn from that type instead of from anything in the constant pool (a `None` where the
//! reference means an int tests behaviour nobody specified).

use std::collections::{BTreeMap, BTreeSet};

use rustpython_ruff_python_ast::visitor::{self, Visitor};
use rustpython_ruff_python_ast::{self as ast, Expr, Number, Stmt};
use rustpython_ruff_python_parser::parse_module;

const STR_METHODS: &[&str] = &[
    "lower",
    "upper",
    "split",
    "strip",
    "lstrip",
    "rstrip",
    "startswith",
    "endswith",
    "replace",
    "find",
    "isdigit",
    "isalpha",
    "isalnum",
    "isspace",
    "isupper",
    "islower",
    "encode",
    "title",
    "capitalize",
    "splitlines",
    "rfind",
    "zfill",
    "casefold",
    "swapcase",
];
const LIST_METHODS: &[&str] = &["append", "extend", "insert", "sort", "remove"];
const DICT_METHODS: &[&str] = &["items", "keys", "values", "get", "setdefault"];

/// `(method, parameter) → type` for the parameters of `class_name`'s methods whose use in the
/// reference says what they are (`str`, `dict`, `list`, `float`, `int`).
pub fn infer(reference: &str, class_name: &str) -> BTreeMap<(String, String), &'static str> {
    let mut out = BTreeMap::new();
    let Ok(parsed) = parse_module(reference) else {
        return out;
    };
    let Some(class) = parsed.syntax().body.iter().find_map(|s| match s {
        Stmt::ClassDef(c) if c.name.as_str() == class_name => Some(c),
        _ => None,
    }) else {
        return out;
    };
    for stmt in &class.body {
        let Stmt::FunctionDef(f) = stmt else { continue };
        let names: Vec<String> = f
            .parameters
            .posonlyargs
            .iter()
            .chain(&f.parameters.args)
            .chain(&f.parameters.kwonlyargs)
            .map(|p| p.parameter.name.to_string())
            .filter(|n| n != "self" && n != "cls")
            .collect();
        let mut uses = Uses {
            names: &names,
            seen: BTreeMap::new(),
        };
        for s in &f.body {
            uses.visit_stmt(s);
        }
        for (name, kinds) in uses.seen {
            let pick = ["str", "dict", "list", "float", "int"]
                .into_iter()
                .find(|k| kinds.contains(k));
            if let Some(k) = pick {
                out.insert((f.name.to_string(), name), k);
            }
        }
    }
    out
}

struct Uses<'n> {
    names: &'n [String],
    seen: BTreeMap<String, BTreeSet<&'static str>>,
}

impl Uses<'_> {
    fn param(&self, e: &Expr) -> Option<String> {
        match e {
            Expr::Name(n) if self.names.iter().any(|p| p == n.id.as_str()) => {
                Some(n.id.to_string())
            }
            _ => None,
        }
    }

    fn note(&mut self, name: String, kind: &'static str) {
        self.seen.entry(name).or_default().insert(kind);
    }

    /// A number literal's kind.
    fn number(e: &Expr) -> Option<&'static str> {
        let e = match e {
            Expr::UnaryOp(u) => u.operand.as_ref(),
            e => e,
        };
        match e {
            Expr::NumberLiteral(n) => match n.value {
                Number::Float(_) => Some("float"),
                Number::Int(_) => Some("int"),
                Number::Complex { .. } => None,
            },
            _ => None,
        }
    }
}

impl<'a> Visitor<'a> for Uses<'_> {
    fn visit_expr(&mut self, e: &'a Expr) {
        match e {
            Expr::Call(c) => {
                if let Expr::Attribute(a) = c.func.as_ref()
                    && let Some(p) = self.param(&a.value)
                {
                    let m = a.attr.as_str();
                    if STR_METHODS.contains(&m) {
                        self.note(p, "str");
                    } else if LIST_METHODS.contains(&m) {
                        self.note(p, "list");
                    } else if DICT_METHODS.contains(&m) {
                        self.note(p, "dict");
                    }
                }
                if let Expr::Name(f) = c.func.as_ref()
                    && f.id.as_str() == "range"
                {
                    for a in &c.arguments.args {
                        if let Some(p) = self.param(a) {
                            self.note(p, "int");
                        }
                    }
                }
            }
            Expr::BinOp(b) if !matches!(b.op, ast::Operator::Mod) => {
                for (x, y) in [(&b.left, &b.right), (&b.right, &b.left)] {
                    if let Some(p) = self.param(x) {
                        if let Some(k) = Uses::number(y) {
                            self.note(p, k);
                        } else if matches!(y.as_ref(), Expr::StringLiteral(_)) {
                            self.note(p, "str");
                        }
                    }
                }
            }
            Expr::Compare(c) => {
                let sides: Vec<&Expr> = std::iter::once(c.left.as_ref())
                    .chain(c.comparators.iter())
                    .collect();
                let ordered = c.ops.iter().all(|op| {
                    matches!(
                        op,
                        ast::CmpOp::Lt | ast::CmpOp::LtE | ast::CmpOp::Gt | ast::CmpOp::GtE
                    )
                });
                for w in sides.windows(2) {
                    for (x, y) in [(w[0], w[1]), (w[1], w[0])] {
                        if let (true, Some(p), Some(k)) = (ordered, self.param(x), Uses::number(y))
                        {
                            self.note(p, k);
                        }
                    }
                }
            }
            Expr::Subscript(s) => {
                if let Some(p) = self.param(&s.value) {
                    match s.slice.as_ref() {
                        Expr::StringLiteral(_) => self.note(p, "dict"),
                        x if Uses::number(x).is_some() => self.note(p, "list"),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        visitor::walk_expr(self, e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uses_say_what_a_parameter_is() {
        let src = r#"class A:
    def f(self, amount, text, items, req, n, ratio, other):
        if amount < 0:
            raise ValueError()
        words = text.lower().split()
        items.append(words)
        path = req['path']
        for i in range(n):
            pass
        return ratio * 0.5, other
"#;
        let m = infer(src, "A");
        let get = |p: &str| m.get(&("f".to_string(), p.to_string())).copied();
        assert_eq!(get("amount"), Some("int"));
        assert_eq!(get("text"), Some("str"));
        assert_eq!(get("items"), Some("list"));
        assert_eq!(get("req"), Some("dict"));
        assert_eq!(get("n"), Some("int"));
        assert_eq!(get("ratio"), Some("float"));
        assert_eq!(get("other"), None);
        assert!(infer("x = (", "A").is_empty());
    }
}
