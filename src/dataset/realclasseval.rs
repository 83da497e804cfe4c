//! A RealClassEval folder: `classes_full_docstr.csv` (one class per row: the human-written code,
//! its skeleton, repository, 27 Understand metrics) + `tests/test_snippet_N.py` (Pynguin's
//! pytest tests, which `import snippet_N as module_0`). Tasks are keyed `snippet_N`.

use std::collections::BTreeMap;
use std::path::Path;

use super::{Dataset, Format, LoadError, Problem};
use crate::analysis::parse_module;
use crate::model::{Method, Provenance, Task, TestLayout};

pub const CLASSES_CSV: &str = "classes_full_docstr.csv";

/// Columns that describe the class rather than measure it; all others are metrics.
const DESCRIPTIVE: &[&str] = &[
    "id",
    "repository_name",
    "file_path",
    "class_name",
    "human_written_code",
    "class_skeleton",
    "snippet_id",
];

pub fn is_realclasseval_dir(dir: &Path) -> bool {
    dir.join(CLASSES_CSV).is_file()
}

pub(crate) fn load_dir(dir: &Path) -> Result<Dataset, LoadError> {
    let csv_path = dir.join(CLASSES_CSV);
    let shown = csv_path.display().to_string();
    let mut reader = csv::ReaderBuilder::new()
        .flexible(false)
        .from_path(&csv_path)
        .map_err(|e| csv_error(&shown, &e))?;
    let headers = reader.headers().map_err(|e| csv_error(&shown, &e))?.clone();
    for required in [
        "snippet_id",
        "class_name",
        "human_written_code",
        "class_skeleton",
    ] {
        if !headers.iter().any(|h| h == required) {
            return Err(LoadError::Unrecognized {
                path: shown,
                message: format!("missing column `{required}`"),
            });
        }
    }
    let mut tasks = Vec::new();
    let mut problems = Vec::new();
    for (row_no, record) in reader.records().enumerate() {
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                problems.push(Problem {
                    file: shown.clone(),
                    task: Some(format!("row {}", row_no + 2)),
                    field: None,
                    message: e.to_string(),
                });
                continue;
            }
        };
        let row: BTreeMap<&str, &str> = headers.iter().zip(record.iter()).collect();
        match task_from_row(dir, &row, &mut problems, &shown) {
            Some(task) => tasks.push(task),
            None => continue,
        }
    }
    Ok(Dataset {
        name: dir.file_name().map_or_else(
            || "RealClassEval".into(),
            |n| format!("RealClassEval {}", n.to_string_lossy()),
        ),
        origin: dir.display().to_string(),
        format: Format::RealClassEval,
        tasks,
        problems,
    })
}

fn csv_error(path: &str, e: &csv::Error) -> LoadError {
    let at = e
        .position()
        .map(|p| format!(" (line {})", p.line()))
        .unwrap_or_default();
    LoadError::Unrecognized {
        path: path.into(),
        message: format!("invalid CSV{at}: {e}"),
    }
}

fn task_from_row(
    dir: &Path,
    row: &BTreeMap<&str, &str>,
    problems: &mut Vec<Problem>,
    file: &str,
) -> Option<Task> {
    let snippet = row
        .get("snippet_id")
        .copied()
        .unwrap_or("")
        .trim()
        .to_string();
    let mut problem = |field: &str, message: String| {
        problems.push(Problem {
            file: file.into(),
            task: Some(if snippet.is_empty() {
                "(no snippet_id)".into()
            } else {
                snippet.clone()
            }),
            field: Some(field.into()),
            message,
        })
    };
    if snippet.is_empty() {
        problem("snippet_id", "empty".into());
        return None;
    }
    let dotted = row.get("class_name").copied().unwrap_or("");
    let class_name = dotted.rsplit('.').next().unwrap_or(dotted).to_string();
    let solution = row
        .get("human_written_code")
        .copied()
        .unwrap_or("")
        .to_string();
    let skeleton = row.get("class_skeleton").copied().unwrap_or("").to_string();
    if class_name.is_empty() || solution.trim().is_empty() {
        problem("class_name / human_written_code", "empty".into());
        return None;
    }
    let test_file = format!("test_{snippet}.py");
    let test_path = dir.join("tests").join(&test_file);
    let test_module = match std::fs::read(&test_path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        // A folder without `tests/` (a `corpus export`) has classes without tests: nothing to
        // warn about per class (running or evaluating them says so, once).
        Err(_) if !dir.join("tests").is_dir() => String::new(),
        Err(e) => {
            problems.push(Problem {
                file: test_path.display().to_string(),
                task: Some(snippet.clone()),
                field: None,
                message: format!("no tests: {e}"),
            });
            String::new()
        }
    };
    let solution_module = parse_module(&solution);
    let skeleton_module = parse_module(&skeleton);
    let methods = skeleton_module
        .class(&class_name)
        .map(|c| {
            c.methods
                .iter()
                .filter(|m| m.name != "__init__")
                .map(|m| Method {
                    name: m.name.clone(),
                    description: skeleton
                        .get(m.start_byte..m.end_byte)
                        .unwrap_or("")
                        .trim_end()
                        .to_string(),
                    test_class: None,
                    test_code: String::new(),
                    solution: solution_module
                        .class(&class_name)
                        .and_then(|sc| sc.method(&m.name))
                        .and_then(|sm| solution.get(sm.start_byte..sm.end_byte))
                        .unwrap_or("")
                        .to_string(),
                    annotated: None,
                    public_tests: None,
                })
                .collect()
        })
        .unwrap_or_default();
    let mut extra = serde_json::Map::new();
    for (key, value) in row {
        let v = match *key {
            // Where the class came from, kept as text.
            "repository_name" | "file_path" | "class_name" => {
                serde_json::Value::String(value.to_string())
            }
            k if DESCRIPTIVE.contains(&k) => continue,
            // The Understand metrics: numbers where they parse.
            _ => value
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map_or_else(
                    || serde_json::Value::String(value.to_string()),
                    serde_json::Value::Number,
                ),
        };
        extra.insert(key.to_string(), v);
    }
    let description = solution_module
        .class(&class_name)
        .and_then(|c| c.docstring.clone())
        .unwrap_or_default();
    Some(Task {
        id: snippet.clone(),
        class_name,
        description,
        imports: solution_module.imports.clone(),
        constructor: String::new(),
        fields: Vec::new(),
        skeleton,
        solution,
        test_module,
        test_classes: Vec::new(),
        methods,
        test_layout: TestLayout::Module {
            code_module: snippet.clone(),
            test_file,
        },
        provenance: Provenance {
            source: "RealClassEval".into(),
            original_id: row.get("id").map(|s| s.to_string()),
            original_digest: None,
            extra,
        },
    })
}
