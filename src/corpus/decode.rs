//! Source bytes → text, as Python reads a module (PEP 263): a UTF-8 byte-order mark, else a
//! `coding` declaration on line 1 or 2, else UTF-8. Latin-1 and Windows-1252 are decoded here;
//! other declared encodings are reported, not guessed.

use std::borrow::Cow;

/// Why a file's bytes are not Python source text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// A NUL byte: Python refuses such source ("source code cannot contain null bytes").
    Binary { at: usize },
    /// Not valid in the encoding that applies; `at` is the byte offset.
    Invalid { encoding: String, at: usize },
    /// A declared encoding this decoder does not know.
    Unsupported { encoding: String },
}

impl DecodeError {
    /// The funnel's reason code.
    pub fn reason(&self) -> &'static str {
        match self {
            DecodeError::Binary { .. } => "binary",
            DecodeError::Invalid { .. } => "undecodable",
            DecodeError::Unsupported { .. } => "unsupported-encoding",
        }
    }
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::Binary { at } => write!(f, "NUL byte at offset {at} (binary file)"),
            DecodeError::Invalid { encoding, at } => {
                write!(f, "invalid {encoding} at byte {at}")
            }
            DecodeError::Unsupported { encoding } => {
                write!(f, "unsupported source encoding `{encoding}`")
            }
        }
    }
}

/// Decode a module's bytes. The result has no byte-order mark.
pub fn decode(bytes: &[u8]) -> Result<Cow<'_, str>, DecodeError> {
    if let Some(at) = memchr0(bytes) {
        return Err(DecodeError::Binary { at });
    }
    let (body, bom) = match bytes.strip_prefix(b"\xef\xbb\xbf") {
        Some(rest) => (rest, true),
        None => (bytes, false),
    };
    let declared = declared_encoding(body);
    let encoding = match declared.as_deref() {
        None => Encoding::Utf8,
        Some(name) => match normalise(name) {
            Some(e) => e,
            None => {
                return Err(DecodeError::Unsupported {
                    encoding: name.to_string(),
                });
            }
        },
    };
    if bom && encoding != Encoding::Utf8 {
        // Python: "encoding problem: utf-8" when a BOM meets another declaration.
        return Err(DecodeError::Invalid {
            encoding: format!(
                "{} with a UTF-8 byte-order mark",
                declared.unwrap_or_default()
            ),
            at: 0,
        });
    }
    match encoding {
        Encoding::Utf8 => {
            std::str::from_utf8(body)
                .map(Cow::Borrowed)
                .map_err(|e| DecodeError::Invalid {
                    encoding: "UTF-8".into(),
                    at: e.valid_up_to() + usize::from(bom) * 3,
                })
        }
        Encoding::Latin1 => Ok(Cow::Owned(body.iter().map(|&b| b as char).collect())),
        Encoding::Cp1252 => body
            .iter()
            .enumerate()
            .map(|(i, &b)| {
                cp1252(b).ok_or(DecodeError::Invalid {
                    encoding: "cp1252".into(),
                    at: i,
                })
            })
            .collect::<Result<String, _>>()
            .map(Cow::Owned),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Utf8,
    Latin1,
    Cp1252,
}

fn memchr0(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == 0)
}

/// The encoding named by a `coding[:=]` comment on line 1 or 2 (PEP 263's regular expression
/// `^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)`); line 2 counts only when line 1 is blank or a
/// comment.
fn declared_encoding(body: &[u8]) -> Option<String> {
    let mut lines = body.split(|&b| b == b'\n').take(2);
    let first = lines.next()?;
    if let Some(e) = coding_of(first) {
        return Some(e);
    }
    let first_trim = trim_ascii(first);
    if !(first_trim.is_empty() || first_trim.starts_with(b"#")) {
        return None;
    }
    lines.next().and_then(coding_of)
}

fn trim_ascii(b: &[u8]) -> &[u8] {
    let start = b
        .iter()
        .position(|c| !c.is_ascii_whitespace() && *c != 0x0c);
    match start {
        Some(s) => &b[s..],
        None => &[],
    }
}

