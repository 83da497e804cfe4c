//! The bulk front end: ruff's hand-written parser (`rustpython-ruff_python_parser`), about six
//! times faster than tree-sitter on real code, read into THE SAME extraction model the
//! tree-sitter path produces (`analysis::parse::{Module, Class, MethodDef}`, the token
//! fingerprint, the metric parts). Every quantity below mirrors its tree-sitter definition in
//! `analysis/parse.rs`, `analysis/metrics*` and `corpus/{extract,tokens}.rs`, node kind by node
//! kind; `tests/corpus_frontends.rs` checks that both front ends store identical rows.
//!
//! Two tree-sitter facts that ruff's AST does not carry are rebuilt from its tokens:
//! * a block ends after the comments that trail it at its own indentation or deeper (and after
//!   a comment on its last line), so classes and methods end there too;
//! * a backslash continuation is a token (`line_continuation`) of its own.
//!
//! Files ruff rejects (Python 2, syntax errors) go to the tree-sitter path, which keeps the
//! error-free classes of a broken file.

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashSet;
use rustpython_ruff_python_ast::token::{Token, TokenKind};
use rustpython_ruff_python_ast::visitor::{self, Visitor};
use rustpython_ruff_python_ast::{self as ast, Expr, Stmt};
use rustpython_ruff_python_parser::parse_module;
use rustpython_ruff_text_size::{Ranged, TextRange};

use super::tokens::{Fingerprint, from_leaf_hashes};
use super::walk::fnv64;
use crate::analysis::metrics::{
    BUILTIN_TYPES, ClassMetrics, ClassParts, Kind, MethodParts, Tally, blank_lines, finish,
};
use crate::analysis::parse::{Class, MethodDef, Module, doctests_of, string_value, unmangle};

/// A parsed file: source, tokens, line starts.
pub struct RuffModule<'s> {
    src: &'s str,
    parsed: rustpython_ruff_python_parser::Parsed<ast::ModModule>,
    line_starts: Vec<usize>,
}

/// One class as ruff sees it, with the tree-sitter extents.
pub struct RuffClass<'a> {
    pub def: &'a ast::StmtClassDef,
    /// Byte of the `class` keyword.
    pub header: usize,
    /// Start with decorators.
    pub start: usize,
    /// End as tree-sitter ends it (trailing comments of the block included).
    pub end: usize,
}

fn us(t: rustpython_ruff_text_size::TextSize) -> usize {
    t.to_usize()
}

fn is_trivia(k: TokenKind) -> bool {
    matches!(
        k,
        TokenKind::Comment
            | TokenKind::Newline
            | TokenKind::NonLogicalNewline
            | TokenKind::Indent
            | TokenKind::Dedent
            | TokenKind::EndOfFile
    )
}

fn is_strlike(e: &Expr) -> bool {
    matches!(
        e,
        Expr::StringLiteral(_) | Expr::BytesLiteral(_) | Expr::FString(_) | Expr::TString(_)
    )
}

/// The last block of a compound statement (the one that ends it).
fn last_body(stmt: &Stmt) -> Option<&[Stmt]> {
    let b: &[Stmt] = match stmt {
        Stmt::FunctionDef(f) => &f.body,
        Stmt::ClassDef(c) => &c.body,
        Stmt::If(i) => i
            .elif_else_clauses
            .last()
            .map_or(&i.body[..], |c| &c.body[..]),
        Stmt::For(f) if !f.orelse.is_empty() => &f.orelse,
        Stmt::For(f) => &f.body,
        Stmt::While(w) if !w.orelse.is_empty() => &w.orelse,
        Stmt::While(w) => &w.body,
        Stmt::With(w) => &w.body,
        Stmt::Try(t) if !t.finalbody.is_empty() => &t.finalbody,
        Stmt::Try(t) if !t.orelse.is_empty() => &t.orelse,
        Stmt::Try(t) => match t.handlers.last() {
            Some(ast::ExceptHandler::ExceptHandler(h)) => &h.body,
            None => &t.body,
        },
        Stmt::Match(m) => m.cases.last().map(|c| &c.body[..])?,
        _ => return None,
    };
    (!b.is_empty()).then_some(b)
}

impl<'s> RuffModule<'s> {
    /// `None` when ruff finds a syntax error (the caller falls back to tree-sitter).
    pub fn parse(src: &'s str) -> Option<Self> {
        if too_deep(src.as_bytes()) {
            return None;
        }
        let parsed = parse_module(src).ok()?;
        let mut line_starts = vec![0];
        line_starts.extend(memchr::memchr_iter(b'\n', src.as_bytes()).map(|i| i + 1));
        Some(RuffModule {
            src,
            parsed,
            line_starts,
        })
    }

    pub fn body(&self) -> &[Stmt] {
        &self.parsed.syntax().body
    }

    fn tokens(&self) -> &[Token] {
        self.parsed.tokens()
    }

    /// 0-based row of a byte (rows end at `\n`, as tree-sitter counts them).
    pub fn row(&self, byte: usize) -> usize {
        self.line_starts.partition_point(|&s| s <= byte) - 1
    }

