//! Expression-level operators: arithmetic, comparison, boundary, boolean, unary, negation,
//! constants, return values, default arguments and sibling calls.

use rustpython_ruff_python_ast::{self as ast, BoolOp, CmpOp, Expr, Number, UnaryOp};
use rustpython_ruff_text_size::{Ranged, TextRange};

use super::{Walk, us};
use crate::rigor::operators::Operator;

/// The arithmetic operator an operator becomes.
pub(super) fn arithmetic(op: ast::Operator) -> Option<ast::Operator> {
    use ast::Operator as O;
    Some(match op {
        O::Add => O::Sub,
        O::Sub => O::Add,
        O::Mult => O::Div,
        O::Div => O::Mult,
        O::FloorDiv => O::Div,
        O::Mod => O::Mult,
        O::Pow => O::Mult,
        O::LShift => O::RShift,
        O::RShift => O::LShift,
        O::BitAnd => O::BitOr,
        O::BitOr => O::BitAnd,
        O::BitXor => O::BitAnd,
        O::MatMult => O::Mult,
    })
}

fn comparison(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Eq => CmpOp::NotEq,
        CmpOp::NotEq => CmpOp::Eq,
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::LtE => CmpOp::GtE,
        CmpOp::GtE => CmpOp::LtE,
        CmpOp::Is => CmpOp::IsNot,
        CmpOp::IsNot => CmpOp::Is,
        CmpOp::In => CmpOp::NotIn,
        CmpOp::NotIn => CmpOp::In,
    }
}

fn boundary(op: CmpOp) -> Option<CmpOp> {
    match op {
        CmpOp::Lt => Some(CmpOp::LtE),
        CmpOp::LtE => Some(CmpOp::Lt),
        CmpOp::Gt => Some(CmpOp::GtE),
        CmpOp::GtE => Some(CmpOp::Gt),
        _ => None,
    }
}

/// `n + 1` for an integer or float literal (as Python writes it); `None` for complex numbers,
/// integers beyond u64 and results that are not finite.
fn bumped(n: &Number) -> Option<String> {
    match n {
        Number::Int(i) => i
            .as_u64()
            .and_then(|v| v.checked_add(1))
            .map(|v| v.to_string()),
        Number::Float(f) => Some(f + 1.0)
            .filter(|v| v.is_finite())
            .map(|v| format!("{v:?}")),
        Number::Complex { .. } => None,
    }
}

/// A string literal with `XX` inside both quotes (prefix and quote style kept).
fn marked(literal: &str) -> Option<String> {
    let prefix = literal.bytes().take_while(u8::is_ascii_alphabetic).count();
    let rest = literal.get(prefix..)?;
    let quote = rest.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let q = if rest.starts_with(&quote.to_string().repeat(3)) && rest.len() >= 6 {
        3
    } else {
        1
    };
    let inner = rest.get(q..rest.len().checked_sub(q)?)?;
    Some(format!(
        "{}{}XX{inner}XX{}",
        &literal[..prefix],
        &rest[..q],
        &rest[rest.len() - q..]
    ))
}

fn empty_container(e: &Expr) -> Option<&'static str> {
    match e {
        Expr::List(l) if !l.elts.is_empty() => Some("[]"),
        Expr::Tuple(t) if !t.elts.is_empty() => Some("()"),
        Expr::Set(_) | Expr::SetComp(_) => Some("set()"),
        Expr::Dict(d) if !d.items.is_empty() => Some("{}"),
        Expr::ListComp(_) => Some("[]"),
        Expr::DictComp(_) => Some("{}"),
        _ => None,
    }
}

impl Walk<'_, '_> {
    /// `return v`: `None`, the opposite bool, an empty container.
    pub(super) fn return_value(&mut self, v: &Expr, stmt: TextRange) {
        let span = us(v.range());
        match v {
            Expr::NoneLiteral(_) => {}
            Expr::BooleanLiteral(b) => {
                let new = if b.value { "False" } else { "True" };
                self.push(Operator::ReturnValue, span, new.into(), stmt);
            }
            _ => {
                self.push(Operator::ReturnValue, span, "None".into(), stmt);
                if let Some(empty) = empty_container(v) {
                    self.push(Operator::ReturnValue, span, empty.into(), stmt);
                }
            }
        }
    }

