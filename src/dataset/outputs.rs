//! Model outputs to evaluate: ClassEval's `model_output/*.json` (raw completions in `predict`),
//! RealClassEval's `generated/<model>.csv` (column `<model>_generated_code`), or our JSONL
//! (`{"task_id", "model", "strategy", "sample", "code"}` per line).
//!
//! A `(task_id, sample)` pair given twice is an input error naming both lines: which of the
//! two to score is not ours to guess. [`Outputs::digest`] is the file's SHA-256, so a session
//! can tell that it is being resumed with another file.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::task_json::kind_of;
use super::{LoadError, Problem, read_text};
pub use crate::model::Strategy;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputsFormat {
    ClassEval,
    RealClassEval,
    Jsonl,
}

impl OutputsFormat {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "classeval" => Some(OutputsFormat::ClassEval),
            "realclasseval" => Some(OutputsFormat::RealClassEval),
            "jsonl" => Some(OutputsFormat::Jsonl),
            _ => None,
        }
    }
}

/// One generated sample for one task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    pub task_id: String,
    pub sample: u32,
    /// The raw text: a completion to extract code from, or code already.
    pub text: String,
    /// True when `text` is a raw completion that needs extraction (ClassEval, RealClassEval).
    pub raw: bool,
}

#[derive(Debug, Clone)]
pub struct Outputs {
    pub file: String,
    /// Hex SHA-256 of the file's bytes.
    pub digest: String,
    pub format: OutputsFormat,
    pub model: Option<String>,
    /// As far as the file tells.
    pub strategy: Option<Strategy>,
    pub samples: Vec<Sample>,
    pub problems: Vec<Problem>,
}

impl Outputs {
    /// Samples per task (the largest count; pass@k needs n).
    pub fn samples_per_task(&self) -> u32 {
        let mut counts = std::collections::BTreeMap::<&str, u32>::new();
        for s in &self.samples {
            *counts.entry(&s.task_id).or_default() += 1;
        }
        counts.values().copied().max().unwrap_or(0)
    }
}

/// Load outputs, recognising the format by content unless `format` says.
pub fn load(path: &Path, format: Option<OutputsFormat>) -> Result<Outputs, LoadError> {
    let shown = path.display().to_string();
    if path.is_dir() {
        return Err(LoadError::Unrecognized {
            path: shown,
            message: "is a directory; --predictions takes a file of model outputs: ClassEval \
                      model_output JSON, a RealClassEval generated/<model>.csv, or JSONL"
                .into(),
        });
    }
    load_any(path, &shown, format).and_then(usable)
}

/// Outputs with nothing to evaluate are a mistake (an empty list, or every entry unusable),
/// refused before any session is made.
fn usable(out: Outputs) -> Result<Outputs, LoadError> {
    if !out.samples.is_empty() {
        return Ok(out);
    }
    let why = match out.problems.first() {
        None => "it is empty".to_string(),
        Some(p) => format!(
            "{} entr{} unusable, the first: {p}",
            out.problems.len(),
            if out.problems.len() == 1 {
                "y is"
            } else {
                "ies are"
            }
        ),
    };
    Err(LoadError::Unrecognized {
        path: out.file,
        message: format!("no model output to evaluate: {why}"),
    })
}

/// A dependency-predictions file (`{"<task_id>": {"dependencies": …, "order": …}}`, for
/// `depcheck` and the TUI's `--predictions`) given where model outputs are expected.
fn is_dependency_predictions(text: &str) -> bool {
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(text) else {
        return false;
    };
    !map.is_empty()
        && map.values().all(|v| {
            v.as_object()
                .is_some_and(|o| o.contains_key("dependencies") || o.contains_key("order"))
        })
}