    /// [`Self::row`] for bytes asked in increasing order (a class's leaves): each step moves a
    /// cursor forward instead of searching every line start again.
    fn rows_from(&self, byte: usize) -> impl FnMut(usize) -> usize + '_ {
        let starts = &self.line_starts;
        let mut at = self.row(byte);
        move |b| {
            if b < starts[at] {
                at = starts.partition_point(|&s| s <= b) - 1;
            }
            while at + 1 < starts.len() && starts[at + 1] <= b {
                at += 1;
            }
            at
        }
    }

    pub(crate) fn text(&self, r: TextRange) -> &'s str {
        self.src.get(us(r.start())..us(r.end())).unwrap_or("")
    }

    /// Tokens starting in `[start, end)`.
    pub fn tokens_in(&self, start: usize, end: usize) -> &[Token] {
        let t = self.tokens();
        let lo = t.partition_point(|x| us(x.start()) < start);
        let hi = t.partition_point(|x| us(x.start()) < end);
        &t[lo..hi.max(lo)]
    }

    /// Tokens starting at or after `at`.
    fn tokens_from(&self, at: usize) -> &[Token] {
        let t = self.tokens();
        &t[t.partition_point(|x| us(x.start()) < at)..]
    }

    /// Tokens ending at or before `at`.
    fn tokens_before(&self, at: usize) -> &[Token] {
        let t = self.tokens();
        &t[..t.partition_point(|x| us(x.start()) < at)]
    }

    /// Indentation column of the line holding `byte`, as tree-sitter's scanner counts it.
    fn indent_col(&self, byte: usize) -> usize {
        let start = self.line_starts[self.row(byte)];
        let mut col = 0;
        for b in self.src.as_bytes()[start..byte].iter() {
            match b {
                b' ' => col += 1,
                b'\t' => col += 8,
                b'\x0c' => col = 0,
                _ => break,
            }
        }
        col
    }

    /// Where tree-sitter ends a statement: a compound one at the end of its last block.
    pub fn stmt_end(&self, stmt: &Stmt) -> usize {
        match last_body(stmt) {
            Some(body) => self.block_end(body),
            None => us(stmt.end()),
        }
    }

    /// A block ends after its last statement, a comment on that statement's last line, and
    /// the comment lines that follow at the block's indentation or deeper.
    fn block_end(&self, body: &[Stmt]) -> usize {
        let Some(last) = body.last() else {
            return 0;
        };
        let mut end = self.stmt_end(last);
        let first = us(body[0].start());
        let indented = self
            .tokens_before(first)
            .last()
            .is_some_and(|t| t.kind() == TokenKind::Indent);
        let indent = self.indent_col(first);
        for t in self.tokens_from(end) {
            match t.kind() {
                TokenKind::Newline
                | TokenKind::NonLogicalNewline
                | TokenKind::Indent
                | TokenKind::Dedent => {}
                TokenKind::Comment => {
                    let s = us(t.start());
                    if self.row(s) == self.row(end) || (indented && self.indent_col(s) >= indent) {
                        end = us(t.end());
                    } else {
                        break;
                    }
                }
                _ => break,
            }
        }
        end
    }

    /// First token of kind `kind` at or after `at`.
    fn next_kind(&self, at: usize, kinds: &[TokenKind]) -> usize {
        self.tokens_from(at)
            .iter()
            .find(|t| kinds.contains(&t.kind()))
            .map_or(at, |t| us(t.start()))
    }

    /// Start of the `class`/`def`/`async` keyword (after the decorators).
    fn keyword_start(
        &self,
        start: usize,
        decorators: &[ast::Decorator],
        kinds: &[TokenKind],
    ) -> usize {
        match decorators.last() {
            Some(d) => self.next_kind(us(d.end()), kinds),
            None => start,
        }
    }

    /// The last keyword of `kind` before `at` (an `else`/`finally` clause's start).
    fn prev_kind(&self, at: usize, kind: TokenKind) -> usize {
        self.tokens_before(at)
            .iter()
            .rev()
            .find(|t| t.kind() == kind)
            .map_or(at, |t| us(t.start()))
    }

    /// An expression's range with the parentheses around it (inside `bound`).
    fn paren_range(&self, r: TextRange, bound: TextRange) -> TextRange {
        let (mut s, mut e) = (us(r.start()), us(r.end()));
        loop {
            let before = self
                .tokens_before(s)
                .iter()
                .rev()
                .find(|t| !is_trivia(t.kind()));
            let after = self.tokens_from(e).iter().find(|t| !is_trivia(t.kind()));
            match (before, after) {
                (Some(b), Some(a))
                    if b.kind() == TokenKind::Lpar
                        && a.kind() == TokenKind::Rpar
                        && us(b.start()) > us(bound.start())
                        && us(a.end()) < us(bound.end()) =>
                {
                    s = us(b.start());
                    e = us(a.end());
                }
                _ => break,
            }
        }
        TextRange::new((s as u32).into(), (e as u32).into())
    }

    /// Whether the last non-trivia token before `at` is `(` (the expression there is
    /// parenthesized).
    fn after_lpar(&self, at: usize) -> bool {
        self.tokens_before(at)
            .iter()
            .rev()
            .find(|t| !is_trivia(t.kind()))
            .is_some_and(|t| t.kind() == TokenKind::Lpar)
    }

    /// Whether a statement is what tree-sitter takes for a docstring: an expression statement
    /// holding only a string (or implicitly concatenated strings), unparenthesized.
    fn is_doc_stmt(&self, stmt: &Stmt) -> bool {
        let Stmt::Expr(e) = stmt else { return false };
        let v = &*e.value;
        if is_strlike(v) {
            return !self.after_lpar(us(v.start()));
        }
        matches!(v, Expr::Tuple(t) if !t.parenthesized && t.elts.len() == 1 && is_strlike(&t.elts[0]) && !self.after_lpar(us(t.elts[0].start())))
    }

    /// String tokens of a range, f- and t-strings merged into one.
    fn merged(&self, start: usize, end: usize) -> Vec<(usize, usize, TokenKind)> {
        let toks = self.tokens_in(start, end);
        let mut out = Vec::with_capacity(toks.len());
        let mut i = 0;
        while i < toks.len() {
            let t = &toks[i];
            match t.kind() {
                TokenKind::FStringStart | TokenKind::TStringStart => {
                    let mut depth = 0usize;
                    let mut j = i;
                    while j < toks.len() {
                        match toks[j].kind() {
                            TokenKind::FStringStart | TokenKind::TStringStart => depth += 1,
                            TokenKind::FStringEnd | TokenKind::TStringEnd => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                        j += 1;
                    }
                    let e = toks.get(j).map_or(us(t.end()), |x| us(x.end()));
                    out.push((us(t.start()), e, TokenKind::String));
                    i = j + 1;
                }
                k => {
                    out.push((us(t.start()), us(t.end()), k));
                    i += 1;
                }
            }
        }
        out
    }

    /// The docstring text of a statement as `parse.rs` reads it (prefix and quotes removed).
    fn doc_value(&self, stmt: &Stmt) -> String {
        self.merged(us(stmt.start()), us(stmt.end()))
            .into_iter()
            .filter(|t| t.2 == TokenKind::String)
            .map(|(s, e, _)| string_value(&self.src[s..e]))
            .collect()
    }

    /// Leaves of tree-sitter's tree over `[start, end)`: tokens with strings whole, comments
    /// and docstring statements apart, backslash continuations as tokens of their own. Calls
    /// `leaf(start, end, kind)`; comments and docstrings come as `TokenKind::Comment`.
    fn leaves(
        &self,
        start: usize,
        end: usize,
        docs: &[(usize, usize)],
        mut leaf: impl FnMut(usize, usize, TokenKind),
    ) {
        let bytes = self.src.as_bytes();
        let mut prev_end = start;
        let mut d = 0;
        let in_doc = |pos: usize, d: &mut usize| -> Option<(usize, usize)> {
            while *d < docs.len() && docs[*d].1 <= pos {
                *d += 1;
            }
            docs.get(*d).copied().filter(|r| r.0 <= pos && pos < r.1)
        };
        let mut done_doc = usize::MAX;
        for (s, e, k) in self.merged(start, end) {
            // Continuations in the gap before this token; before a string tree-sitter's
            // external scanner (which lexes string starts) skips them as whitespace.
            let mut i = prev_end;
            while k != TokenKind::String
                && let Some(off) = memchr::memchr(b'\\', &bytes[i..s])
            {
                let b = i + off;
                let nl = if bytes.get(b + 1) == Some(&b'\n') {
                    2
                } else if bytes.get(b + 1) == Some(&b'\r') && bytes.get(b + 2) == Some(&b'\n') {
                    3
                } else {
                    0
                };
                if nl > 0 && in_doc(b, &mut d).is_none() {
                    leaf(b, b + nl, TokenKind::Unknown);
                }
                i = b + 1;
            }
            prev_end = e.max(prev_end);
            if let Some(r) = in_doc(s, &mut d) {
                if done_doc != r.0 {
                    done_doc = r.0;
                    leaf(r.0, r.1, TokenKind::Comment);
                }
                continue;
            }
            match k {
                TokenKind::Comment => leaf(s, e, k),
                k if is_trivia(k) => {}
                k => leaf(s, e, k),
            }
        }
    }

    /// The module in `parse.rs`'s model, with each class's ruff node.
    pub fn module(&self) -> (Module, Vec<RuffClass<'_>>) {
        let mut module = Module {
            classes: Vec::new(),
            imports: Vec::new(),
            functions: Vec::new(),
            error_lines: Vec::new(),
        };
        for stmt in self.body() {
            match stmt {
                Stmt::Import(_) | Stmt::ImportFrom(_) => {
                    module.imports.push(self.text(stmt.range()).to_string())
                }
                Stmt::FunctionDef(f) => module.functions.push(f.name.id.to_string()),
                _ => {}
            }
        }
        let mut found = Vec::new();
        self.collect_classes(self.body(), "", &mut found);
        found.sort_by_key(|(c, _)| (c.start_byte, std::cmp::Reverse(c.end_byte)));
        let mut nodes = Vec::with_capacity(found.len());
        for (class, node) in found {
            module.classes.push(class);
            nodes.push(node);
        }
        (module, nodes)
    }

    fn collect_classes<'a>(
        &'a self,
        body: &'a [Stmt],
        scope: &str,
        out: &mut Vec<(Class, RuffClass<'a>)>,
    ) {
        for stmt in body {
            match stmt {
                Stmt::ClassDef(c) => {
                    let (class, node) = self.read_class(c, scope);
                    let qual = class.qualified_name.clone();
                    out.push((class, node));
                    self.collect_classes(&c.body, &qual, out);
                }
                Stmt::FunctionDef(f) => {
                    self.collect_classes(&f.body, &join_scope(scope, f.name.as_str()), out)
                }
                _ => {
                    for_each_block(stmt, |b| self.collect_classes(b, scope, out));
                }
            }
        }
    }

    fn read_class<'a>(&'a self, c: &'a ast::StmtClassDef, scope: &str) -> (Class, RuffClass<'a>) {
        let start = us(c.start());
        let header = self.keyword_start(start, &c.decorator_list, &[TokenKind::Class]);
        let end = self.block_end(&c.body);
        let name = c.name.id.to_string();
        let bases = c
            .arguments
            .as_deref()
            .map(|a| {
                a.arguments_source_order()
                    .map(|x| match x {
                        ast::ArgOrKeyword::Arg(e) => self
                            .text(self.paren_range(e.range(), a.range()))
                            .to_string(),
                        ast::ArgOrKeyword::Keyword(k) => self.text(k.range()).to_string(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let docstring = c
            .body
            .first()
            .filter(|s| self.is_doc_stmt(s))
            .map(|s| self.doc_value(s));
        let methods = c
            .body
            .iter()
            .filter_map(|s| match s {
                Stmt::FunctionDef(f) => Some(self.read_method(f, &name)),
                _ => None,
            })
            .collect();
        let class = Class {
            qualified_name: join_scope(scope, &name),
            name,
            bases,
            start_line: self.row(start) + 1,
            header_line: self.row(header) + 1,
            header_byte: header,
            start_byte: start,
            end_byte: end,
            end_line: self.row(end) + 1,
            docstring,
            methods,
        };
        (
            class,
            RuffClass {
                def: c,
                header,
                start,
                end,
            },
        )
    }

    fn read_method(&self, f: &ast::StmtFunctionDef, class_name: &str) -> MethodDef {
        let start = us(f.start());
        let def = self.keyword_start(
            start,
            &f.decorator_list,
            &[TokenKind::Def, TokenKind::Async],
        );
        let end = self.block_end(&f.body);
        let body_start = f.body.first().map_or(us(f.end()), |s| us(s.start()));
        let signature = self.src[def..body_start].trim_end().to_string();
        let doc_stmt = f.body.first().filter(|s| self.is_doc_stmt(s));
        let docstring = doc_stmt.map(|s| self.doc_value(s));
        let doctests = match &docstring {
            Some(d) => doctests_of(d, self.row(body_start) + 1),
            None => Vec::new(),
        };
        let mut refs = Refs {
            m: self,
            class_name,
            own: BTreeSet::new(),
            other: BTreeSet::new(),
        };
        refs.visit_body(&f.body);
        MethodDef {
            name: f.name.id.to_string(),
            signature,
            params: params_of(&f.parameters),
            decorators: f
                .decorator_list
                .iter()
                .map(|d| self.decorator_text(d))
                .collect(),
            is_async: f.is_async,
            start_line: self.row(start) + 1,
            end_line: self.row(end) + 1,
            start_byte: start,
            end_byte: end,
            body_start_byte: body_start,
            docstring_bytes: doc_stmt.map(|s| (us(s.start()), us(s.end()))),
            docstring,
            doctests,
            self_refs: refs.own,
            other_refs: refs.other,
            body_is_stub: f.body.iter().all(|s| self.is_stub_stmt(s)),
        }
    }

    /// A decorator as tree-sitter's node reads: `@` dropped, a comment on its line kept.
    fn decorator_text(&self, d: &ast::Decorator) -> String {
        let mut end = us(d.end());
        if let Some(t) = self.tokens_from(end).first()
            && t.kind() == TokenKind::Comment
        {
            end = us(t.end());
        }
        self.src[us(d.start())..end]
            .trim_start_matches('@')
            .trim()
            .to_string()
    }

    fn is_stub_stmt(&self, s: &Stmt) -> bool {
        match s {
            Stmt::Pass(_) => true,
            Stmt::Expr(e) => {
                let lit = |x: &Expr| {
                    (is_strlike(x) || matches!(x, Expr::EllipsisLiteral(_)))
                        && !self.after_lpar(us(x.start()))
                };
                match &*e.value {
                    Expr::Tuple(t) if !t.parenthesized => t.elts.iter().all(lit),
                    v => lit(v) || self.text(e.range()).trim() == "...",
                }
            }
            _ => false,
        }
    }

    // -----------------------------------------------------------------------------------
    // What corpus/extract.rs reads from the tree: bindings, local imports, fingerprint.
    // -----------------------------------------------------------------------------------

    /// (bound name, module) pairs of an import statement, as `extract.rs` reads them.
    fn import_bindings(&self, stmt: &Stmt) -> Vec<(String, String)> {
        match stmt {
            Stmt::Import(i) => i
                .names
                .iter()
                .map(|a| {
                    let dotted = self.text(a.name.range());
                    let bound = match &a.asname {
                        Some(x) => self.text(x.range()),
                        None => dotted.split('.').next().unwrap_or(dotted),
                    };
                    (bound.to_string(), dotted.to_string())
                })
                .collect(),
            Stmt::ImportFrom(i) => {
                let from = self.imported_module_text(stmt);
                i.names
                    .iter()
                    .filter(|a| a.name.as_str() != "*")
                    .map(|a| {
                        let bound = match &a.asname {
                            Some(x) => self.text(x.range()),
                            None => self.text(a.name.range()),
                        };
                        (bound.to_string(), from.clone())
                    })
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// The module name of `from X import …` as written (tokens between `from` and `import`).
    fn imported_module_text(&self, stmt: &Stmt) -> String {
        let toks = self.tokens_in(us(stmt.start()), us(stmt.end()));
        let mut it = toks.iter().filter(|t| !is_trivia(t.kind())).skip(1);
        let Some(first) = it.next() else {
            return String::new();
        };
        let mut last = first;
        if first.kind() != TokenKind::Import {
            for t in it {
                if t.kind() == TokenKind::Import {
                    break;
                }
                last = t;
            }
        }
        self.src[us(first.start())..us(last.end())].to_string()
    }

    fn is_future(stmt: &Stmt) -> bool {
        matches!(stmt, Stmt::ImportFrom(i) if i.level == 0 && i.module.as_ref().is_some_and(|m| m.as_str() == "__future__"))
    }

    /// Module-level names: what each import binds (name → module), and every other name
    /// defined at module level (see `extract.rs`'s `module_bindings`).
    pub fn module_bindings(&self) -> (BTreeMap<String, String>, BTreeSet<String>) {
        let mut imports = BTreeMap::new();
        let mut defined = BTreeSet::new();
        let mut stack: Vec<&[Stmt]> = vec![self.body()];
        while let Some(body) = stack.pop() {
            for stmt in body {
                match stmt {
                    Stmt::Import(_) | Stmt::ImportFrom(_) if !Self::is_future(stmt) => {
                        for (n, m) in self.import_bindings(stmt) {
                            imports.insert(n, m);
                        }
                    }
                    Stmt::FunctionDef(f) => {
                        defined.insert(f.name.id.to_string());
                    }
                    Stmt::ClassDef(c) => {
                        defined.insert(c.name.id.to_string());
                    }
                    Stmt::Assign(a) => {
                        if let Some(Expr::Name(n)) = a.targets.first() {
                            defined.insert(n.id.to_string());
                        }
                    }
                    Stmt::AnnAssign(a) => {
                        if let Expr::Name(n) = &*a.target {
                            defined.insert(n.id.to_string());
                        }
                    }
                    Stmt::If(i) => {
                        stack.push(&i.body);
                        for c in &i.elif_else_clauses {
                            stack.push(&c.body);
                        }
                    }
                    Stmt::Try(t) => {
                        stack.push(&t.body);
                        for ast::ExceptHandler::ExceptHandler(h) in &t.handlers {
                            stack.push(&h.body);
                        }
                        stack.push(&t.orelse);
                        stack.push(&t.finalbody);
                    }
                    Stmt::With(w) => stack.push(&w.body),
                    _ => {}
                }
            }
        }
        (imports, defined)
    }

    /// Modules imported inside a class (its body, its methods, nested blocks).
    pub fn local_imports(&self, body: &[Stmt], out: &mut Vec<String>) {
        for stmt in body {
            match stmt {
                Stmt::Import(_) | Stmt::ImportFrom(_) if !Self::is_future(stmt) => {
                    out.extend(self.import_bindings(stmt).into_iter().map(|(_, m)| m))
                }
                Stmt::ClassDef(c) => self.local_imports(&c.body, out),
                Stmt::FunctionDef(f) => self.local_imports(&f.body, out),
                Stmt::If(i) => {
                    self.local_imports(&i.body, out);
                    for c in &i.elif_else_clauses {
                        self.local_imports(&c.body, out);
                    }
                }
                Stmt::Try(t) => {
                    self.local_imports(&t.body, out);
                    for ast::ExceptHandler::ExceptHandler(h) in &t.handlers {
                        self.local_imports(&h.body, out);
                    }
                    self.local_imports(&t.orelse, out);
                    self.local_imports(&t.finalbody, out);
                }
                Stmt::With(w) => self.local_imports(&w.body, out),
                Stmt::For(f) => {
                    self.local_imports(&f.body, out);
                    self.local_imports(&f.orelse, out);
                }
                Stmt::While(w) => {
                    self.local_imports(&w.body, out);
                    self.local_imports(&w.orelse, out);
                }
                _ => {}
            }
        }
    }

    /// Docstring statements of every block of a class, and the names that are not uses
    /// (definition names, keyword-argument and defaulted-parameter names) and import ranges.
    fn class_facts(&self, c: &ast::StmtClassDef) -> Facts<'_, 's> {
        let mut f = Facts {
            m: self,
            docs: Vec::new(),
            not_names: BTreeSet::new(),
            imports: Vec::new(),
        };
        f.not_names.insert(us(c.name.start()));
        if let Some(a) = &c.arguments {
            for k in a.keywords.iter() {
                if let Some(arg) = &k.arg {
                    f.not_names.insert(us(arg.start()));
                }
            }
            f.visit_arguments(a);
        }
        f.visit_body(&c.body);
        f.docs.sort_unstable();
        f.imports.sort_unstable();
        f
    }

    /// The duplicate-detection fingerprint of a class (`tokens.rs`'s, over the same leaves).
    pub fn fingerprint(&self, c: &RuffClass<'_>, facts: &Facts<'_, '_>) -> Fingerprint {
        let mut hashes = Vec::new();
        // Borrowed and hashed while walking (a class names `self` hundreds of times); sorted
        // and owned once at the end.
        let mut names: FxHashSet<&str> = FxHashSet::default();
        let bytes = self.src.as_bytes();
        let mut prev = TokenKind::Unknown;
        let mut imp = 0;
        self.leaves(c.header, c.end, &facts.docs, |s, e, k| {
            if k == TokenKind::Comment {
                // Comments and docstrings are not tokens.
                return;
            }
            hashes.push(fnv64(&bytes[s..e]));
            if k == TokenKind::Name && !facts.not_names.contains(&s) {
                while imp < facts.imports.len() && facts.imports[imp].1 <= s {
                    imp += 1;
                }
                let in_import = facts.imports.get(imp).is_some_and(|r| r.0 <= s);
                if prev != TokenKind::Dot || in_import {
                    names.insert(&self.src[s..e]);
                }
            }
            if k != TokenKind::Unknown {
                prev = k;
            }
        });
        from_leaf_hashes(hashes, names.into_iter().map(str::to_string).collect())
    }

    // -----------------------------------------------------------------------------------
    // Metrics (`analysis/metrics.rs` and `metrics/statements.rs`, node kind by node kind).
    // -----------------------------------------------------------------------------------

    pub fn class_metrics(&self, c: &RuffClass<'_>, facts: &Facts<'_, '_>) -> ClassMetrics {
        let first_row = self.row(c.start);
        let last_row = self.row(c.end);
        let mut w = Tally::new(
            blank_lines(self.src, c.start, c.end, last_row - first_row + 1),
            first_row,
        );
        // Code and comment lines.
        let mut row = self.rows_from(c.start);
        self.leaves(c.start, c.end, &facts.docs, |s, e, k| {
            let comment = k == TokenKind::Comment;
            for row in row(s)..=row(e) {
                if let Some(l) = w.lines.get_mut(row.wrapping_sub(first_row)) {
                    if comment {
                        l.comment = true;
                    } else {
                        l.code = true;
                    }
                }
            }
        });
        let body = &c.def.body;
        w.mark(
            self.row(c.header),
            self.header_end_row(c.header, body),
            Kind::Decl,
        );
        for stmt in body {
            for (local, name) in bindings(stmt) {
                if local {
                    w.class_names.insert(name);
                }
            }
        }
        let mut methods = Vec::new();
        for stmt in body {
            if let Stmt::FunctionDef(f) = stmt {
                let is_static = f.decorator_list.iter().any(|d| {
                    let t = self.decorator_text(d);
                    t == "staticmethod" || t == "classmethod"
                });
                let mut dec = Decisions { n: 0 };
                dec.visit_body(&f.body);
                methods.push(MethodParts {
                    name: f.name.id.to_string(),
                    first_row: self.row(us(f.start())),
                    last_row: self.row(self.block_end(&f.body)),
                    cyclomatic: 1 + dec.n,
                    nesting: nesting(self, &f.body, 0),
                    instance: !is_static,
                    documented: f.body.first().is_some_and(|s| self.is_doc_stmt(s)),
                });
            }
        }
        self.walk_block(body, &mut w, None);
        let metric_bases = c
            .def
            .arguments
            .as_deref()
            .map(|a| {
                a.arguments_source_order()
                    .filter_map(|x| match x {
                        ast::ArgOrKeyword::Arg(e) => Some(
                            self.text(self.paren_range(e.range(), a.range()))
                                .to_string(),
                        ),
                        ast::ArgOrKeyword::Keyword(k) if k.arg.is_none() => {
                            Some(self.text(k.range()).to_string())
                        }
                        ast::ArgOrKeyword::Keyword(_) => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        finish(ClassParts {
            lines: &w.lines,
            first_row,
            last_row,
            decl: w.decl,
            exe: w.exe,
            both: w.both,
            instance_vars: w.instance_vars.len(),
            documented: body.first().is_some_and(|s| self.is_doc_stmt(s)),
            methods,
            bases: metric_bases,
            coupled: self.coupled(c),
        })
    }

    /// `header_end_row`: the row before the body's first line, or the header's own row when
    /// the body starts on it.
    fn header_end_row(&self, head: usize, body: &[Stmt]) -> usize {
        let head_row = self.row(head);
        match body.first() {
            Some(b) if self.row(us(b.start())) > head_row => self.row(us(b.start())) - 1,
            Some(_) => head_row,
            None => head_row,
        }
    }

    fn walk_block(&self, body: &[Stmt], w: &mut Tally, mut scope: Option<&mut BTreeSet<String>>) {
        if w.depth > 200 {
            return;
        }
        w.depth += 1;
        for (i, stmt) in body.iter().enumerate() {
            if i == 0 && self.is_doc_stmt(stmt) {
                continue;
            }
            match stmt {
                Stmt::FunctionDef(f) => {
                    w.decl += 1;
                    let def = self.keyword_start(
                        us(f.start()),
                        &f.decorator_list,
                        &[TokenKind::Def, TokenKind::Async],
                    );
                    w.mark(
                        self.row(us(f.start())),
                        self.header_end_row(def, &f.body),
                        Kind::Decl,
                    );
                    let mut params = param_names(&f.parameters);
                    self.walk_block(&f.body, w, Some(&mut params));
                    continue;
                }
                Stmt::ClassDef(c) => {
                    w.decl += 1;
                    let head =
                        self.keyword_start(us(c.start()), &c.decorator_list, &[TokenKind::Class]);
                    w.mark(
                        self.row(us(c.start())),
                        self.header_end_row(head, &c.body),
                        Kind::Decl,
                    );
                    self.walk_block(&c.body, w, None);
                    continue;
                }
                _ => {}
            }
            w.exe += 1;
            let blocks = self.compound_blocks(stmt);
            let start_row = self.row(us(stmt.start()));
            let exe_to = if blocks.is_empty() {
                self.row(us(stmt.end()))
            } else {
                let first = match stmt {
                    Stmt::Match(m) => m.cases.first().map(|c| us(c.start())),
                    _ => blocks[0].2.first().map(|s| us(s.start())),
                };
                match first {
                    Some(f) if self.row(f) > start_row => self.row(f) - 1,
                    _ => start_row,
                }
            };
            w.mark(start_row, exe_to, Kind::Exe);
            let mut new = false;
            for (local, name) in bindings(stmt) {
                match (local, scope.as_deref_mut()) {
                    (true, None) => new = true,
                    (true, Some(s)) => new |= s.insert(name),
                    (false, _) => {
                        if !w.class_names.contains(&name) {
                            new |= w.instance_vars.insert(name);
                        }
                    }
                }
            }
            if new {
                w.decl += 1;
                w.both += 1;
                w.mark(start_row, exe_to, Kind::Decl);
            }
            for (counts, clause_row, block) in blocks {
                if let Some(row) = clause_row {
                    w.mark(row, row, Kind::Exe);
                }
                if counts {
                    w.exe += 1;
                }
                self.walk_block(block, w, scope.as_deref_mut());
            }
        }
        w.depth -= 1;
    }

    /// The blocks of a compound statement: (counts as a statement, row to mark executable,
    /// block) — `statements.rs`'s `compound_blocks`.
    fn compound_blocks<'b>(&self, stmt: &'b Stmt) -> Vec<(bool, Option<usize>, &'b [Stmt])> {
        let mut out: Vec<(bool, Option<usize>, &'b [Stmt])> = Vec::new();
        match stmt {
            Stmt::If(i) => {
                out.push((false, None, &i.body));
                for c in &i.elif_else_clauses {
                    let row = c.test.is_some().then(|| self.row(us(c.start())));
                    out.push((false, row, &c.body));
                }
            }
            Stmt::For(f) => {
                out.push((false, None, &f.body));
                if !f.orelse.is_empty() {
                    out.push((false, None, &f.orelse));
                }
            }
            Stmt::While(w) => {
                out.push((false, None, &w.body));
                if !w.orelse.is_empty() {
                    out.push((false, None, &w.orelse));
                }
            }
            Stmt::With(w) => out.push((false, None, &w.body)),
            Stmt::Try(t) => {
                out.push((false, None, &t.body));
                for ast::ExceptHandler::ExceptHandler(h) in &t.handlers {
                    out.push((true, Some(self.row(us(h.start()))), &h.body));
                }
                if let Some(first) = t.orelse.first() {
                    let at = self.prev_kind(us(first.start()), TokenKind::Else);
                    out.push((true, Some(self.row(at)), &t.orelse));
                }
                if let Some(first) = t.finalbody.first() {
                    let at = self.prev_kind(us(first.start()), TokenKind::Finally);
                    out.push((true, Some(self.row(at)), &t.finalbody));
                }
            }
            Stmt::Match(m) => {
                for c in &m.cases {
                    out.push((true, Some(self.row(us(c.start()))), &c.body));
                }
            }
            _ => {}
        }
        out
    }

    /// `coupled_classes`: builtin classes named anywhere in the body, class-like names called.
    fn coupled(&self, c: &RuffClass<'_>) -> BTreeSet<String> {
        let own = c.def.name.as_str();
        let mut out = BTreeSet::new();
        let Some(first) = c.def.body.first() else {
            return out;
        };
        for t in self.tokens_in(us(first.start()), c.end) {
            if t.kind() == TokenKind::Name {
                let name = self.text(t.range());
                if name != own && BUILTIN_TYPES.binary_search(&name).is_ok() {
                    out.insert(name.to_string());
                }
            }
        }
        let mut calls = Calls { own, out: &mut out };
        calls.visit_body(&c.def.body);
        out
    }

    /// Everything the corpus stores for a class that the front end measures.
    pub fn class_facts_for(&self, c: &RuffClass<'_>) -> Facts<'_, 's> {
        self.class_facts(c.def)
    }
}

/// Input that would recurse deeply in ruff's parser (and in the AST walks): brackets nested
/// past Python's own limit (200), very long lines, very deep indentation. Such (hostile or
/// generated) files go to tree-sitter, whose walks here are iterative or bounded. A rough
/// scan: brackets in strings and comments count too, which only sends a file to the slower
/// path.
fn too_deep(src: &[u8]) -> bool {
    const MAX_DEPTH: usize = 200;
    const MAX_LINE: usize = 20_000;
    const MAX_INDENT: usize = 400;
    let (mut depth, mut line_start, mut indent, mut at_start) = (0usize, 0usize, 0usize, true);
    for (i, &b) in src.iter().enumerate() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return true;
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'\n' => {
                if i - line_start > MAX_LINE {
                    return true;
                }
                line_start = i + 1;
                indent = 0;
                at_start = true;
                continue;
            }
            b' ' | b'\t' if at_start => {
                indent += 1;
                if indent > MAX_INDENT {
                    return true;
                }
                continue;
            }
            _ => {}
        }
        at_start = false;
    }
    src.len() - line_start > MAX_LINE
}

fn join_scope(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        name.to_string()
    } else {
        format!("{scope}.{name}")
    }
}

/// Calls `f` on each block of a compound statement other than a definition.
fn for_each_block<'a>(stmt: &'a Stmt, mut f: impl FnMut(&'a [Stmt])) {
    match stmt {
        Stmt::If(i) => {
            f(&i.body);
            for c in &i.elif_else_clauses {
                f(&c.body);
            }
        }
        Stmt::For(x) => {
            f(&x.body);
            f(&x.orelse);
        }
        Stmt::While(x) => {
            f(&x.body);
            f(&x.orelse);
        }
        Stmt::With(x) => f(&x.body),
        Stmt::Try(t) => {
            f(&t.body);
            for ast::ExceptHandler::ExceptHandler(h) in &t.handlers {
                f(&h.body);
            }
            f(&t.orelse);
            f(&t.finalbody);
        }
        Stmt::Match(m) => {
            for c in &m.cases {
                f(&c.body);
            }
        }
        _ => {}
    }
}

fn params_of(p: &ast::Parameters) -> Vec<String> {
    let mut out = Vec::new();
    for a in &p.posonlyargs {
        out.push(a.parameter.name.id.to_string());
    }
    if !p.posonlyargs.is_empty() {
        out.push("/".into());
    }
    for a in &p.args {
        out.push(a.parameter.name.id.to_string());
    }
    match &p.vararg {
        Some(v) => out.push(format!("*{}", v.name.id)),
        None if !p.kwonlyargs.is_empty() => out.push("*".into()),
        None => {}
    }
    for a in &p.kwonlyargs {
        out.push(a.parameter.name.id.to_string());
    }
    if let Some(k) = &p.kwarg {
        out.push(format!("**{}", k.name.id));
    }
    out
}

fn param_names(p: &ast::Parameters) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = p
        .posonlyargs
        .iter()
        .chain(&p.args)
        .chain(&p.kwonlyargs)
        .map(|a| a.parameter.name.id.to_string())
        .collect();
    out.extend(p.vararg.iter().map(|v| v.name.id.to_string()));
    out.extend(p.kwarg.iter().map(|v| v.name.id.to_string()));
    out
}

/// Names a statement binds: `(true, name)` for plain names, `(false, x)` for `self.x`.
fn bindings(stmt: &Stmt) -> Vec<(bool, String)> {
    let mut targets: Vec<&Expr> = Vec::new();
    match stmt {
        Stmt::Assign(a) => targets.extend(a.targets.iter()),
        Stmt::AnnAssign(a) => targets.push(&a.target),
        Stmt::For(f) => targets.push(&f.target),
        Stmt::With(w) => targets.extend(w.items.iter().filter_map(|i| i.optional_vars.as_deref())),
        _ => {}
    }
    let mut out = Vec::new();
    while let Some(t) = targets.pop() {
        match t {
            Expr::Name(n) => out.push((true, n.id.to_string())),
            Expr::Attribute(a) => {
                if let Expr::Name(n) = &*a.value
                    && n.id.as_str() == "self"
                    && a.value.start() == a.start()
                {
                    out.push((false, a.attr.id.to_string()));
                }
            }
            Expr::Subscript(_) => {}
            Expr::Tuple(x) => targets.extend(x.elts.iter()),
            Expr::List(x) => targets.extend(x.elts.iter()),
            Expr::Starred(x) => targets.push(&x.value),
            _ => {}
        }
    }
    out
}

fn nesting(m: &RuffModule<'_>, body: &[Stmt], depth: u32) -> u32 {
    if depth > 200 {
        return depth;
    }
    let mut max = depth;
    for stmt in body {
        for (_, _, b) in m.compound_blocks(stmt) {
            max = max.max(nesting(m, b, depth + 1));
        }
    }
    max
}

/// Per-class facts from one walk of its AST.
pub struct Facts<'m, 's> {
    m: &'m RuffModule<'s>,
    /// Docstring statements of every block, sorted.
    docs: Vec<(usize, usize)>,
    /// Starts of identifiers that are not uses of a name.
    not_names: BTreeSet<usize>,
    /// Import statements and dotted value patterns (where a name after a dot is still a
    /// name), sorted.
    imports: Vec<(usize, usize)>,
}

impl<'a> Visitor<'a> for Facts<'_, '_> {
    fn visit_body(&mut self, body: &'a [Stmt]) {
        if let Some(first) = body.first()
            && self.m.is_doc_stmt(first)
        {
            self.docs.push((us(first.start()), us(first.end())));
        }
        visitor::walk_body(self, body);
    }
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(f) => {
                self.not_names.insert(us(f.name.start()));
            }
            Stmt::ClassDef(c) => {
                self.not_names.insert(us(c.name.start()));
            }
            Stmt::Import(_) | Stmt::ImportFrom(_) => {
                self.imports.push((us(stmt.start()), us(stmt.end())));
            }
            _ => {}
        }
        visitor::walk_stmt(self, stmt);
    }
    fn visit_keyword(&mut self, k: &'a ast::Keyword) {
        if let Some(arg) = &k.arg {
            self.not_names.insert(us(arg.start()));
        }
        visitor::walk_keyword(self, k);
    }
    fn visit_expr(&mut self, e: &'a Expr) {
        // `(x := …)`: tree-sitter's `named_expression` calls its target `name`.
        if let Expr::Named(n) = e
            && let Expr::Name(t) = &*n.target
        {
            self.not_names.insert(us(t.start()));
        }
        visitor::walk_expr(self, e);
    }
    fn visit_pattern(&mut self, p: &'a ast::Pattern) {
        match p {
            // `case _:` — tree-sitter's wildcard is no identifier.
            ast::Pattern::MatchAs(m) if m.pattern.is_none() && m.name.is_none() => {
                self.not_names.insert(us(m.start()));
            }
            ast::Pattern::MatchStar(m) if m.name.is_none() => {
                self.not_names.insert(us(m.start()) + 1);
            }
            // `case State.X:` — a dotted name, whose parts are all names to tree-sitter.
            ast::Pattern::MatchValue(v) => {
                self.imports.push((us(v.start()), us(v.end())));
            }
            _ => {}
        }
        visitor::walk_pattern(self, p);
    }
    fn visit_parameters(&mut self, p: &'a ast::Parameters) {
        for a in p.posonlyargs.iter().chain(&p.args).chain(&p.kwonlyargs) {
            if a.default.is_some() {
                self.not_names.insert(us(a.parameter.name.start()));
            }
        }
        visitor::walk_parameters(self, p);
    }
}

/// `self.x` / `cls.x` / `Class.x` references of a method body (nested classes skipped).
struct Refs<'m, 's, 'c> {
    m: &'m RuffModule<'s>,
    class_name: &'c str,
    own: BTreeSet<String>,
    other: BTreeSet<String>,
}

impl<'a> Visitor<'a> for Refs<'_, '_, '_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if let Stmt::ClassDef(c) = stmt {
            for d in &c.decorator_list {
                self.visit_decorator(d);
            }
            return;
        }
        visitor::walk_stmt(self, stmt);
    }
    fn visit_expr(&mut self, e: &'a Expr) {
        if let Expr::Attribute(a) = e {
            let own = match &*a.value {
                Expr::Name(n) => {
                    let r = n.id.as_str();
                    // `(self).x`: a parenthesized receiver is no name.
                    a.value.start() == a.start()
                        && self
                            .m
                            .tokens_from(us(a.value.end()))
                            .iter()
                            .find(|t| !is_trivia(t.kind()))
                            .is_none_or(|t| t.kind() != TokenKind::Rpar)
                        && (r == "self" || r == "cls" || r == self.class_name)
                }
                _ => false,
            };
            let name = unmangle(a.attr.as_str(), self.class_name);
            if own {
                self.own.insert(name);
            } else {
                self.other.insert(name);
            }
        }
        visitor::walk_expr(self, e);
    }
}

/// Decision points of a method body (`statements.rs`'s `decisions`).
struct Decisions {
    n: u32,
}

impl<'a> Visitor<'a> for Decisions {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(f) => {
                for d in &f.decorator_list {
                    self.visit_decorator(d);
                }
                return;
            }
            Stmt::ClassDef(c) => {
                for d in &c.decorator_list {
                    self.visit_decorator(d);
                }
                return;
            }
            Stmt::If(i) => {
                self.n += 1 + i
                    .elif_else_clauses
                    .iter()
                    .filter(|c| c.test.is_some())
                    .count() as u32
            }
            Stmt::For(_) | Stmt::While(_) => self.n += 1,
            // tree-sitter reads `except*` as an `except_clause` too.
            Stmt::Try(t) => self.n += t.handlers.len() as u32,
            Stmt::Match(m) => self.n += m.cases.len() as u32,
            _ => {}
        }
        visitor::walk_stmt(self, stmt);
    }
    fn visit_expr(&mut self, e: &'a Expr) {
        match e {
            Expr::Lambda(_) => return,
            Expr::If(_) => self.n += 1,
            _ => {}
        }
        visitor::walk_expr(self, e);
    }
}

/// Class-like names called in a class body (`coupled_classes`' call half).
struct Calls<'o> {
    own: &'o str,
    out: &'o mut BTreeSet<String>,
}

impl<'a> Visitor<'a> for Calls<'_> {
    fn visit_expr(&mut self, e: &'a Expr) {
        if let Expr::Call(c) = e {
            let name = match &*c.func {
                Expr::Name(n) if c.func.start() == c.start() => n.id.as_str(),
                Expr::Attribute(a) => a.attr.as_str(),
                _ => "",
            };
            if name.chars().next().is_some_and(char::is_uppercase)
                && name != self.own
                && BUILTIN_TYPES.binary_search(&name).is_err()
                && !name
                    .chars()
                    .all(|c| c.is_uppercase() || c == '_' || c.is_ascii_digit())
            {
                self.out.insert(name.to_string());
            }
        }
        visitor::walk_expr(self, e);
    }
}