    /// A returned value's own mutants, except a returned bool (the return-value operator
    /// already flips it).
    pub(super) fn expr_unless_bool(&mut self, v: &Expr) {
        if !matches!(v, Expr::BooleanLiteral(_)) {
            self.expr(v);
        }
    }

    /// The condition of `if`/`elif`/`while`/a conditional expression: negated, then its own
    /// mutants. Not negated when it is a `not`, or one membership or identity test: the
    /// comparison operator already makes `a not in b`, and the compiler makes `not (a in b)`
    /// the very same bytecode (a duplicate mutant).
    pub(super) fn condition(&mut self, test: &Expr) {
        let negates_itself = matches!(test, Expr::Compare(c) if c.ops.len() == 1
            && matches!(c.ops[0], CmpOp::In | CmpOp::NotIn | CmpOp::Is | CmpOp::IsNot));
        if !negates_itself && !matches!(test, Expr::UnaryOp(u) if u.op == UnaryOp::Not) {
            let span = us(test.range());
            let new = format!("not ({})", self.text(span));
            self.push(Operator::Negation, span, new, test.range());
        }
        self.expr(test);
    }

    /// A parameter's default value, changed.
    pub(super) fn default_argument(&mut self, d: &Expr, param: TextRange) {
        let span = us(d.range());
        let new = match d {
            Expr::BooleanLiteral(b) => Some(if b.value { "False" } else { "True" }.to_string()),
            Expr::NumberLiteral(n) => bumped(&n.value),
            Expr::StringLiteral(s) => s
                .value
                .as_slice()
                .first()
                .and_then(|p| marked(self.text(us(p.range)))),
            Expr::NoneLiteral(_) => Some("0".into()),
            _ => Some("None".into()),
        };
        if let Some(new) = new {
            self.push(Operator::DefaultArgument, span, new, param);
        }
    }

    fn constant(&mut self, e: &Expr) {
        match e {
            Expr::NumberLiteral(n) => {
                if let Some(new) = bumped(&n.value) {
                    self.push(Operator::Constant, us(n.range), new, n.range);
                }
            }
            Expr::BooleanLiteral(b) => {
                let new = if b.value { "False" } else { "True" };
                self.push(Operator::Constant, us(b.range), new.into(), b.range);
            }
            Expr::StringLiteral(s) => {
                if let Some(p) = s.value.as_slice().first()
                    && let Some(new) = marked(self.text(us(p.range)))
                {
                    self.push(Operator::Constant, us(p.range), new, p.range);
                }
            }
            _ => {}
        }
    }

    /// Operator tokens of a binary operation, comparison or boolean operation.
    fn between(&self, a: &Expr, b: &Expr) -> Option<(usize, usize)> {
        self.op_between(a.end().to_usize(), b.start().to_usize())
    }

