//! Code extraction from raw model completions. Pure: no I/O, no panics on any input.
//!
//! Two families of functions live here:
//!
//! * **ClassEval-exact** ([`extract_class`], [`classeval_extract_code`], [`add_static_statement`],
//!   [`assemble_from_raw`], [`extract_method_code`]): a faithful re-implementation of what
//!   FudanSELab/ClassEval does to a completion before running its tests, quirks included,
//!   because agreement with the official verdicts depends on it. The rules were read from
//!   `classeval_evaluation/test_pipeline.py` (`AutoTest.extract_code`, `add_static_statement`,
//!   `gen_code_list`, `gen_py_file`) and `generation/inference_pipeline.py` /
//!   `generation/inference_util.py` (`post_process`, `extract_method_code`, `add_desc_to_init`).
//! * **General** ([`extract_code`]): a sensible extractor for any chat reply (fences, prose,
//!   response markers, CRLF, indented code), for our own generation loops. It does not try
//!   to reproduce anyone's quirks.
//!
//! # The ClassEval evaluator's rules (`AutoTest.extract_code`, then `gen_code_list`)
//! 1. Trailing whitespace of the completion is stripped.
//! 2. Response markers, tried in order `### Response:`, `@@ Response:`, `[/INST]`: the first one
//!    present splits the text, and the piece **between its first and second occurrence** is kept
//!    (`text.split(marker)[1]`), so a prompt echo ending in `### Response:` is dropped.
//! 3. A model name containing `incoder` only cuts at `<|/ file |>` (no fence handling).
//! 4. Otherwise these patterns are tried in order, the first match wins (leftmost, lazy, `.`
//!    matching newlines): `` ```python(.*?)``` ``, `` ```ruby(.*?)``` ``, `` ```scss(.*?)``` ``,
//!    `` ```python(.*?) `` — which matches the empty string, so **an unclosed ```` ```python ````
//!    fence yields empty code** — then `` ```(.*?)``` `` — which keeps the language tag, so a
//!    ```` ```py ```` or ```` ```Python ```` block starts with a bare `py`/`Python` line (a
//!    `NameError` at import) — and `\[PYTHON\](.*?)\[/PYTHON\]`.
//! 5. With no pattern matching: every line before the first line whose stripped text starts
//!    with `class` (any word starting so, e.g. prose "classes…") that is not an `import`/`from`
//!    line is collected, and then **every line equal to a collected one is removed from the
//!    whole text** (so one blank line before the class removes all blank lines of the class).
//!    If the first `class` line is indented by k characters (any whitespace counts one), every
//!    line is re-indented to `max(0, lead − k)` spaces (tabs become single spaces).
//! 6. `add_static_statement`: every line containing `@staticmethod` anywhere is deleted, then
//!    `    @staticmethod` is inserted before each line that starts (stripped) with `def `, has
//!    exactly 4 leading whitespace characters, and contains neither `self` nor `cls` anywhere
//!    (substring test: `def f(x): # itself` keeps no decorator, `def f(clsx)` neither).
//! 7. The module is `"\n".join(import_statement) + "\n" + code`; the test file appends
//!    `"\n" + test` ([`with_tests`]).
//!
//! The harness does the same for every strategy: in ClassEval's incremental and compositional
//! `model_output` files, `predict` already holds the whole assembled class (built at
//! generation time by `post_process` from the per-method replies kept in `raw_output`);
//! [`assemble_from_raw`] reproduces that assembly.

use crate::model::Task;

pub use crate::model::Strategy;

/// The module to run for one completion, and what was done to get it.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
pub struct Extracted {
    /// Full module: the task's import lines, then the extracted class code.
    pub code: String,
    /// Which rules fired, in order (for the reader; not stable text).
    pub notes: Vec<String>,
    /// A line `class <task.class_name>` followed by `(`, `:` or whitespace was found.
    pub class_found: bool,
}

// ---------------------------------------------------------------------------------------
// Python string semantics
// ---------------------------------------------------------------------------------------

/// `str.isspace()` for one character: Rust's `White_Space` plus the four ASCII information
/// separators Python also treats as whitespace.
fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

fn py_strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

fn py_lstrip(s: &str) -> &str {
    s.trim_start_matches(is_py_space)
}

fn py_rstrip(s: &str) -> &str {
    s.trim_end_matches(is_py_space)
}

/// `len(s) - len(s.lstrip())`: leading whitespace in characters (a tab counts one).
fn leading(s: &str) -> usize {
    s.chars().take_while(|c| is_py_space(*c)).count()
}

fn spaces(n: usize) -> String {
    " ".repeat(n)
}

/// `text.split(sep)[1]` when `sep` occurs: the piece between its first and second occurrence.
fn second_piece<'a>(text: &'a str, sep: &str) -> Option<&'a str> {
    let start = text.find(sep)? + sep.len();
    let rest = &text[start..];
    Some(rest.find(sep).map_or(rest, |end| &rest[..end]))
}

/// Leftmost match of the regex `open(.*?)close` with DOTALL: the group.
fn lazy_between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = text.find(open)? + open.len();
    let len = text[start..].find(close)?;
    Some(&text[start..start + len])
}