fn load_any(path: &Path, shown: &str, format: Option<OutputsFormat>) -> Result<Outputs, LoadError> {
    let shown = shown.to_string();
    let is_csv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    let format = match format {
        Some(f) => f,
        None if is_csv => OutputsFormat::RealClassEval,
        None => {
            let text = read_text(path)?;
            let out = match text.trim_start().chars().next() {
                None => Err(LoadError::Unrecognized {
                    path: shown,
                    message: "no model output to evaluate: the file is empty".into(),
                }),
                Some('[') => classeval(&shown, &text),
                Some('{') if is_dependency_predictions(&text) => Err(LoadError::Unrecognized {
                    path: shown,
                    message: "is a file of dependency predictions (for `classlab depcheck` and \
                              the TUI's --predictions), not model outputs: `eval --predictions` \
                              takes ClassEval model_output JSON, a RealClassEval generated CSV, \
                              or JSONL of code"
                        .into(),
                }),
                Some('{') => jsonl(&shown, &text),
                _ => Err(LoadError::Unrecognized {
                    path: shown,
                    message: "not model outputs: expected ClassEval model_output JSON (a list), JSONL, or a RealClassEval generated CSV".into(),
                }),
            };
            return out.map(|o| o.with_digest(text.as_bytes()));
        }
    };
    match format {
        OutputsFormat::RealClassEval => {
            let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
                path: shown.clone(),
                source,
            })?;
            realclasseval(path, &bytes).map(|o| o.with_digest(&bytes))
        }
        OutputsFormat::ClassEval => {
            let text = read_text(path)?;
            classeval(&shown, &text).map(|o| o.with_digest(text.as_bytes()))
        }
        OutputsFormat::Jsonl => {
            let text = read_text(path)?;
            jsonl(&shown, &text).map(|o| o.with_digest(text.as_bytes()))
        }
    }
}

impl Outputs {
    fn with_digest(self, bytes: &[u8]) -> Outputs {
        Outputs {
            digest: crate::session::store::sha256_hex(bytes),
            ..self
        }
    }
}

/// Where each `(task_id, sample)` was found (line numbers), to refuse a pair given twice.
#[derive(Default)]
struct Seen(BTreeMap<(String, u32), Vec<usize>>);

impl Seen {
    fn add(&mut self, task_id: &str, sample: u32, line: usize) {
        self.0
            .entry((task_id.to_string(), sample))
            .or_default()
            .push(line);
    }

    /// An error naming the file, every repeated pair and the lines it is on.
    fn check(self, file: &str) -> Result<(), LoadError> {
        let repeated: Vec<String> = self
            .0
            .into_iter()
            .filter(|(_, lines)| lines.len() > 1)
            .map(|((task, sample), lines)| {
                format!(
                    "task `{task}` sample {sample} on lines {}",
                    join_and(&lines)
                )
            })
            .collect();
        if repeated.is_empty() {
            return Ok(());
        }
        Err(LoadError::Unrecognized {
            path: file.into(),
            message: format!(
                "duplicate (task_id, sample): {}; each pair may appear once (which one to \
                 score is ambiguous): remove or renumber the extra entries",
                repeated.join("; ")
            ),
        })
    }
}

/// `1, 5 and 9`.
fn join_and(lines: &[usize]) -> String {
    let shown: Vec<String> = lines.iter().map(usize::to_string).collect();
    match shown.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => shown.join(""),
    }
}

