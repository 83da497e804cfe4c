//! The four parts of a reflective-repair reply (domain.md §2 step 3).

use serde::{Deserialize, Serialize};

use crate::analysis::extract::extract_code;
use crate::analysis::splice::method_from_reply;

/// The four parts of a reflective-repair reply.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Reflection {
    /// (a) What failed and why (syntax / logic / dependency).
    pub analysis: String,
    /// (b) The code region held responsible.
    pub region: String,
    /// (c) The repair plan.
    pub plan: String,
    /// (d) The complete revised method (dedented), when the patch defines it.
    pub patch_code: Option<String>,
    pub problems: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Analysis,
    Region,
    Plan,
    Patch,
}

const PART_TITLES: [(Part, &[&str]); 4] = [
    (
        Part::Analysis,
        &[
            "failure analysis",
            "analysis",
            "root cause",
            "root cause analysis",
            "diagnosis",
            "error analysis",
            "analysis of the failure",
            "failure",
        ],
    ),
    (
        Part::Region,
        &[
            "code region",
            "region",
            "responsible code",
            "responsible code region",
            "faulty code",
            "faulty region",
            "location",
            "code location",
            "responsible region",
            "culprit",
        ],
    ),
    (
        Part::Plan,
        &[
            "repair plan",
            "plan",
            "fix plan",
            "proposed fix",
            "repair strategy",
            "plan of repair",
        ],
    ),
    (
        Part::Patch,
        &[
            "patch",
            "minimal patch",
            "fix",
            "code",
            "revised method",
            "revised code",
            "corrected method",
            "corrected code",
            "fixed method",
            "fixed code",
            "updated method",
            "updated code",
            "complete revised method",
            "solution",
        ],
    ),
];

/// Read a reflection reply: `### Failure analysis`, `### Code region`, `### Repair plan`,
/// `### Patch` (any heading level, bold titles, numbering, any case). Missing parts are
/// empty and reported; without any heading the prose is the analysis and the last code
/// block the patch.
pub fn parse_reflection(text: &str, method: &str) -> Reflection {
    let text = text.replace("\r\n", "\n");
    let mut parts: Vec<(Part, String)> = Vec::new();
    let mut current: Option<usize> = None;
    let mut prose = String::new();
    let mut fence: Option<String> = None;
    for line in text.split('\n') {
        let heading = if fence.is_none() {
            heading_of(line)
        } else {
            None
        };
        if let Some((part, rest)) = heading {
            let index = match parts.iter().position(|(p, _)| *p == part) {
                Some(i) => i,
                None => {
                    parts.push((part, String::new()));
                    parts.len() - 1
                }
            };
            current = Some(index);
            push_line(&mut parts[index].1, rest);
            continue;
        }
        fence = next_fence_state(fence, line);
        match current {
            Some(i) => push_line(&mut parts[i].1, line),
            None => push_line(&mut prose, line),
        }
    }
    let take = |part: Part| {
        parts
            .iter()
            .find(|(p, _)| *p == part)
            .map(|(_, t)| t.trim().to_string())
    };
    let mut r = Reflection::default();
    let names = [
        (Part::Analysis, "failure analysis"),
        (Part::Region, "code region"),
        (Part::Plan, "repair plan"),
        (Part::Patch, "patch"),
    ];
    if parts.is_empty() {
        r.problems.push("no section headings in the reply".into());
        r.analysis = strip_code_blocks(&prose).trim().to_string();
    } else {
        for (part, name) in names {
            if take(part).is_none_or(|t| t.is_empty()) {
                r.problems.push(format!("no {name} section"));
            }
        }
        r.analysis = take(Part::Analysis).unwrap_or_default();
        r.region = take(Part::Region).unwrap_or_default();
        r.plan = take(Part::Plan).unwrap_or_default();
    }
    let patch_section = take(Part::Patch).filter(|t| !t.trim().is_empty());
    let code = match &patch_section {
        Some(section) => code_blocks(section)
            .pop()
            .unwrap_or_else(|| extract_code(section)),
        None => {
            let last = code_blocks(&text).pop();
            if last.is_some() && !parts.is_empty() {
                r.problems
                    .push("no patch section; the last code block is taken".into());
            }
            last.unwrap_or_default()
        }
    };
    if code.trim().is_empty() {
        if patch_section.is_some() {
            r.problems.push("the patch section holds no code".into());
        }
    } else {
        r.patch_code = method_from_reply(&code, method);
        if r.patch_code.is_none() {
            r.problems
                .push(format!("the patch does not define `{method}`"));
        }
    }
    r
}

fn push_line(buf: &mut String, line: &str) {
    if !buf.is_empty() || !line.trim().is_empty() {
        buf.push_str(line);
        buf.push('\n');
    }
}

