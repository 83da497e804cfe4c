//! Model outputs to evaluate: ClassEval's `model_output/*.json` (raw completions in `predict`),
//! RealClassEval's `generated/<model>.csv` (column `<model>_generated_code`), or our JSONL
//! (`{"task_id", "model", "strategy", "sample", "code"}` per line).

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
    let is_csv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    let format = match format {
        Some(f) => f,
        None if is_csv => OutputsFormat::RealClassEval,
        None => {
            let text = read_text(path)?;
            return match text.trim_start().chars().next() {
                Some('[') => classeval(&shown, &text),
                Some('{') => jsonl(&shown, &text),
                _ => Err(LoadError::Unrecognized {
                    path: shown,
                    message: "not model outputs: expected ClassEval model_output JSON (a list), JSONL, or a RealClassEval generated CSV".into(),
                }),
            };
        }
    };
    match format {
        OutputsFormat::RealClassEval => realclasseval(path),
        OutputsFormat::ClassEval => classeval(&shown, &read_text(path)?),
        OutputsFormat::Jsonl => jsonl(&shown, &read_text(path)?),
    }
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
    let mut out = Outputs {
        file: file.into(),
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
                        Value::String(s) => out.samples.push(Sample {
                            task_id: id.clone(),
                            sample: i as u32,
                            text: s.clone(),
                            raw: true,
                        }),
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
    Ok(out)
}

fn jsonl(file: &str, text: &str) -> Result<Outputs, LoadError> {
    let mut out = Outputs {
        file: file.into(),
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
    Ok(out)
}

/// `generated/<model>.csv`: `snippet_id` + `<model>_generated_code`.
fn realclasseval(path: &Path) -> Result<Outputs, LoadError> {
    let file = path.display().to_string();
    let model = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    let unrecognized = |message: String| LoadError::Unrecognized {
        path: file.clone(),
        message,
    };
    let mut reader = csv::Reader::from_path(path).map_err(|e| match e.kind() {
        csv::ErrorKind::Io(io) => LoadError::Io {
            path: file.clone(),
            source: std::io::Error::new(io.kind(), io.to_string()),
        },
        _ => unrecognized(e.to_string()),
    })?;
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
    let mut out = Outputs {
        file: file.clone(),
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
}
