//! The filter language of `corpus query`, `export` and the browser, compiled to SQL over the
//! store's indexed columns:
//!
//! ```text
//! CountDeclMethod>=5 and SumCyclomatic<40 and doc>=0.8 and unique and self_contained
//!   and text:"cache" and not repo="django" or (path~"asyncio/" and methods>3)
//! ```
//!
//! Comparisons `< <= > >= = !=` on a metric or numeric field; `=`, `!=` and `~` (contains) on
//! `repo`, `path`, `name`, `qualname`; flags `unique`, `self_contained`, `documented`,
//! `duplicate`, `near_duplicate`; `text:"…"` full-text search over names, docstrings and code;
//! `and`, `or`, `not`, parentheses. Errors give the character where the problem is.

use rusqlite::types::Value;

use crate::analysis::metrics::METRIC_NAMES;

/// A filter that failed to parse: what and where (0-based character offset).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterError {
    pub message: String,
    pub at: usize,
    pub input: String,
}

impl std::fmt::Display for FilterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "filter: {} at character {}", self.message, self.at + 1)?;
        writeln!(f, "  {}", self.input)?;
        write!(f, "  {}^", " ".repeat(self.at))
    }
}

impl std::error::Error for FilterError {}

/// A compiled filter: an SQL condition over `classes` (aliased `c`) and its parameters.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    pub sql: String,
    pub params: Vec<Value>,
}

impl Filter {
    /// Everything.
    pub fn all() -> Filter {
        Filter {
            sql: "1".into(),
            params: Vec::new(),
        }
    }

    pub fn parse(input: &str) -> Result<Filter, FilterError> {
        if input.trim().is_empty() {
            return Ok(Filter::all());
        }
        let tokens = lex(input)?;
        let mut p = Parser {
            tokens,
            pos: 0,
            input,
            params: Vec::new(),
        };
        let sql = p.or()?;
        if let Some(t) = p.tokens.get(p.pos) {
            return Err(p.error(format!("unexpected `{}`", t.text), t.at));
        }
        Ok(Filter {
            sql,
            params: p.params,
        })
    }
}

/// Numeric columns a filter (and a sort) may name; metrics are quoted, being mixed case.
pub fn numeric_column(name: &str) -> Option<String> {
    if let Some(m) = METRIC_NAMES.iter().find(|m| **m == name) {
        return Some(format!("c.\"{m}\""));
    }
    let col = match name {
        "methods" => "n_methods",
        _ if NUMERIC_FIELDS.contains(&name) => name,
        _ => return None,
    };
    Some(format!("c.{col}"))
}

/// The numeric fields besides the metrics (`methods` is an alias of `n_methods`).
const NUMERIC_FIELDS: &[&str] = &[
    "methods",
    "n_methods",
    "total_program_units",
    "total_doc_str",
    "doc",
    "line",
    "end_line",
    "tokens",
    "id",
];

/// Every column a sort may name: the metrics, then the other numeric fields.
pub fn numeric_columns() -> impl Iterator<Item = &'static str> {
    METRIC_NAMES.iter().chain(NUMERIC_FIELDS).copied()
}

/// What a filter may name, for help: made from the lists the parser reads.
pub fn fields_help() -> String {
    let flags: Vec<&str> = FLAGS.iter().map(|(f, _)| *f).collect();
    format!(
        "Filter fields:\n  metrics (< <= > >= = !=): {}\n  numeric (< <= > >= = !=): {}\n  \
         text (= != ~): {}\n  flags: {}\n  text:\"…\": full-text search over names, docstrings \
         and code\n  combine with and, or, not, parentheses",
        METRIC_NAMES.join(", "),
        NUMERIC_FIELDS.join(", "),
        TEXT_FIELDS.join(", "),
        flags.join(", ")
    )
}

const TEXT_FIELDS: &[&str] = &["repo", "path", "name", "qualname"];

/// A number as SQL compares it exactly: an integer stays an integer (a class id uses 63 bits,
/// more than a double holds), anything else is a double.
fn exact_number(text: &str) -> Option<Value> {
    if let Ok(i) = text.parse::<i64>() {
        return Some(Value::Integer(i));
    }
    text.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .map(Value::Real)
}

const FLAGS: &[(&str, &str)] = &[
    ("unique", "c.is_unique = 1"),
    ("self_contained", "c.self_contained = 1"),
    ("documented", "c.doc >= 1.0"),
    ("duplicate", "c.dup_cluster IS NOT NULL"),
    ("near_duplicate", "c.near_dup_cluster IS NOT NULL"),
];

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    Word,
    Number,
    Str(String),
    Op,
    Open,
    Close,
    Colon,
}

#[derive(Debug, Clone)]
struct Token {
    kind: Kind,
    text: String,
    /// Character offset.
    at: usize,
}