/// A section heading: `## Title`, `**Title:**`, `1. Title:`, `(a) Title`, `Title:` …, and
/// what follows the title on the same line.
fn heading_of(line: &str) -> Option<(Part, &str)> {
    let t = line.trim();
    let hashes = t.len() - t.trim_start_matches('#').len();
    let mut s = t.trim_start_matches('#').trim_start();
    let mut marked = hashes > 0 && hashes <= 6;
    let numbered = strip_numbering(s);
    if numbered.len() != s.len() {
        marked = true;
        s = numbered;
    }
    let (title, rest) = if let Some(b) = s.strip_prefix("**").or_else(|| s.strip_prefix("__")) {
        marked = true;
        let close = b.find("**").or_else(|| b.find("__"))?;
        let rest = b[close + 2..].trim_start_matches(':').trim();
        (&b[..close], rest)
    } else {
        match s.split_once(':') {
            Some((title, rest)) => (title, rest.trim()),
            None => (s, ""),
        }
    };
    let title = strip_numbering(title.trim());
    // Plain lines are headings only as a short `Title:` alone on its line.
    let colon_alone = s.trim_end().ends_with(':') && rest.is_empty();
    if !marked && !colon_alone {
        return None;
    }
    let key = normalize_title(title);
    PART_TITLES
        .iter()
        .find(|(_, titles)| titles.contains(&key.as_str()))
        .map(|(part, _)| (*part, rest))
}

/// `1.`, `1)`, `(1)`, `a)`, `(a)`, `Step 1:`, `Part 2 -` at the start of a title.
fn strip_numbering(s: &str) -> &str {
    let mut t = s.trim_start();
    for word in ["Step", "step", "STEP", "Part", "part", "PART"] {
        if let Some(r) = t.strip_prefix(word)
            && r.trim_start().starts_with(|c: char| c.is_ascii_digit())
        {
            t = r.trim_start();
        }
    }
    let inner = t.strip_prefix('(').unwrap_or(t);
    let label_len = inner
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(inner.len());
    let label = &inner[..label_len];
    let short = label.len() <= 2 && !label.is_empty();
    let is_label = short
        && (label.chars().all(|c| c.is_ascii_digit())
            || (label.len() == 1 && label.chars().all(|c| c.is_ascii_lowercase())));
    if is_label {
        let after = &inner[label_len..];
        for sep in [").", ")", ".", ":", " -"] {
            if let Some(r) = after.strip_prefix(sep) {
                return r.trim_start().trim_start_matches(['-', ':']).trim_start();
            }
        }
    }
    t
}

/// Lower case, words only, parenthesised remarks and `- comments` removed.
fn normalize_title(title: &str) -> String {
    let t = title.split(" - ").next().unwrap_or("");
    let t = t.split(" — ").next().unwrap_or("");
    let t = t.split('(').next().unwrap_or("");
    let t = t.trim().trim_end_matches(['*', '_', ':', '.']);
    t.split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '/'))
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

fn fence_of(line: &str) -> Option<(char, usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let t = line.trim_start();
    let ch = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = t.chars().take_while(|c| *c == ch).count();
    (n >= 3).then(|| (ch, n, t[n..].trim()))
}

/// The fence a line leaves open: `None` outside a block, the opening fence inside one.
fn next_fence_state(open: Option<String>, line: &str) -> Option<String> {
    match (open, fence_of(line)) {
        (None, Some((ch, n, info))) if !(ch == '`' && info.contains('`')) => {
            Some(ch.to_string().repeat(n))
        }
        (Some(f), Some((ch, n, info))) if info.is_empty() && f.starts_with(ch) && n >= f.len() => {
            None
        }
        (state, _) => state,
    }
}

/// The contents of the fenced code blocks of a text, in order (an unclosed block runs to
/// the end). Blocks tagged with another language than Python are skipped.
pub(super) fn code_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut open: Option<(String, bool)> = None;
    let mut body = String::new();
    for line in text.split('\n') {
        match (&open, fence_of(line)) {
            (None, Some((ch, n, info))) if !(ch == '`' && info.contains('`')) => {
                let lang = info
                    .split_whitespace()
                    .next()
                    .unwrap_or("")
                    .to_ascii_lowercase();
                let python = matches!(lang.as_str(), "" | "python" | "py" | "python3" | "py3");
                open = Some((ch.to_string().repeat(n), python));
                body.clear();
            }
            (Some((f, python)), Some((ch, n, info)))
                if info.is_empty() && f.starts_with(ch) && n >= f.len() =>
            {
                if *python {
                    blocks.push(std::mem::take(&mut body));
                }
                open = None;
            }
            (Some(_), _) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, _) => {}
        }
    }
    if let Some((_, true)) = open {
        blocks.push(body);
    }
    blocks
}

fn strip_code_blocks(text: &str) -> String {
    let mut out = String::new();
    let mut fence = None;
    for line in text.split('\n') {
        let inside = fence.is_some();
        fence = next_fence_state(fence, line);
        if !inside && fence.is_none() {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}
