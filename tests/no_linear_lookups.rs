//! No task or result is looked up by scanning inside a loop anywhere in `src/`: a join of
//! 30,000 tasks with 30,000 results by scanning costs 30,000² comparisons (use
//! `model::TaskIndex`, or a map). A heuristic over the source, not a type check:
//! - a lookup is a closure of `position`/`rposition`/`find`/`any` that compares an id
//!   (`t.id == x`, `x == s.task_id`, `t == id` …), a call of `Dataset::task` (a scan), or
//!   `contains` on a list named `tasks` or `task_ids`;
//! - it is in a loop when it sits in the body of `for`/`while`/`loop` or in a closure given
//!   to an iterator adaptor (`map`, `filter`, `any` …);
//! - test code (`#[cfg(test)]` to the end of a file, `tests.rs`, `testutil.rs`) is skipped;
//! - a deliberate one carries `linear-ok: <why>` in a comment on its line or the line above.

use std::path::{Path, PathBuf};

const ADAPTORS: &[&str] = &[
    "map",
    "filter",
    "filter_map",
    "flat_map",
    "for_each",
    "any",
    "all",
    "find",
    "find_map",
    "position",
    "rposition",
    "retain",
    "sort_by",
    "sort_by_key",
    "sort_unstable_by",
    "sort_unstable_by_key",
    "take_while",
    "skip_while",
    "partition",
    "fold",
    "scan",
    "inspect",
    "max_by_key",
    "min_by_key",
    "max_by",
    "min_by",
];

const LOOKUPS: &[&str] = &[".position(|", ".rposition(|", ".find(|", ".any(|"];

