//! What the explorer needs to know about a class, read with ruff's parser from the task's
//! skeleton (the public methods, their parameters with annotations, defaults and documented
//! types, the fields `__init__` declares, the doctest examples) and its reference (the
//! constant pool: every literal). The plan is the explorer's input (`assets/forge/explore.py`).

use rustpython_ruff_python_ast::visitor::{self, Visitor};
use rustpython_ruff_python_ast::{self as ast, Expr, Stmt};
use rustpython_ruff_python_parser::{parse_expression, parse_module};
use rustpython_ruff_text_size::Ranged;
use serde::Serialize;

/// One parameter of a method.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Param {
    pub name: String,
    /// `pos`, `varpos` or `kwonly` (`**kwargs` is never filled).
    pub kind: &'static str,
    /// The annotation's source, else the docstring's `:param name: TYPE`, else empty.
    #[serde(rename = "type")]
    pub ty: String,
    /// The default's source.
    pub default: Option<String>,
    /// The docstring's description of it (`str, male or female`), when it has one.
    #[serde(skip)]
    pub described: String,
    /// Used as a size or count (`range(n)`): drawn from non-negative ints.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub size: bool,
    /// Neither annotated nor described by the docstring: with a default, the parameter keeps
    /// it (what another value does is nowhere specified: ClassEval_86's `N=3` of a "3x3 board").
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub undocumented: bool,
}

/// One public method of the skeleton (or `__init__`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MethodPlan {
    pub name: String,
    pub params: Vec<Param>,
    /// `method`, `static`, `class` or `property`.
    pub kind: &'static str,
    /// Exception names the docstring mentions (`ValueError`, `KeyError` …): an exception of
    /// such a type that the reference does not `raise` itself is still specified behaviour.
    pub documented_raises: Vec<String>,
}

/// Literal arguments of one doctest call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Example {
    pub args: Vec<String>,
}

/// The explorer's input, less the run settings [`super::Settings`] adds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    #[serde(rename = "class")]
    pub class_name: String,
    pub init: MethodPlan,
    pub methods: Vec<MethodPlan>,
    /// `method name → kind` for the runner.
    pub kinds: std::collections::BTreeMap<String, &'static str>,
    /// Public fields `__init__` assigns (`self.x = …`), in order.
    pub fields: Vec<String>,
    /// Source of every distinct literal of the reference, in order of appearance.
    pub literals: Vec<String>,
    /// String keys the reference looks up (`x['path']`, `x.get('path')`): dict arguments are
    /// built from them.
    pub keys: Vec<String>,
    pub examples: std::collections::BTreeMap<String, Vec<Example>>,
}

/// Why a class has no plan.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error("the skeleton does not parse: {0}")]
    Skeleton(String),
    #[error("no class `{0}` at the top of the skeleton")]
    NoClass(String),
}

