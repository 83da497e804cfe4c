//! A mutant is data: an operator, a byte span of the reference and its replacement. Applied to
//! text by byte range; the same span gives the one-line diff the CLI prints and the TUI draws.

use serde::{Deserialize, Serialize};

use super::operators::Operator;

/// One small change to the reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mutant {
    pub op: Operator,
    /// Byte span of the reference replaced (`start..end`, on char boundaries).
    pub start: usize,
    pub end: usize,
    pub replacement: String,
    /// What the diff shows: the smallest enclosing expression or statement (contains the span).
    pub context: (usize, usize),
    /// 1-based lines of the enclosing statement (or `def` header): whose tests run first.
    pub lines: (usize, usize),
    /// For a change to a `def` header (a default, a decorator), executed when the class is
    /// defined: the body lines of that function, whose tests are the ones that use it.
    pub scope: Option<(usize, usize)>,
}

/// A mutant as one line: where, and the text before and after.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineDiff {
    /// 1-based line of the reference.
    pub line: usize,
    /// Verbatim text of that line, occurring once on it.
    pub before: String,
    /// What `before` becomes.
    pub after: String,
}

/// Byte offset where the line holding `at` starts, and where it ends (before its `\n`).
pub(crate) fn line_bounds(src: &str, at: usize) -> (usize, usize) {
    let at = at.min(src.len());
    let start = src[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = src[at..].find('\n').map_or(src.len(), |i| at + i);
    (start, end)
}

/// 1-based line of byte `at`.
pub(crate) fn line_of(src: &str, at: usize) -> usize {
    src.as_bytes()[..at.min(src.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

impl Mutant {
    /// The mutated text; `None` when the span does not fit `src`.
    pub fn apply(&self, src: &str) -> Option<String> {
        let head = src.get(..self.start)?;
        let tail = src.get(self.end..)?;
        let mut out = String::with_capacity(src.len() + self.replacement.len());
        out.push_str(head);
        out.push_str(&self.replacement);
        out.push_str(tail);
        Some(out)
    }

    /// 1-based line where the change starts.
    pub fn line(&self, src: &str) -> usize {
        line_of(src, self.start)
    }

    /// The change on its first line: the enclosing expression's text on that line, before and
    /// after; the whole line when that text occurs more than once on it.
    pub fn diff(&self, src: &str) -> LineDiff {
        let line = self.line(src);
        let (ls, le) = line_bounds(src, self.start);
        let cs = self.context.0.clamp(ls, self.start);
        let ce = self.context.1.clamp(self.end.min(le), le);
        let first_line = |s: &str| s.split('\n').next().unwrap_or("").to_string();
        let piece = |a: usize, b: usize| src.get(a..b).unwrap_or("");
        let splice = |a: usize, b: usize| {
            let mut after = piece(a, self.start).to_string();
            if self.end <= b {
                after.push_str(&self.replacement);
                after.push_str(piece(self.end, b));
            } else {
                after.push_str(&first_line(&self.replacement));
            }
            first_line(&after)
        };
        let before = piece(cs, ce);
        let text = piece(ls, le);
        if !before.trim().is_empty() && text.matches(before).count() == 1 {
            return LineDiff {
                line,
                before: before.to_string(),
                after: splice(cs, ce),
            };
        }
        let indent = text.len() - text.trim_start().len();
        LineDiff {
            line,
            before: text.trim().to_string(),
            after: splice(ls + indent, le).trim_end().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(src: &str, old: &str, new: &str, ctx: &str) -> Mutant {
        let start = src.find(old).unwrap();
        let cs = src.find(ctx).unwrap();
        Mutant {
            op: Operator::Boundary,
            start,
            end: start + old.len(),
            replacement: new.into(),
            context: (cs, cs + ctx.len()),
            lines: (1, 1),
            scope: None,
        }
    }

    #[test]
    fn applies_by_byte_range() {
        let src = "x = 'é' < 1\n";
        let mu = m(src, "<", "<=", "'é' < 1");
        assert_eq!(mu.apply(src).unwrap(), "x = 'é' <= 1\n");
        let bad = Mutant {
            start: 6,
            end: 6,
            ..mu
        };
        assert_eq!(bad.apply(src), None, "not a char boundary");
    }

    #[test]
    fn diff_shows_the_enclosing_expression() {
        let src =
            "class A:\n    def w(self, amount):\n        if amount < 0:\n            raise X\n";
        let d = m(src, "<", "<=", "amount < 0").diff(src);
        assert_eq!(
            d,
            LineDiff {
                line: 3,
                before: "amount < 0".into(),
                after: "amount <= 0".into()
            }
        );
    }

    #[test]
    fn ambiguous_context_falls_back_to_the_line() {
        let src = "y = a + a + b\n";
        let start = src.find("+ b").unwrap();
        let mu = Mutant {
            op: Operator::Arithmetic,
            start,
            end: start + 1,
            replacement: "-".into(),
            context: (start, start + 1),
            lines: (1, 1),
            scope: None,
        };
        let d = mu.diff(src);
        assert_eq!(d.before, "y = a + a + b");
        assert_eq!(d.after, "y = a + a - b");
    }

    #[test]
    fn multi_line_span_shows_its_first_line() {
        let src = "    x = f(\n        1)\n    y = 2\n";
        let start = src.find("x = f").unwrap();
        let end = src.find("1)").unwrap() + 2;
        let mu = Mutant {
            op: Operator::StatementDeletion,
            start,
            end,
            replacement: "pass".into(),
            context: (start, end),
            lines: (1, 2),
            scope: None,
        };
        let d = mu.diff(src);
        assert_eq!(
            (d.line, d.before.as_str(), d.after.as_str()),
            (1, "x = f(", "pass")
        );
        assert_eq!(mu.apply(src).unwrap(), "    pass\n    y = 2\n");
    }
}
