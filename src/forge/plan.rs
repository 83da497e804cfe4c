//! What the explorer needs to know about a class, read with ruff's parser from the task's
//! skeleton (the public methods, their parameters with annotations, defaults and documented
//! types, the fields `__init__` declares, the doctest examples) and its reference (the
//! constant pool: every literal). The plan is the explorer's input (`assets/forge/explore.py`).

use rustpython_ruff_python_ast::visitor::{self, Visitor};
use rustpython_ruff_python_ast::{self as ast, Expr, Stmt};
use rustpython_ruff_python_parser::parse_module;
use rustpython_ruff_text_size::Ranged;
use serde::Serialize;

mod constructor;
mod doc;
mod pool;

use constructor::{constructor, type_aliases, unalias};
use doc::{choice_type, description, documented_type, enumerated, exception_names, names_a_type};
pub(in crate::forge) use pool::is_literal;
pub use pool::python_str;
use pool::{collect_examples, keys, literals, record_type};

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

fn docstring(body: &[Stmt]) -> String {
    match body.first() {
        Some(Stmt::Expr(e)) => match e.value.as_ref() {
            Expr::StringLiteral(s) => s.value.to_str().to_string(),
            _ => String::new(),
        },
        _ => String::new(),
    }
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
