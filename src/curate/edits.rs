//! The edited task as a delta: only the fields a reviewer changed, under ClassEval's field names,
//! so the store stays small and a diff against the original is always possible.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::Task;

/// Task-level fields a reviewer may edit.
pub const TASK_FIELDS: [&str; 4] = ["skeleton", "solution_code", "test", "class_description"];
/// Per-method fields a reviewer may edit (`methods.<name>.<field>`).
pub const METHOD_FIELDS: [&str; 4] = [
    "method_description",
    "test_code",
    "solution_code",
    "public_tests",
];

/// Changed task fields; `None` means "as in the dataset".
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskEdits {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skeleton: Option<String>,
    #[serde(
        default,
        rename = "solution_code",
        skip_serializing_if = "Option::is_none"
    )]
    pub solution: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<String>,
    #[serde(
        default,
        rename = "class_description",
        skip_serializing_if = "Option::is_none"
    )]
    pub description: Option<String>,
    /// Method name → its changed fields.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub methods: BTreeMap<String, MethodEdits>,
}

/// Changed fields of one method.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MethodEdits {
    #[serde(
        default,
        rename = "method_description",
        skip_serializing_if = "Option::is_none"
    )]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_code: Option<String>,
    #[serde(
        default,
        rename = "solution_code",
        skip_serializing_if = "Option::is_none"
    )]
    pub solution: Option<String>,
    /// Blank text removes the public tests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_tests: Option<String>,
}

impl MethodEdits {
    pub fn is_empty(&self) -> bool {
        self == &MethodEdits::default()
    }

    fn slot(&mut self, field: &str) -> Option<&mut Option<String>> {
        Some(match field {
            "method_description" => &mut self.description,
            "test_code" => &mut self.test_code,
            "solution_code" => &mut self.solution,
            "public_tests" => &mut self.public_tests,
            _ => return None,
        })
    }

    fn get(&self, field: &str) -> Option<&str> {
        match field {
            "method_description" => self.description.as_deref(),
            "test_code" => self.test_code.as_deref(),
            "solution_code" => self.solution.as_deref(),
            "public_tests" => self.public_tests.as_deref(),
            _ => None,
        }
    }
}

impl TaskEdits {
    pub fn is_empty(&self) -> bool {
        self == &TaskEdits::default()
    }

    fn slot(&mut self, field: &str) -> Option<&mut Option<String>> {
        Some(match field {
            "skeleton" => &mut self.skeleton,
            "solution_code" => &mut self.solution,
            "test" => &mut self.test,
            "class_description" => &mut self.description,
            _ => return None,
        })
    }

    /// Set one field by its path (`skeleton`, `methods.pop.public_tests` …), checking that the
    /// path names a field and, for methods, a target method of `task`.
    pub fn set(&mut self, task: &Task, path: &str, value: String) -> Result<(), String> {
        match path.split_once('.') {
            None => {
                let slot = self.slot(path).ok_or_else(|| unknown_field(path))?;
                *slot = Some(value);
            }
            Some(("methods", rest)) => {
                let (method, field) = rest.rsplit_once('.').ok_or_else(|| unknown_field(path))?;
                if task.method(method).is_none() {
                    return Err(format!(
                        "task {} has no target method `{method}` (methods: {})",
                        task.id,
                        task.method_names().join(", ")
                    ));
                }
                let mut entry = self.methods.get(method).cloned().unwrap_or_default();
                *entry.slot(field).ok_or_else(|| unknown_field(path))? = Some(value);
                self.methods.insert(method.to_string(), entry);
            }
            Some(_) => return Err(unknown_field(path)),
        }
        Ok(())
    }

    /// Every edited field: (path, edited text), task fields first, then methods by name.
    pub fn fields(&self) -> Vec<(String, &str)> {
        let mut out = Vec::new();
        for (name, value) in [
            ("skeleton", &self.skeleton),
            ("solution_code", &self.solution),
            ("test", &self.test),
            ("class_description", &self.description),
        ] {
            if let Some(v) = value {
                out.push((name.to_string(), v.as_str()));
            }
        }
        for (method, edits) in &self.methods {
            for field in METHOD_FIELDS {
                if let Some(v) = edits.get(field) {
                    out.push((format!("methods.{method}.{field}"), v));
                }
            }
        }
        out
    }

