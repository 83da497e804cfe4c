//! Which module-level names a piece of Python code reads, and which it binds, as Python's scoping
//! rules decide them: a name assigned in a function is local to it; a class body's names are not
//! visible in its methods; comprehensions and lambdas are scopes of their own; `global`
//! declarations read and write the module; a walrus binds in the enclosing function. What is left
//! over (the *free* names) is what the module (or the builtins) must provide: the input of a
//! class's executable closure (`closure.rs`).

use rustc_hash::FxHashSet;
use rustpython_ruff_python_ast::visitor::{self, Visitor};
use rustpython_ruff_python_ast::{self as ast, Expr, ExprContext, Stmt};

/// What a module-level statement (or a class, anywhere) needs and provides.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Names<'a> {
    /// Module-level names it binds (sorted, distinct).
    pub bound: Vec<&'a str>,
    /// Names it reads that none of its own scopes binds: module-level names or builtins
    /// (sorted, distinct). Its own bindings are not counted.
    pub free: Vec<&'a str>,
    /// `nonlocal` names no function of its own binds: variables of a function around it, so
    /// it cannot stand alone (not even compile).
    pub nonlocal: Vec<&'a str>,
}

/// The names of one module-level statement.
pub fn of_statement(stmt: &Stmt) -> Names<'_> {
    let mut s = Scopes::new();
    s.visit_stmt(stmt);
    s.finish()
}

/// The names of a class as if it stood at module level (what its code needs wherever it is
/// nested: its decorators, bases and keywords, its body and its methods).
pub fn of_class(class: &ast::StmtClassDef) -> Names<'_> {
    let mut s = Scopes::new();
    s.class_def(class);
    s.finish()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Module,
    Class,
    Function,
    Comprehension,
}

struct Scope<'a> {
    kind: Kind,
    bound: FxHashSet<&'a str>,
    global: FxHashSet<&'a str>,
    nonlocal: FxHashSet<&'a str>,
    loads: Vec<&'a str>,
    /// Free names of the scopes nested in this one.
    inner: Vec<&'a str>,
    /// `nonlocal` names of nested scopes that no scope between them and this one binds.
    needs: Vec<&'a str>,
}

impl<'a> Scope<'a> {
    fn new(kind: Kind) -> Self {
        Scope {
            kind,
            bound: FxHashSet::default(),
            global: FxHashSet::default(),
            nonlocal: FxHashSet::default(),
            loads: Vec::new(),
            inner: Vec::new(),
            needs: Vec::new(),
        }
    }

    /// Bound here, so not looked up further out (a `global` name is the module's).
    fn binds(&self, name: &str) -> bool {
        (self.bound.contains(name) && !self.global.contains(name)) || self.nonlocal.contains(name)
    }

    /// The `nonlocal` names this scope leaves to the functions around it: its own, and its
    /// nested scopes' that it does not bind (a class binds none for them).
    fn needs(&self) -> Vec<&'a str> {
        let mut out: Vec<&'a str> = self.nonlocal.iter().copied().collect();
        out.extend(self.needs.iter().copied().filter(|n| {
            self.kind == Kind::Class
                || self.nonlocal.contains(n)
                || !self.bound.contains(n)
                || self.global.contains(n)
        }));
        out
    }

    /// The names this scope leaves to the ones around it.
    fn free(self) -> Vec<&'a str> {
        match self.kind {
            // A class body's names are not visible in its methods: theirs pass through.
            Kind::Class => {
                let mut out: Vec<&str> = self
                    .loads
                    .iter()
                    .copied()
                    .filter(|n| !self.binds(n))
                    .collect();
                out.extend(
                    self.inner
                        .iter()
                        .copied()
                        .filter(|n| !self.nonlocal.contains(n) && *n != "__class__"),
                );
                out
            }
            _ => self
                .loads
                .iter()
                .chain(&self.inner)
                .copied()
                .filter(|n| !self.binds(n))
                .collect(),
        }
    }
}

