//! Reading one ClassEval-shaped task object (shared by the ClassEval and classlab formats).
//!
//! Required fields missing or mistyped drop the task; optional ones fall back to a default.
//! Either way the problem is recorded with the file, the task and the field path.

use serde_json::{Map, Value};

use super::Problem;
use crate::model::{AnnotatedDeps, Method, Provenance, Task};

pub(crate) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Field reader for one task: records a problem for every field it cannot read.
struct Reader<'a> {
    file: &'a str,
    task: String,
    problems: &'a mut Vec<Problem>,
    fatal: bool,
}

impl Reader<'_> {
    fn problem(&mut self, field: &str, message: String) {
        self.problems.push(Problem {
            file: self.file.to_string(),
            task: Some(self.task.clone()),
            field: Some(field.to_string()),
            message,
        });
    }

    fn string(
        &mut self,
        obj: &Map<String, Value>,
        key: &str,
        path: &str,
        required: bool,
    ) -> String {
        match obj.get(key) {
            Some(Value::String(s)) => s.clone(),
            Some(other) => {
                self.fatal |= required;
                let msg = format!("expected a string, found {}", kind_of(other));
                self.problem(path, msg);
                String::new()
            }
            None => {
                self.fatal |= required;
                let what = if required {
                    "missing (required)"
                } else {
                    "missing"
                };
                self.problem(path, what.into());
                String::new()
            }
        }
    }

    fn opt_string(&mut self, obj: &Map<String, Value>, key: &str, path: &str) -> Option<String> {
        match obj.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                let msg = format!("expected a string or null, found {}", kind_of(other));
                self.problem(path, msg);
                None
            }
        }
    }

    fn strings(&mut self, obj: &Map<String, Value>, key: &str, path: &str) -> Vec<String> {
        match obj.get(key) {
            Some(Value::Array(items)) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    match item {
                        Value::String(s) => out.push(s.clone()),
                        other => {
                            let msg = format!("expected a string, found {}", kind_of(other));
                            self.problem(&format!("{path}[{i}]"), msg);
                        }
                    }
                }
                out
            }
            Some(other) => {
                let msg = format!("expected a list of strings, found {}", kind_of(other));
                self.problem(path, msg);
                Vec::new()
            }
            None => {
                self.problem(path, "missing".into());
                Vec::new()
            }
        }
    }
}

/// Read task number `index` of `file`. Returns `None` (with problems recorded) when the task
/// cannot be used at all.
pub(crate) fn read_task(
    file: &str,
    index: usize,
    value: &Value,
    default_source: &str,
    problems: &mut Vec<Problem>,
) -> Option<Task> {
    let Value::Object(obj) = value else {
        problems.push(Problem {
            file: file.into(),
            task: Some(format!("#{index}")),
            field: None,
            message: format!("expected a task object, found {}", kind_of(value)),
        });
        return None;
    };
    let label = match obj.get("task_id") {
        Some(Value::String(id)) if !id.is_empty() => id.clone(),
        _ => format!("#{index}"),
    };
    let mut r = Reader {
        file,
        task: label,
        problems,
        fatal: false,
    };
    let id = r.string(obj, "task_id", "task_id", true);
    let class_name = r.string(obj, "class_name", "class_name", true);
    let solution = r.string(obj, "solution_code", "solution_code", true);
    let skeleton = r.string(obj, "skeleton", "skeleton", false);
    let description = r.string(obj, "class_description", "class_description", false);
    let constructor = r.string(obj, "class_constructor", "class_constructor", false);
    let imports = r.strings(obj, "import_statement", "import_statement");
    let fields = r.strings(obj, "fields", "fields");
    let test_module = r.string(obj, "test", "test", false);
    let test_classes = r.strings(obj, "test_classes", "test_classes");
    let methods = read_methods(&mut r, obj);
    let provenance = read_provenance(&mut r, obj, default_source, &id);
    if r.fatal {
        return None;
    }
    Some(Task {
        id,
        class_name,
        description,
        imports,
        constructor,
        fields,
        skeleton,
        solution,
        test_module,
        test_classes,
        methods,
        test_layout: Default::default(),
        provenance,
    })
}

fn read_methods(r: &mut Reader<'_>, obj: &Map<String, Value>) -> Vec<Method> {
    let items = match obj.get("methods_info") {
        Some(Value::Array(items)) => items,
        Some(other) => {
            let msg = format!(
                "expected a list of method objects, found {}",
                kind_of(other)
            );
            r.problem("methods_info", msg);
            return Vec::new();
        }
        None => {
            r.problem("methods_info", "missing".into());
            return Vec::new();
        }
    };
    let mut methods = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let base = format!("methods_info[{i}]");
        let Value::Object(m) = item else {
            let msg = format!("expected a method object, found {}", kind_of(item));
            r.problem(&base, msg);
            continue;
        };
        let name = r.string(m, "method_name", &format!("{base}.method_name"), false);
        if name.is_empty() {
            // Without a name the method cannot be matched to code: skip it, keep the task.
            continue;
        }
        let description = r.string(
            m,
            "method_description",
            &format!("{base}.method_description"),
            false,
        );
        let test_class = r.opt_string(m, "test_class", &format!("{base}.test_class"));
        let test_code = r
            .opt_string(m, "test_code", &format!("{base}.test_code"))
            .unwrap_or_default();
        let solution = r
            .opt_string(m, "solution_code", &format!("{base}.solution_code"))
            .unwrap_or_default();
        let public_tests = r.opt_string(m, "public_tests", &format!("{base}.public_tests"));
        let annotated = read_annotation(r, m, &base);
        methods.push(Method {
            name,
            description,
            test_class,
            test_code,
            solution,
            annotated,
            public_tests,
        });
    }
    methods
}