/// The code with string literals and comments blanked (newlines kept), so that offsets and
/// line numbers stay those of the file.
fn blank(src: &str) -> Vec<char> {
    let s: Vec<char> = src.chars().collect();
    let mut out = s.clone();
    let mut i = 0;
    let blank_to = |out: &mut Vec<char>, from: usize, to: usize| {
        for c in out.iter_mut().take(to.min(s.len())).skip(from) {
            if *c != '\n' {
                *c = ' ';
            }
        }
    };
    while i < s.len() {
        match s[i] {
            '/' if s.get(i + 1) == Some(&'/') => {
                let end = (i..s.len()).find(|&j| s[j] == '\n').unwrap_or(s.len());
                blank_to(&mut out, i, end);
                i = end;
            }
            '/' if s.get(i + 1) == Some(&'*') => {
                let end = (i + 2..s.len().saturating_sub(1))
                    .find(|&j| s[j] == '*' && s[j + 1] == '/')
                    .map_or(s.len(), |j| j + 2);
                blank_to(&mut out, i, end);
                i = end;
            }
            'r' if s.get(i + 1) == Some(&'#') || s.get(i + 1) == Some(&'"') => {
                // A raw string: r"…", r#"…"#, r##"…"##.
                let hashes = s[i + 1..].iter().take_while(|c| **c == '#').count();
                if s.get(i + 1 + hashes) != Some(&'"')
                    || (i > 0 && (s[i - 1].is_alphanumeric() || s[i - 1] == '_'))
                {
                    i += 1;
                    continue;
                }
                let start = i + 2 + hashes;
                let mut j = start;
                let end = loop {
                    if j >= s.len() {
                        break s.len();
                    }
                    if s[j] == '"'
                        && s[j + 1..]
                            .iter()
                            .take(hashes)
                            .filter(|c| **c == '#')
                            .count()
                            == hashes
                    {
                        break j + 1 + hashes;
                    }
                    j += 1;
                };
                blank_to(&mut out, i, end);
                i = end;
            }
            '"' => {
                let mut j = i + 1;
                while j < s.len() && s[j] != '"' {
                    j += if s[j] == '\\' { 2 } else { 1 };
                }
                blank_to(&mut out, i, j + 1);
                i = j + 1;
            }
            '\'' => {
                // A char literal ('a', '\n', '\''), not a lifetime ('a).
                let end = if s.get(i + 1) == Some(&'\\') {
                    (i + 2..s.len().min(i + 12)).find(|&j| s[j] == '\'')
                } else {
                    (s.get(i + 2) == Some(&'\'')).then_some(i + 2)
                };
                match end {
                    Some(e) => {
                        blank_to(&mut out, i, e + 1);
                        i = e + 1;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// For each char of blanked code: is it inside a loop body or an adaptor's closure?
fn loop_context(code: &[char]) -> Vec<bool> {
    let mut stack: Vec<(char, bool)> = Vec::new();
    let mut out = Vec::with_capacity(code.len());
    // Where the current statement began (after the last `;`, `{` or `}`).
    let mut stmt_start = 0;
    for (i, &c) in code.iter().enumerate() {
        let inside = stack.iter().any(|(_, l)| *l);
        match c {
            '(' => {
                let before: String = code[..i].iter().collect();
                let trimmed = before.trim_end();
                let name: String = trimmed
                    .chars()
                    .rev()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                let dotted = trimmed[..trimmed.len() - name.len()]
                    .trim_end()
                    .ends_with('.');
                stack.push(('(', dotted && ADAPTORS.contains(&name.as_str())));
            }
            '{' => {
                let header: String = code[stmt_start..i].iter().collect();
                let header = header.trim_start();
                // A labelled loop: 'outer: for …
                let header = match header.strip_prefix('\'') {
                    Some(rest) => rest.split_once(':').map_or(header, |(_, r)| r.trim_start()),
                    None => header,
                };
                let is_loop = ["for ", "while ", "loop"]
                    .iter()
                    .any(|k| header.starts_with(k));
                stack.push(('{', is_loop));
                stmt_start = i + 1;
            }
            '[' => stack.push(('[', false)),
            ')' | '}' | ']' => {
                stack.pop();
                if c == '}' {
                    stmt_start = i + 1;
                }
            }
            ';' => stmt_start = i + 1,
            _ => {}
        }
        out.push(inside);
    }
    out
}

/// The last path segment of an operand (`&t.id` → `id`, `*task_id` → `task_id`).
fn last_segment(operand: &str) -> &str {
    let operand = operand.trim().trim_start_matches(['&', '*']);
    operand.rsplit(['.', ':']).next().unwrap_or(operand)
}

fn is_id(operand: &str) -> bool {
    let seg = last_segment(operand);
    seg == "id" || seg.ends_with("_id")
}

/// Does this closure text (after `|x|`, to the end of the line) compare an id?
fn compares_id(closure: &str) -> bool {
    let body = closure.split(')').next().unwrap_or(closure);
    body.match_indices("==").any(|(at, _)| {
        let left = body[..at]
            .rsplit(|c: char| c.is_whitespace() || c == '|' || c == '(')
            .find(|s| !s.is_empty())
            .unwrap_or("");
        let right = body[at + 2..]
            .split(|c: char| c.is_whitespace() || c == ')')
            .find(|s| !s.is_empty())
            .unwrap_or("");
        is_id(left) || is_id(right)
    })
}

/// `(line, text)` of every lookup in a loop in `src`, outside test code and allowed ones.
fn findings(src: &str) -> Vec<(usize, String)> {
    let raw_lines: Vec<&str> = src.lines().collect();
    let code = blank(src);
    let ctx = loop_context(&code);
    let text: String = code.iter().collect();
    let mut out = Vec::new();
    let mut offset = 0;
    // Char offsets of line starts.
    let mut starts = Vec::new();
    for line in text.split('\n') {
        starts.push(offset);
        offset += line.chars().count() + 1;
    }
    for (n, line) in text.split('\n').enumerate() {
        let raw = raw_lines.get(n).copied().unwrap_or("");
        if raw.trim() == "#[cfg(test)]" {
            break;
        }
        let allowed = raw.contains("linear-ok:")
            || n.checked_sub(1)
                .and_then(|p| raw_lines.get(p))
                .is_some_and(|l| l.contains("linear-ok:"));
        if allowed {
            continue;
        }
        let mut hits: Vec<usize> = Vec::new();
        for pat in LOOKUPS {
            for (at, _) in line.match_indices(pat) {
                let rest = &line[at + pat.len()..];
                // Skip the parameter list `x|`.
                let Some(close) = rest.find('|') else {
                    continue;
                };
                // Over a list of tasks or ids, any equality is an id comparison.
                let receiver = line[..at].trim_end().trim_end_matches(".iter()");
                let over_ids = ["tasks", "ids", "task_ids"]
                    .iter()
                    .any(|r| receiver.ends_with(r));
                let closure = &rest[close + 1..];
                let body = closure.split(')').next().unwrap_or(closure);
                if compares_id(closure) || (over_ids && body.contains("==")) {
                    hits.push(at);
                }
            }
        }
        // A list of task ids searched with `contains` (a `Vec`, not a set: sets are named
        // otherwise here).
        for (at, _) in line.match_indices(".contains(") {
            let receiver = line[..at]
                .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("");
            if receiver == "tasks" || receiver == "task_ids" {
                hits.push(at);
            }
        }
        for (at, _) in line.match_indices(".task(") {
            let receiver = line[..at]
                .rsplit(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
                .next()
                .unwrap_or("");
            if receiver.ends_with("dataset") || receiver.ends_with("ds") {
                hits.push(at);
            }
        }
        for at in hits {
            let chars_before = line[..at].chars().count();
            if ctx.get(starts[n] + chars_before).copied().unwrap_or(false) {
                out.push((n + 1, raw.trim().to_string()));
            }
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "tests") {
                rust_files(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs")
            && !p
                .file_name()
                .is_some_and(|n| n == "tests.rs" || n == "testutil.rs")
        {
            out.push(p);
        }
    }
}

#[test]
fn no_linear_lookup_inside_a_loop_in_src() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files.sort();
    assert!(files.len() > 50, "src/ not found from {}", root.display());
    let mut report = Vec::new();
    for f in files {
        let Ok(src) = std::fs::read_to_string(&f) else {
            continue;
        };
        for (line, text) in findings(&src) {
            let rel = f.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(&f);
            report.push(format!("{}:{line}: {text}", rel.display()));
        }
    }
    assert!(
        report.is_empty(),
        "linear lookups inside loops (index them, e.g. model::TaskIndex, or mark \
         `linear-ok: <why>`):\n{}",
        report.join("\n")
    );
}

/// The heuristic itself, on the shapes it must catch and those it must leave alone.
#[test]
fn the_heuristic_catches_joins_and_spares_single_lookups() {
    let caught = [
        // A lookup per output: quadratic.
        "fn f() {\n    for s in &outputs {\n        let i = tasks.iter().position(|t| t.id == s.task_id);\n    }\n}\n",
        "fn f() {\n    let v: Vec<_> = ids.iter().filter(|id| dataset.task(id).is_none()).collect();\n}\n",
        "fn f() {\n    keys.any(|id| dataset.tasks.iter().any(|t| &t.id == id));\n}\n",
        "fn f() {\n    'outer: for x in xs {\n        let t = tasks.iter().find(|t| &t.id == x);\n    }\n}\n",
        "fn f() {\n    out.sort_by_key(|(t, s)| (task_ids.iter().position(|x| x == t), *s));\n}\n",
        "fn f() {\n    xs.map(|x| {\n        let y = 1;\n        ids.iter().position(|t| *t == x.task_id)\n    });\n}\n",
        "fn f() {\n    for i in items {\n        if !tasks.contains(id) {\n            tasks.push(id.clone());\n        }\n    }\n}\n",
    ];
    for src in caught {
        assert_eq!(findings(src).len(), 1, "not caught:\n{src}");
    }
    let spared = [
        // One lookup, not in a loop.
        "fn f() {\n    let t = tasks.iter().find(|t| t.id == id);\n}\n",
        "fn f() {\n    let t = dataset.task(id);\n}\n",
        // Allowed with a reason.
        "fn f() {\n    for x in xs {\n        // linear-ok: three methods at most\n        let m = ms.iter().find(|m| m.name == x);\n        let t = ts.iter().find(|t| t.id == x); // linear-ok: tiny\n    }\n}\n",
        // Not an id comparison.
        "fn f() {\n    for x in xs {\n        let t = ts.iter().any(|t| t.len() == 3);\n    }\n}\n",
        // In a string or a comment.
        "fn f() {\n    for x in xs {\n        let s = \"ts.iter().find(|t| t.id == x)\";\n        // ts.iter().find(|t| t.id == x)\n    }\n}\n",
        // Test code.
        "fn f() {}\n#[cfg(test)]\nmod tests {\n    fn g() {\n        for x in xs { ts.iter().find(|t| t.id == x); }\n    }\n}\n",
    ];
    for src in spared {
        assert!(findings(src).is_empty(), "wrongly caught:\n{src}");
    }
}
