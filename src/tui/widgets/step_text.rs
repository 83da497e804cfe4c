//! Text for the step-through: untrusted model text wrapped at spaces, and the unified line
//! diff of a patch with `+`/`-` colouring (`similar`).

use ratatui::style::Style;
use ratatui::text::Line;
use similar::{ChangeTag, TextDiff};

use super::truncate;
use crate::tui::theme::{EdgeKind, Theme};

/// Lines of diff context around each change.
const DIFF_CONTEXT: usize = 3;
/// Lines kept of one text (a prompt can be long); the rest is summarised.
const MAX_TEXT_LINES: usize = 3000;

/// `text` wrapped at spaces into lines of at most `width` characters (longer words cut),
/// tabs expanded and control characters made visible (model output is untrusted).
pub fn wrap_into(out: &mut Vec<Line<'static>>, text: &str, width: usize, style: Style) {
    let width = width.max(1);
    for (n, line) in crate::tui::highlight::prepare_lines(text)
        .into_iter()
        .enumerate()
    {
        let chars: Vec<char> = line.chars().collect();
        if n >= MAX_TEXT_LINES {
            out.push(Line::styled("… (cut)", style));
            return;
        }
        if chars.is_empty() {
            out.push(Line::default());
        }
        let mut start = 0;
        while start < chars.len() {
            let end = (start + width).min(chars.len());
            let cut = if end < chars.len() {
                chars[start..end]
                    .iter()
                    .rposition(|c| *c == ' ')
                    .map(|p| start + p + 1)
                    .filter(|&p| p > start + width / 3)
                    .unwrap_or(end)
            } else {
                end
            };
            let piece: String = chars[start..cut].iter().collect();
            out.push(Line::styled(piece.trim_end().to_string(), style));
            start = cut;
        }
    }
}

/// Lines added and removed from `old` to `new`.
pub fn diff_counts(old: &str, new: &str) -> (usize, usize) {
    let diff = TextDiff::from_lines(old, new);
    diff.iter_all_changes()
        .fold((0, 0), |(p, m), c| match c.tag() {
            ChangeTag::Insert => (p + 1, m),
            ChangeTag::Delete => (p, m + 1),
            ChangeTag::Equal => (p, m),
        })
}

/// A unified line diff of `old` → `new`: hunk headers, then `+`/`-`/` ` lines in their colours.
pub fn diff_lines(theme: &Theme, old: &str, new: &str, width: usize) -> Vec<Line<'static>> {
    let diff = TextDiff::from_lines(old, new);
    let mut unified = diff.unified_diff();
    unified.context_radius(DIFF_CONTEXT);
    let mut out = Vec::new();
    for hunk in unified.iter_hunks() {
        out.push(Line::styled(hunk.header().to_string(), theme.accent()));
        for change in hunk.iter_changes() {
            let (sign, style): (&str, Style) = match change.tag() {
                ChangeTag::Delete => ("-", theme.edge(EdgeKind::Missing)),
                ChangeTag::Insert => ("+", theme.edge(EdgeKind::Correct)),
                ChangeTag::Equal => (" ", theme.muted()),
            };
            let text = change.to_string_lossy();
            let text = text.trim_end_matches(['\n', '\r']);
            let line = crate::tui::highlight::prepare_lines(text)
                .into_iter()
                .next()
                .unwrap_or_default();
            out.push(Line::styled(
                truncate(&format!("{sign}{line}"), width),
                style,
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &[Line]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn diffs_are_unified_with_signs() {
        let theme = Theme::mono();
        let old = "def f(self):\n    x = 1\n    return x + None\n";
        let new = "def f(self):\n    x = 1\n    return x\n";
        let lines = diff_lines(&theme, old, new, 80);
        assert_eq!(
            text(&lines),
            [
                "@@ -1,3 +1,3 @@",
                " def f(self):",
                "     x = 1",
                "-    return x + None",
                "+    return x",
            ]
        );
        assert_eq!(diff_counts(old, new), (1, 1));
        assert!(diff_lines(&theme, old, old, 80).is_empty());
        // From nothing: every line added.
        assert_eq!(diff_counts("", new), (3, 0));
    }

    #[test]
    fn wrapping_breaks_at_spaces_and_cuts_long_words() {
        let mut out = Vec::new();
        wrap_into(
            &mut out,
            "alpha beta gamma\n\nxxxxxxxxxxxx\u{1b}[31m",
            11,
            Style::new(),
        );
        assert_eq!(
            text(&out),
            ["alpha beta", "gamma", "", "xxxxxxxxxxx", "x�[31m"]
        );
    }
}
