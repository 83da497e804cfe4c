//! Mutants of a reference class from ruff's AST (the project's one extraction model:
//! `corpus::ruff::RuffModule`). Statements are walked here; expressions in `expr.rs`; what the
//! class-level operators need to know about the class (its attributes and methods) in
//! `class.rs`. The result is sorted by position and free of duplicates; every mutant parses
//! (checked on all of ClassEval in the tests).

mod class;
mod expr;
#[cfg(test)]
mod tests;

use rustpython_ruff_python_ast::{self as ast, Expr, Stmt};
use rustpython_ruff_text_size::{Ranged, TextRange};

use super::mutant::Mutant;
use super::operators::Operator;
use crate::corpus::ruff::RuffModule;
use class::ClassFacts;

/// Why no mutants could be generated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GenerateError {
    #[error("the reference does not parse (ruff's parser rejects it)")]
    Syntax,
    #[error("class `{0}` not found at the top level of the reference")]
    NoClass(String),
}

/// Every mutant of class `class_name` in `src`, in source order.
pub fn mutants(src: &str, class_name: &str) -> Result<Vec<Mutant>, GenerateError> {
    let module = RuffModule::parse(src).ok_or(GenerateError::Syntax)?;
    let class = module
        .body()
        .iter()
        .find_map(|s| match s {
            Stmt::ClassDef(c) if c.name.as_str() == class_name => Some(c),
            _ => None,
        })
        .ok_or_else(|| GenerateError::NoClass(class_name.to_string()))?;
    let mut walk = Walk {
        src,
        module: &module,
        facts: ClassFacts::of(class),
        out: Vec::new(),
        lines: (1, 1),
        scope: None,
        in_init: false,
        own_class: true,
    };
    walk.block(&class.body, false);
    let mut out = walk.out;
    out.sort_by(|a, b| {
        (a.start, a.end, a.op, &a.replacement).cmp(&(b.start, b.end, b.op, &b.replacement))
    });
    out.dedup_by(|a, b| (a.start, a.end, &a.replacement) == (b.start, b.end, &b.replacement));
    Ok(out)
}

pub(super) fn us(r: TextRange) -> (usize, usize) {
    (r.start().to_usize(), r.end().to_usize())
}

struct Walk<'a, 's> {
    src: &'s str,
    module: &'a RuffModule<'s>,
    facts: ClassFacts,
    out: Vec<Mutant>,
    /// Lines of the statement (or header) being walked.
    lines: (usize, usize),
    /// Body lines of the function whose header is being walked.
    scope: Option<(usize, usize)>,
    /// Directly in the class's `__init__`.
    in_init: bool,
    /// In the target class itself (not a class nested in it): `self` is its instance.
    own_class: bool,
}

fn is_docstring(s: &Stmt) -> bool {
    matches!(s, Stmt::Expr(e) if matches!(*e.value, Expr::StringLiteral(_) | Expr::FString(_)))
}