fn read_annotation(
    r: &mut Reader<'_>,
    m: &Map<String, Value>,
    base: &str,
) -> Option<AnnotatedDeps> {
    let path = format!("{base}.dependencies");
    match m.get("dependencies") {
        None | Some(Value::Null) => None,
        Some(Value::Object(d)) => {
            let standalone = match d.get("Standalone") {
                Some(Value::Bool(b)) => *b,
                None => false,
                Some(other) => {
                    let msg = format!("expected a boolean, found {}", kind_of(other));
                    r.problem(&format!("{path}.Standalone"), msg);
                    false
                }
            };
            let mut list = |key: &str| match d.get(key) {
                None => Vec::new(),
                Some(_) => r.strings(d, key, &format!("{path}.{key}")),
            };
            Some(AnnotatedDeps {
                standalone,
                lib: list("lib_dependencies"),
                fields: list("field_dependencies"),
                methods: list("method_dependencies"),
            })
        }
        Some(other) => {
            let msg = format!("expected an object, found {}", kind_of(other));
            r.problem(&path, msg);
            None
        }
    }
}

fn read_provenance(
    r: &mut Reader<'_>,
    obj: &Map<String, Value>,
    default_source: &str,
    id: &str,
) -> Provenance {
    let mut provenance = Provenance {
        source: default_source.to_string(),
        original_id: Some(id.to_string()),
        ..Provenance::default()
    };
    match obj.get("provenance") {
        None | Some(Value::Null) => {}
        Some(Value::Object(p)) => {
            let mut extra = p.clone();
            if let Some(source) = r.opt_string(p, "source", "provenance.source") {
                provenance.source = source;
            }
            provenance.original_id = r.opt_string(p, "original_id", "provenance.original_id");
            provenance.original_digest =
                r.opt_string(p, "original_digest", "provenance.original_digest");
            for key in ["source", "original_id", "original_digest"] {
                extra.remove(key);
            }
            provenance.extra = extra;
        }
        Some(other) => {
            let msg = format!("expected an object, found {}", kind_of(other));
            r.problem("provenance", msg);
        }
    }
    provenance
}

/// Read a list of task objects, keeping every task that loads.
pub(crate) fn read_tasks(
    file: &str,
    items: &[Value],
    default_source: &str,
    problems: &mut Vec<Problem>,
) -> Vec<Task> {
    let mut tasks: Vec<Task> = Vec::with_capacity(items.len());
    let mut seen = std::collections::HashSet::new();
    for (index, item) in items.iter().enumerate() {
        let Some(task) = read_task(file, index, item, default_source, problems) else {
            continue;
        };
        if !seen.insert(task.id.clone()) {
            problems.push(Problem {
                file: file.into(),
                task: Some(task.id.clone()),
                field: Some("task_id".into()),
                message: format!("duplicate task id (task #{index} skipped)"),
            });
            continue;
        }
        tasks.push(task);
    }
    tasks
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn minimal() -> Value {
        json!({"task_id": "T1", "class_name": "A", "solution_code": "class A:\n    pass\n",
               "skeleton": "", "class_description": "", "class_constructor": "",
               "import_statement": [], "fields": [], "test": "", "test_classes": [],
               "methods_info": []})
    }

    #[test]
    fn complete_task_has_no_problems() {
        let mut problems = Vec::new();
        let task = read_task("f.json", 0, &minimal(), "ClassEval", &mut problems);
        assert!(task.is_some());
        assert!(problems.is_empty(), "{problems:?}");
    }

    #[test]
    fn missing_required_field_drops_the_task_and_names_it() {
        let mut value = minimal();
        value.as_object_mut().unwrap().remove("class_name");
        let mut problems = Vec::new();
        assert!(read_task("f.json", 3, &value, "ClassEval", &mut problems).is_none());
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].task.as_deref(), Some("T1"));
        assert_eq!(problems[0].field.as_deref(), Some("class_name"));
    }

    #[test]
    fn bad_optional_field_keeps_the_task() {
        let mut value = minimal();
        value["test"] = json!(42);
        value["methods_info"] =
            json!([{"method_name": "m", "dependencies": {"method_dependencies": [1]}}, 7]);
        let mut problems = Vec::new();
        let task = read_task("f.json", 0, &value, "ClassEval", &mut problems).unwrap();
        assert_eq!(task.methods.len(), 1);
        let fields: Vec<_> = problems.iter().filter_map(|p| p.field.clone()).collect();
        assert!(fields.contains(&"test".to_string()));
        assert!(
            fields.contains(&"methods_info[0].dependencies.method_dependencies[0]".to_string())
        );
        assert!(fields.contains(&"methods_info[1]".to_string()));
    }

    #[test]
    fn task_without_id_is_labelled_by_index() {
        let mut problems = Vec::new();
        assert!(read_task("f.json", 5, &json!({"x": 1}), "ClassEval", &mut problems).is_none());
        assert!(problems.iter().all(|p| p.task.as_deref() == Some("#5")));
        assert!(read_task("f.json", 6, &json!("text"), "ClassEval", &mut problems).is_none());
    }

    #[test]
    fn duplicate_ids_are_reported() {
        let mut problems = Vec::new();
        let tasks = read_tasks(
            "f.json",
            &[minimal(), minimal()],
            "ClassEval",
            &mut problems,
        );
        assert_eq!(tasks.len(), 1);
        assert!(problems[0].message.contains("duplicate"));
    }
}
