//! Plain aligned text tables for human output (no colours: output is often piped). Every
//! cell is input text somewhere (task ids, model names, file names): control characters and
//! bidi overrides are written as visible escapes ([`crate::text::escape_control`]), so a table
//! can neither drive the terminal nor forge a row.

use unicode_width::UnicodeWidthStr;

use crate::text::escape_control;

pub(crate) struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    /// Columns aligned right (numbers).
    right: Vec<bool>,
}

impl Table {
    pub fn new(header: &[&str]) -> Self {
        Table {
            header: header
                .iter()
                .map(|s| escape_control(s).into_owned())
                .collect(),
            rows: Vec::new(),
            right: vec![false; header.len()],
        }
    }

    /// Align these columns to the right.
    pub fn right(mut self, cols: &[usize]) -> Self {
        for &c in cols {
            if let Some(r) = self.right.get_mut(c) {
                *r = true;
            }
        }
        self
    }

    pub fn row(&mut self, cells: Vec<String>) {
        let cells = cells
            .into_iter()
            .map(|c| match escape_control(&c) {
                std::borrow::Cow::Borrowed(_) => c,
                std::borrow::Cow::Owned(e) => e,
            })
            .collect();
        self.rows.push(cells);
    }

    pub fn render(&self) -> String {
        let n = self.header.len();
        let mut widths: Vec<usize> = self.header.iter().map(|h| h.width()).collect();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate().take(n) {
                widths[i] = widths[i].max(cell.width());
            }
        }
        let mut out = String::new();
        let mut line = |cells: &[String]| {
            let mut s = String::new();
            for (i, cell) in cells.iter().enumerate().take(n) {
                let pad = widths[i].saturating_sub(cell.width());
                if i > 0 {
                    s.push_str("  ");
                }
                if self.right[i] {
                    s.push_str(&" ".repeat(pad));
                    s.push_str(cell);
                } else {
                    s.push_str(cell);
                    if i + 1 < n {
                        s.push_str(&" ".repeat(pad));
                    }
                }
            }
            out.push_str(s.trim_end());
            out.push('\n');
        };
        line(&self.header);
        let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
        line(&rule);
        for row in &self.rows {
            line(row);
        }
        out
    }
}

/// `a, b, c`, or `-` when empty.
pub(crate) fn list<S: AsRef<str>>(items: impl IntoIterator<Item = S>) -> String {
    let v: Vec<String> = items.into_iter().map(|s| s.as_ref().to_string()).collect();
    if v.is_empty() {
        "-".into()
    } else {
        v.join(", ")
    }
}

/// A header and rows, for the terminal or Markdown.
pub struct Rows {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Rows {
    pub fn new(header: Vec<String>) -> Self {
        Rows {
            header,
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, r: Vec<String>) {
        self.rows.push(r);
    }

    pub fn render(&self) -> String {
        let refs: Vec<&str> = self.header.iter().map(String::as_str).collect();
        let mut t = Table::new(&refs);
        for r in &self.rows {
            t.row(r.clone());
        }
        t.render()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_columns() {
        let mut t = Table::new(&["id", "n"]).right(&[1]);
        t.row(vec!["a".into(), "10".into()]);
        t.row(vec!["bbb".into(), "2".into()]);
        assert_eq!(t.render(), "id    n\n---  --\na    10\nbbb   2\n");
    }

    /// Issue 21 item 14: a task id with a newline cannot forge a row, an OSC sequence in a
    /// model name cannot reach the terminal.
    #[test]
    fn cells_cannot_carry_control_characters() {
        let mut t = Table::new(&["id", "model\u{202e}"]);
        t.row(vec!["x\nClassEval_1".into(), "m\u{1b}]0;pwned\u{7}".into()]);
        let out = t.render();
        assert_eq!(out.lines().count(), 3, "{out}");
        assert!(
            !out.chars()
                .any(|c| c != '\n' && crate::text::needs_escape(c)),
            "{out:?}"
        );
        assert!(out.contains("x\\nClassEval_1"), "{out}");
    }
}
