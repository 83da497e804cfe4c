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
/// reference says what they are (`str`, `dict`, `list`, `float`, `int`; `str | list` when it is
/// only iterated or measured, `for c in text`, `len(items)`): used directly, or
/// through the field `__init__` stores a constructor parameter in (`self.weight = weight`,
/// then `10 * self.weight` anywhere in the class).
pub fn infer(reference: &str, class_name: &str) -> BTreeMap<(String, String), &'static str> {
    uses_of(reference, class_name)
        .into_iter()
        .filter_map(|(key, kinds)| {
            ["str", "dict", "list", "float", "int", "iterable"]
                .into_iter()
                .find(|k| kinds.contains(k))
                // only iterated or measured: a string or a list
                .map(|k| (key, if k == "iterable" { "str | list" } else { k }))
        })
        .collect()
}

/// `(method, parameter)`s the reference uses as a size or a count (`range(n)`, `[x] * n`):
/// a negative one is outside what the class handles (a board of -1 columns), so such a
/// parameter is drawn from non-negative ints — unless the class checks it itself (`if n < 0:
/// raise …`): then negatives are handled, and tested.
pub fn sizes(reference: &str, class_name: &str) -> BTreeSet<(String, String)> {
    uses_of(reference, class_name)
        .into_iter()
        .filter(|(_, kinds)| kinds.contains("size") && !kinds.contains("bounded"))
        .map(|(key, _)| key)
        .collect()
}

/// `(method, parameter)`s the reference reads members of the class itself from (`order.cart`,
/// `order.total()`, where `cart` and `total` are the class's): an instance of the class (a
/// static promotion rule that takes the order).
pub fn own_instances(
    reference: &str,
    class_name: &str,
    members: &BTreeSet<String>,
) -> BTreeSet<(String, String)> {
    struct Own<'m> {
        names: BTreeSet<String>,
        members: &'m BTreeSet<String>,
        found: BTreeSet<String>,
    }
    impl<'a> Visitor<'a> for Own<'_> {
        fn visit_expr(&mut self, e: &'a Expr) {
            if let Expr::Attribute(a) = e
                && let Expr::Name(n) = a.value.as_ref()
                && self.names.contains(n.id.as_str())
                && self.members.contains(a.attr.as_str())
            {
                self.found.insert(n.id.to_string());
            }
            visitor::walk_expr(self, e);
        }
    }
    let Some(class) = ClassSource::parse(reference, class_name) else {
        return BTreeSet::new();
    };
    let mut out = BTreeSet::new();
    for f in class.functions() {
        let mut v = Own {
            names: params_of(f),
            members,
            found: BTreeSet::new(),
        };
        for s in &f.body {
            v.visit_stmt(s);
        }
        out.extend(v.found.into_iter().map(|p| (f.name.to_string(), p)));
    }
    out
}

/// What each parameter is used as (`str`, `dict`, `list`, `float`, `int`, `size`).
fn uses_of(
    reference: &str,
    class_name: &str,
) -> BTreeMap<(String, String), BTreeSet<&'static str>> {
    let Some(class) = ClassSource::parse(reference, class_name) else {
        return BTreeMap::new();
    };
    let mut uses = Uses {
        method: String::new(),
        names: BTreeSet::new(),
        fields: &class.fields,
        seen: BTreeMap::new(),
    };
    for f in class.functions() {
        uses.method = f.name.to_string();
        uses.names = params_of(f);
        for s in &f.body {
            uses.visit_stmt(s);
        }
    }
    uses.seen
}

