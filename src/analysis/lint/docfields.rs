//! A tolerant reader of method docstrings: description lines, reST fields (`:param x: type,
//! text`, `:return: type, text`, also without the second colon as ClassEval often writes),
//! `>>>` examples, and which docstring styles appear.

/// One `:param`/`:return` field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Field {
    pub kind: FieldKind,
    /// The parameter name (`:param name:`); empty for returns.
    pub name: String,
    /// The type slot: the text up to the first comma or sentence end.
    pub ty: String,
    /// Everything after the name, continuation lines included.
    pub text: String,
    /// Line within the docstring, 0-based.
    pub line: usize,
    /// The field line as written (trimmed).
    pub raw: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FieldKind {
    Param,
    Return,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Style {
    Rest,
    Google,
    Numpy,
    Epytext,
}

impl Style {
    pub fn name(self) -> &'static str {
        match self {
            Style::Rest => "reST (`:param x:`)",
            Style::Google => "Google (`Args:`)",
            Style::Numpy => "NumPy (`Parameters` + dashes)",
            Style::Epytext => "Epytext (`@param`)",
        }
    }
}

#[derive(Debug, Clone, Default)]
pub(super) struct Doc {
    /// Prose lines (0-based line, text), outside fields and examples.
    pub description: Vec<(usize, String)>,
    pub fields: Vec<Field>,
    pub styles: Vec<Style>,
}

impl Doc {
    pub fn params(&self) -> impl Iterator<Item = &Field> {
        self.fields.iter().filter(|f| f.kind == FieldKind::Param)
    }

    pub fn returns(&self) -> Option<&Field> {
        self.fields.iter().find(|f| f.kind == FieldKind::Return)
    }
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Field prefixes that open a `:return` field, longest first.
const RETURNS: [&str; 3] = [":returns", ":return", ":rtype"];
/// Other reST fields: they end a field's continuation but are not read.
const OTHER_FIELDS: [&str; 7] = [
    ":type", ":raises", ":raise", ":ivar", ":var", ":cvar", ":example",
];

pub(super) fn parse_doc(doc: &str) -> Doc {
    let mut out = Doc::default();
    let lines: Vec<&str> = doc.lines().collect();
    let mut in_example = false;
    // Indent of the open field, to glue its continuation lines.
    let mut open: Option<usize> = None;
    for (i, raw) in lines.iter().enumerate() {
        let t = raw.trim();
        if t.is_empty() {
            in_example = false;
            open = None;
            continue;
        }
        if t.starts_with(">>>") {
            in_example = true;
            open = None;
            continue;
        }
        if in_example {
            continue;
        }
        note_style(&mut out.styles, t, lines.get(i + 1).map(|l| l.trim()));
        if let Some(field) = read_field(t, i) {
            open = Some(indent(raw));
            if !out.styles.contains(&Style::Rest) {
                out.styles.push(Style::Rest);
            }
            out.fields.push(field);
            continue;
        }
        if t.starts_with(':') && OTHER_FIELDS.iter().any(|p| t.starts_with(p)) {
            open = Some(indent(raw));
            continue;
        }
        match (open, out.fields.last_mut()) {
            (Some(ind), Some(last)) if indent(raw) > ind => {
                last.text.push(' ');
                last.text.push_str(t);
            }
            _ => {
                open = None;
                out.description.push((i, t.to_string()));
            }
        }
    }
    out
}

fn note_style(styles: &mut Vec<Style>, t: &str, next: Option<&str>) {
    let style = if ["Args:", "Arguments:", "Returns:", "Raises:", "Yields:"]
        .iter()
        .any(|h| t == *h || (t.starts_with(h) && *h != "Returns:"))
    {
        Some(Style::Google)
    } else if ["Parameters", "Returns"].contains(&t)
        && next.is_some_and(|n| n.len() >= 3 && n.chars().all(|c| c == '-'))
    {
        Some(Style::Numpy)
    } else if t.starts_with("@param") || t.starts_with("@return") {
        Some(Style::Epytext)
    } else {
        None
    };
    if let Some(s) = style
        && !styles.contains(&s)
    {
        styles.push(s);
    }
}

fn read_field(t: &str, line: usize) -> Option<Field> {
    if let Some(rest) = t
        .strip_prefix(":param")
        .or_else(|| t.strip_prefix(":parameter"))
        .or_else(|| t.strip_prefix(":arg"))
        .filter(|r| r.starts_with([' ', '\t']))
    {
        let rest = rest.trim_start();
        let (name_part, after) = match rest.split_once(':') {
            Some((n, a)) if !n.trim().is_empty() && !n.contains(',') => (n.trim(), a),
            _ => {
                // `:param name text` without the colon.
                let mut it = rest.splitn(2, char::is_whitespace);
                (it.next().unwrap_or(""), it.next().unwrap_or(""))
            }
        };
        // `:param str name:` puts the type first.
        let name = name_part
            .split_whitespace()
            .last()
            .unwrap_or("")
            .trim_end_matches([',', ';', '.'])
            .to_string();
        return Some(field(FieldKind::Param, name, after, line, t));
    }
    let prefix = RETURNS.iter().find(|p| t.starts_with(**p))?;
    let rest = &t[prefix.len()..];
    // `:returnvalue` is not a field; `:return:`, `:return x` and `:return` are.
    if !(rest.is_empty() || rest.starts_with([':', ' ', '\t'])) {
        return None;
    }
    let after = rest.strip_prefix(':').unwrap_or(rest);
    Some(field(FieldKind::Return, String::new(), after, line, t))
}

fn field(kind: FieldKind, name: String, after: &str, line: usize, raw: &str) -> Field {
    let text = after.trim().to_string();
    Field {
        kind,
        name,
        ty: type_slot(&text),
        text,
        line,
        raw: raw.to_string(),
    }
}

/// The type part of a field's text: up to the first comma, semicolon or sentence end.
pub(super) fn type_slot(text: &str) -> String {
    let end = [", ", ",", "; ", ". "]
        .iter()
        .filter_map(|sep| text.find(sep))
        .min()
        .unwrap_or(text.len());
    text[..end].trim().trim_end_matches('.').trim().to_string()
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn reads_fields_in_classeval_spellings() {
        let doc = "\n        Record a score.\n        :param student: str, the name\n        :param score:int, from 0\n            to 100\n        :param display Bool whether to print\n        :return a list of names\n        >>> book.add(1)\n        :param fake: not a field\n        ";
        let d = parse_doc(doc);
        let names: Vec<_> = d.params().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["student", "score", "display"]);
        let tys: Vec<_> = d.params().map(|f| f.ty.as_str()).collect();
        assert_eq!(tys, ["str", "int", "Bool whether to print"]);
        assert_eq!(d.fields[1].text, "int, from 0 to 100");
        assert_eq!(d.returns().map(|r| r.ty.as_str()), Some("a list of names"));
        assert_eq!(d.description, [(1, "Record a score.".to_string())]);
        assert_eq!(d.styles, [Style::Rest]);
    }

    #[test]
    fn styles_and_slots() {
        let d = parse_doc("Do it.\nArgs:\n    x: int\nReturns:\n    int\n");
        assert_eq!(d.styles, [Style::Google]);
        let d = parse_doc("Do it.\nParameters\n----------\nx : int\n");
        assert_eq!(d.styles, [Style::Numpy]);
        assert_eq!(type_slot("str. The SQL."), "str");
        assert_eq!(type_slot("list[int], the values"), "list[int]");
        assert_eq!(type_slot(""), "");
        assert!(parse_doc("").fields.is_empty());
        assert!(parse_doc(":returnvalue: x").fields.is_empty());
    }
}