    /// Paths whose edited text differs between `self` and `other` (for the history line).
    pub fn changed_paths(&self, other: &TaskEdits) -> Vec<String> {
        let mine: BTreeMap<String, &str> = self.fields().into_iter().collect();
        let theirs: BTreeMap<String, &str> = other.fields().into_iter().collect();
        let mut paths: Vec<String> = mine
            .keys()
            .chain(theirs.keys())
            .filter(|p| mine.get(*p) != theirs.get(*p))
            .cloned()
            .collect();
        paths.sort();
        paths.dedup();
        paths
    }

    /// `other`'s fields laid over `self`'s.
    pub fn merged(mut self, other: TaskEdits) -> TaskEdits {
        for (path, value) in other.fields() {
            match path
                .strip_prefix("methods.")
                .and_then(|r| r.rsplit_once('.'))
            {
                Some((method, field)) => {
                    let entry = self.methods.entry(method.to_string()).or_default();
                    if let Some(slot) = entry.slot(field) {
                        *slot = Some(value.to_string());
                    }
                }
                None => {
                    if let Some(slot) = self.slot(&path) {
                        *slot = Some(value.to_string());
                    }
                }
            }
        }
        self
    }

    /// Without the fields that equal `original`'s (an edit undone is no edit), nor methods the
    /// task does not have.
    pub fn pruned(mut self, original: &Task) -> TaskEdits {
        for field in TASK_FIELDS {
            let same = self.slot(field).is_some_and(|slot| {
                slot.as_deref()
                    .is_some_and(|v| Some(v) == original_value(original, field).as_deref())
            });
            if same && let Some(slot) = self.slot(field) {
                *slot = None;
            }
        }
        self.methods.retain(|name, edits| {
            if original.method(name).is_none() {
                return false;
            }
            for field in METHOD_FIELDS {
                let path = format!("methods.{name}.{field}");
                let now = edits.get(field).map(str::to_string);
                let was = original_value(original, &path);
                // Blank public tests remove them: no edit when there were none.
                let blank_for_none = field == "public_tests"
                    && was.is_none()
                    && now.as_deref().is_some_and(|v| v.trim().is_empty());
                if now.is_some()
                    && (now == was || blank_for_none)
                    && let Some(slot) = edits.slot(field)
                {
                    *slot = None;
                }
            }
            !edits.is_empty()
        });
        self
    }

    /// The task with these edits applied. A blank `public_tests` removes them; an edited test
    /// module renames `test_classes` after the classes it now holds.
    pub fn apply(&self, original: &Task) -> Task {
        let mut task = original.clone();
        if let Some(v) = &self.skeleton {
            task.skeleton = v.clone();
        }
        if let Some(v) = &self.solution {
            task.solution = v.clone();
        }
        if let Some(v) = &self.description {
            task.description = v.clone();
        }
        if let Some(v) = &self.test {
            task.test_module = v.clone();
            let module = crate::analysis::parse_module(v);
            task.test_classes = crate::analysis::test_classes(&module)
                .into_iter()
                .map(|c| c.name)
                .collect();
        }
        for method in &mut task.methods {
            let Some(e) = self.methods.get(&method.name) else {
                continue;
            };
            if let Some(v) = &e.description {
                method.description = v.clone();
            }
            if let Some(v) = &e.test_code {
                method.test_code = v.clone();
            }
            if let Some(v) = &e.solution {
                method.solution = v.clone();
            }
            if let Some(v) = &e.public_tests {
                method.public_tests = (!v.trim().is_empty()).then(|| v.clone());
            }
        }
        task
    }
}

/// The dataset's text for a field path; `None` when the path names nothing (or, for public
/// tests, when the method has none).
pub fn original_value(task: &Task, path: &str) -> Option<String> {
    match path {
        "skeleton" => Some(task.skeleton.clone()),
        "solution_code" => Some(task.solution.clone()),
        "test" => Some(task.test_module.clone()),
        "class_description" => Some(task.description.clone()),
        _ => {
            let (method, field) = path.strip_prefix("methods.")?.rsplit_once('.')?;
            let m = task.method(method)?;
            match field {
                "method_description" => Some(m.description.clone()),
                "test_code" => Some(m.test_code.clone()),
                "solution_code" => Some(m.solution.clone()),
                "public_tests" => m.public_tests.clone(),
                _ => None,
            }
        }
    }
}

