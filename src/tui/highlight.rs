//! Lazy syntax highlighting of code panes with syntect.
//!
//! Each document (a task's skeleton, solution or tests) is highlighted from the top, one line at
//! a time, only as far as the last line ever shown: highlighting line N needs the parse state
//! after line N-1, so the parse and highlight states are kept between calls and the work
//! continues where it stopped. Lines are tab-expanded and capped at [`MAX_LINE`] characters
//! before anything else sees them, so a huge line costs nothing.

use std::collections::HashMap;
use std::sync::OnceLock;

use ratatui::style::{Color, Modifier, Style};
use syntect::highlighting::{FontStyle, HighlightIterator, HighlightState, Highlighter, ThemeSet};
use syntect::parsing::{ParseState, ScopeStack, SyntaxSet};

/// Longest line kept (characters); longer lines end in `…`.
pub const MAX_LINE: usize = 1000;
/// Documents kept highlighted; older ones are dropped (and redone if shown again).
const MAX_DOCS: usize = 24;

/// A line as spans of (style, text).
pub type StyledLine = Vec<(Style, String)>;

fn syntax_set() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

fn theme_set() -> &'static ThemeSet {
    static SET: OnceLock<ThemeSet> = OnceLock::new();
    SET.get_or_init(ThemeSet::load_defaults)
}

/// Load the syntaxes and themes and compile the Python grammar's patterns (syntect compiles
/// them on first use: tens of milliseconds), so the first task opened does not wait for it.
pub fn warm_up() {
    let sample = "import re\n\nclass A(object):\n    \"\"\"Doc.\"\"\"\n\n    def f(self, x: int = 1) -> str:\n        # c\n        return f\"{x!r}\" + 'y' % (2.0, None, [1], {1: 2})\n";
    let mut cache = HighlightCache::default();
    for theme in theme_set().themes.keys().take(1) {
        cache.lines((usize::MAX, 0), sample, Some(theme), 0, 8);
    }
}

/// Whether syntect knows a theme by this name.
pub fn has_syntax_theme(name: &str) -> bool {
    theme_set().themes.contains_key(name)
}

/// Split source into display lines: tabs expanded, control characters made visible, capped.
pub fn prepare_lines(source: &str) -> Vec<String> {
    source
        .lines()
        .map(|line| {
            let mut out = String::new();
            let mut count = 0;
            for c in line.chars() {
                if count >= MAX_LINE {
                    out.push('…');
                    break;
                }
                match c {
                    '\t' => {
                        let pad = 4 - count % 4;
                        out.extend(std::iter::repeat_n(' ', pad));
                        count += pad;
                    }
                    c if c.is_control() => {
                        out.push('�');
                        count += 1;
                    }
                    c => {
                        out.push(c);
                        count += 1;
                    }
                }
            }
            out
        })
        .collect()
}

fn convert(style: syntect::highlighting::Style) -> Style {
    let c = style.foreground;
    let mut out = Style::new().fg(Color::Rgb(c.r, c.g, c.b));
    if style.font_style.contains(FontStyle::BOLD) {
        out = out.add_modifier(Modifier::BOLD);
    }
    if style.font_style.contains(FontStyle::ITALIC) {
        out = out.add_modifier(Modifier::ITALIC);
    }
    if style.font_style.contains(FontStyle::UNDERLINE) {
        out = out.add_modifier(Modifier::UNDERLINED);
    }
    out
}

/// One document highlighted up to `styled.len()` lines.
struct Doc {
    lines: Vec<String>,
    styled: Vec<StyledLine>,
    /// State after the last highlighted line; `None` once the parser failed (rest is plain).
    state: Option<(ParseState, HighlightState)>,
    theme: String,
    last_used: u64,
}

impl Doc {
    fn new(source: &str, theme: &str) -> Doc {
        let lines = prepare_lines(source);
        let ss = syntax_set();
        let syntax = ss
            .find_syntax_by_extension("py")
            .unwrap_or_else(|| ss.find_syntax_plain_text());
        let state = theme_set().themes.get(theme).map(|t| {
            let h = Highlighter::new(t);
            (
                ParseState::new(syntax),
                HighlightState::new(&h, ScopeStack::new()),
            )
        });
        Doc {
            lines,
            styled: Vec::new(),
            state,
            theme: theme.to_string(),
            last_used: 0,
        }
    }