/// The plan of `class_name` from its skeleton and reference.
pub fn plan(skeleton: &str, reference: &str, class_name: &str) -> Result<Plan, PlanError> {
    let parsed = parse_module(skeleton).map_err(|e| PlanError::Skeleton(e.to_string()))?;
    let class = parsed
        .syntax()
        .body
        .iter()
        .find_map(|s| match s {
            Stmt::ClassDef(c) if c.name.as_str() == class_name => Some(c),
            _ => None,
        })
        .ok_or_else(|| PlanError::NoClass(class_name.to_string()))?;
    let text = |r: &dyn Ranged| skeleton[r.range()].to_string();
    let mut init = MethodPlan {
        name: "__init__".into(),
        params: Vec::new(),
        kind: "method",
        documented_raises: Vec::new(),
    };
    let mut methods = Vec::new();
    let mut examples: std::collections::BTreeMap<String, Vec<Example>> = Default::default();
    let mut fields = Vec::new();
    let mut has_init = false;
    for stmt in &class.body {
        let Stmt::FunctionDef(f) = stmt else { continue };
        let doc = docstring(&f.body);
        let kind = kind_of(f, &text);
        let m = MethodPlan {
            name: f.name.to_string(),
            params: params(&f.parameters, &doc, &text, kind),
            kind,
            documented_raises: exception_names(&doc),
        };
        collect_examples(&doc, class_name, &mut examples);
        if f.name.as_str() == "__init__" {
            fields = declared_fields(&f.body);
            init = m;
            has_init = true;
        } else if is_target(f.name.as_str()) && f.name.as_str() != "__new__" {
            methods.push(m);
        }
    }
    if !has_init && let Some((ctor, declared)) = constructor(&parsed.syntax().body, class, &text) {
        init = ctor;
        fields = declared;
    }
    // A type alias the module defines (`IntervalUnit = Literal["ns", "us"]`) stands for its
    // value: the values it allows, not an object of a class named so.
    let aliases = type_aliases(&parsed.syntax().body, &text);
    if !aliases.is_empty() {
        for m in std::iter::once(&mut init).chain(methods.iter_mut()) {
            for p in m.params.iter_mut() {
                p.ty = unalias(&p.ty, &aliases);
            }
        }
    }
    // Undocumented parameters take the type their use in the reference says.
    let used = super::usage::infer(reference, class_name);
    for m in std::iter::once(&mut init).chain(methods.iter_mut()) {
        for p in m.params.iter_mut().filter(|p| p.ty.is_empty()) {
            if let Some(k) = used.get(&(m.name.clone(), p.name.clone())) {
                p.ty = (*k).to_string();
            }
        }
    }
    let sizes = super::usage::sizes(reference, class_name);
    for m in std::iter::once(&mut init).chain(methods.iter_mut()) {
        for p in m.params.iter_mut() {
            p.size = sizes.contains(&(m.name.clone(), p.name.clone()));
        }
    }
    let compared = super::usage::choices(reference, class_name);
    for m in std::iter::once(&mut init).chain(methods.iter_mut()) {
        for p in m.params.iter_mut() {
            let Some(c) = compared.get(&(m.name.clone(), p.name.clone())) else {
                continue;
            };
            let mut domain = c.clone();
            for w in enumerated(&p.described, c) {
                if !domain.contains(&w) {
                    domain.push(w);
                }
            }
            if let [only] = domain.as_slice() {
                domain.extend(super::usage::documented_alternatives(
                    skeleton, reference, only,
                ));
            }
            if let Some(t) = choice_type(&p.ty, &domain) {
                p.ty = t;
            }
        }
    }
    // A parameter whose members the reference reads as the class's own (`order.cart`) and
    // that no type word documents is an instance of the class.
    let members: std::collections::BTreeSet<String> = fields
        .iter()
        .cloned()
        .chain(methods.iter().map(|m| m.name.clone()))
        .collect();
    let own = super::usage::own_instances(reference, class_name, &members);
    for m in std::iter::once(&mut init).chain(methods.iter_mut()) {
        for p in m.params.iter_mut() {
            if !names_a_type(&p.ty) && own.contains(&(m.name.clone(), p.name.clone())) {
                p.ty = class_name.to_string();
            }
        }
    }
    // A dict parameter shown by an example takes the example's shape (keys and value types).
    for m in std::iter::once(&mut init).chain(methods.iter_mut()) {
        let shown = examples.get(&m.name);
        for (k, p) in m.params.iter_mut().filter(|p| p.kind == "pos").enumerate() {
            // (no type, or only `dict`/`list`: `dict, customer information`)
            let first_word =
                p.ty.split(|c: char| !c.is_ascii_alphabetic())
                    .find(|w| !w.is_empty())
                    .map(str::to_ascii_lowercase);
            let dictish = p.ty.is_empty()
                || !p.ty.contains('[')
                    && matches!(
                        first_word.as_deref(),
                        Some("dict" | "dictionary" | "list" | "array")
                    );
            if let Some(shape) = shown
                .into_iter()
                .flatten()
                .find_map(|e| e.args.get(k).and_then(|a| record_type(a)))
                && dictish
            {
                p.ty = shape;
            }
        }
    }
    let kinds = methods.iter().map(|m| (m.name.clone(), m.kind)).collect();
    Ok(Plan {
        class_name: class_name.to_string(),
        init,
        methods,
        kinds,
        fields,
        literals: literals(reference),
        keys: keys(reference),
        examples,
    })
}