/// The line on which each top-level element of a valid JSON text starts: the items of an
/// array, the keys of an object. (serde_json keeps no positions; the text is already known
/// to parse, so strings and nesting are all this needs to follow.)
pub(super) fn top_level_lines(text: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    let (mut depth, mut line) = (0usize, 1usize);
    let (mut in_string, mut escaped, mut expecting) = (false, false, false);
    for c in text.chars() {
        if c == '\n' {
            line += 1;
        }
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        if c.is_whitespace() {
            continue;
        }
        if depth == 1 && expecting && c != ']' && c != '}' {
            lines.push(line);
            expecting = false;
        }
        match c {
            '"' => in_string = true,
            '[' | '{' => {
                depth += 1;
                expecting = depth == 1;
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 1 => expecting = true,
            _ => {}
        }
    }
    lines
}

/// `GPT-4-Turbo_class_H_greedy.json` → (model `GPT-4-Turbo`, holistic).
fn classeval_name(file: &str) -> (Option<String>, Option<Strategy>) {
    let stem = Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    for code in ["class_H", "method_I", "method_C"] {
        if let Some(at) = stem.find(&format!("_{code}")) {
            return (Some(stem[..at].to_string()), Strategy::from_file_name(code));
        }
    }
    (None, None)
}

fn classeval(file: &str, text: &str) -> Result<Outputs, LoadError> {
    let value: Value = serde_json::from_str(text).map_err(|e| LoadError::json(file, &e))?;
    let Value::Array(items) = value else {
        return Err(LoadError::Unrecognized {
            path: file.into(),
            message: "expected a JSON list of tasks with `predict`".into(),
        });
    };
    let (model, strategy) = classeval_name(file);
    let item_lines = top_level_lines(text);
    let mut seen = Seen::default();
    let mut out = Outputs {
        file: file.into(),
        digest: String::new(),
        format: OutputsFormat::ClassEval,
        model,
        strategy,
        samples: Vec::new(),
        problems: Vec::new(),
    };
    for (index, item) in items.iter().enumerate() {
        let task_id = item
            .get("task_id")
            .and_then(Value::as_str)
            .map(String::from);
        let mut problem = |field: &str, message: String| {
            out.problems.push(Problem {
                file: file.into(),
                task: Some(task_id.clone().unwrap_or_else(|| format!("#{index}"))),
                field: Some(field.into()),
                message,
            })
        };
        let Some(id) = task_id.clone() else {
            problem("task_id", "missing or not a string".into());
            continue;
        };
        match item.get("predict") {
            Some(Value::Array(preds)) => {
                if preds.is_empty() {
                    problem("predict", "empty: no completion to evaluate".into());
                }
                for (i, p) in preds.iter().enumerate() {
                    match p {
                        Value::String(s) => {
                            let line = item_lines.get(index).copied().unwrap_or(0);
                            seen.add(&id, i as u32, line);
                            out.samples.push(Sample {
                                task_id: id.clone(),
                                sample: i as u32,
                                text: s.clone(),
                                raw: true,
                            })
                        }
                        other => problem(
                            &format!("predict[{i}]"),
                            format!("expected a string, found {}", kind_of(other)),
                        ),
                    }
                }
            }
            Some(other) => problem(
                "predict",
                format!("expected a list of completions, found {}", kind_of(other)),
            ),
            None => problem("predict", "missing".into()),
        }
    }
    seen.check(file)?;
    Ok(out)
}

fn jsonl(file: &str, text: &str) -> Result<Outputs, LoadError> {
    let mut seen = Seen::default();
    let mut out = Outputs {
        file: file.into(),
        digest: String::new(),
        format: OutputsFormat::Jsonl,
        model: None,
        strategy: None,
        samples: Vec::new(),
        problems: Vec::new(),
    };
    let mut next_sample = std::collections::BTreeMap::<String, u32>::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let problem = |message: String| Problem {
            file: format!("{file}:{line_no}"),
            task: None,
            field: None,
            message,
        };
        let value: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                out.problems.push(problem(format!(
                    "invalid JSON at column {}: {e}",
                    e.column()
                )));
                continue;
            }
        };
        let (Some(task_id), Some(code)) = (
            value.get("task_id").and_then(Value::as_str),
            value.get("code").and_then(Value::as_str),
        ) else {
            out.problems
                .push(problem("needs string fields `task_id` and `code`".into()));
            continue;
        };
        if out.model.is_none() {
            out.model = value.get("model").and_then(Value::as_str).map(String::from);
        }
        if out.strategy.is_none() {
            out.strategy = value
                .get("strategy")
                .and_then(Value::as_str)
                .and_then(Strategy::parse);
        }
        let next = next_sample.entry(task_id.to_string()).or_default();
        let sample = value
            .get("sample")
            .and_then(Value::as_u64)
            .map_or(*next, |s| s as u32);
        *next = sample + 1;
        seen.add(task_id, sample, line_no);
        out.samples.push(Sample {
            task_id: task_id.to_string(),
            sample,
            text: code.to_string(),
            raw: false,
        });
    }
    if out.samples.is_empty() && out.problems.is_empty() {
        out.problems.push(Problem {
            file: file.into(),
            task: None,
            field: None,
            message: "no samples".into(),
        });
    }
    seen.check(file)?;
    Ok(out)
}