    /// Highlight lines until `upto` (exclusive) are done.
    fn ensure(&mut self, upto: usize) {
        let upto = upto.min(self.lines.len());
        let theme = theme_set().themes.get(&self.theme);
        while self.styled.len() < upto {
            let line = &self.lines[self.styled.len()];
            let styled = match (&mut self.state, theme) {
                (Some((parse, hl)), Some(theme)) => {
                    let highlighter = Highlighter::new(theme);
                    let with_newline = format!("{line}\n");
                    match parse.parse_line(&with_newline, syntax_set()) {
                        Ok(ops) => HighlightIterator::new(hl, &ops, &with_newline, &highlighter)
                            .map(|(style, text)| {
                                (convert(style), text.trim_end_matches('\n').to_string())
                            })
                            .filter(|(_, text)| !text.is_empty())
                            .collect(),
                        Err(_) => {
                            self.state = None;
                            vec![(Style::new(), line.clone())]
                        }
                    }
                }
                _ => vec![(Style::new(), line.clone())],
            };
            self.styled.push(styled);
        }
    }
}

/// Highlighted documents by key (task index, pane).
#[derive(Default)]
pub struct HighlightCache {
    docs: HashMap<(usize, u8), Doc>,
    clock: u64,
}

impl HighlightCache {
    /// Lines `start..end` of a document, highlighted with the syntect theme `theme`, or plain
    /// (one unstyled span per line) when `theme` is `None`.
    pub fn lines(
        &mut self,
        key: (usize, u8),
        source: &str,
        theme: Option<&str>,
        start: usize,
        end: usize,
    ) -> Vec<StyledLine> {
        let Some(theme) = theme else {
            return prepare_lines(source)
                .into_iter()
                .skip(start)
                .take(end.saturating_sub(start))
                .map(|l| vec![(Style::new(), l)])
                .collect();
        };
        self.clock += 1;
        let clock = self.clock;
        if self.docs.get(&key).is_some_and(|d| d.theme != theme) {
            self.docs.remove(&key);
        }
        if !self.docs.contains_key(&key)
            && self.docs.len() >= MAX_DOCS
            && let Some(oldest) = self
                .docs
                .iter()
                .min_by_key(|(_, d)| d.last_used)
                .map(|(k, _)| *k)
        {
            self.docs.remove(&oldest);
        }
        let doc = self
            .docs
            .entry(key)
            .or_insert_with(|| Doc::new(source, theme));
        doc.last_used = clock;
        doc.ensure(end);
        doc.styled
            .iter()
            .skip(start)
            .take(end.saturating_sub(start))
            .cloned()
            .collect()
    }

    /// Lines highlighted so far for a document (for tests).
    pub fn highlighted_count(&self, key: (usize, u8)) -> usize {
        self.docs.get(&key).map_or(0, |d| d.styled.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CODE: &str =
        "def f(x):\n    \"\"\"A docstring\n    over two lines\n    \"\"\"\n    return x  # done\n";

    fn text(line: &StyledLine) -> String {
        line.iter().map(|(_, t)| t.as_str()).collect()
    }

    #[test]
    fn highlights_only_as_far_as_asked() {
        let mut cache = HighlightCache::default();
        let lines = cache.lines((0, 0), CODE, Some("base16-ocean.dark"), 1, 3);
        assert_eq!(lines.len(), 2);
        assert_eq!(text(&lines[0]), "    \"\"\"A docstring");
        assert_eq!(cache.highlighted_count((0, 0)), 3);
    }

    #[test]
    fn state_carries_across_lines_and_calls() {
        // Line 3 is inside a docstring: highlighted alone it would not be a string.
        let mut a = HighlightCache::default();
        let in_one_go = a.lines((0, 0), CODE, Some("base16-ocean.dark"), 0, 5);
        let mut b = HighlightCache::default();
        b.lines((0, 0), CODE, Some("base16-ocean.dark"), 0, 1);
        let later = b.lines((0, 0), CODE, Some("base16-ocean.dark"), 2, 3);
        assert_eq!(later[0], in_one_go[2]);
        let mut c = HighlightCache::default();
        let alone = c.lines(
            (0, 0),
            "    over two lines\n",
            Some("base16-ocean.dark"),
            0,
            1,
        );
        assert_ne!(
            alone[0][0].0, in_one_go[2][0].0,
            "docstring colour must come from the state"
        );
    }

    #[test]
    fn plain_without_theme_and_capped_lines() {
        let mut cache = HighlightCache::default();
        let long = "x".repeat(MAX_LINE + 50);
        let lines = cache.lines((1, 0), &format!("a\tb\n{long}\n"), None, 0, 10);
        assert_eq!(text(&lines[0]), "a   b");
        assert_eq!(text(&lines[1]).chars().count(), MAX_LINE + 1);
        assert!(text(&lines[1]).ends_with('…'));
        let lines = cache.lines((1, 0), "def (((:\n  \u{7}\n", Some("no such theme"), 0, 10);
        assert_eq!(text(&lines[1]), "  �");
    }
}