struct Scopes<'a> {
    stack: Vec<Scope<'a>>,
    /// Module-level names read before this statement binds them again (`__all__ += …`).
    rebound: Vec<&'a str>,
}

impl<'a> Scopes<'a> {
    fn new() -> Self {
        Scopes {
            stack: vec![Scope::new(Kind::Module)],
            rebound: Vec::new(),
        }
    }

    fn top(&mut self) -> &mut Scope<'a> {
        // The module scope is never popped.
        let last = self.stack.len() - 1;
        &mut self.stack[last]
    }

    fn bind(&mut self, name: &'a str) {
        self.top().bound.insert(name);
    }

    fn load(&mut self, name: &'a str) {
        self.top().loads.push(name);
    }

    fn push(&mut self, kind: Kind) {
        self.stack.push(Scope::new(kind));
    }

    fn pop(&mut self) {
        if self.stack.len() > 1
            && let Some(scope) = self.stack.pop()
        {
            let needs = scope.needs();
            let free = scope.free();
            self.top().inner.extend(free);
            self.top().needs.extend(needs);
        }
    }

    fn finish(mut self) -> Names<'a> {
        while self.stack.len() > 1 {
            self.pop();
        }
        let module = self.stack.swap_remove(0);
        let mut bound: Vec<&str> = module.bound.iter().copied().collect();
        bound.sort_unstable();
        let mut free: Vec<&str> = module
            .loads
            .iter()
            .chain(&module.inner)
            .copied()
            .filter(|n| !module.bound.contains(n))
            .chain(self.rebound)
            .collect();
        free.sort_unstable();
        free.dedup();
        let mut nonlocal = module.needs;
        nonlocal.sort_unstable();
        nonlocal.dedup();
        Names {
            bound,
            free,
            nonlocal,
        }
    }

    /// Type parameters (PEP 695) live in a scope of their own around what they annotate.
    fn type_params(&mut self, params: Option<&'a ast::TypeParams>) -> bool {
        let Some(params) = params else {
            return false;
        };
        self.push(Kind::Function);
        for p in &params.type_params {
            let name = match p {
                ast::TypeParam::TypeVar(t) => &t.name,
                ast::TypeParam::TypeVarTuple(t) => &t.name,
                ast::TypeParam::ParamSpec(t) => &t.name,
            };
            self.bind(name.as_str());
        }
        visitor::walk_type_params(self, params);
        true
    }

    fn class_def(&mut self, c: &'a ast::StmtClassDef) {
        for d in &c.decorator_list {
            self.visit_decorator(d);
        }
        let typed = self.type_params(c.type_params.as_deref());
        if let Some(args) = &c.arguments {
            self.visit_arguments(args);
        }
        self.push(Kind::Class);
        self.visit_body(&c.body);
        self.pop();
        if typed {
            self.pop();
        }
        self.bind(c.name.as_str());
    }

    fn function_def(&mut self, f: &'a ast::StmtFunctionDef) {
        for d in &f.decorator_list {
            self.visit_decorator(d);
        }
        let typed = self.type_params(f.type_params.as_deref());
        // Defaults and annotations are evaluated where the function is defined.
        visitor::walk_parameters(self, &f.parameters);
        if let Some(r) = &f.returns {
            self.visit_annotation(r);
        }
        self.push(Kind::Function);
        for p in f.parameters.iter() {
            self.bind(p.name().as_str());
        }
        self.visit_body(&f.body);
        self.pop();
        if typed {
            self.pop();
        }
        self.bind(f.name.as_str());
    }

    fn comprehension(&mut self, generators: &'a [ast::Comprehension], elts: &[&'a Expr]) {
        // The first iterable is evaluated outside the comprehension's scope.
        if let Some(first) = generators.first() {
            self.visit_expr(&first.iter);
        }
        self.push(Kind::Comprehension);
        for (i, g) in generators.iter().enumerate() {
            if i > 0 {
                self.visit_expr(&g.iter);
            }
            self.visit_expr(&g.target);
            for cond in &g.ifs {
                self.visit_expr(cond);
            }
        }
        for e in elts {
            self.visit_expr(e);
        }
        self.pop();
    }

    /// A walrus binds in the nearest scope that is not a comprehension.
    fn bind_walrus(&mut self, name: &'a str) {
        if let Some(scope) = self
            .stack
            .iter_mut()
            .rev()
            .find(|s| s.kind != Kind::Comprehension)
        {
            scope.bound.insert(name);
        }
    }
}