// ---------------------------------------------------------------------------------------
// ClassEval-exact extraction
// ---------------------------------------------------------------------------------------

/// The response markers ClassEval's evaluator splits on, in its order.
pub const CLASSEVAL_RESPONSE_MARKERS: [&str; 3] = ["### Response:", "@@ Response:", "[/INST]"];

/// ClassEval's `AutoTest.extract_code(text, model_name)`: the code of a completion, before
/// `@staticmethod` fixing and imports. `model_name` is what the harness passes (the output
/// file's path); only whether it contains `incoder` matters.
pub fn classeval_extract_code(text: &str, model_name: &str) -> String {
    classeval_extract_code_noted(text, model_name, &mut Vec::new())
}

fn classeval_extract_code_noted(text: &str, model_name: &str, notes: &mut Vec<String>) -> String {
    let mut text = py_rstrip(text);
    for marker in CLASSEVAL_RESPONSE_MARKERS {
        if let Some(piece) = second_piece(text, marker) {
            notes.push(format!(
                "kept the text after the response marker `{marker}`"
            ));
            text = piece;
            break;
        }
    }
    if model_name.contains("incoder") {
        if let Some(end) = text.find("<|/ file |>") {
            notes.push("incoder: cut at `<|/ file |>`".into());
            return text[..end].to_string();
        }
        return text.to_string();
    }
    const FENCES: [(&str, &str); 3] =
        [("```python", "```"), ("```ruby", "```"), ("```scss", "```")];
    for (open, close) in FENCES {
        if let Some(code) = lazy_between(text, open, close) {
            notes.push(format!("took the first `{open}` fenced block"));
            return code.to_string();
        }
    }
    if text.contains("```python") {
        notes.push(
            "unclosed ```python fence: ClassEval's pattern `` ```python(.*?) `` matches \
             the empty string, so the code is empty"
                .into(),
        );
        return String::new();
    }
    if let Some(code) = lazy_between(text, "```", "```") {
        let tag = code.split('\n').next().unwrap_or("");
        if py_strip(tag).is_empty() {
            notes.push("took the first ``` fenced block".into());
        } else {
            notes.push(format!(
                "took the first ``` fenced block; its tag line `{}` stays in the code \
                 (ClassEval quirk)",
                py_strip(tag)
            ));
        }
        return code.to_string();
    }
    if let Some(code) = lazy_between(text, "[PYTHON]", "[/PYTHON]") {
        notes.push("took the first [PYTHON]…[/PYTHON] block".into());
        return code.to_string();
    }

    // No fence: drop what precedes the first `class` line, except imports.
    let lines: Vec<&str> = text.split('\n').collect();
    let mut removed: Vec<&str> = Vec::new();
    for line in &lines {
        let s = py_strip(line);
        if s.starts_with("class") {
            break;
        }
        if !s.starts_with("import") && !s.starts_with("from") {
            removed.push(line);
        }
    }
    let kept: Vec<&str> = if removed.is_empty() {
        lines
    } else {
        let kept: Vec<&str> = lines
            .iter()
            .copied()
            .filter(|l| !removed.contains(l))
            .collect();
        notes.push(format!(
            "no fence: removed {} line(s) equal to a non-import line before the class",
            text.split('\n').count() - kept.len()
        ));
        kept
    };
    let text = kept.join("\n");

    let class_lead = text
        .split('\n')
        .find(|l| py_strip(l).starts_with("class"))
        .map(leading)
        .unwrap_or(0);
    if class_lead == 0 {
        return text;
    }
    notes.push(format!(
        "class line indented by {class_lead}: re-indented every line by -{class_lead}"
    ));
    text.split('\n')
        .map(|l| {
            let mut out = spaces(leading(l).saturating_sub(class_lead));
            out.push_str(py_lstrip(l));
            out
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// ClassEval's `add_static_statement`: drop every line mentioning `@staticmethod`, then put
/// `    @staticmethod` before each 4-indented `def` line that mentions neither `self` nor `cls`.
/// Returns the code and the names of the methods that got the decorator.
pub fn add_static_statement(code: &str) -> (String, Vec<String>) {
    let mut out: Vec<String> = Vec::new();
    let mut added = Vec::new();
    for line in code.split('\n').filter(|l| !l.contains("@staticmethod")) {
        let s = py_strip(line);
        if s.starts_with("def ")
            && !line.contains("self")
            && !line.contains("cls")
            && leading(line) == 4
        {
            out.push("    @staticmethod".into());
            let name: String = s[4..]
                .trim_start()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            added.push(name);
        }
        out.push(line.to_string());
    }
    (out.join("\n"), added)
}

/// The module ClassEval runs for a completion: imports + extracted, `@staticmethod`-fixed
/// code. The official harness applies the same rules whatever the strategy (see the module
/// documentation); `strategy` only goes into the notes.
pub fn extract_class(completion: &str, task: &Task, strategy: Strategy) -> Extracted {
    extract_class_for_model(completion, task, strategy, "")
}

/// [`extract_class`] with the model name the harness would see (only `incoder` changes
/// anything).
pub fn extract_class_for_model(
    completion: &str,
    task: &Task,
    strategy: Strategy,
    model_name: &str,
) -> Extracted {
    let mut notes = vec![format!("ClassEval extraction ({strategy})")];
    if py_strip(completion).is_empty() {
        notes.push("empty completion".into());
    }
    let body = classeval_extract_code_noted(completion, model_name, &mut notes);
    let dropped = body
        .split('\n')
        .filter(|l| l.contains("@staticmethod"))
        .count();
    let (body, added) = add_static_statement(&body);
    if dropped > 0 {
        notes.push(format!(
            "removed {dropped} line(s) containing @staticmethod"
        ));
    }
    if !added.is_empty() {
        notes.push(format!("added @staticmethod to: {}", added.join(", ")));
    }
    let class_found = has_class_line(&body, &task.class_name);
    if !class_found {
        notes.push(format!("no `class {}` line in the code", task.class_name));
    }
    let mut code = task.imports.join("\n");
    code.push('\n');
    code.push_str(&body);
    Extracted {
        code,
        notes,
        class_found,
    }
}

/// The test file ClassEval writes: the module, a newline, the task's test module.
pub fn with_tests(code: &str, task: &Task) -> String {
    let mut out = String::with_capacity(code.len() + task.test_module.len() + 1);
    out.push_str(code);
    out.push('\n');
    out.push_str(&task.test_module);
    out
}

/// A line (any indentation) `class <name>` followed by `(`, `:` or whitespace.
pub fn has_class_line(code: &str, name: &str) -> bool {
    !name.is_empty()
        && code.lines().any(|l| {
            py_strip(l)
                .strip_prefix("class")
                .filter(|r| r.starts_with(is_py_space))
                .map(py_lstrip)
                .and_then(|r| r.strip_prefix(name))
                .is_some_and(|r| {
                    r.is_empty() || r.starts_with(['(', ':']) || r.starts_with(is_py_space)
                })
        })
}

// ---------------------------------------------------------------------------------------
// Generation-time assembly (incremental / compositional)
// ---------------------------------------------------------------------------------------

/// ClassEval's generation-time `extract_method_code(reply, method_name)`, in the version that
/// produced the published v1.0.0 `model_output` files (it reproduces every `predict` of the
/// GPT-3.5 incremental and compositional files from their `raw_output`):
/// * after `### Response:` (else `@@ Response`) when present, the text between its first and
///   second occurrence;
/// * from the first line containing `def <name>(` (indent d): `(4 − d)` spaces of `@staticmethod`
///   first when the line mentions neither `self` nor `cls`, then the line shifted by `4 − d`
///   (never left of its own text);
/// * following lines while more indented than d, empty, "```" or "\r" (those two skipped):
///   shifted by `4 − d`, unless the first body line is more than 4 deeper than d (then kept);
/// * the first other line ends the method;
/// * if lines equal to `        """` or `    """` occur an odd number of times in the reply,
///   `        """` is appended.
pub fn extract_method_code(reply: &str, method_name: &str) -> String {
    let lines: Vec<&str> = if let Some(piece) = second_piece(reply, "### Response:") {
        piece.split('\n').collect()
    } else if let Some(piece) = second_piece(reply, "@@ Response") {
        piece.split('\n').collect()
    } else {
        reply.split('\n').collect()
    };
    let prefix = format!("def {method_name}(");
    let mut out: Vec<String> = Vec::new();
    let mut in_method = false;
    let mut def_lead: usize = 0;
    let mut first_body_lead: Option<usize> = None;
    let mut quote_lines = 0usize;
    for line in lines {
        if line == "        \"\"\"" || line == "    \"\"\"" {
            quote_lines += 1;
        }
        if line.contains(&prefix) {
            in_method = true;
            def_lead = leading(line);
            let pad = spaces(4usize.saturating_sub(def_lead));
            if !line.contains("self") && !line.contains("cls") {
                out.push(format!("{pad}@staticmethod"));
            }
            out.push(format!("{pad}{line}"));
        } else if in_method {
            let skip = line == "```" || line == "\r";
            if leading(line) > def_lead || line.is_empty() || skip {
                if skip {
                    continue;
                }
                if first_body_lead.is_none() && !line.is_empty() {
                    first_body_lead = Some(leading(line));
                }
                // Python: `first - leading > 4` with first = -1 while unset.
                let deep = first_body_lead.is_some_and(|f| f > def_lead.saturating_add(4));
                if deep {
                    out.push(line.to_string());
                } else {
                    out.push(format!("{}{line}", spaces(4usize.saturating_sub(def_lead))));
                }
            } else {
                break;
            }
        }
    }
    if quote_lines % 2 == 1 {
        out.push("        \"\"\"".into());
    }
    out.join("\n")
}

/// ClassEval's `add_desc_to_init`: the class description after the first constructor line.
fn add_desc_to_init(description: &str, constructor: &str) -> String {
    let mut lines: Vec<String> = constructor.split('\n').map(String::from).collect();
    if let Some(first) = lines.first_mut() {
        first.push_str(" \n");
        first.push_str(description);
    }
    lines.join("\n")
}

/// Rebuild a `predict` entry from the per-method replies (ClassEval's `raw_output[sample]`),
/// as their generation pipeline did:
/// * incremental: imports, the constructor with the class description after its first line,
///   then `"\n\n" + extract_method_code(reply_i, method_i)` for each method in order;
/// * compositional: the same without the description;
/// * holistic: the single reply itself (there is nothing to assemble).
///
/// Replies beyond the task's methods are ignored (ClassEval would raise); missing replies
/// leave the remaining methods out.
pub fn assemble_from_raw(raw: &[String], task: &Task, strategy: Strategy) -> String {
    let head = match strategy {
        Strategy::Holistic | Strategy::Tdd => return raw.first().cloned().unwrap_or_default(),
        Strategy::Incremental => add_desc_to_init(&task.description, &task.constructor),
        Strategy::Compositional => task.constructor.clone(),
    };
    let mut code = task.imports.join("\n");
    code.push('\n');
    code.push_str(&head);
    for (reply, method) in raw.iter().zip(&task.methods) {
        code.push_str("\n\n");
        code.push_str(&extract_method_code(reply, &method.name));
    }
    code
}

// ---------------------------------------------------------------------------------------
// General extraction for any chat reply
// ---------------------------------------------------------------------------------------

/// Response markers after which a chat model's own answer starts.
const RESPONSE_MARKERS: [&str; 5] = [
    "### Response:",
    "@@ Response:",
    "[/INST]",
    "<|assistant|>",
    "<|im_start|>assistant",
];

/// Markers that start a new turn after the answer (a model continuing the conversation).
const TURN_MARKERS: [&str; 6] = [
    "### Instruction:",
    "### Response:",
    "@@ Instruction:",
    "[INST]",
    "<|user|>",
    "<|im_end|>",
];

/// The Python code in any chat reply:
/// 1. CRLF/CR line ends become LF;
/// 2. after a response marker (`### Response:`, `@@ Response:`, `[/INST]`, …) when one is
///    present (a prompt echo before it is dropped), up to the next turn marker;
/// 3. fenced blocks (```` ``` ```` or `~~~`, closed or not): Python-tagged or untagged blocks
///    (any block when none is), the longest one that defines a class, else the longest one;
///    a block made only of imports placed before it is prepended;
/// 4. without fences: from the first line that starts code (`import`, `from … import`,
///    `class`, `def`, `async def`, `@decorator`) to the first unindented prose line after it
///    (outside triple-quoted strings);
/// 5. indentation: common leading whitespace removed; a class header still indented is
///    shifted left with its body;
/// 6. trailing blank lines removed; the result ends with one newline (empty when no code).
pub fn extract_code(text: &str) -> String {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let text = after_response_marker(&text);
    let blocks = fenced_blocks(text);
    let code = if blocks.is_empty() {
        unfenced_code(text)
    } else {
        choose_block(&blocks)
    };
    let code = fix_indentation(&code);
    let trimmed = code.trim_end_matches(is_py_space);
    let lines: Vec<&str> = trimmed
        .split('\n')
        .skip_while(|l| py_strip(l).is_empty())
        .collect();
    let mut out = lines.join("\n");
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

fn after_response_marker(text: &str) -> &str {
    let found = RESPONSE_MARKERS
        .iter()
        .filter_map(|m| text.find(m).map(|i| (i, i + m.len())))
        .min();
    let Some((_, start)) = found else {
        return text;
    };
    let rest = &text[start..];
    let end = TURN_MARKERS
        .iter()
        .filter_map(|m| rest.find(m))
        .min()
        .unwrap_or(rest.len());
    &rest[..end]
}

struct Block {
    lang: String,
    code: String,
    /// Only import lines (and blanks/comments).
    imports_only: bool,
}

fn fence_of(line: &str) -> Option<(char, usize, &str)> {
    let t = line.trim_start_matches([' ', '\t']);
    if leading(line) > 3 {
        return None;
    }
    let ch = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = t.chars().take_while(|c| *c == ch).count();
    (n >= 3).then(|| (ch, n, t[n..].trim()))
}

fn fenced_blocks(text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut lines = text.split('\n');
    while let Some(line) = lines.next() {
        let Some((ch, n, info)) = fence_of(line) else {
            continue;
        };
        if ch == '`' && info.contains('`') {
            // Inline code such as ```x``` on one line: not a block.
            continue;
        }
        let lang = info
            .split(|c: char| c.is_whitespace() || c == '{' || c == '}' || c == '.')
            .find(|s| !s.is_empty())
            .unwrap_or("")
            .to_ascii_lowercase();
        let mut body = Vec::new();
        for l in lines.by_ref() {
            if let Some((c2, n2, rest)) = fence_of(l)
                && c2 == ch
                && n2 >= n
                && rest.is_empty()
            {
                break;
            }
            body.push(l);
        }
        let code = body.join("\n");
        let imports_only = body.iter().any(|l| !py_strip(l).is_empty())
            && body.iter().all(|l| {
                let s = py_strip(l);
                s.is_empty() || s.starts_with('#') || is_import_line(s)
            });
        blocks.push(Block {
            lang,
            code,
            imports_only,
        });
    }
    blocks
}

fn is_python_lang(lang: &str) -> bool {
    matches!(
        lang,
        "" | "python" | "py" | "python3" | "py3" | "pycon" | "ipython"
    )
}

fn is_import_line(s: &str) -> bool {
    s.starts_with("import ") || (s.starts_with("from ") && s.contains(" import "))
}

fn defines_class(code: &str) -> bool {
    code.lines().any(|l| {
        py_lstrip(l)
            .strip_prefix("class")
            .is_some_and(|r| r.starts_with(is_py_space))
    })
}

fn choose_block(blocks: &[Block]) -> String {
    let python: Vec<(usize, &Block)> = blocks
        .iter()
        .enumerate()
        .filter(|(_, b)| is_python_lang(&b.lang))
        .collect();
    let candidates = if python.is_empty() {
        blocks.iter().enumerate().collect()
    } else {
        python
    };
    let with_class: Vec<&(usize, &Block)> = candidates
        .iter()
        .filter(|(_, b)| defines_class(&b.code))
        .collect();
    let pool: Vec<&(usize, &Block)> = if with_class.is_empty() {
        candidates.iter().collect()
    } else {
        with_class
    };
    // Longest; the first one on ties.
    let Some(&&(index, chosen)) = pool.iter().rev().max_by_key(|(_, b)| b.code.len()) else {
        return String::new();
    };
    let mut out = String::new();
    for (_, b) in candidates
        .iter()
        .filter(|(i, b)| *i < index && b.imports_only)
    {
        let missing: Vec<&str> = b
            .code
            .lines()
            .filter(|l| is_import_line(py_strip(l)) && !chosen.code.contains(py_strip(l)))
            .map(py_strip)
            .collect();
        for l in missing {
            out.push_str(l);
            out.push('\n');
        }
    }
    out.push_str(&chosen.code);
    out
}

const PY_STATEMENT_KEYWORDS: [&str; 30] = [
    "import", "from", "class", "def", "async", "await", "if", "elif", "else", "for", "while",
    "try", "except", "finally", "with", "return", "raise", "assert", "pass", "break", "continue",
    "global", "nonlocal", "del", "lambda", "yield", "print", "match", "case", "not",
];

fn starts_code(line: &str) -> bool {
    let s = py_strip(line);
    is_import_line(s)
        || s.starts_with("class ")
        || s.starts_with("def ")
        || s.starts_with("async def ")
        || (s.starts_with('@')
            && s.len() > 1
            && s[1..].starts_with(|c: char| c.is_alphabetic() || c == '_'))
}

/// An unindented line that reads as prose rather than Python: a leading identifier followed by
/// a space and another word (never valid at statement start outside keywords), or a markdown
/// list item / heading.
fn is_prose(line: &str) -> bool {
    if line.starts_with(is_py_space) {
        return false;
    }
    let s = py_rstrip(line);
    if s.is_empty() || s.starts_with('#') && !s.starts_with("##") {
        return false;
    }
    if s.starts_with("- ") || s.starts_with("* ") || s.starts_with("##") || s.starts_with("**") {
        return true;
    }
    let digits = s.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && (s[digits..].starts_with(". ") || s[digits..].starts_with(") ")) {
        return true;
    }
    let word: String = s
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if word.is_empty() || PY_STATEMENT_KEYWORDS.contains(&word.as_str()) {
        return false;
    }
    let rest = &s[word.len()..];
    rest.strip_prefix(' ')
        .map(|r| r.trim_start_matches(' '))
        .is_some_and(|r| r.starts_with(|c: char| c.is_alphanumeric() || c == '`' || c == '\''))
        && !rest
            .trim_start()
            .starts_with(|c: char| "=([.:,+-*/%<>!|&^".contains(c))
}

/// Number of triple quotes of each kind in a line (for tracking string state).
fn triple_quotes(line: &str) -> (usize, usize) {
    (line.matches("\"\"\"").count(), line.matches("'''").count())
}

fn unfenced_code(text: &str) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let Some(start) = lines.iter().position(|l| starts_code(l)) else {
        return String::new();
    };
    let mut end = lines.len();
    let (mut in_dq, mut in_sq) = (false, false);
    for (i, line) in lines.iter().enumerate().skip(start) {
        if i > start && !in_dq && !in_sq && is_prose(line) {
            end = i;
            break;
        }
        let (dq, sq) = triple_quotes(line);
        if !in_sq && dq % 2 == 1 {
            in_dq = !in_dq;
        }
        if !in_dq && sq % 2 == 1 {
            in_sq = !in_sq;
        }
    }
    lines[start..end].join("\n")
}

/// Common indentation removed; then a class header that is still indented (imports at column
/// 0 before it) is moved to column 0 with its body.
fn fix_indentation(code: &str) -> String {
    let lines: Vec<&str> = code.split('\n').collect();
    let common = lines
        .iter()
        .filter(|l| !py_strip(l).is_empty())
        .map(|l| &l[..l.len() - py_lstrip(l).len()])
        .reduce(|a, b| {
            let n = a
                .char_indices()
                .zip(b.chars())
                .take_while(|((_, x), y)| x == y)
                .last()
                .map_or(0, |((i, x), _)| i + x.len_utf8());
            &a[..n]
        })
        .unwrap_or("");
    let mut out: Vec<String> = lines
        .iter()
        .map(|l| l.strip_prefix(common).unwrap_or(py_lstrip(l)).to_string())
        .collect();
    // A class header still indented: shift it and its more-indented body.
    let header = out.iter().position(|l| {
        py_lstrip(l)
            .strip_prefix("class")
            .is_some_and(|r| r.starts_with(is_py_space))
    });
    if let Some(h) = header {
        let k = leading(&out[h]);
        if k > 0 {
            let body_lead = out[h + 1..]
                .iter()
                .find(|l| !py_strip(l).is_empty())
                .map(|l| leading(l));
            let shift_body = body_lead.is_some_and(|b| b > k);
            out[h] = py_lstrip(&out[h]).to_string();
            if shift_body {
                for l in out.iter_mut().skip(h + 1) {
                    if py_strip(l).is_empty() {
                        continue;
                    }
                    if leading(l) < k {
                        break;
                    }
                    let cut: usize = l.chars().take(k).map(char::len_utf8).sum();
                    *l = l[cut..].to_string();
                }
            }
        }
    }
    out.join("\n")
}

// ---------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    fn task(imports: &[&str]) -> Task {
        Task {
            id: "T".into(),
            class_name: "Foo".into(),
            description: "    \"\"\"A foo.\"\"\"".into(),
            imports: imports.iter().map(|s| s.to_string()).collect(),
            constructor: "class Foo:\n    def __init__(self):\n        self.x = 1\n".into(),
            fields: vec![],
            skeleton: String::new(),
            solution: String::new(),
            test_module: "import unittest".into(),
            test_classes: vec![],
            methods: vec![],
            test_layout: Default::default(),
            provenance: Default::default(),
        }
    }

    #[test]
    fn classeval_extract_code_rules() {
        let cases: &[(&str, &str, &str)] = &[
            // (name, completion, extracted)
            (
                "python fence",
                "Here:\n```python\nclass Foo:\n    pass\n```\nDone.",
                "\nclass Foo:\n    pass\n",
            ),
            (
                "first python fence wins",
                "```python\na = 1\n```\n```python\nb = 2\n```",
                "\na = 1\n",
            ),
            (
                "python before untagged",
                "```\nx\n```\n```python\ny\n```",
                "\ny\n",
            ),
            (
                "untagged fence keeps newline",
                "```\nclass Foo: pass\n```",
                "\nclass Foo: pass\n",
            ),
            (
                "py tag stays in the code",
                "```py\nclass Foo: pass\n```",
                "py\nclass Foo: pass\n",
            ),
            (
                "Python tag stays in the code",
                "```Python\nclass Foo: pass\n```",
                "Python\nclass Foo: pass\n",
            ),
            (
                "unclosed python fence is empty",
                "```python\nclass Foo:\n    pass",
                "",
            ),
            (
                "unclosed untagged fence: no-fence rules",
                "```\nclass Foo:\n    pass",
                "class Foo:\n    pass",
            ),
            (
                "ruby fence",
                "```ruby\nclass Foo: pass\n```",
                "\nclass Foo: pass\n",
            ),
            (
                "[PYTHON] block",
                "x [PYTHON]\nclass Foo: pass\n[/PYTHON] y",
                "\nclass Foo: pass\n",
            ),
            (
                "response marker: text between first and second occurrence",
                "prompt ### Response:\nclass Foo:\n    pass\n### Response: more",
                "class Foo:\n    pass",
            ),
            (
                "[/INST] marker",
                "[INST] do it [/INST] Sure:\n```python\nclass Foo: pass\n```",
                "\nclass Foo: pass\n",
            ),
            (
                "prose before class removed with its duplicates (blank lines everywhere)",
                "Sure!\n\nimport os\nclass Foo:\n\n    def f(self):\n        pass",
                "import os\nclass Foo:\n    def f(self):\n        pass",
            ),
            (
                "'classes' prose counts as the class line",
                "classes are fun\nclass Foo:\n    pass",
                "classes are fun\nclass Foo:\n    pass",
            ),
            (
                "mis-indented class is shifted, tabs count one",
                "    class Foo:\n        def f(self):\n\t\t\t\t\tpass",
                "class Foo:\n    def f(self):\n pass",
            ),
            ("empty", "", ""),
            ("whitespace only", " \n\t\n", ""),
            ("non-code text", "I cannot help with that.", ""),
            (
                "CRLF kept (Python keeps \\r)",
                "```python\r\nclass Foo:\r\n    pass\r\n```",
                "\r\nclass Foo:\r\n    pass\r\n",
            ),
            (
                "trailing whitespace stripped first",
                "```python\nx = 1\n```   \n\n",
                "\nx = 1\n",
            ),
        ];
        for (name, input, expected) in cases {
            assert_eq!(
                classeval_extract_code(input, "model.json"),
                *expected,
                "{name}"
            );
        }
    }

    #[test]
    fn incoder_only_cuts_at_file_marker() {
        let s = "```python\nclass Foo: pass\n```<|/ file |>junk";
        assert_eq!(
            classeval_extract_code(s, "incoder-6B.json"),
            "```python\nclass Foo: pass\n```"
        );
    }

    #[test]
    fn add_static_statement_rules() {
        let cases: &[(&str, &str, &str, &[&str])] = &[
            (
                "no self/cls at 4 spaces",
                "class A:\n    def f(x):\n        return x",
                "class A:\n    @staticmethod\n    def f(x):\n        return x",
                &["f"],
            ),
            (
                "self present",
                "    def f(self, x):",
                "    def f(self, x):",
                &[],
            ),
            (
                "cls anywhere in the line",
                "    def f(x): # clsx",
                "    def f(x): # clsx",
                &[],
            ),
            (
                "'self' inside another word",
                "    def f(myself):",
                "    def f(myself):",
                &[],
            ),
            (
                "nested def (8 spaces)",
                "        def g(x):",
                "        def g(x):",
                &[],
            ),
            ("tab indent is lead 1", "\tdef f(x):", "\tdef f(x):", &[]),
            (
                "existing decorator lines dropped, then re-added",
                "    @staticmethod\n    def f(x):",
                "    @staticmethod\n    def f(x):",
                &["f"],
            ),
            (
                "decorator dropped even for a self method (and in strings)",
                "    @staticmethod\n    def f(self):\n    s = '@staticmethod'",
                "    def f(self):",
                &[],
            ),
            (
                "column-0 decorator removed (fixes the import error)",
                "class A:\n@staticmethod\n    def add(a, b):",
                "class A:\n    @staticmethod\n    def add(a, b):",
                &["add"],
            ),
            (
                "classmethod keeps its decorator and gets another",
                "    @classmethod\n    def f(klass):",
                "    @classmethod\n    @staticmethod\n    def f(klass):",
                &["f"],
            ),
        ];
        for (name, input, expected, added) in cases {
            let (out, got) = add_static_statement(input);
            assert_eq!(out, *expected, "{name}");
            assert_eq!(got, *added, "{name}");
        }
    }

    #[test]
    fn extract_class_prepends_imports_and_notes() {
        let t = task(&["import os", "import re"]);
        let e = extract_class(
            "```python\nclass Foo:\n    def f(x):\n        return x\n```",
            &t,
            Strategy::Holistic,
        );
        assert_eq!(
            e.code,
            "import os\nimport re\n\nclass Foo:\n    @staticmethod\n    def f(x):\n        return x\n"
        );
        assert!(e.class_found);
        assert!(
            e.notes
                .iter()
                .any(|n| n.contains("added @staticmethod to: f"))
        );

        let none = extract_class("", &task(&[]), Strategy::Incremental);
        assert_eq!(none.code, "\n");
        assert!(!none.class_found);
        assert!(none.notes.iter().any(|n| n == "empty completion"));
        assert_eq!(with_tests("X", &t), "X\nimport unittest");
    }

    #[test]
    fn class_line_detection() {
        for (code, found) in [
            ("class Foo:", true),
            ("class Foo(Base):", true),
            ("    class  Foo :", true),
            ("class FooBar:", false),
            ("classFoo:", false),
            ("# class Foo", false),
            ("", false),
        ] {
            assert_eq!(has_class_line(code, "Foo"), found, "{code:?}");
        }
        assert!(!has_class_line("class :", ""));
    }

    #[test]
    fn extract_method_code_rules() {
        let cases: &[(&str, &str, &str, &str)] = &[
            (
                "top-level def shifted by 4, static added",
                "Here:\n```python\ndef add(a, b):\n    return a + b\n```\nThis adds.",
                "add",
                "    @staticmethod\n    def add(a, b):\n        return a + b",
            ),
            (
                "def inside a class: no shift, decorator at column 0",
                "class A:\n    def add(a, b):\n        return a + b\nx = 1",
                "add",
                "@staticmethod\n    def add(a, b):\n        return a + b",
            ),
            (
                "self method, blank lines kept, fence line skipped",
                "def f(self):\n    a = 1\n\n    return a\n```\nmore",
                "f",
                "    def f(self):\n        a = 1\n    \n        return a",
            ),
            (
                "deep first body line keeps lines as they are",
                "def f(self):\n          x = 1\n          return x\n",
                "f",
                "    def f(self):\n          x = 1\n          return x\n",
            ),
            (
                "odd docstring quote lines: a closing one appended",
                "def f(self):\n        \"\"\"\n        doc",
                "f",
                "    def f(self):\n        \"\"\"\n        doc\n        \"\"\"",
            ),
            ("method absent", "no code here", "f", ""),
            (
                "response marker",
                "p ### Response:\ndef f(self):\n    pass",
                "f",
                "    def f(self):\n        pass",
            ),
        ];
        for (name, reply, method, expected) in cases {
            assert_eq!(extract_method_code(reply, method), *expected, "{name}");
        }
    }

    #[test]
    fn assemble_from_raw_per_strategy() {
        let mut t = task(&["import os"]);
        t.methods = vec![
            crate::model::Method {
                name: "a".into(),
                ..Default::default()
            },
            crate::model::Method {
                name: "b".into(),
                ..Default::default()
            },
        ];
        let raw = vec![
            "```python\ndef a(self):\n    return 1\n```".to_string(),
            "def b(self):\n    return 2".to_string(),
        ];
        let c = assemble_from_raw(&raw, &t, Strategy::Compositional);
        assert_eq!(
            c,
            "import os\nclass Foo:\n    def __init__(self):\n        self.x = 1\n\n\n    def a(self):\n        return 1\n\n    def b(self):\n        return 2"
        );
        let i = assemble_from_raw(&raw, &t, Strategy::Incremental);
        assert!(i.starts_with("import os\nclass Foo: \n    \"\"\"A foo.\"\"\"\n    def __init__"));
        assert_eq!(assemble_from_raw(&raw, &t, Strategy::Holistic), raw[0]);
        assert_eq!(assemble_from_raw(&[], &t, Strategy::Holistic), "");
        // More replies than methods: the extra ones are ignored.
        let three = [raw.clone(), vec!["def c(self): pass".into()]].concat();
        assert_eq!(assemble_from_raw(&three, &t, Strategy::Compositional), c);
    }

    #[test]
    fn general_extract_code_rules() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "fence with tag",
                "Sure:\n```python\nclass A:\n    pass\n```\nBye",
                "class A:\n    pass\n",
            ),
            (
                "fence without tag",
                "```\nclass A:\n    pass\n```",
                "class A:\n    pass\n",
            ),
            ("py tag", "```py\nx = 1\n```", "x = 1\n"),
            ("tilde fence", "~~~python\nx = 1\n~~~", "x = 1\n"),
            (
                "several fences: the class block, not the usage",
                "```python\nclass A:\n    def f(self):\n        return 1\n```\nUse:\n```python\nprint(A().f())\n```",
                "class A:\n    def f(self):\n        return 1\n",
            ),
            (
                "imports-only block before the class block is prepended",
                "```python\nimport os\n```\nthen\n```python\nclass A:\n    pass\n```",
                "import os\nclass A:\n    pass\n",
            ),
            (
                "other languages ignored when a python block exists",
                "```bash\npip install x\n```\n```python\nx = 1\n```",
                "x = 1\n",
            ),
            (
                "only another language: used",
                "```java\nclass A {}\n```",
                "class A {}\n",
            ),
            (
                "unclosed fence runs to the end",
                "```python\nclass A:\n    pass",
                "class A:\n    pass\n",
            ),
            (
                "prose before and after, no fence",
                "Here is the code:\nimport os\n\nclass A:\n    def f(self):\n        return 1\n\nThis class does things.",
                "import os\n\nclass A:\n    def f(self):\n        return 1\n",
            ),
            (
                "prompt echo + ### Response:",
                "### Instruction:\nComplete class A.\nclass A:\n    pass\n\n### Response:\nclass A:\n    x = 1\n",
                "class A:\n    x = 1\n",
            ),
            (
                "response then a new turn",
                "[INST] hi [/INST]\n```python\nx = 1\n```\n[INST] again",
                "x = 1\n",
            ),
            (
                "CRLF",
                "```python\r\nclass A:\r\n    pass\r\n```\r\n",
                "class A:\n    pass\n",
            ),
            ("CR only", "class A:\r    pass", "class A:\n    pass\n"),
            (
                "tabs kept",
                "```python\nclass A:\n\tdef f(self):\n\t\treturn 1\n```",
                "class A:\n\tdef f(self):\n\t\treturn 1\n",
            ),
            (
                "uniformly indented class",
                "    class A:\n        def f(self):\n            pass",
                "class A:\n    def f(self):\n        pass\n",
            ),
            (
                "indented class after column-0 imports",
                "import os\n    class A:\n        def f(self):\n            pass",
                "import os\nclass A:\n    def f(self):\n        pass\n",
            ),
            (
                "only the header over-indented",
                "import os\n    class A:\n    def f(self):\n        pass",
                "import os\nclass A:\n    def f(self):\n        pass\n",
            ),
            ("empty", "", ""),
            ("non-code text", "I am sorry, I cannot do that.", ""),
            (
                "prose inside a docstring is kept",
                "class A:\n    \"\"\"\nThis is prose at column 0.\n    \"\"\"\n    x = 1\nThat was it.",
                "class A:\n    \"\"\"\nThis is prose at column 0.\n    \"\"\"\n    x = 1\n",
            ),
            (
                "markdown list after code ends it",
                "def f():\n    return 1\n- returns one",
                "def f():\n    return 1\n",
            ),
            (
                "decorator starts code",
                "Code:\n@dataclass\nclass A:\n    x: int",
                "@dataclass\nclass A:\n    x: int\n",
            ),
        ];
        for (name, input, expected) in cases {
            assert_eq!(extract_code(input), *expected, "{name}");
        }
    }

    #[test]
    fn no_panic_on_odd_input() {
        let odd = [
            "```",
            "``````",
            "```python```",
            "````python\n```",
            "### Response:",
            "### Response:### Response:",
            "[PYTHON]",
            "\u{1c}class Foo:",
            "é\u{3000}class Foo:\n\u{3000}\u{3000}def f(x): pass",
            "    ",
            "\n\n\n",
            "class",
            "~~~\n~~~\n~~~",
            "@",
            "1. first\n2) second",
        ];
        let t = task(&[]);
        for s in odd {
            let _ = extract_code(s);
            let _ = classeval_extract_code(s, "");
            let _ = extract_class(s, &t, Strategy::Holistic);
            let _ = extract_method_code(s, "f");
            let _ = add_static_statement(s);
        }
        // Python's str.strip() also strips \x1c..\x1f.
        assert_eq!(classeval_extract_code("\u{1c}class Foo:", ""), "class Foo:");
    }
}