impl<'s> Walk<'_, 's> {
    fn line(&self, byte: usize) -> usize {
        self.module.row(byte) + 1
    }

    fn text(&self, (a, b): (usize, usize)) -> &'s str {
        self.src.get(a..b).unwrap_or("")
    }

    fn push(
        &mut self,
        op: Operator,
        span: (usize, usize),
        replacement: String,
        context: TextRange,
    ) {
        if self.text(span) == replacement {
            return;
        }
        let (cs, ce) = us(context);
        self.out.push(Mutant {
            op,
            start: span.0,
            end: span.1,
            replacement,
            context: (cs.min(span.0), ce.max(span.1)),
            lines: self.lines,
            scope: self.scope,
        });
    }

    /// The operator token(s) between two operands: what is left of `lo..hi` without
    /// parentheses, comments and line breaks (`not in` and `is not` are two tokens).
    fn op_between(&self, lo: usize, hi: usize) -> Option<(usize, usize)> {
        use rustpython_ruff_python_ast::token::TokenKind as K;
        let toks = self.module.tokens_in(lo, hi);
        let mut it = toks.iter().filter(|t| {
            !matches!(
                t.kind(),
                K::Lpar | K::Rpar | K::Comment | K::NonLogicalNewline | K::Newline
            )
        });
        let first = it.next()?;
        let last = it.last().unwrap_or(first);
        Some((first.start().to_usize(), last.end().to_usize()))
    }

    fn block(&mut self, body: &[Stmt], in_loop: bool) {
        for (i, s) in body.iter().enumerate() {
            if i == 0 && is_docstring(s) {
                continue;
            }
            self.stmt(s, in_loop);
        }
    }

    fn simple_lines(&mut self, s: &Stmt) {
        let (a, b) = us(s.range());
        self.lines = (self.line(a), self.line(b.saturating_sub(1).max(a)));
    }

    fn header_lines(&mut self, s: &Stmt, head_end: usize) {
        let a = s.start().to_usize();
        self.lines = (self.line(a), self.line(head_end.max(a)));
    }

    fn delete(&mut self, s: &Stmt, op: Operator) {
        self.push(op, us(s.range()), "pass".into(), s.range());
    }

    fn stmt(&mut self, s: &Stmt, in_loop: bool) {
        match s {
            Stmt::FunctionDef(f) => self.function(f),
            Stmt::ClassDef(c) => {
                let own = std::mem::replace(&mut self.own_class, false);
                self.block(&c.body, false);
                self.own_class = own;
            }
            Stmt::Expr(e) => {
                self.simple_lines(s);
                if !matches!(
                    *e.value,
                    Expr::StringLiteral(_) | Expr::FString(_) | Expr::EllipsisLiteral(_)
                ) {
                    self.delete(s, Operator::StatementDeletion);
                }
                self.expr(&e.value);
            }
            Stmt::Assign(a) => {
                self.simple_lines(s);
                let init = self.in_init && a.targets.iter().all(|t| self.self_attr(t).is_some());
                self.delete(
                    s,
                    if init {
                        Operator::InitRemoval
                    } else {
                        Operator::StatementDeletion
                    },
                );
                for t in &a.targets {
                    self.target(t);
                }
                self.expr(&a.value);
            }
            Stmt::AnnAssign(a) => {
                self.simple_lines(s);
                if let Some(v) = &a.value {
                    let init = self.in_init && self.self_attr(&a.target).is_some();
                    let op = if init {
                        Operator::InitRemoval
                    } else {
                        Operator::StatementDeletion
                    };
                    self.delete(s, op);
                    self.target(&a.target);
                    self.expr(v);
                }
            }
            Stmt::AugAssign(a) => {
                self.simple_lines(s);
                self.delete(s, Operator::StatementDeletion);
                if let Some(span) =
                    self.op_between(a.target.end().to_usize(), a.value.start().to_usize())
                    && let Some(new) = expr::arithmetic(a.op)
                {
                    self.push(
                        Operator::Arithmetic,
                        span,
                        format!("{}=", new.as_str()),
                        s.range(),
                    );
                }
                self.target(&a.target);
                self.expr(&a.value);
            }
            Stmt::Return(r) => {
                self.simple_lines(s);
                if let Some(v) = &r.value {
                    self.return_value(v, s.range());
                    self.expr_unless_bool(v);
                }
            }
            Stmt::Raise(r) => {
                self.simple_lines(s);
                self.delete(s, Operator::StatementDeletion);
                if let Some(e) = &r.exc {
                    self.expr(e);
                }
            }
            Stmt::Delete(_) => {
                self.simple_lines(s);
                self.delete(s, Operator::StatementDeletion);
            }
            Stmt::Assert(a) => {
                self.simple_lines(s);
                self.delete(s, Operator::StatementDeletion);
                self.expr(&a.test);
            }
            Stmt::Break(_) | Stmt::Continue(_) if in_loop => {
                self.simple_lines(s);
                let new = if matches!(s, Stmt::Break(_)) {
                    "continue"
                } else {
                    "break"
                };
                self.push(
                    Operator::BreakContinue,
                    us(s.range()),
                    new.into(),
                    s.range(),
                );
            }
            Stmt::If(i) => {
                self.header_lines(s, i.test.end().to_usize());
                self.condition(&i.test);
                self.block(&i.body, in_loop);
                for c in &i.elif_else_clauses {
                    if let Some(t) = &c.test {
                        let a = c.range.start().to_usize();
                        self.lines = (self.line(a), self.line(t.end().to_usize()));
                        self.condition(t);
                    }
                    self.block(&c.body, in_loop);
                }
            }
            Stmt::While(w) => {
                self.header_lines(s, w.test.end().to_usize());
                self.condition(&w.test);
                self.block(&w.body, true);
                self.block(&w.orelse, in_loop);
            }
            Stmt::For(f) => {
                self.header_lines(s, f.iter.end().to_usize());
                self.expr(&f.iter);
                self.block(&f.body, true);
                self.block(&f.orelse, in_loop);
            }
            Stmt::With(w) => {
                let end = w.items.last().map_or(s.start(), |i| i.range.end());
                self.header_lines(s, end.to_usize());
                for item in &w.items {
                    self.expr(&item.context_expr);
                }
                self.block(&w.body, in_loop);
            }
            Stmt::Try(t) => {
                self.block(&t.body, in_loop);
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    self.handler(h);
                    self.block(&h.body, in_loop);
                }
                self.block(&t.orelse, in_loop);
                self.block(&t.finalbody, in_loop);
            }
            Stmt::Match(m) => {
                for c in &m.cases {
                    self.block(&c.body, in_loop);
                }
            }
            _ => {}
        }
    }

    /// `def`: defaults and decorators belong to the header (run when the class is defined;
    /// their tests are those that run the body), then the body.
    fn function(&mut self, f: &ast::StmtFunctionDef) {
        let Some(first) = f.body.first() else { return };
        let body_lines = (
            self.line(first.start().to_usize()),
            self.line(f.end().to_usize().saturating_sub(1)),
        );
        let head = (
            self.line(f.start().to_usize()),
            self.line(f.parameters.end().to_usize()),
        );
        let (lines, scope) = (self.lines, self.scope);
        self.lines = head;
        self.scope = Some(body_lines);
        for d in &f.decorator_list {
            self.lines = (
                self.line(d.start().to_usize()),
                self.line(d.end().to_usize()),
            );
            self.expr(&d.expression);
        }
        for p in f.parameters.iter_non_variadic_params() {
            if let Some(d) = &p.default {
                self.lines = (
                    self.line(d.start().to_usize()),
                    self.line(d.end().to_usize()),
                );
                self.default_argument(d, p.range);
            }
        }
        self.scope = None;
        let init = std::mem::replace(
            &mut self.in_init,
            self.own_class && f.name.as_str() == "__init__",
        );
        self.block(&f.body, false);
        self.in_init = init;
        (self.lines, self.scope) = (lines, scope);
    }

    /// An `except` handler whose body becomes `raise`.
    fn handler(&mut self, h: &ast::ExceptHandlerExceptHandler) {
        let (Some(first), Some(last)) = (h.body.first(), h.body.last()) else {
            return;
        };
        if h.body.len() == 1 && matches!(first, Stmt::Raise(r) if r.exc.is_none()) {
            return;
        }
        let a = first.start().to_usize();
        self.lines = (self.line(h.start().to_usize()), self.line(a));
        let span = (a, last.end().to_usize());
        self.push(
            Operator::ExceptionHandler,
            span,
            "raise".into(),
            TextRange::new(first.start(), first.end()),
        );
    }

    /// `self.x` in the target class: the attribute's identifier.
    fn self_attr<'e>(&self, e: &'e Expr) -> Option<&'e ast::Identifier> {
        match e {
            Expr::Attribute(a) if self.own_class => match &*a.value {
                Expr::Name(n) if n.id.as_str() == "self" => Some(&a.attr),
                _ => None,
            },
            _ => None,
        }
    }

    /// An assignment target: `self.a` may become another attribute; expressions inside
    /// (subscripts, attribute bases) are mutated like any other.
    fn target(&mut self, t: &Expr) {
        match t {
            Expr::Tuple(x) => x.elts.iter().for_each(|e| self.target(e)),
            Expr::List(x) => x.elts.iter().for_each(|e| self.target(e)),
            Expr::Starred(x) => self.target(&x.value),
            Expr::Attribute(a) => {
                if let Some(id) = self.self_attr(t)
                    && let Some(other) = self.facts.next_attribute(id.as_str())
                {
                    self.push(Operator::SelfAttribute, us(id.range), other, a.range);
                }
                self.expr(&a.value);
            }
            Expr::Subscript(s) => {
                self.expr(&s.value);
                self.expr(&s.slice);
            }
            _ => {}
        }
    }
}