impl<'a> Visitor<'a> for Scopes<'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(f) => self.function_def(f),
            Stmt::ClassDef(c) => self.class_def(c),
            Stmt::Import(i) => {
                for a in &i.names {
                    let bound = match &a.asname {
                        Some(x) => x.as_str(),
                        None => a.name.as_str().split('.').next().unwrap_or(""),
                    };
                    self.bind(bound);
                }
            }
            Stmt::ImportFrom(i) => {
                for a in &i.names {
                    if a.name.as_str() != "*" {
                        self.bind(a.asname.as_ref().unwrap_or(&a.name).as_str());
                    }
                }
            }
            Stmt::Global(g) => {
                for n in &g.names {
                    self.top().global.insert(n.as_str());
                }
            }
            Stmt::Nonlocal(g) => {
                for n in &g.names {
                    self.top().nonlocal.insert(n.as_str());
                }
            }
            Stmt::AugAssign(a) => {
                // `x += 1` reads `x` as well as binding it; at module level, from an earlier
                // statement (so it stays free even though this statement binds it too).
                if let Expr::Name(n) = &*a.target {
                    if self.stack.len() == 1 {
                        self.rebound.push(n.id.as_str());
                    } else {
                        self.load(n.id.as_str());
                    }
                }
                visitor::walk_stmt(self, stmt);
            }
            _ => visitor::walk_stmt(self, stmt),
        }
    }

    fn visit_except_handler(&mut self, h: &'a ast::ExceptHandler) {
        let ast::ExceptHandler::ExceptHandler(h) = h;
        if let Some(t) = &h.type_ {
            self.visit_expr(t);
        }
        if let Some(n) = &h.name {
            self.bind(n.as_str());
        }
        self.visit_body(&h.body);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Name(n) => match n.ctx {
                ExprContext::Load => self.load(n.id.as_str()),
                ExprContext::Store | ExprContext::Del => self.bind(n.id.as_str()),
                ExprContext::Invalid => {}
            },
            Expr::Named(n) => {
                self.visit_expr(&n.value);
                match &*n.target {
                    Expr::Name(t) => self.bind_walrus(t.id.as_str()),
                    other => self.visit_expr(other),
                }
            }
            Expr::Lambda(l) => {
                if let Some(p) = &l.parameters {
                    for d in p
                        .iter_non_variadic_params()
                        .filter_map(|x| x.default.as_deref())
                    {
                        self.visit_expr(d);
                    }
                }
                self.push(Kind::Function);
                if let Some(p) = &l.parameters {
                    for x in p.iter() {
                        self.bind(x.name().as_str());
                    }
                }
                self.visit_expr(&l.body);
                self.pop();
            }
            Expr::ListComp(c) => self.comprehension(&c.generators, &[&c.elt]),
            Expr::SetComp(c) => self.comprehension(&c.generators, &[&c.elt]),
            Expr::Generator(c) => self.comprehension(&c.generators, &[&c.elt]),
            Expr::DictComp(c) => self.comprehension(&c.generators, &[&c.key, &c.value]),
            _ => visitor::walk_expr(self, expr),
        }
    }

    fn visit_pattern(&mut self, p: &'a ast::Pattern) {
        match p {
            ast::Pattern::MatchAs(m) => {
                if let Some(n) = &m.name {
                    self.bind(n.as_str());
                }
            }
            ast::Pattern::MatchStar(m) => {
                if let Some(n) = &m.name {
                    self.bind(n.as_str());
                }
            }
            ast::Pattern::MatchMapping(m) => {
                if let Some(n) = &m.rest {
                    self.bind(n.as_str());
                }
            }
            _ => {}
        }
        visitor::walk_pattern(self, p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustpython_ruff_python_parser::parse_module;

    fn names(src: &str) -> (Vec<String>, Vec<String>) {
        let parsed = parse_module(src).unwrap();
        let mut bound = Vec::new();
        let mut free = Vec::new();
        for s in &parsed.syntax().body {
            let n = of_statement(s);
            bound.extend(n.bound.iter().map(|x| x.to_string()));
            free.extend(n.free.iter().map(|x| x.to_string()));
        }
        bound.sort();
        free.sort();
        free.dedup();
        (bound, free)
    }

    #[test]
    fn function_locals_parameters_and_globals() {
        let (b, f) = names(
            "def f(a, b=DEFAULT, *args, c: Ann = 1, **kw) -> Ret:\n    x = a + helper(b)\n    global G\n    G = x\n    for i in range(3):\n        y = i\n    return y, G, os.sep\n",
        );
        assert_eq!(b, ["f"]);
        assert_eq!(f, ["Ann", "DEFAULT", "G", "Ret", "helper", "os", "range"]);
    }

    #[test]
    fn class_bodies_do_not_scope_their_methods() {
        let src = "@deco(X)\nclass C(Base, metaclass=Meta):\n    K = 1\n    L = K + 1\n    def m(self):\n        return K, C, super().m(), __class__\n";
        let (b, f) = names(src);
        assert_eq!(b, ["C"]);
        // `K` in the method is the module's `K`, not the class attribute; `C` is its own.
        assert_eq!(f, ["Base", "K", "Meta", "X", "deco", "super"]);
        let parsed = parse_module(src).unwrap();
        let Stmt::ClassDef(c) = &parsed.syntax().body[0] else {
            panic!()
        };
        assert_eq!(of_class(c).free, f);
    }

    #[test]
    fn comprehensions_lambdas_walrus_and_handlers() {
        let (b, f) = names(
            "V = [x * k for x in xs if (k := x) and y]\nW = lambda a, d=D: a + z\ntry:\n    import json\nexcept ImportError as e:\n    json = e\n",
        );
        assert_eq!(b, ["V", "W", "e", "json", "k"]);
        assert_eq!(f, ["D", "ImportError", "xs", "y", "z"]);
    }

    #[test]
    fn nonlocal_names_of_an_enclosing_function_are_reported() {
        let src = "def outer():\n    n = 0\n    class C:\n        def inc(self):\n            nonlocal n\n            def deeper():\n                nonlocal k\n            k = 1\n            n += 1\n    return C\n";
        let parsed = parse_module(src).unwrap();
        let Stmt::FunctionDef(f) = &parsed.syntax().body[0] else {
            panic!()
        };
        let Stmt::ClassDef(c) = &f.body[1] else {
            panic!()
        };
        // `k` is bound by `inc` itself; `n` belongs to `outer`, which the class leaves behind.
        assert_eq!(of_class(c).nonlocal, ["n"]);
        assert!(of_statement(&parsed.syntax().body[0]).nonlocal.is_empty());
    }

    #[test]
    fn imports_bind_their_first_component_or_alias() {
        let (b, f) = names(
            "import os.path\nimport numpy as np\nfrom . import sib\nfrom a import b as c\nfrom a import *\n",
        );
        assert_eq!(b, ["c", "np", "os", "sib"]);
        assert!(f.is_empty());
    }

    #[test]
    fn augmented_assignment_reads_its_target_and_match_binds() {
        let (b, f) = names(
            "__all__ += ['x']\nmatch v:\n    case {'k': p, **rest}:\n        q = p\n    case [first, *others] as whole:\n        pass\n",
        );
        assert!(b.contains(&"__all__".to_string()) && b.contains(&"rest".to_string()));
        assert!(b.contains(&"whole".to_string()) && b.contains(&"others".to_string()));
        assert_eq!(f, ["__all__", "v"]);
    }
}