fn lex(input: &str) -> Result<Vec<Token>, FilterError> {
    let chars: Vec<char> = input.chars().collect();
    let err = |message: String, at: usize| FilterError {
        message,
        at,
        input: input.to_string(),
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let (kind, text) = if c.is_alphabetic() || c == '_' {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            (Kind::Word, chars[start..i].iter().collect::<String>())
        } else if c.is_ascii_digit()
            || (c == '.' || c == '-') && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())
        {
            i += 1;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            if exact_number(&text).is_none() {
                return Err(err(format!("`{text}` is not a number"), start));
            }
            (Kind::Number, text)
        } else if c == '"' || c == '\'' {
            i += 1;
            let mut s = String::new();
            while i < chars.len() && chars[i] != c {
                if chars[i] == '\\' && i + 1 < chars.len() {
                    i += 1;
                }
                s.push(chars[i]);
                i += 1;
            }
            if i >= chars.len() {
                return Err(err("unterminated string".into(), start));
            }
            i += 1;
            (Kind::Str(s), chars[start..i].iter().collect())
        } else if "<>=!~".contains(c) {
            i += 1;
            if i < chars.len() && chars[i] == '=' {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            if !matches!(
                text.as_str(),
                "<" | "<=" | ">" | ">=" | "=" | "==" | "!=" | "~"
            ) {
                return Err(err(format!("unknown operator `{text}`"), start));
            }
            (Kind::Op, text)
        } else if c == '(' {
            i += 1;
            (Kind::Open, "(".into())
        } else if c == ')' {
            i += 1;
            (Kind::Close, ")".into())
        } else if c == ':' {
            i += 1;
            (Kind::Colon, ":".into())
        } else {
            return Err(err(format!("unexpected character `{c}`"), start));
        };
        out.push(Token {
            kind,
            text,
            at: start,
        });
    }
    Ok(out)
}

struct Parser<'a> {
    tokens: Vec<Token>,
    pos: usize,
    input: &'a str,
    params: Vec<Value>,
}

