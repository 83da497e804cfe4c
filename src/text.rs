//! Text from the input (task ids, model names, file and class names) made safe to print.
//!
//! Human-readable output must never carry the input's control characters: an ESC starts an
//! OSC/CSI sequence the terminal obeys, a newline forges a result line, a bidi override reorders
//! what the reader sees. [`escape_control`] writes each such character as a visible escape;
//! JSON output stays exact and does not use it.

use std::borrow::Cow;
use std::fmt;

/// At most `max` characters of `s`, with an ellipsis when there were more.
pub fn shorten(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// `s` with every control character (C0, DEL, C1), bidi control and line/paragraph separator
/// written as an escape: `\n`, `\r`, `\t` by name, the rest as `\u{…}` (as Rust's `{:?}` does).
/// Printable text, including other non-ASCII letters and backslashes, is left as it is; borrows
/// when there is nothing to escape.
pub fn escape_control(s: &str) -> Cow<'_, str> {
    if !s.chars().any(needs_escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        push_escaped(&mut out, c);
    }
    Cow::Owned(out)
}

/// [`escape_control`] as a `Display` adapter, for `format!`/`println!` without an allocation:
/// `println!("{}", Escaped(&task_id))`.
#[derive(Debug, Clone, Copy)]
pub struct Escaped<'a>(pub &'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let escaped = escape_control(self.0);
        // `pad` keeps width/alignment flags (`{:<20}`) working on the escaped text.
        f.pad(&escaped)
    }
}

/// Whether `c` must not reach a terminal as it is.
pub fn needs_escape(c: char) -> bool {
    c.is_control() || is_bidi_control(c) || matches!(c, '\u{2028}' | '\u{2029}')
}

/// The Unicode bidi formatting characters (marks, embeddings, overrides, isolates), which make a
/// terminal show text in another order than it is stored ("Trojan Source").
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn push_escaped(out: &mut String, c: char) {
    use std::fmt::Write as _;
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if needs_escape(c) => {
            // Writing to a String cannot fail.
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
        c => out.push(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorten_cuts_at_a_character_not_a_byte() {
        assert_eq!(shorten("naïve", 5), "naïve");
        assert_eq!(shorten("naïve text", 3), "naï…");
        assert_eq!(shorten("", 0), "");
    }

    #[test]
    fn plain_text_is_borrowed_unchanged() {
        let s = "ClassEval_12 naïve Ünïcode 类 \\path";
        assert!(matches!(escape_control(s), Cow::Borrowed(t) if t == s));
    }

    #[test]
    fn terminal_sequences_and_newlines_are_escaped() {
        assert_eq!(
            escape_control("a\x1b]0;pwned\x07b"),
            "a\\u{1b}]0;pwned\\u{7}b"
        );
        assert_eq!(
            escape_control("x.py\nClassEval_1 Perfect"),
            "x.py\\nClassEval_1 Perfect"
        );
        assert_eq!(escape_control("\r\t\x7f\u{9b}"), "\\r\\t\\u{7f}\\u{9b}");
    }

    #[test]
    fn bidi_overrides_and_separators_are_escaped() {
        assert_eq!(
            escape_control("ab\u{202E}cd\u{2066}"),
            "ab\\u{202e}cd\\u{2066}"
        );
        assert_eq!(escape_control("a\u{2028}b"), "a\\u{2028}b");
    }

    #[test]
    fn escaped_output_has_no_control_character_left() {
        let nasty: String = (0u32..0x3000).filter_map(char::from_u32).collect();
        let out = escape_control(&nasty);
        assert!(!out.chars().any(needs_escape));
    }

    #[test]
    fn display_adapter_pads_the_escaped_text() {
        assert_eq!(format!("[{:<6}]", Escaped("a\nb")), "[a\\nb  ]");
        assert_eq!(format!("{}", Escaped("ok")), "ok");
    }
}