fn coding_of(line: &[u8]) -> Option<String> {
    let line = trim_ascii(line);
    if !line.starts_with(b"#") {
        return None;
    }
    let at = line.windows(6).position(|w| w == b"coding")?;
    let rest = &line[at + 6..];
    let rest = rest
        .strip_prefix(b":")
        .or_else(|| rest.strip_prefix(b"="))?;
    let rest = &rest[rest
        .iter()
        .take_while(|c| **c == b' ' || **c == b'\t')
        .count()..];
    let name: Vec<u8> = rest
        .iter()
        .copied()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        .collect();
    (!name.is_empty()).then(|| String::from_utf8_lossy(&name).into_owned())
}

/// Python's normalisation of an encoding name: lower case, `_` as `-`, the known aliases.
fn normalise(name: &str) -> Option<Encoding> {
    let n = name.to_ascii_lowercase().replace('_', "-");
    let is = |base: &str| n == base || n.starts_with(&format!("{base}-"));
    if is("utf-8") || n == "utf8" || n == "ascii" || n == "us-ascii" {
        Some(Encoding::Utf8)
    } else if is("latin-1")
        || is("iso-8859-1")
        || is("iso-latin-1")
        || n == "latin1"
        || n == "iso8859-1"
        || n == "l1"
        || n == "cp819"
    {
        Some(Encoding::Latin1)
    } else if n == "cp1252" || n == "windows-1252" {
        Some(Encoding::Cp1252)
    } else {
        None
    }
}

/// Windows-1252: Latin-1 but for 0x80–0x9F (five of which are undefined).
fn cp1252(b: u8) -> Option<char> {
    const HIGH: [u16; 32] = [
        0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
        0x0152, 0, 0x017D, 0, 0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC,
        0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
    ];
    match b {
        0x80..=0x9f => match HIGH[(b - 0x80) as usize] {
            0 => None,
            c => char::from_u32(c as u32),
        },
        _ => Some(b as char),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_as_python_does() {
        let ok = |b: &[u8]| decode(b).map(|c| c.into_owned());
        assert_eq!(ok(b"x = 1\n").unwrap(), "x = 1\n");
        assert_eq!(ok(b"\xef\xbb\xbfx = 1\n").unwrap(), "x = 1\n");
        assert_eq!(
            ok(b"# -*- coding: latin-1 -*-\ns = '\xe9'\n").unwrap(),
            "# -*- coding: latin-1 -*-\ns = '\u{e9}'\n"
        );
        assert_eq!(
            ok(b"#!/usr/bin/python\n# vim: set fileencoding=iso-8859-1 :\ns='\xe9'\n")
                .unwrap()
                .chars()
                .last(),
            Some('\n')
        );
        assert_eq!(
            ok(b"# coding=cp1252\ns='\x80'\n").unwrap(),
            "# coding=cp1252\ns='\u{20ac}'\n"
        );
        // A declaration on line 2 after code on line 1 does not count.
        assert!(matches!(
            ok(b"x = 1\n# coding: latin-1\n'\xe9'"),
            Err(DecodeError::Invalid { .. })
        ));
        assert_eq!(ok(b"# coding: utf-8\n").unwrap(), "# coding: utf-8\n");
    }

    #[test]
    fn reports_what_it_cannot_decode() {
        assert_eq!(decode(b"ab\0c").unwrap_err(), DecodeError::Binary { at: 2 });
        assert_eq!(
            decode(b"x = '\xff'").unwrap_err(),
            DecodeError::Invalid {
                encoding: "UTF-8".into(),
                at: 5
            }
        );
        assert_eq!(
            decode(b"# coding: euc-jp\nx=1").unwrap_err().reason(),
            "unsupported-encoding"
        );
        assert_eq!(
            decode(b"\xef\xbb\xbf# coding: latin-1\n")
                .unwrap_err()
                .reason(),
            "undecodable"
        );
        assert_eq!(
            decode(b"# coding=cp1252\n\x81").unwrap_err().reason(),
            "undecodable"
        );
    }
}