/// The other strings a parameter compared with a single string (`sex == "male"`) may take:
/// the reference's string literals (words) that the skeleton's text names too, when it names
/// the compared one (`male is 20-25, female is 19-24`). The class handles them in its `else`;
/// any other string (`''`) is outside what it documents.
pub fn documented_alternatives(skeleton: &str, reference: &str, compared: &str) -> Vec<String> {
    let words: BTreeSet<&str> = skeleton
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let is_word =
        |w: &str| w.chars().count() >= 2 && w.chars().all(|c| c.is_alphanumeric() || c == '_');
    if !is_word(compared) || !words.contains(compared) {
        return Vec::new();
    }
    struct Strings(Vec<String>);
    impl<'a> Visitor<'a> for Strings {
        fn visit_expr(&mut self, e: &'a Expr) {
            if let Expr::StringLiteral(s) = e {
                let v = s.value.to_str().to_string();
                if !self.0.contains(&v) && self.0.len() < 500 {
                    self.0.push(v);
                }
            }
            visitor::walk_expr(self, e);
        }
    }
    let Ok(parsed) = parse_module(reference) else {
        return Vec::new();
    };
    let mut found = Strings(Vec::new());
    for st in &parsed.syntax().body {
        found.visit_stmt(st);
    }
    found
        .0
        .into_iter()
        .filter(|v| v != compared && is_word(v) && words.contains(v.as_str()))
        .collect()
}

/// A class of the reference, with the fields its `__init__` stores parameters in.
struct ClassSource {
    module: ast::ModModule,
    index: usize,
    /// field → the `__init__` parameter it holds (`self.F = param`).
    fields: BTreeMap<String, String>,
}

impl ClassSource {
    fn parse(reference: &str, class_name: &str) -> Option<ClassSource> {
        let module = parse_module(reference).ok()?.into_syntax();
        let index = module
            .body
            .iter()
            .position(|s| matches!(s, Stmt::ClassDef(c) if c.name.as_str() == class_name))?;
        let mut c = ClassSource {
            module,
            index,
            fields: BTreeMap::new(),
        };
        let mut fields = BTreeMap::new();
        for f in c.functions().filter(|f| f.name.as_str() == "__init__") {
            for st in &f.body {
                if let Stmt::Assign(a) = st
                    && let [Expr::Attribute(t)] = a.targets.as_slice()
                    && matches!(t.value.as_ref(), Expr::Name(n) if n.id.as_str() == "self")
                    && let Expr::Name(v) = a.value.as_ref()
                {
                    fields.insert(t.attr.to_string(), v.id.to_string());
                }
            }
        }
        c.fields = fields;
        Some(c)
    }

    fn functions(&self) -> impl Iterator<Item = &ast::StmtFunctionDef> {
        let body = match &self.module.body[self.index] {
            Stmt::ClassDef(c) => c.body.as_slice(),
            _ => &[],
        };
        body.iter().filter_map(|s| match s {
            Stmt::FunctionDef(f) => Some(f),
            _ => None,
        })
    }

    /// The `(method, parameter)` an expression stands for in `method`: one of its
    /// parameters, or a field holding a constructor parameter.
    fn key_of(&self, method: &str, names: &BTreeSet<String>, e: &Expr) -> Option<(String, String)> {
        key_of(&self.fields, method, names, e)
    }
}

fn key_of(
    fields: &BTreeMap<String, String>,
    method: &str,
    names: &BTreeSet<String>,
    e: &Expr,
) -> Option<(String, String)> {
    match e {
        Expr::Name(n) if names.contains(n.id.as_str()) => {
            Some((method.to_string(), n.id.to_string()))
        }
        Expr::Attribute(a) if matches!(a.value.as_ref(), Expr::Name(n) if n.id.as_str() == "self") => {
            fields
                .get(a.attr.as_str())
                .map(|p| ("__init__".to_string(), p.clone()))
        }
        _ => None,
    }
}

fn params_of(f: &ast::StmtFunctionDef) -> BTreeSet<String> {
    f.parameters
        .posonlyargs
        .iter()
        .chain(&f.parameters.args)
        .chain(&f.parameters.kwonlyargs)
        .map(|p| p.parameter.name.to_string())
        .filter(|n| n != "self" && n != "cls")
        .collect()
}

