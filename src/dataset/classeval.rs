//! ClassEval's JSON: a list of task objects (`../shared/data/classeval/ClassEval_data.json`).

use serde_json::Value;

use super::{Dataset, Format, LoadError, task_json};

pub(crate) fn from_value(path: &str, value: Value) -> Result<Dataset, LoadError> {
    let Value::Array(items) = value else {
        return Err(LoadError::Unrecognized {
            path: path.into(),
            message: "expected a JSON list of tasks".into(),
        });
    };
    // A list of something other than task objects is not a dataset at all: say so plainly
    // instead of reporting every element.
    if let Some(first) = items.first()
        && !first.get("task_id").is_some_and(Value::is_string)
        && !first.get("class_name").is_some_and(Value::is_string)
    {
        return Err(LoadError::Unrecognized {
            path: path.into(),
            message: format!(
                "not a ClassEval file: its first element is {} without `task_id`",
                task_json::kind_of(first)
            ),
        });
    }
    let mut problems = Vec::new();
    let tasks = task_json::read_tasks(path, &items, "ClassEval", &mut problems);
    Ok(Dataset {
        name: super::name_from_path(path),
        origin: path.into(),
        format: Format::ClassEval,
        tasks,
        problems,
    })
}
