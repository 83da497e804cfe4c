//! What a docstring says about a method's parameters and exceptions.

use super::pool::python_str;

/// Identifiers ending in `Error` or `Exception` in a docstring, each once.
pub(super) fn exception_names(doc: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in doc.split(|c: char| !c.is_alphanumeric() && c != '_') {
        if (word.ends_with("Error") || word.ends_with("Exception"))
            && word.chars().next().is_some_and(char::is_uppercase)
            && !out.iter().any(|w| w == word)
        {
            out.push(word.to_string());
        }
    }
    out
}

/// `:param name: TYPE` (reStructuredText) or `name (TYPE):` (Google style) in a docstring.
pub(super) fn documented_type(doc: &str, name: &str) -> Option<String> {
    for line in doc.lines() {
        let l = line.trim();
        if let Some(rest) = l.strip_prefix(":param ") {
            let Some((head, ty)) = rest.split_once(':') else {
                continue;
            };
            let mut words = head.split_whitespace();
            let (a, b) = (words.next(), words.next());
            // `:param int x:` names the type before the parameter.
            if b == Some(name) {
                return a.map(String::from);
            }
            if a == Some(name) {
                // `int`, `str, the name`, `Current status,int.`: the description whole,
                // when it names a type at all (else the reference's use of it says).
                return names_a_type(ty).then(|| ty.trim().to_string());
            }
        } else if let Some(rest) = l.strip_prefix(":type ") {
            if let Some((n, ty)) = rest.split_once(':')
                && n.trim() == name
            {
                return Some(ty.trim().to_string());
            }
        } else if let Some(rest) = l.strip_prefix(name)
            && let Some(rest) = rest.trim_start().strip_prefix('(')
            && let Some((ty, _)) = rest.split_once("):")
        {
            return Some(ty.trim().to_string());
        }
    }
    None
}

/// Docstring words that name a type (`forge_values.DOC_WORDS`), or an annotation's brackets.
pub(super) fn names_a_type(text: &str) -> bool {
    const WORDS: &[&str] = &[
        "int",
        "integer",
        "float",
        "number",
        "double",
        "str",
        "string",
        "bool",
        "boolean",
        "list",
        "array",
        "dict",
        "dictionary",
        "tuple",
        "set",
        "bytes",
    ];
    text.contains('[')
        || text
            .split(|c: char| !c.is_ascii_alphabetic())
            .any(|w| WORDS.contains(&w.to_ascii_lowercase().as_str()))
}

/// The text after `:param name:` in a docstring.
pub(super) fn description<'d>(doc: &'d str, name: &str) -> Option<&'d str> {
    doc.lines().find_map(|l| {
        let (head, rest) = l.trim().strip_prefix(":param ")?.split_once(':')?;
        (head.split_whitespace().last() == Some(name)).then_some(rest.trim())
    })
}

/// The values a description enumerates (`str, male or female`, `'w', 'a', 's' or 'd'`) when
/// it names one of the strings the reference compares the parameter with: the rest of the
/// domain, which the reference handles in an `else`.
pub(super) fn enumerated(described: &str, compared: &[String]) -> Vec<String> {
    if !(described.contains(" or ") || described.contains('\'')) {
        return Vec::new();
    }
    let words: Vec<&str> = described
        .split(|c: char| c.is_whitespace() || ",;/|()'\"".contains(c))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| !w.is_empty() && !["or", "and", "either"].contains(w) && !names_a_type(w))
        .collect();
    if !compared.iter().any(|c| words.contains(&c.as_str())) {
        return Vec::new();
    }
    words.into_iter().map(String::from).collect()
}

/// `Literal['female', 'male']` for a string parameter the reference compares with two or more
/// strings (`usage::choices`, with those its description enumerates): only those are in its
/// domain.
pub(super) fn choice_type(ty: &str, strings: &[String]) -> Option<String> {
    let stringly = ty.is_empty()
        || ty
            .split(|c: char| !c.is_ascii_alphabetic())
            .any(|w| matches!(w.to_ascii_lowercase().as_str(), "str" | "string"));
    (strings.len() >= 2 && stringly).then(|| {
        let items: Vec<String> = strings.iter().map(|x| python_str(x)).collect();
        format!("Literal[{}]", items.join(", "))
    })
}