fn unknown_field(path: &str) -> String {
    format!(
        "unknown field `{path}`: expected one of {}, or methods.<name>.<{}>",
        TASK_FIELDS.join(", "),
        METHOD_FIELDS.join("|")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Method;

    fn task() -> Task {
        Task {
            id: "T".into(),
            class_name: "A".into(),
            skeleton: "class A:\n    pass\n".into(),
            test_module: "import unittest\nclass ATestPop(unittest.TestCase):\n    def test_1(self):\n        pass\n".into(),
            methods: vec![Method {
                name: "pop".into(),
                description: "def pop(self):".into(),
                test_class: None,
                test_code: String::new(),
                solution: String::new(),
                annotated: None,
                public_tests: None,
            }],
            ..Task::default()
        }
    }

    #[test]
    fn set_checks_paths_and_methods() {
        let t = task();
        let mut e = TaskEdits::default();
        assert!(e.set(&t, "skeleton", "x".into()).is_ok());
        assert!(e.set(&t, "methods.pop.public_tests", "p".into()).is_ok());
        assert!(
            e.set(&t, "nonsense", "x".into())
                .unwrap_err()
                .contains("unknown field")
        );
        assert!(
            e.set(&t, "methods.push.test_code", "x".into())
                .unwrap_err()
                .contains("`push`")
        );
        assert!(e.set(&t, "methods.pop.color", "x".into()).is_err());
        assert!(e.set(&t, "methods.pop", "x".into()).is_err());
        let paths: Vec<String> = e.fields().into_iter().map(|(p, _)| p).collect();
        assert_eq!(paths, ["skeleton", "methods.pop.public_tests"]);
    }

    #[test]
    fn apply_sets_fields_and_blank_public_tests_remove_them() {
        let t = task();
        let mut e = TaskEdits::default();
        e.set(&t, "methods.pop.public_tests", "class P: pass".into())
            .unwrap();
        e.set(
            &t,
            "test",
            "import unittest\nclass New(unittest.TestCase):\n    pass\n".into(),
        )
        .unwrap();
        let edited = e.apply(&t);
        assert_eq!(
            edited.methods[0].public_tests.as_deref(),
            Some("class P: pass")
        );
        assert_eq!(edited.test_classes, ["New"]);
        e.set(&t, "methods.pop.public_tests", "  \n".into())
            .unwrap();
        assert_eq!(e.apply(&t).methods[0].public_tests, None);
    }

    #[test]
    fn pruned_drops_undone_edits_and_unknown_methods() {
        let t = task();
        let mut e = TaskEdits::default();
        e.set(&t, "skeleton", t.skeleton.clone()).unwrap();
        e.set(
            &t,
            "methods.pop.method_description",
            "def pop(self):".into(),
        )
        .unwrap();
        e.methods.insert(
            "gone".into(),
            MethodEdits {
                test_code: Some("x".into()),
                ..Default::default()
            },
        );
        assert!(e.pruned(&t).is_empty());
    }

    #[test]
    fn merged_and_changed_paths() {
        let t = task();
        let mut a = TaskEdits::default();
        a.set(&t, "skeleton", "s1".into()).unwrap();
        let mut b = TaskEdits::default();
        b.set(&t, "methods.pop.test_code", "tc".into()).unwrap();
        let m = a.clone().merged(b);
        assert_eq!(a.changed_paths(&m), ["methods.pop.test_code"]);
        assert!(m.changed_paths(&m).is_empty());
    }

    #[test]
    fn serializes_only_changed_fields_under_classeval_names() {
        let t = task();
        let mut e = TaskEdits::default();
        e.set(&t, "solution_code", "s".into()).unwrap();
        e.set(&t, "methods.pop.method_description", "d".into())
            .unwrap();
        let json = serde_json::to_value(&e).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"solution_code": "s", "methods": {"pop": {"method_description": "d"}}})
        );
        let back: TaskEdits = serde_json::from_value(json).unwrap();
        assert_eq!(back, e);
    }
}