/// `(method, parameter) → the strings it is compared with` (`sex == 'male'`, `unit in ('m',
/// 'km')`), directly or through the field `__init__` stores it in (`self.sex = sex`, then
/// `self.sex == 'male'` anywhere in the class). Such a parameter takes one of those strings: any
/// other string is outside what the class handles, and how a candidate treats it (an error, a
/// default) is unspecified.
pub fn choices(reference: &str, class_name: &str) -> BTreeMap<(String, String), Vec<String>> {
    let mut out: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    let Some(class) = ClassSource::parse(reference, class_name) else {
        return BTreeMap::new();
    };
    for f in class.functions() {
        let names = params_of(f);
        let mut v = Compared { found: Vec::new() };
        for st in &f.body {
            v.visit_stmt(st);
        }
        for (e, strings) in v.found {
            if let Some(key) = class.key_of(f.name.as_str(), &names, &e) {
                out.entry(key).or_default().extend(strings);
            }
        }
    }
    out.into_iter()
        .map(|(k, v)| (k, v.into_iter().collect()))
        .collect()
}

/// Every `x == 'lit'` / `x in ('a', 'b')` comparison: (x, the strings).
struct Compared {
    found: Vec<(Expr, Vec<String>)>,
}

fn strings_of(e: &Expr) -> Option<Vec<String>> {
    let elts = match e {
        Expr::StringLiteral(s) => return Some(vec![s.value.to_str().to_string()]),
        Expr::Tuple(t) => &t.elts,
        Expr::List(l) => &l.elts,
        Expr::Set(s) => &s.elts,
        _ => return None,
    };
    elts.iter()
        .map(|x| match x {
            Expr::StringLiteral(s) => Some(s.value.to_str().to_string()),
            _ => None,
        })
        .collect()
}

impl<'a> Visitor<'a> for Compared {
    fn visit_expr(&mut self, e: &'a Expr) {
        if let Expr::Compare(c) = e
            && let [op] = c.ops.as_ref()
            && let [right] = c.comparators.as_ref()
        {
            let left = c.left.as_ref();
            match op {
                ast::CmpOp::Eq | ast::CmpOp::NotEq => {
                    for (x, y) in [(left, right), (right, left)] {
                        if let (Expr::StringLiteral(_), Some(s)) = (y, strings_of(y)) {
                            self.found.push((x.clone(), s));
                        }
                    }
                }
                ast::CmpOp::In | ast::CmpOp::NotIn => {
                    if !matches!(right, Expr::StringLiteral(_))
                        && let Some(s) = strings_of(right)
                    {
                        self.found.push((left.clone(), s));
                    }
                }
                _ => {}
            }
        }
        visitor::walk_expr(self, e);
    }
}

struct Uses<'f> {
    method: String,
    names: BTreeSet<String>,
    fields: &'f BTreeMap<String, String>,
    seen: BTreeMap<(String, String), BTreeSet<&'static str>>,
}