/// `generated/<model>.csv` (its bytes): `snippet_id` + `<model>_generated_code`.
fn realclasseval(path: &Path, bytes: &[u8]) -> Result<Outputs, LoadError> {
    let file = path.display().to_string();
    let model = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    let unrecognized = |message: String| LoadError::Unrecognized {
        path: file.clone(),
        message,
    };
    let mut reader = csv::Reader::from_reader(bytes);
    let headers = reader
        .headers()
        .map_err(|e| unrecognized(format!("invalid CSV: {e}")))?
        .clone();
    let id_col = headers
        .iter()
        .position(|h| h == "snippet_id")
        .ok_or_else(|| unrecognized("missing column `snippet_id`".into()))?;
    let code_col = headers
        .iter()
        .position(|h| h.ends_with("_generated_code"))
        .ok_or_else(|| unrecognized("missing a `<model>_generated_code` column".into()))?;
    let model = headers
        .get(code_col)
        .and_then(|h| h.strip_suffix("_generated_code"))
        .map(String::from)
        .or(model);
    let mut seen = Seen::default();
    let mut out = Outputs {
        file: file.clone(),
        digest: String::new(),
        format: OutputsFormat::RealClassEval,
        model,
        strategy: Some(Strategy::Holistic),
        samples: Vec::new(),
        problems: Vec::new(),
    };
    for (row, record) in reader.records().enumerate() {
        match record {
            Ok(r) => {
                let id = r.get(id_col).unwrap_or("").trim().to_string();
                if id.is_empty() {
                    out.problems.push(Problem {
                        file: file.clone(),
                        task: Some(format!("row {}", row + 2)),
                        field: Some("snippet_id".into()),
                        message: "empty".into(),
                    });
                    continue;
                }
                // The line the record starts on (a code field spans many).
                let line = r.position().map_or(row + 2, |p| p.line() as usize);
                seen.add(&id, 0, line);
                out.samples.push(Sample {
                    task_id: id,
                    sample: 0,
                    text: r.get(code_col).unwrap_or("").to_string(),
                    raw: true,
                });
            }
            Err(e) => out.problems.push(Problem {
                file: file.clone(),
                task: Some(format!("row {}", row + 2)),
                field: None,
                message: e.to_string(),
            }),
        }
    }
    seen.check(&file)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classeval_file_names() {
        assert_eq!(
            classeval_name("x/GPT-4-Turbo_class_H_greedy.json"),
            (Some("GPT-4-Turbo".into()), Some(Strategy::Holistic))
        );
        assert_eq!(
            classeval_name("GPT-3.5-Turbo_method_C_greedy.json"),
            (Some("GPT-3.5-Turbo".into()), Some(Strategy::Compositional))
        );
        assert_eq!(classeval_name("other.json"), (None, None));
    }

    #[test]
    fn classeval_reports_bad_entries() {
        let o = classeval(
            "m.json",
            r#"[{"task_id": "A", "predict": ["x"]}, {"task_id": "B", "predict": []}, {"predict": ["y"]}, {"task_id": "C", "predict": [3]}]"#,
        )
        .unwrap();
        assert_eq!(o.samples.len(), 1);
        assert_eq!(o.problems.len(), 3);
    }

    #[test]
    fn jsonl_numbers_samples_and_reports_lines() {
        let o = jsonl(
            "o.jsonl",
            "{\"task_id\":\"A\",\"model\":\"m\",\"strategy\":\"tdd\",\"code\":\"c1\"}\n{\"task_id\":\"A\",\"code\":\"c2\"}\nnot json\n{\"task_id\":\"B\"}\n",
        )
        .unwrap();
        assert_eq!(
            o.samples.iter().map(|s| s.sample).collect::<Vec<_>>(),
            [0, 1]
        );
        assert_eq!(o.model.as_deref(), Some("m"));
        assert_eq!(o.strategy, Some(Strategy::Tdd));
        assert_eq!(o.problems.len(), 2);
        assert!(o.problems[0].file.ends_with(":3"));
        assert_eq!(o.samples_per_task(), 2);
    }

    #[test]
    fn a_repeated_task_and_sample_is_an_error_naming_both_lines() {
        let line = |task: &str, sample: Option<u32>| {
            let mut v = serde_json::json!({"task_id": task, "code": "c"});
            if let Some(n) = sample {
                v["sample"] = n.into();
            }
            format!("{v}\n")
        };
        // Implicit numbering (0, 1) is no repeat; an explicit sample 0 after them is.
        let text = [
            line("A", None),
            line("A", None),
            "\n".into(),
            line("B", Some(0)),
            line("A", Some(0)),
            line("B", Some(0)),
            line("B", Some(0)),
        ]
        .concat();
        let err = jsonl("dir/o.jsonl", &text).unwrap_err().to_string();
        assert!(
            err.starts_with("dir/o.jsonl: duplicate (task_id, sample): ")
                && err.contains("task `A` sample 0 on lines 1 and 5")
                && err.contains("task `B` sample 0 on lines 4, 6 and 7"),
            "{err}"
        );
        assert!(jsonl("o.jsonl", &[line("A", None), line("A", Some(0))].concat()).is_err());
        assert!(jsonl("o.jsonl", &[line("A", Some(1)), line("A", None)].concat()).is_ok());
        // Numbering goes on from the last sample given: here to 1 again.
        let err = jsonl(
            "o.jsonl",
            &[line("A", Some(1)), line("A", Some(0)), line("A", None)].concat(),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("task `A` sample 1 on lines 1 and 3"), "{err}");
    }

    #[test]
    fn a_repeated_classeval_task_names_the_lines_its_entries_start_on() {
        let text = "[\n  {\"task_id\": \"A\", \"predict\": [\"x\", \"y\"]},\n  {\"task_id\": \"B\",\n   \"predict\": [\"]}, {[\\\"\"]},\n  {\"task_id\": \"A\", \"predict\": [\"z\"]}\n]\n";
        let err = classeval("m.json", text).unwrap_err().to_string();
        assert!(
            err.contains("task `A` sample 0 on lines 2 and 5") && !err.contains("sample 1"),
            "{err}"
        );
    }

    #[test]
    fn top_level_lines_follow_strings_and_nesting() {
        let text = "[1,\n\"a,[\\\"\",\n\n  {\"k\": [1,\n2]}, [\n]\n]";
        assert_eq!(top_level_lines(text), [1, 2, 4, 5]);
        assert_eq!(top_level_lines("{\"a\": {\"b\": 1},\n \"c\": 2}"), [1, 2]);
        assert_eq!(top_level_lines("[]"), Vec::<usize>::new());
    }

    #[test]
    fn a_repeated_csv_snippet_names_the_lines_its_records_start_on() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gpt.csv");
        let text = "snippet_id,gpt_generated_code\nsnippet_1,\"class A:\n    pass\n\"\nsnippet_2,x\nsnippet_1,y\n";
        std::fs::write(&path, text).unwrap();
        let err = load(&path, None).unwrap_err().to_string();
        assert!(
            err.contains("gpt.csv: duplicate")
                && err.contains("task `snippet_1` sample 0 on lines 2 and 6"),
            "{err}"
        );
    }

    #[test]
    fn load_digests_the_file_it_read() {
        let dir = tempfile::tempdir().unwrap();
        let text = "{\"task_id\": \"A\", \"code\": \"c\"}\n";
        let path = dir.path().join("o.jsonl");
        std::fs::write(&path, text).unwrap();
        let o = load(&path, None).unwrap();
        assert_eq!(o.digest, crate::session::store::sha256_hex(text.as_bytes()));
        let csv = dir.path().join("m.csv");
        std::fs::write(&csv, "snippet_id,m_generated_code\nsnippet_1,x\n").unwrap();
        let o = load(&csv, None).unwrap();
        assert_eq!(o.samples.len(), 1);
        assert_eq!(o.digest.len(), 64);
        let o = load(&path, Some(OutputsFormat::Jsonl)).unwrap();
        assert_eq!(o.digest, crate::session::store::sha256_hex(text.as_bytes()));
    }
}