    pub(super) fn expr(&mut self, e: &Expr) {
        match e {
            Expr::BinOp(b) => {
                if let (Some(span), Some(new)) = (self.between(&b.left, &b.right), arithmetic(b.op))
                {
                    self.push(Operator::Arithmetic, span, new.as_str().into(), b.range);
                }
                self.expr(&b.left);
                self.expr(&b.right);
            }
            Expr::BoolOp(b) => {
                let new = match b.op {
                    BoolOp::And => "or",
                    BoolOp::Or => "and",
                };
                for w in b.values.windows(2) {
                    if let Some(span) = self.between(&w[0], &w[1]) {
                        self.push(Operator::Boolean, span, new.into(), b.range);
                    }
                }
                b.values.iter().for_each(|v| self.expr(v));
            }
            Expr::Compare(c) => {
                let mut left: &Expr = &c.left;
                for (op, right) in c.ops.iter().zip(c.comparators.iter()) {
                    if let Some(span) = self.between(left, right) {
                        let ctx = TextRange::new(left.start(), right.end());
                        self.push(
                            Operator::Comparison,
                            span,
                            comparison(*op).as_str().into(),
                            ctx,
                        );
                        if let Some(b) = boundary(*op) {
                            self.push(Operator::Boundary, span, b.as_str().into(), ctx);
                        }
                    }
                    left = right;
                }
                self.expr(&c.left);
                c.comparators.iter().for_each(|v| self.expr(v));
            }
            Expr::UnaryOp(u) => {
                // The operator token up to the next token: `not(x)` → `(x)`, `- 1` → `1`.
                let toks = self
                    .module
                    .tokens_in(u.start().to_usize(), u.end().to_usize());
                if let [op, next, ..] = toks {
                    let span = (op.start().to_usize(), next.start().to_usize());
                    self.push(Operator::Unary, span, String::new(), u.range);
                }
                self.expr(&u.operand);
            }
            Expr::If(i) => {
                self.condition(&i.test);
                self.expr(&i.body);
                self.expr(&i.orelse);
            }
            Expr::Call(c) => {
                self.sibling_call(c);
                match &*c.func {
                    Expr::Attribute(a) => self.expr(&a.value),
                    f => self.expr(f),
                }
                c.arguments.args.iter().for_each(|a| self.expr(a));
                c.arguments
                    .keywords
                    .iter()
                    .for_each(|k| self.expr(&k.value));
            }
            Expr::NumberLiteral(_) | Expr::BooleanLiteral(_) | Expr::StringLiteral(_) => {
                self.constant(e);
            }
            Expr::Attribute(a) => self.expr(&a.value),
            Expr::Subscript(s) => {
                self.expr(&s.value);
                self.expr(&s.slice);
            }
            Expr::Slice(s) => {
                for part in [&s.lower, &s.upper, &s.step].into_iter().flatten() {
                    self.expr(part);
                }
            }
            Expr::Lambda(l) => self.expr(&l.body),
            Expr::List(l) => l.elts.iter().for_each(|x| self.expr(x)),
            Expr::Tuple(t) => t.elts.iter().for_each(|x| self.expr(x)),
            Expr::Set(s) => s.elts.iter().for_each(|x| self.expr(x)),
            Expr::Dict(d) => {
                for item in &d.items {
                    if let Some(k) = &item.key {
                        self.expr(k);
                    }
                    self.expr(&item.value);
                }
            }
            Expr::ListComp(c) => self.comprehension(&[&c.elt], &c.generators),
            Expr::SetComp(c) => self.comprehension(&[&c.elt], &c.generators),
            Expr::Generator(c) => self.comprehension(&[&c.elt], &c.generators),
            Expr::DictComp(c) => self.comprehension(&[&c.key, &c.value], &c.generators),
            Expr::Starred(s) => self.expr(&s.value),
            Expr::Await(a) => self.expr(&a.value),
            Expr::Yield(y) => {
                if let Some(v) = &y.value {
                    self.expr(v);
                }
            }
            Expr::YieldFrom(y) => self.expr(&y.value),
            Expr::Named(n) => self.expr(&n.value),
            // f-strings, bytes, names, `None`, `...`: nothing to change.
            _ => {}
        }
    }

    fn comprehension(&mut self, elts: &[&Expr], gens: &[ast::Comprehension]) {
        for g in gens {
            self.expr(&g.iter);
            g.ifs.iter().for_each(|x| self.expr(x));
        }
        elts.iter().for_each(|x| self.expr(x));
    }

    /// `self.m(...)` → `self.n(...)`, `n` the next method with as many positional parameters.
    fn sibling_call(&mut self, c: &ast::ExprCall) {
        let Expr::Attribute(a) = &*c.func else { return };
        if self.self_attr(&c.func).is_none() {
            return;
        }
        if let Some(other) = self.facts.sibling(a.attr.as_str()) {
            self.push(Operator::SiblingCall, us(a.attr.range), other, a.range);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_literals_are_marked_inside_their_quotes() {
        assert_eq!(marked("'abc'").as_deref(), Some("'XXabcXX'"));
        assert_eq!(marked("\"\"").as_deref(), Some("\"XXXX\""));
        assert_eq!(marked("r'\\d+'").as_deref(), Some("r'XX\\d+XX'"));
        assert_eq!(
            marked("\"\"\"doc\"\"\"").as_deref(),
            Some("\"\"\"XXdocXX\"\"\"")
        );
        assert_eq!(marked("''''").as_deref(), None.or(Some("'XX''XX'")));
    }

    #[test]
    fn numbers_are_bumped_as_python_writes_them() {
        let int = |s: &str| Number::Int(s.parse().unwrap());
        assert_eq!(bumped(&int("0")).as_deref(), Some("1"));
        assert_eq!(bumped(&int("41")).as_deref(), Some("42"));
        assert_eq!(bumped(&Number::Float(2.5)).as_deref(), Some("3.5"));
        assert_eq!(bumped(&Number::Float(0.0)).as_deref(), Some("1.0"));
        assert_eq!(
            bumped(&Number::Complex {
                real: 0.0,
                imag: 1.0
            }),
            None
        );
    }
}
