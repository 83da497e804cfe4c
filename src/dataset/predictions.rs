//! Dependency prediction files (and ground-truth files of the same shape):
//! `{"<task_id>": {"dependencies": {"<method>": ["<method>", …]}, "order": ["<method>", …]}, …}`.
//! A task given twice is an error naming both lines (JSON readers keep one silently).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::{LoadError, Problem, read_text, task_json::kind_of};
use crate::analysis::DepMap;

/// One task's entry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DepEntry {
    pub deps: DepMap,
    /// `None` when the entry has no `order`.
    pub order: Option<Vec<String>>,
}

/// A whole file: task id → entry, plus what could not be read.
#[derive(Debug, Clone, Default)]
pub struct DepFile {
    pub file: String,
    pub tasks: BTreeMap<String, DepEntry>,
    pub problems: Vec<Problem>,
}

pub fn load(path: &Path) -> Result<DepFile, LoadError> {
    let shown = path.display().to_string();
    let text = read_text(path)?;
    parse(&shown, &text)
}

/// Predictions from a file or from a run session: `path` is a predictions file, a session
/// directory, or a session id under the sessions root (`sessions`: `--sessions`, else the
/// usual place). A session gives its dependency analyses ([`from_session`]).
pub fn load_any(path: &Path, sessions: Option<&Path>) -> Result<DepFile, LoadError> {
    let dir = if path.is_dir() {
        Some(path.to_path_buf())
    } else if !path.exists() && path.components().count() == 1 {
        let under = crate::session::sessions_root(sessions).join(path);
        under.is_dir().then_some(under)
    } else {
        None
    };
    match dir {
        Some(dir) => from_session(&dir),
        None => load(path),
    }
}

/// The dependency analyses a run session recorded (TDD step 1, one `dependency_prediction`
/// event per task; the first sample's, the last one recorded when a task was resumed): the
/// parsed graph and the model's order. A reply no graph could be read from is reported as a
/// problem and its task left unscored, never scored as "no dependencies".
pub fn from_session(dir: &Path) -> Result<DepFile, LoadError> {
    use crate::session::EventBody;
    let shown = dir.display().to_string();
    let log = crate::session::SessionLog::open(dir).map_err(|e| LoadError::Unrecognized {
        path: shown.clone(),
        message: format!("not a readable session: {e}"),
    })?;
    let mut out = DepFile {
        file: shown.clone(),
        ..DepFile::default()
    };
    for event in &log.events {
        let EventBody::DependencyPrediction {
            task_id,
            sample,
            graph,
            order,
            problems,
            parsed,
            ..
        } = &event.body
        else {
            continue;
        };
        if *sample != 0 {
            continue;
        }
        if !parsed {
            out.tasks.remove(task_id);
            out.problems.push(Problem {
                file: shown.clone(),
                task: Some(task_id.clone()),
                field: Some("dependency_prediction".into()),
                message: format!(
                    "no dependency graph could be read from the model's reply{}",
                    if problems.is_empty() {
                        String::new()
                    } else {
                        format!(": {}", problems.join("; "))
                    }
                ),
            });
            continue;
        }
        out.tasks.insert(
            task_id.clone(),
            DepEntry {
                deps: graph.clone(),
                order: (!order.is_empty()).then(|| order.clone()),
            },
        );
    }
    if out.tasks.is_empty() && out.problems.is_empty() {
        return Err(LoadError::Unrecognized {
            path: shown,
            message: format!(
                "the session ({} kind) has no dependency analysis: only `tdd` runs predict \
                 dependencies",
                log.meta.kind
            ),
        });
    }
    Ok(out)
}

/// A JSON object's entries in file order, repeated keys kept (a `Value` keeps only one).
struct Entries(Vec<(String, Value)>);

impl<'de> serde::Deserialize<'de> for Entries {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Entries;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<Entries, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = m.next_entry::<String, Value>()? {
                    entries.push(entry);
                }
                Ok(Entries(entries))
            }
        }
        d.deserialize_map(Visit)
    }
}

/// An error naming every task given more than once and the lines its entries start on.
fn check_repeated(file: &str, text: &str, keys: &[&str]) -> Result<(), LoadError> {
    let lines = super::outputs::top_level_lines(text);
    let mut at: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, key) in keys.iter().enumerate() {
        at.entry(key)
            .or_default()
            .push(lines.get(i).copied().unwrap_or(0));
    }
    let repeated: Vec<String> = at
        .into_iter()
        .filter(|(_, l)| l.len() > 1)
        .map(|(key, l)| {
            let l: Vec<String> = l.iter().map(usize::to_string).collect();
            format!("task `{key}` on lines {}", l.join(" and "))
        })
        .collect();
    if repeated.is_empty() {
        return Ok(());
    }
    Err(LoadError::Unrecognized {
        path: file.into(),
        message: format!(
            "duplicate task: {}; each task may appear once (which entry to score is ambiguous)",
            repeated.join("; ")
        ),
    })
}