/// The constructor of a class without an `__init__` of its own, and the fields it declares:
/// its `__new__` (`RGBColor(tuple).__new__(cls, r, g, b)`), else the `__init__` or `__new__`
/// of the nearest base class the module defines (`Cog(Effect)` is built as `Effect` is), else,
/// for an enumeration, one of its members' values (`Color('red')`). None: built bare.
fn constructor(
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
fn type_aliases(
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
fn unalias(ty: &str, aliases: &std::collections::BTreeMap<String, String>) -> String {
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

/// A method the tests may call: public names and special methods (`__getitem__`: ClassEval
/// makes them targets), not `_private` or name-mangled `__private` ones.
fn is_target(name: &str) -> bool {
    !name.starts_with('_') || (name.starts_with("__") && name.ends_with("__") && name.len() > 4)
}

fn kind_of(f: &ast::StmtFunctionDef, text: &dyn Fn(&dyn Ranged) -> String) -> &'static str {
    for d in &f.decorator_list {
        match text(&d.expression).as_str() {
            "staticmethod" => return "static",
            "classmethod" => return "class",
            "property" | "functools.cached_property" | "cached_property" => return "property",
            _ => {}
        }
    }
    "method"
}

/// Identifiers ending in `Error` or `Exception` in a docstring, each once.
fn exception_names(doc: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in doc.split(|c: char| !c.is_alphanumeric() && c != '_') {
        if (word.ends_with("Error") || word.ends_with("Exception"))
            && word.chars().next().is_some_and(char::is_uppercase)
            && !out.iter().any(|w| w == word)
        {
            out.push(word.to_string());
        }
    }
    out
}

fn docstring(body: &[Stmt]) -> String {
    match body.first() {
        Some(Stmt::Expr(e)) => match e.value.as_ref() {
            Expr::StringLiteral(s) => s.value.to_str().to_string(),
            _ => String::new(),
        },
        _ => String::new(),
    }
}

/// `:param name: TYPE` (reStructuredText) or `name (TYPE):` (Google style) in a docstring.
fn documented_type(doc: &str, name: &str) -> Option<String> {
    for line in doc.lines() {
        let l = line.trim();
        if let Some(rest) = l.strip_prefix(":param ") {
            let Some((head, ty)) = rest.split_once(':') else {
                continue;
            };
            let mut words = head.split_whitespace();
            let (a, b) = (words.next(), words.next());
            // `:param int x:` names the type before the parameter.
            if b == Some(name) {
                return a.map(String::from);
            }
            if a == Some(name) {
                // `int`, `str, the name`, `Current status,int.`: the description whole,
                // when it names a type at all (else the reference's use of it says).
                return names_a_type(ty).then(|| ty.trim().to_string());
            }
        } else if let Some(rest) = l.strip_prefix(":type ") {
            if let Some((n, ty)) = rest.split_once(':')
                && n.trim() == name
            {
                return Some(ty.trim().to_string());
            }
        } else if let Some(rest) = l.strip_prefix(name)
            && let Some(rest) = rest.trim_start().strip_prefix('(')
            && let Some((ty, _)) = rest.split_once("):")
        {
            return Some(ty.trim().to_string());
        }
    }
    None
}

/// Docstring words that name a type (`forge_values.DOC_WORDS`), or an annotation's brackets.
fn names_a_type(text: &str) -> bool {
    const WORDS: &[&str] = &[
        "int",
        "integer",
        "float",
        "number",
        "double",
        "str",
        "string",
        "bool",
        "boolean",
        "list",
        "array",
        "dict",
        "dictionary",
        "tuple",
        "set",
        "bytes",
    ];
    text.contains('[')
        || text
            .split(|c: char| !c.is_ascii_alphabetic())
            .any(|w| WORDS.contains(&w.to_ascii_lowercase().as_str()))
}

/// The text after `:param name:` in a docstring.
fn description<'d>(doc: &'d str, name: &str) -> Option<&'d str> {
    doc.lines().find_map(|l| {
        let (head, rest) = l.trim().strip_prefix(":param ")?.split_once(':')?;
        (head.split_whitespace().last() == Some(name)).then_some(rest.trim())
    })
}