impl Uses<'_> {
    fn param(&self, e: &Expr) -> Option<(String, String)> {
        key_of(self.fields, &self.method, &self.names, e)
    }

    fn note(&mut self, key: (String, String), kind: &'static str) {
        self.seen.entry(key).or_default().insert(kind);
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
    fn visit_stmt(&mut self, s: &'a Stmt) {
        if let Stmt::For(f) = s
            && let Some(p) = self.param(&f.iter)
        {
            self.note(p, "iterable");
        }
        visitor::walk_stmt(self, s);
    }

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
                if let Expr::Name(f) = c.func.as_ref() {
                    let args = &c.arguments.args;
                    match f.id.as_str() {
                        "range" => {
                            let sized = args.len() == 1;
                            let ps: Vec<_> = args.iter().filter_map(|a| self.param(a)).collect();
                            for p in ps {
                                self.note(p.clone(), "int");
                                if sized {
                                    self.note(p, "size");
                                }
                            }
                        }
                        // iterated or measured: a string or a collection (what else
                        // its use says wins)
                        "len" | "enumerate" | "sorted" | "zip" | "sum" | "max" | "min" => {
                            let ps: Vec<_> = args.iter().filter_map(|a| self.param(a)).collect();
                            for p in ps {
                                self.note(p, "iterable");
                            }
                        }
                        _ => {}
                    }
                }
            }
            // `[' '] * n`, `'-' * n`: a size
            Expr::BinOp(b)
                if matches!(b.op, ast::Operator::Mult)
                    && [&b.left, &b.right]
                        .iter()
                        .any(|x| matches!(x.as_ref(), Expr::List(_) | Expr::StringLiteral(_))) =>
            {
                for x in [&b.left, &b.right] {
                    if let Some(p) = self.param(x) {
                        self.note(p.clone(), "int");
                        self.note(p, "size");
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
                            self.note(p.clone(), k);
                            self.note(p, "bounded"); // `n <= 0`: the class checks its range
                        }
                        // `sex == "male"`: compared with a string, it is one.
                        if let (Some(p), Expr::StringLiteral(_)) = (self.param(x), y)
                            && c.ops
                                .iter()
                                .all(|op| matches!(op, ast::CmpOp::Eq | ast::CmpOp::NotEq))
                        {
                            self.note(p, "str");
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
        let fields = "class B:\n    def __init__(self, weight, name):\n        self.weight = weight\n        self.name = name\n\n    def bmi(self):\n        return self.weight / 2.5, self.name.upper()\n";
        let m = infer(fields, "B");
        let get = |p: &str| m.get(&("__init__".to_string(), p.to_string())).copied();
        assert_eq!(get("weight"), Some("float"));
        assert_eq!(get("name"), Some("str"));
        let compared = "class C:\n    def __init__(self, sex):\n        self.sex = sex\n\n    def f(self):\n        return self.sex == 'male'\n";
        assert_eq!(
            infer(compared, "C").get(&("__init__".to_string(), "sex".to_string())),
            Some(&"str")
        );
    }

    #[test]
    fn sizes_and_collections_are_read_from_their_use() {
        let src = "class G:\n    def __init__(self, n, w):\n        self.rows = [[' '] * w for _ in range(n)]\n\n    def f(self, xs, k, lo):\n        for x in xs:\n            pass\n        return len(k), range(lo, 10)\n";
        let s = sizes(src, "G");
        let key = |m: &str, p: &str| (m.to_string(), p.to_string());
        assert!(s.contains(&key("__init__", "n")));
        assert!(s.contains(&key("__init__", "w")));
        assert!(
            !s.contains(&key("f", "lo")),
            "a range's start is not a size"
        );
        let checked = "class H:\n    def __init__(self, n):\n        if n < 0:\n            raise ValueError()\n        self.rows = [0] * n\n";
        assert!(
            sizes(checked, "H").is_empty(),
            "a size the class checks itself"
        );
        let m = infer(src, "G");
        assert_eq!(m.get(&key("f", "xs")), Some(&"str | list"));
        assert_eq!(m.get(&key("f", "k")), Some(&"str | list"));
        assert_eq!(m.get(&key("f", "lo")), Some(&"int"));
        assert_eq!(m.get(&key("__init__", "w")), Some(&"int"));
    }

    #[test]
    fn documented_alternatives_are_reference_words_the_skeleton_names() {
        let reference =
            "class F:\n    def f(self):\n        return {'male': 1, 'female': 2, 'other': 3}, ''\n";
        let skeleton = "male is 20-25, female is 19-24";
        assert_eq!(
            documented_alternatives(skeleton, reference, "male"),
            ["female"]
        );
        assert!(documented_alternatives("female only", reference, "male").is_empty());
        assert!(documented_alternatives(skeleton, reference, "").is_empty());
    }

    #[test]
    fn strings_a_parameter_is_compared_with_are_its_choices() {
        let src = r#"class T:
    def __init__(self, sex, age):
        self.sex = sex
        self.age = age

    def bmr(self):
        if self.sex == "male":
            return 1
        elif "female" == self.sex:
            return 2

    def convert(self, unit, x):
        if unit in ('m', 'km'):
            return x
        return x == 'y'
"#;
        let c = choices(src, "T");
        let get = |m: &str, p: &str| c.get(&(m.to_string(), p.to_string())).cloned();
        assert_eq!(
            get("__init__", "sex"),
            Some(vec!["female".into(), "male".into()])
        );
        assert_eq!(get("convert", "unit"), Some(vec!["km".into(), "m".into()]));
        assert_eq!(get("convert", "x"), Some(vec!["y".into()]));
        assert_eq!(get("__init__", "age"), None);
    }
}
