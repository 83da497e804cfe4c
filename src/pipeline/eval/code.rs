//! The code of a RealClassEval reply, as the benchmark's harness would write it.

/// A fence line (at most 3 spaces of indentation, then 3 or more backticks or tildes): the
/// fence character, its length and the info string after it.
fn fence_line(line: &str) -> Option<(char, usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let t = &line[indent..];
    let ch = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = t.chars().take_while(|c| *c == ch).count();
    let info = t[n..].trim();
    (n >= 3 && !(ch == '`' && info.contains('`'))).then_some((ch, n, info))
}

/// RealClassEval's code as the benchmark meant it: its harness writes the model's code to
/// `snippet_N.py` as it is, so nothing is re-indented, re-ordered or added. An unfenced reply
/// is written byte-for-byte; a fenced one (most models answer in a markdown fence) is the
/// chosen block's lines exactly as they stand between the fences — a Python block (untagged
/// counts) that defines a class, the longest, the first on ties. ClassEval's re-indentation
/// (`extract::extract_class_for_model`) is ClassEval's harness's, and applies to ClassEval's
/// outputs only.
pub fn realclasseval_code(text: &str) -> (String, Vec<String>) {
    // (language, lines) of every fenced block; an unclosed fence runs to the end.
    let mut blocks: Vec<(String, Vec<&str>)> = Vec::new();
    let mut lines = text.split('\n');
    while let Some(line) = lines.next() {
        let Some((ch, n, info)) = fence_line(line.strip_suffix('\r').unwrap_or(line)) else {
            continue;
        };
        let lang = info
            .split(|c: char| c.is_whitespace() || c == '{' || c == '}')
            .find(|s| !s.is_empty())
            .unwrap_or("")
            .to_ascii_lowercase();
        let mut body = Vec::new();
        for l in lines.by_ref() {
            if let Some((c2, n2, rest)) = fence_line(l.strip_suffix('\r').unwrap_or(l))
                && c2 == ch
                && n2 >= n
                && rest.is_empty()
            {
                break;
            }
            body.push(l);
        }
        blocks.push((lang, body));
    }
    if blocks.is_empty() {
        return (
            text.to_string(),
            vec!["code written as the model gave it (no fence)".into()],
        );
    }
    let is_python = |lang: &str| matches!(lang, "" | "python" | "py" | "python3" | "py3");
    let defines_class = |body: &[&str]| {
        body.iter().any(|l| {
            l.trim_start()
                .strip_prefix("class")
                .is_some_and(|r| r.starts_with([' ', '\t']))
        })
    };
    let python: Vec<&(String, Vec<&str>)> =
        blocks.iter().filter(|(lang, _)| is_python(lang)).collect();
    let candidates = if python.is_empty() {
        blocks.iter().collect()
    } else {
        python
    };
    let with_class: Vec<&&(String, Vec<&str>)> = candidates
        .iter()
        .filter(|(_, b)| defines_class(b))
        .collect();
    let pool: Vec<&&(String, Vec<&str>)> = if with_class.is_empty() {
        candidates.iter().collect()
    } else {
        with_class
    };
    let size = |b: &[&str]| b.iter().map(|l| l.len() + 1).sum::<usize>();
    // The longest; the first one on ties.
    let chosen = pool
        .iter()
        .rev()
        .max_by_key(|(_, b)| size(b))
        .map_or(&[][..], |(_, b)| &b[..]);
    let mut code = chosen.join("\n");
    if !code.is_empty() {
        code.push('\n');
    }
    let note = if blocks.len() == 1 {
        "code taken from the fenced block as written".to_string()
    } else {
        format!(
            "code taken as written from the longest of {} fenced blocks",
            blocks.len()
        )
    };
    (code, vec![note])
}