pub fn parse(file: &str, text: &str) -> Result<DepFile, LoadError> {
    let value: Value = serde_json::from_str(text).map_err(|e| LoadError::json(file, &e))?;
    if !value.is_object() {
        return Err(LoadError::Unrecognized {
            path: file.into(),
            message: format!(
                "expected an object {{\"<task_id>\": {{\"dependencies\": {{…}}, \"order\": […]}}}}, found {}",
                kind_of(&value)
            ),
        });
    }
    let Entries(map) = serde_json::from_str(text).map_err(|e| LoadError::json(file, &e))?;
    let keys: Vec<&str> = map.iter().map(|(k, _)| k.as_str()).collect();
    check_repeated(file, text, &keys)?;
    let mut out = DepFile {
        file: file.into(),
        ..DepFile::default()
    };
    for (task_id, entry) in map {
        let mut problem = |field: String, message: String| {
            out.problems.push(Problem {
                file: file.into(),
                task: Some(task_id.clone()),
                field: Some(field),
                message,
            })
        };
        let Value::Object(entry) = entry else {
            problem(
                String::new(),
                format!("expected an object, found {}", kind_of(&entry)),
            );
            continue;
        };
        let mut parsed = DepEntry::default();
        match entry.get("dependencies") {
            Some(Value::Object(deps)) => {
                for (method, targets) in deps {
                    let set = parsed.deps.entry(method.clone()).or_default();
                    match targets {
                        Value::Array(items) => {
                            for (i, item) in items.iter().enumerate() {
                                match item.as_str() {
                                    Some(name) => {
                                        set.insert(name.to_string());
                                    }
                                    None => problem(
                                        format!("dependencies.{method}[{i}]"),
                                        format!("expected a method name, found {}", kind_of(item)),
                                    ),
                                }
                            }
                        }
                        Value::Null => {}
                        other => problem(
                            format!("dependencies.{method}"),
                            format!("expected a list of method names, found {}", kind_of(other)),
                        ),
                    }
                }
            }
            None | Some(Value::Null) => problem(
                "dependencies".into(),
                "missing (scored as no dependencies)".into(),
            ),
            Some(other) => problem(
                "dependencies".into(),
                format!("expected an object, found {}", kind_of(other)),
            ),
        }
        match entry.get("order") {
            Some(Value::Array(items)) => {
                let mut order = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    match item.as_str() {
                        Some(name) => order.push(name.to_string()),
                        None => problem(
                            format!("order[{i}]"),
                            format!("expected a method name, found {}", kind_of(item)),
                        ),
                    }
                }
                parsed.order = Some(order);
            }
            None | Some(Value::Null) => {}
            Some(other) => problem(
                "order".into(),
                format!("expected a list of method names, found {}", kind_of(other)),
            ),
        }
        out.tasks.insert(task_id, parsed);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_entries_and_reports_bad_fields() {
        let f = parse(
            "p.json",
            r#"{"T1": {"dependencies": {"a": ["b"], "b": []}, "order": ["b", "a"]},
                "T2": {"dependencies": {"a": "b"}},
                "T3": 5}"#,
        )
        .unwrap();
        assert_eq!(f.tasks.len(), 2);
        assert_eq!(
            f.tasks["T1"].order.as_deref(),
            Some(&["b".to_string(), "a".to_string()][..])
        );
        assert!(f.tasks["T2"].order.is_none());
        let fields: Vec<_> = f
            .problems
            .iter()
            .map(|p| (p.task.clone().unwrap(), p.field.clone().unwrap()))
            .collect();
        assert!(fields.contains(&("T2".into(), "dependencies.a".into())));
        assert!(fields.contains(&("T3".into(), String::new())));
    }

    #[test]
    fn rejects_non_objects_with_the_file_name() {
        let err = parse("p.json", "[1]").unwrap_err().to_string();
        assert!(err.starts_with("p.json:"), "{err}");
        let err = parse("p.json", "{").unwrap_err().to_string();
        assert!(err.starts_with("p.json:1:"), "{err}");
    }

    #[test]
    fn a_repeated_task_is_an_error_naming_both_lines() {
        let text = "{\n  \"T1\": {\"dependencies\": {\"a\": [\"b\"]}},\n  \"T2\": {\"dependencies\": {}},\n  \"T1\": {\"dependencies\": {}}\n}";
        let err = parse("p.json", text).unwrap_err().to_string();
        assert!(
            err.starts_with("p.json: duplicate task: task `T1` on lines 2 and 4"),
            "{err}"
        );
    }
}