/// The values a description enumerates (`str, male or female`, `'w', 'a', 's' or 'd'`) when
/// it names one of the strings the reference compares the parameter with: the rest of the
/// domain, which the reference handles in an `else`.
fn enumerated(described: &str, compared: &[String]) -> Vec<String> {
    if !(described.contains(" or ") || described.contains('\'')) {
        return Vec::new();
    }
    let words: Vec<&str> = described
        .split(|c: char| c.is_whitespace() || ",;/|()'\"".contains(c))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| !w.is_empty() && !["or", "and", "either"].contains(w) && !names_a_type(w))
        .collect();
    if !compared.iter().any(|c| words.contains(&c.as_str())) {
        return Vec::new();
    }
    words.into_iter().map(String::from).collect()
}

/// `Literal['female', 'male']` for a string parameter the reference compares with two or more
/// strings (`usage::choices`, with those its description enumerates): only those are in its
/// domain.
fn choice_type(ty: &str, strings: &[String]) -> Option<String> {
    let stringly = ty.is_empty()
        || ty
            .split(|c: char| !c.is_ascii_alphabetic())
            .any(|w| matches!(w.to_ascii_lowercase().as_str(), "str" | "string"));
    (strings.len() >= 2 && stringly).then(|| {
        let items: Vec<String> = strings.iter().map(|x| python_str(x)).collect();
        format!("Literal[{}]", items.join(", "))
    })
}

fn params(
    p: &ast::Parameters,
    doc: &str,
    text: &dyn Fn(&dyn Ranged) -> String,
    kind: &str,
) -> Vec<Param> {
    let mut out = Vec::new();
    let skip_first = kind != "static";
    let mut first = true;
    for (a, k) in p
        .posonlyargs
        .iter()
        .chain(&p.args)
        .map(|a| (a, "pos"))
        .chain(p.kwonlyargs.iter().map(|a| (a, "kwonly")))
    {
        if first && skip_first && k == "pos" {
            first = false;
            continue;
        }
        first = false;
        let name = a.parameter.name.to_string();
        let ty = a
            .parameter
            .annotation
            .as_deref()
            .map(|e| text(e))
            .or_else(|| documented_type(doc, &name))
            .unwrap_or_default();
        let described = description(doc, &name).unwrap_or_default().to_string();
        out.push(Param {
            undocumented: ty.is_empty()
                && described.is_empty()
                && !doc
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .any(|w| w == name),
            described,
            name,
            kind: k,
            ty,
            default: a.default.as_deref().map(|e| text(e)),
            size: false,
        });
    }
    if let Some(v) = &p.vararg {
        let name = v.name.to_string();
        out.push(Param {
            ty: documented_type(doc, &name).unwrap_or_default(),
            described: String::new(),
            name,
            kind: "varpos",
            default: None,
            size: false,
            undocumented: false,
        });
    }
    out
}

/// `self.x = …` (also annotated, augmented or tuple targets) in `__init__`, public names only.
fn declared_fields(body: &[Stmt]) -> Vec<String> {
    struct Fields(Vec<String>);
    impl<'a> Visitor<'a> for Fields {
        fn visit_expr(&mut self, e: &'a Expr) {
            if let Expr::Attribute(a) = e
                && a.ctx.is_store()
                && matches!(a.value.as_ref(), Expr::Name(n) if n.id.as_str() == "self")
                && !a.attr.starts_with('_')
                && !self.0.iter().any(|f| f == a.attr.as_str())
            {
                self.0.push(a.attr.to_string());
            }
            visitor::walk_expr(self, e);
        }
    }
    let mut v = Fields(Vec::new());
    for s in body {
        v.visit_stmt(s);
    }
    v.0
}

