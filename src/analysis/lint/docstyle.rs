//! Docstring rules about a class's docstrings as a whole: D16 mixed styles, D17 mixed verb
//! forms. Both are `info`: one voice per class is the cleaned benchmark's style, not a bug.

use super::docfields::{Doc, Style};
use super::{At, Ctx, Part};
use crate::analysis::parse::MethodDef;

/// D16: the class's docstrings do not share one style; the minority is flagged.
pub(super) fn mixed_styles(ctx: &mut Ctx<'_>, docs: &[(MethodDef, Doc, usize)]) {
    let mut counts: Vec<(Style, usize)> = Vec::new();
    for (_, d, _) in docs {
        for s in &d.styles {
            match counts.iter_mut().find(|(x, _)| x == s) {
                Some((_, n)) => *n += 1,
                None => counts.push((*s, 1)),
            }
        }
    }
    if counts.len() < 2 {
        return;
    }
    let main = counts
        .iter()
        .max_by_key(|(s, n)| (*n, std::cmp::Reverse(*s)))
        .map(|(s, _)| *s);
    for (def, d, first) in docs {
        if let Some(other) = d.styles.iter().find(|s| Some(**s) != main) {
            ctx.emit(
                "D16",
                At::new(Part::Skeleton, Some(&def.name), Some(*first)),
                format!(
                    "The docstring of `{}` uses the {} style; the class mostly uses {}.",
                    def.name,
                    other.name(),
                    main.map_or("another", |m| m.name())
                ),
                None,
            );
        }
    }
}

/// Verbs that open method descriptions, in the imperative.
const VERBS: [&str; 48] = [
    "add",
    "append",
    "apply",
    "calculate",
    "change",
    "check",
    "clear",
    "close",
    "compare",
    "compute",
    "convert",
    "count",
    "create",
    "decode",
    "delete",
    "determine",
    "display",
    "encode",
    "extract",
    "filter",
    "find",
    "format",
    "generate",
    "get",
    "initialize",
    "insert",
    "judge",
    "load",
    "merge",
    "move",
    "parse",
    "print",
    "process",
    "read",
    "register",
    "remove",
    "reset",
    "retrieve",
    "return",
    "save",
    "search",
    "set",
    "sort",
    "split",
    "update",
    "validate",
    "verify",
    "write",
];

/// `Some(true)` for an imperative first word (`Return`), `Some(false)` for a third-person one
/// (`Returns`), `None` when the word is not a known verb.
pub(super) fn verb_form(description: &str) -> Option<bool> {
    let word: String = description
        .split_whitespace()
        .next()?
        .trim_matches(|c: char| !c.is_alphabetic())
        .to_ascii_lowercase();
    if VERBS.contains(&word.as_str()) {
        return Some(true);
    }
    let stem = word.strip_suffix("es").filter(|s| VERBS.contains(s));
    let stem = stem.or_else(|| word.strip_suffix('s').filter(|s| VERBS.contains(s)));
    stem.map(|_| false)
}

/// D17: both verb forms open descriptions in one class; the minority is flagged.
pub(super) fn mixed_verbs(ctx: &mut Ctx<'_>, docs: &[(MethodDef, Doc, usize)]) {
    let forms: Vec<(&MethodDef, usize, bool)> = docs
        .iter()
        .filter_map(|(def, d, first)| {
            let (l, text) = d.description.first()?;
            verb_form(text).map(|f| (def, first + l, f))
        })
        .collect();
    let imperative = forms.iter().filter(|f| f.2).count();
    let third = forms.len() - imperative;
    if imperative == 0 || third == 0 {
        return;
    }
    let minority = imperative < third;
    for (def, l, _) in forms.iter().filter(|f| f.2 == minority) {
        let (this, other) = if minority {
            ("the imperative", "the third person")
        } else {
            ("the third person", "the imperative")
        };
        ctx.emit(
            "D17",
            At::new(Part::Skeleton, Some(&def.name), Some(*l)),
            format!(
                "The description of `{}` starts in {this}; most of the class's start in {other}.",
                def.name
            ),
            None,
        );
    }
}
