//! What the class-level operators need to know about the class: the attributes its methods
//! assign on `self` (in order of first assignment) and its methods' positional arities.

use rustpython_ruff_python_ast::{self as ast, Expr, Stmt};

#[derive(Debug, Default)]
pub(super) struct ClassFacts {
    attributes: Vec<String>,
    /// (name, positional parameters after `self`), dunder methods left out.
    methods: Vec<(String, usize)>,
}

fn is_static(f: &ast::StmtFunctionDef) -> bool {
    f.decorator_list
        .iter()
        .any(|d| matches!(&d.expression, Expr::Name(n) if n.id.as_str() == "staticmethod"))
}

fn is_dunder(name: &str) -> bool {
    name.starts_with("__") && name.ends_with("__")
}

impl ClassFacts {
    pub(super) fn of(class: &ast::StmtClassDef) -> ClassFacts {
        let mut facts = ClassFacts::default();
        for s in &class.body {
            let Stmt::FunctionDef(f) = s else { continue };
            let p = &f.parameters;
            let positional = p.posonlyargs.len() + p.args.len();
            if !is_dunder(f.name.as_str()) {
                let arity = if is_static(f) {
                    positional
                } else {
                    positional.saturating_sub(1)
                };
                facts.methods.push((f.name.to_string(), arity));
            }
            facts.collect(&f.body);
        }
        facts
    }

    fn note(&mut self, target: &Expr) {
        match target {
            Expr::Attribute(a) => {
                if matches!(&*a.value, Expr::Name(n) if n.id.as_str() == "self")
                    && !self.attributes.iter().any(|x| x == a.attr.as_str())
                {
                    self.attributes.push(a.attr.to_string());
                }
            }
            Expr::Tuple(t) => t.elts.iter().for_each(|e| self.note(e)),
            Expr::List(t) => t.elts.iter().for_each(|e| self.note(e)),
            Expr::Starred(s) => self.note(&s.value),
            _ => {}
        }
    }

    fn collect(&mut self, body: &[Stmt]) {
        for s in body {
            match s {
                Stmt::Assign(a) => a.targets.iter().for_each(|t| self.note(t)),
                Stmt::AugAssign(a) => self.note(&a.target),
                Stmt::AnnAssign(a) => self.note(&a.target),
                Stmt::If(i) => {
                    self.collect(&i.body);
                    i.elif_else_clauses
                        .iter()
                        .for_each(|c| self.collect(&c.body));
                }
                Stmt::For(f) => {
                    self.collect(&f.body);
                    self.collect(&f.orelse);
                }
                Stmt::While(w) => {
                    self.collect(&w.body);
                    self.collect(&w.orelse);
                }
                Stmt::With(w) => self.collect(&w.body),
                Stmt::Try(t) => {
                    self.collect(&t.body);
                    for h in &t.handlers {
                        let ast::ExceptHandler::ExceptHandler(h) = h;
                        self.collect(&h.body);
                    }
                    self.collect(&t.orelse);
                    self.collect(&t.finalbody);
                }
                Stmt::Match(m) => m.cases.iter().for_each(|c| self.collect(&c.body)),
                _ => {}
            }
        }
    }

    /// The attribute after `name` in order of first assignment (cyclically); `None` when the
    /// class assigns no other.
    pub(super) fn next_attribute(&self, name: &str) -> Option<String> {
        next_after(&self.attributes, name, |_| true)
    }

    /// The method after `name` (cyclically) with as many positional parameters.
    pub(super) fn sibling(&self, name: &str) -> Option<String> {
        let (_, arity) = self.methods.iter().find(|(n, _)| n == name)?;
        let names: Vec<String> = self.methods.iter().map(|(n, _)| n.clone()).collect();
        next_after(&names, name, |other| {
            self.methods.iter().any(|(n, a)| n == other && a == arity)
        })
    }
}

fn next_after(list: &[String], name: &str, ok: impl Fn(&str) -> bool) -> Option<String> {
    let at = list.iter().position(|x| x == name)?;
    (1..list.len())
        .map(|k| &list[(at + k) % list.len()])
        .find(|x| ok(x))
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::ruff::RuffModule;

    fn facts(src: &str) -> ClassFacts {
        let m = RuffModule::parse(src).unwrap();
        let Some(Stmt::ClassDef(c)) = m.body().first() else {
            panic!("no class")
        };
        ClassFacts::of(c)
    }

    #[test]
    fn attributes_in_order_and_siblings_by_arity() {
        let f = facts(
            "class A:\n    def __init__(self):\n        self.a = 1\n        self.b, self.c = 2, 3\n\
             \n    def f(self, x):\n        if x:\n            self.d += 1\n        self.a = x\n\
             \n    def g(self, y):\n        pass\n\n    def h(self):\n        pass\n\
             \n    @staticmethod\n    def s(z):\n        pass\n",
        );
        assert_eq!(f.attributes, ["a", "b", "c", "d"]);
        assert_eq!(f.next_attribute("d").as_deref(), Some("a"));
        assert_eq!(f.next_attribute("zz"), None);
        assert_eq!(f.sibling("f").as_deref(), Some("g"));
        assert_eq!(f.sibling("g").as_deref(), Some("s"));
        assert_eq!(f.sibling("s").as_deref(), Some("f"));
        assert_eq!(f.sibling("h"), None, "no other method without parameters");
        assert_eq!(f.sibling("__init__"), None);
    }
}