impl Parser<'_> {
    fn error(&self, message: String, at: usize) -> FilterError {
        FilterError {
            message,
            at,
            input: self.input.to_string(),
        }
    }

    fn end(&self) -> usize {
        self.input.chars().count()
    }

    fn peek_word(&self, w: &str) -> bool {
        self.tokens
            .get(self.pos)
            .is_some_and(|t| t.kind == Kind::Word && t.text.eq_ignore_ascii_case(w))
    }

    fn or(&mut self) -> Result<String, FilterError> {
        let mut parts = vec![self.and()?];
        while self.peek_word("or") {
            self.pos += 1;
            parts.push(self.and()?);
        }
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            format!("({})", parts.join(" OR "))
        })
    }

    fn and(&mut self) -> Result<String, FilterError> {
        let mut parts = vec![self.not()?];
        while self.peek_word("and") {
            self.pos += 1;
            parts.push(self.not()?);
        }
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            format!("({})", parts.join(" AND "))
        })
    }

    fn not(&mut self) -> Result<String, FilterError> {
        if self.peek_word("not") {
            self.pos += 1;
            return Ok(format!("NOT ({})", self.not()?));
        }
        self.atom()
    }

    fn next(&mut self, what: &str) -> Result<Token, FilterError> {
        let t = self
            .tokens
            .get(self.pos)
            .cloned()
            .ok_or_else(|| self.error(format!("expected {what}, found the end"), self.end()))?;
        self.pos += 1;
        Ok(t)
    }

    fn atom(&mut self) -> Result<String, FilterError> {
        let t = self.next("a condition")?;
        match t.kind {
            Kind::Open => {
                let inner = self.or()?;
                let close = self.next("`)`")?;
                if close.kind != Kind::Close {
                    return Err(
                        self.error(format!("expected `)`, found `{}`", close.text), close.at)
                    );
                }
                Ok(format!("({inner})"))
            }
            Kind::Word => self.word(t),
            _ => Err(self.error(
                format!("expected a field or a flag, found `{}`", t.text),
                t.at,
            )),
        }
    }

    fn word(&mut self, t: Token) -> Result<String, FilterError> {
        let next = self.tokens.get(self.pos).cloned();
        if t.text == "text" && next.as_ref().is_some_and(|n| n.kind == Kind::Colon) {
            self.pos += 1;
            let s = self.next("a quoted text")?;
            let Kind::Str(q) = s.kind else {
                return Err(self.error("expected a quoted text after `text:`".into(), s.at));
            };
            if q.trim().is_empty() {
                return Err(self.error("empty text search".into(), s.at));
            }
            // One FTS5 phrase: the words in order, quotes doubled.
            self.params
                .push(Value::Text(format!("\"{}\"", q.replace('"', "\"\""))));
            return Ok(
                "c.seq IN (SELECT rowid FROM class_fts WHERE class_fts MATCH ?)".to_string(),
            );
        }
        if let Some((_, sql)) = FLAGS.iter().find(|(f, _)| *f == t.text) {
            return Ok(sql.to_string());
        }
        let Some(op) = next.filter(|n| n.kind == Kind::Op) else {
            let known = numeric_column(&t.text).is_some() || TEXT_FIELDS.contains(&t.text.as_str());
            let message = if known {
                format!("`{}` needs a comparison, e.g. `{}>=1`", t.text, t.text)
            } else {
                format!("unknown field or flag `{}`", t.text)
            };
            return Err(self.error(message, t.at));
        };
        self.pos += 1;
        let value = self.next("a value")?;
        let sql_op = match op.text.as_str() {
            "==" | "=" => "=",
            other => other,
        };
        if let Some(col) = numeric_column(&t.text) {
            // A number, or a quoted one (ids are printed as strings in JSON).
            let number = match &value.kind {
                Kind::Number => Some(value.text.as_str()),
                Kind::Str(s) => Some(s.trim()),
                _ => None,
            }
            .and_then(exact_number);
            let Some(number) = number else {
                return Err(self.error(format!("`{}` compares with a number", t.text), value.at));
            };
            if sql_op == "~" {
                return Err(self.error("`~` (contains) is for text fields".into(), op.at));
            }
            self.params.push(number);
            return Ok(format!("{col} {sql_op} ?"));
        }
        if TEXT_FIELDS.contains(&t.text.as_str()) {
            let Kind::Str(s) = value.kind else {
                return Err(self.error(
                    format!("`{}` compares with a quoted text", t.text),
                    value.at,
                ));
            };
            return match sql_op {
                "=" | "!=" => {
                    self.params.push(Value::Text(s));
                    Ok(format!("c.{} {sql_op} ?", t.text))
                }
                "~" => {
                    self.params.push(Value::Text(s));
                    Ok(format!("instr(c.{}, ?) > 0", t.text))
                }
                _ => Err(self.error(format!("`{}` takes =, != or ~", t.text), op.at)),
            };
        }
        Err(self.error(format!("unknown field `{}`", t.text), t.at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiles_the_issue_example() {
        let f = Filter::parse(
            "CountDeclMethod>=5 and SumCyclomatic<40 and doc>=0.8 and unique and self_contained and text:\"cache\"",
        )
        .unwrap();
        assert_eq!(
            f.sql,
            "(c.\"CountDeclMethod\" >= ? AND c.\"SumCyclomatic\" < ? AND c.doc >= ? AND c.is_unique = 1 AND c.self_contained = 1 AND c.seq IN (SELECT rowid FROM class_fts WHERE class_fts MATCH ?))"
        );
        assert_eq!(f.params.len(), 4);
        assert_eq!(f.params[3], Value::Text("\"cache\"".into()));
    }

    #[test]
    fn or_not_parentheses_and_text_fields() {
        let f = Filter::parse("not duplicate or (repo=\"a\" and path~'x/')").unwrap();
        assert_eq!(
            f.sql,
            "(NOT (c.dup_cluster IS NOT NULL) OR ((c.repo = ? AND instr(c.path, ?) > 0)))"
        );
        assert_eq!(Filter::parse("  ").unwrap(), Filter::all());
    }

    #[test]
    fn ids_compare_exactly_as_numbers_or_strings() {
        // 8665790563361795137 is not a double: as one it would be …072 and match nothing.
        for input in ["id=8665790563361795137", "id=\"8665790563361795137\""] {
            let f = Filter::parse(input).unwrap();
            assert_eq!(f.sql, "c.id = ?");
            assert_eq!(f.params, [Value::Integer(8_665_790_563_361_795_137)]);
        }
        assert_eq!(
            Filter::parse("doc>=0.5").unwrap().params,
            [Value::Real(0.5)]
        );
        assert_eq!(Filter::parse("id=\"x\"").unwrap_err().at, 3);
    }

    #[test]
    fn errors_point_at_the_offending_character() {
        let at = |s: &str| Filter::parse(s).unwrap_err().at;
        assert_eq!(at("CountDeclMethod>=5 and Foo<3"), 23);
        assert_eq!(at("CountDeclMethod>>5"), 16);
        assert_eq!(at("doc>=\"x\""), 5);
        assert_eq!(at("text:\"abc"), 5);
        assert_eq!(at("(unique"), 7);
        assert_eq!(at("unique $"), 7);
        assert_eq!(at("SumCyclomatic"), 0);
        let e = Filter::parse("unique and Foo>1").unwrap_err().to_string();
        assert!(e.contains("unknown field `Foo` at character 12"), "{e}");
        assert!(e.ends_with("\n             ^"), "{e:?}");
    }
}
