//! The constructor of a class without an `__init__` of its own, and the module's type
//! aliases, as the plan reads them.

use rustpython_ruff_python_ast::{self as ast, Expr, Stmt};
use rustpython_ruff_text_size::Ranged;

use super::doc::exception_names;
use super::{MethodPlan, Param, declared_fields, docstring, params};

/// The constructor of a class without an `__init__` of its own, and the fields it declares:
/// its `__new__` (`RGBColor(tuple).__new__(cls, r, g, b)`), else the `__init__` or `__new__`
/// of the nearest base class the module defines (`Cog(Effect)` is built as `Effect` is), else,
/// for an enumeration, one of its members' values (`Color('red')`). None: built bare.
pub(super) fn constructor(
    module: &[Stmt],
    class: &ast::StmtClassDef,
    text: &dyn Fn(&dyn Ranged) -> String,
) -> Option<(MethodPlan, Vec<String>)> {
    let mut seen = vec![class.name.to_string()];
    let mut queue = vec![class];
    while let Some(c) = queue.pop() {
        let own = c.body.iter().find_map(|s| match s {
            Stmt::FunctionDef(f) if matches!(f.name.as_str(), "__init__" | "__new__") => Some(f),
            _ => None,
        });
        if let Some(f) = own {
            let doc = docstring(&f.body);
            let m = MethodPlan {
                name: "__init__".into(),
                params: params(&f.parameters, &doc, text, "method"),
                kind: "method",
                documented_raises: exception_names(&doc),
            };
            return Some((m, declared_fields(&f.body)));
        }
        if c.bases().iter().any(|b| is_enum_base(&text(b))) {
            return Some((enum_constructor(c, text), Vec::new()));
        }
        // (bases in reverse, so the first base is searched first)
        for b in c.bases().iter().rev() {
            let Expr::Name(n) = b else { continue };
            if seen.iter().any(|s| s == n.id.as_str()) {
                continue;
            }
            seen.push(n.id.to_string());
            if let Some(base) = module.iter().find_map(|s| match s {
                Stmt::ClassDef(d) if d.name.as_str() == n.id.as_str() => Some(d),
                _ => None,
            }) {
                queue.push(base);
            }
        }
    }
    None
}

/// `Enum`, `enum.IntEnum`, `StrEnum`, `Flag`, `IntFlag` (the standard library's).
fn is_enum_base(base: &str) -> bool {
    let last = base.rsplit('.').next().unwrap_or(base);
    matches!(last, "Enum" | "IntEnum" | "StrEnum" | "Flag" | "IntFlag")
}

/// An enumeration is called with one of its members' values (`Literal['red', 'green']`, the
/// literals its public members are assigned).
fn enum_constructor(c: &ast::StmtClassDef, text: &dyn Fn(&dyn Ranged) -> String) -> MethodPlan {
    let values: Vec<String> = c
        .body
        .iter()
        .filter_map(|s| match s {
            Stmt::Assign(a)
                if matches!(a.targets.as_slice(), [Expr::Name(n)] if !n.id.starts_with('_'))
                    && matches!(
                        a.value.as_ref(),
                        Expr::StringLiteral(_) | Expr::NumberLiteral(_)
                    ) =>
            {
                Some(text(a.value.as_ref()))
            }
            _ => None,
        })
        .collect();
    MethodPlan {
        name: "__init__".into(),
        params: vec![Param {
            name: "value".into(),
            kind: "pos",
            ty: if values.is_empty() {
                String::new()
            } else {
                format!("Literal[{}]", values.join(", "))
            },
            default: None,
            described: String::new(),
            size: false,
            undocumented: false,
        }],
        kind: "method",
        documented_raises: Vec::new(),
    }
}

/// Module-level type aliases: `X = Literal[...]` / `Union[...]` / `Optional[...]` / `A | B`,
/// `X: TypeAlias = ...`, `type X = ...`; name → the aliased type's source.
pub(super) fn type_aliases(
    module: &[Stmt],
    text: &dyn Fn(&dyn Ranged) -> String,
) -> std::collections::BTreeMap<String, String> {
    let typeish = |e: &Expr| match e {
        Expr::Subscript(s) => {
            let base = text(s.value.as_ref());
            let last = base.rsplit('.').next().unwrap_or(&base);
            matches!(last, "Literal" | "Union" | "Optional")
        }
        Expr::BinOp(b) => b.op == ast::Operator::BitOr,
        _ => false,
    };
    let source = |e: &Expr| match e {
        Expr::StringLiteral(s) => s.value.to_str().to_string(),
        e => text(e),
    };
    let mut out = std::collections::BTreeMap::new();
    for stmt in module {
        match stmt {
            Stmt::Assign(a) => {
                if let [Expr::Name(n)] = a.targets.as_slice()
                    && typeish(&a.value)
                {
                    out.insert(n.id.to_string(), text(a.value.as_ref()));
                }
            }
            Stmt::AnnAssign(a) => {
                if let (Expr::Name(n), Some(v)) = (a.target.as_ref(), a.value.as_deref())
                    && text(a.annotation.as_ref()).ends_with("TypeAlias")
                {
                    out.insert(n.id.to_string(), source(v));
                }
            }
            Stmt::TypeAlias(t) => {
                if let Expr::Name(n) = t.name.as_ref() {
                    out.insert(n.id.to_string(), text(t.value.as_ref()));
                }
            }
            _ => {}
        }
    }
    out
}

/// `ty` with every alias's name replaced by its value (chains up to three deep); a quoted
/// annotation (`"IntervalUnit"`) is read without its quotes.
pub(super) fn unalias(ty: &str, aliases: &std::collections::BTreeMap<String, String>) -> String {
    let t = ty.trim();
    let unquoted = t
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .or_else(|| t.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')));
    let mut cur = unquoted.unwrap_or(ty).to_string();
    let original = cur.clone();
    for _ in 0..3 {
        let mut out = String::with_capacity(cur.len());
        let mut word = String::new();
        let mut changed = false;
        for c in cur.chars().chain(std::iter::once(' ')) {
            if c.is_alphanumeric() || c == '_' || (c == '.' && !word.is_empty()) {
                word.push(c);
                continue;
            }
            match aliases.get(&word) {
                Some(v) => {
                    out.push('(');
                    out.push_str(v);
                    out.push(')');
                    changed = true;
                }
                None => out.push_str(&word),
            }
            word.clear();
            out.push(c);
        }
        out.pop();
        cur = out;
        if !changed {
            break;
        }
    }
    if cur == original { ty.to_string() } else { cur }
}
