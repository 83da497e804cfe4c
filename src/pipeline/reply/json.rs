//! JSON as models write it: inside prose or fences, with comments, trailing commas,
//! single quotes, bare words and Python's `True`/`None`.

use serde_json::Value;

/// The outermost balanced `{…}` spans of a text, in order. Braces inside strings and
/// comments do not count; an unbalanced `{` is skipped.
pub(super) fn objects(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'{'
            && let Some(end) = matching_brace(bytes, i)
        {
            out.push(&text[i..=end]);
            i = end + 1;
        } else {
            i += 1;
        }
    }
    out
}

/// The index of the `}` closing the `{` at `start`.
fn matching_brace(bytes: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'"' | b'\'' => i = string_end(bytes, i)?,
            b'/' if bytes.get(i + 1) == Some(&b'/') => i = line_end(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'*') => i = block_comment_end(bytes, i),
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return (bytes[i] == b'}').then_some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The index of the quote closing the string that opens at `start`. A string never spans
/// lines here: an apostrophe in prose-like text must not swallow the rest.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let quote = bytes[start];
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'\n' if quote == b'\'' => return None,
            b if b == quote => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

fn line_end(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|b| *b == b'\n')
        .map_or(bytes.len(), |p| from + p)
}

/// The index of the `/` ending a `/* … */` comment (or the last byte).
fn block_comment_end(bytes: &[u8], from: usize) -> usize {
    bytes[from + 2..]
        .windows(2)
        .position(|w| w == b"*/")
        .map_or(bytes.len().saturating_sub(1), |p| from + 2 + p + 1)
}

/// Parse strict JSON, else the text repaired into JSON.
pub(super) fn parse_lenient(text: &str) -> Result<Value, String> {
    match serde_json::from_str(text) {
        Ok(v) => Ok(v),
        Err(strict) => serde_json::from_str(&drop_trailing_commas(&repair(text)))
            .map_err(|e| format!("{strict}; after repairs: {e}")),
    }
}

/// Comments removed, single-quoted strings double-quoted, bare words quoted (`true`,
/// `false`, `null` kept; `True`, `False`, `None` translated), control characters in strings
/// escaped.
fn repair(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 16);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '"' | '\'' => i = copy_string(&chars, i, &mut out),
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            '/' if chars.get(i + 1) == Some(&'*') => {
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    i += 1;
                }
                i += 2;
                continue;
            }
            c if c.is_alphabetic() || c == '_' => {
                let start = i;
                while i < chars.len()
                    && (chars[i].is_alphanumeric() || matches!(chars[i], '_' | '.' | '(' | ')'))
                {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                match word.as_str() {
                    "true" | "false" | "null" => out.push_str(&word),
                    "True" => out.push_str("true"),
                    "False" => out.push_str("false"),
                    "None" => out.push_str("null"),
                    _ => out.push_str(&Value::String(word).to_string()),
                }
                continue;
            }
            _ => out.push(c),
        }
        i += 1;
    }
    out
}

/// Copy the string literal opening at `start` as a JSON string; returns the index of its
/// closing quote (or the end).
fn copy_string(chars: &[char], start: usize, out: &mut String) -> usize {
    let quote = chars[start];
    out.push('"');
    let mut i = start + 1;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                match chars.get(i + 1) {
                    // `\'` is not a JSON escape.
                    Some('\'') => out.push('\''),
                    Some(n) => {
                        out.push('\\');
                        out.push(*n);
                    }
                    None => out.push_str("\\\\"),
                }
                i += 2;
                continue;
            }
            c if c == quote => {
                out.push('"');
                return i;
            }
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
        i += 1;
    }
    out.push('"');
    i
}

/// Remove commas followed (after whitespace) by `}` or `]`, outside strings. The input is
/// [`repair`]'s output: strings are double-quoted, comments gone.
fn drop_trailing_commas(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some(n) = chars.get(i + 1) {
                    out.push(*n);
                }
                i += 1;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if c == ',' {
            let next = chars[i + 1..].iter().find(|n| !n.is_whitespace());
            if !matches!(next, Some('}') | Some(']')) {
                out.push(c);
            }
        } else {
            out.push(c);
        }
        i += 1;
    }
    out
}