/// Every distinct literal of the reference (strings, bytes, numbers, booleans), as source.
fn literals(reference: &str) -> Vec<String> {
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
fn keys(reference: &str) -> Vec<String> {
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
fn collect_examples(
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
fn record_type(example: &str) -> Option<String> {
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
pub(super) fn is_literal(e: &Expr) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

    const SKELETON: &str = r#"class BankAccount:
    """A bank account."""

    def __init__(self, balance=0):
        """
        :param balance: int
        """
        self.balance = balance
        self._log = []

    def deposit(self, amount):
        """
        :param amount: int
        >>> account = BankAccount(10)
        >>> account.deposit(1000)
        """

    @staticmethod
    def check(x: float, *rest, strict=False):
        """Check."""

    def _helper(self):
        pass
"#;

    #[test]
    fn reads_methods_params_fields_and_examples() {
        let p = plan(
            SKELETON,
            "class BankAccount:\n    def deposit(self, a):\n        if a < -1: raise ValueError('Invalid amount')\n",
            "BankAccount",
        )
        .unwrap();
        assert_eq!(p.fields, ["balance"]);
        assert_eq!(p.init.params[0].default.as_deref(), Some("0"));
        assert_eq!(p.init.params[0].ty, "int");
        let names: Vec<&str> = p.methods.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["deposit", "check"]);
        assert_eq!(p.methods[1].kind, "static");
        let check = &p.methods[1].params;
        assert_eq!(
            (check[0].name.as_str(), check[0].ty.as_str()),
            ("x", "float")
        );
        assert_eq!(
            (check[1].name.as_str(), check[1].kind),
            ("strict", "kwonly")
        );
        assert_eq!((check[2].name.as_str(), check[2].kind), ("rest", "varpos"));
        assert_eq!(p.examples["deposit"][0].args, ["1000"]);
        assert_eq!(p.examples["__init__"][0].args, ["10"]);
        assert_eq!(p.literals, ["-1", "'Invalid amount'"]);
        assert!(p.keys.is_empty());
        assert_eq!(
            keys("def f(r):\n    return r['path'], r.get(\"m\", 1), r[0], d.pop('path')\n"),
            ["'path'", "'m'"]
        );
        assert_eq!(
            exception_names("If x < 0, raise a ValueError(\"no\"); KeyError."),
            ["ValueError", "KeyError"]
        );
    }

    #[test]
    fn a_missing_class_or_broken_skeleton_is_an_error() {
        assert!(matches!(
            plan("x = 1\n", "", "A"),
            Err(PlanError::NoClass(_))
        ));
        assert!(matches!(
            plan("class A(:\n", "", "A"),
            Err(PlanError::Skeleton(_))
        ));
    }

    #[test]
    fn documented_types_are_found_anywhere_in_the_description() {
        let doc = ":param states: Current status,int.\n:param who: the name\n:param n: int";
        assert_eq!(
            documented_type(doc, "states").as_deref(),
            Some("Current status,int.")
        );
        assert_eq!(documented_type(doc, "who"), None);
        assert_eq!(documented_type(doc, "n").as_deref(), Some("int"));
        assert_eq!(
            choice_type("str", &["male".into(), "female".into()]).as_deref(),
            Some("Literal['male', 'female']")
        );
        assert_eq!(choice_type("int", &["a".into(), "b".into()]), None);
        assert_eq!(choice_type("", &["quit".into()]), None);
        let male = vec!["male".to_string()];
        assert_eq!(enumerated("str, male or female", &male), ["male", "female"]);
        assert!(enumerated("str, the sex of the male", &male).is_empty());
        assert!(enumerated("str, 'female' or 'other'", &male).is_empty());
        assert_eq!(
            description(":param sex: str, male or female\n", "sex"),
            Some("str, male or female")
        );
    }

    #[test]
    fn a_string_compared_with_one_value_takes_the_values_the_skeleton_names() {
        // ClassEval_40: `self.sex == "male"`, else female; `sex=''` is outside the spec.
        let skeleton = "class F:\n    def __init__(self, sex, n=3):\n        \"\"\"BMI standard: male is 20-25, female is 19-24.\"\"\"\n";
        let reference = "class F:\n    def __init__(self, sex, n=3):\n        self.sex = sex\n        self.std = {'male': 20, 'female': 19, 'x': 0}\n        self.board = [[' '] * n for _ in range(3)]\n\n    def low(self):\n        if self.sex == 'male':\n            return 20\n        return 19\n";
        let p = plan(skeleton, reference, "F").unwrap();
        assert_eq!(p.init.params[0].ty, "Literal['male', 'female']");
        assert!(!p.init.params[0].size);
        assert!(p.init.params[1].size, "n is a size");
        // `n` is documented nowhere: it keeps its default (ClassEval_86's `N=3`).
        assert!(p.init.params[1].undocumented);
        let named =
            "class F:\n    def __init__(self, n=3):\n        \"\"\"A board of n columns.\"\"\"\n";
        assert!(!plan(named, reference, "F").unwrap().init.params[0].undocumented);
        // Not named in the skeleton: no domain is invented.
        let bare = "class F:\n    def __init__(self, sex, n=3):\n        pass\n";
        assert_eq!(plan(bare, reference, "F").unwrap().init.params[0].ty, "str");
    }

    #[test]
    fn a_dict_parameter_shown_by_a_bound_example_takes_its_shape() {
        // ClassEval_22: `student` is documented only by a doctest's variable.
        let skeleton = "class R:\n    def __init__(self):\n        self.students = []\n\n    def add(self, student):\n        \"\"\"Add a student.\n        >>> r = R()\n        >>> s1 = {\"name\": \"John\", \"age\": 3, \"gpa\": 3.5}\n        >>> r.add(s1)\n        \"\"\"\n\n    def size(self, n: int):\n        pass\n";
        let p = plan(skeleton, skeleton, "R").unwrap();
        assert_eq!(
            p.examples["add"][0].args,
            ["{\"name\": \"John\", \"age\": 3, \"gpa\": 3.5}"]
        );
        assert_eq!(
            p.methods[0].params[0].ty,
            "{'name': str, 'age': int, 'gpa': float}"
        );
        assert_eq!(
            record_type("[{'p': 'x', 'n': 14}]").as_deref(),
            Some("list[{'p': str, 'n': int}]")
        );
        assert_eq!(record_type("[1]"), None);
        assert_eq!(record_type("{1: 'a'}"), None);
    }

    #[test]
    fn strings_are_quoted_as_python_reads_them() {
        assert_eq!(python_str("it's\n\\"), r"'it\'s\n\\'");
    }

    #[test]
    fn a_class_without_init_is_built_as_its_new_its_base_or_its_enum_says() {
        let names =
            |p: &Plan| -> Vec<String> { p.init.params.iter().map(|p| p.name.clone()).collect() };
        let tuple = "class RGB(tuple):\n    def __new__(cls, r: int, g: int, b: int):\n        pass\n\n    def hex(self):\n        pass\n";
        let p = plan(tuple, tuple, "RGB").unwrap();
        assert_eq!(names(&p), ["r", "g", "b"]);
        assert_eq!(p.init.params[0].ty, "int");
        assert!(
            p.methods.iter().all(|m| m.name != "__new__"),
            "`__new__` is the constructor, not a method"
        );
        let derived = "class Base:\n    def __init__(self, screen, rate=2):\n        self.rate = rate\n\nclass Cog(Base):\n    def spin(self):\n        pass\n";
        let p = plan(derived, derived, "Cog").unwrap();
        assert_eq!(names(&p), ["screen", "rate"]);
        assert_eq!(p.fields, ["rate"]);
        let colours = "import enum\n\nclass Colour(enum.Enum):\n    RED = 'red'\n    GREEN = 'green'\n    _hidden = 'x'\n\n    def warm(self):\n        pass\n";
        let p = plan(colours, colours, "Colour").unwrap();
        assert_eq!(names(&p), ["value"]);
        assert_eq!(p.init.params[0].ty, "Literal['red', 'green']");
        let own = "class Base:\n    def __init__(self, x):\n        pass\n\nclass A(Base):\n    def __init__(self):\n        pass\n";
        assert!(
            plan(own, own, "A").unwrap().init.params.is_empty(),
            "its own __init__ wins"
        );
    }

    #[test]
    fn a_type_alias_of_the_module_stands_for_its_value() {
        let src = "from typing import Literal, TypeAlias\n\nUnit = Literal['ns', 'us']\nMaybe: TypeAlias = 'Unit | None'\n\nclass I:\n    def __init__(self, n: int, unit: Unit, /):\n        self.n = n\n\n    def set(self, u: \"Maybe\", k: Units):\n        pass\n";
        let p = plan(src, src, "I").unwrap();
        assert_eq!(p.init.params[1].ty, "(Literal['ns', 'us'])");
        assert_eq!(p.methods[0].params[0].ty, "((Literal['ns', 'us']) | None)");
        assert_eq!(p.methods[0].params[1].ty, "Units", "no alias: as written");
    }
}
