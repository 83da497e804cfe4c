//! Our own dataset format: a header plus ClassEval-shaped tasks with `public_tests` and
//! `provenance` (documented in `docs/dataset-format.md`).

use serde_json::Value;

use super::{Dataset, Format, LoadError, task_json};

pub const FORMAT_TAG: &str = "classlab-dataset";
pub const FORMAT_VERSION: u64 = 1;

pub(crate) fn from_value(path: &str, value: Value) -> Result<Dataset, LoadError> {
    let unrecognized = |message: String| LoadError::Unrecognized {
        path: path.into(),
        message,
    };
    let Value::Object(mut header) = value else {
        return Err(unrecognized("expected a classlab dataset object".into()));
    };
    match header.get("format") {
        Some(Value::String(tag)) if tag == FORMAT_TAG => {}
        other => {
            return Err(unrecognized(format!(
                "field `format`: expected \"{FORMAT_TAG}\", found {}",
                other.map_or("nothing".to_string(), |v| v.to_string())
            )));
        }
    }
    match header.get("version").and_then(Value::as_u64) {
        Some(v) if v <= FORMAT_VERSION => {}
        Some(v) => {
            return Err(unrecognized(format!(
                "field `version`: dataset format version {v} is newer than this classlab understands ({FORMAT_VERSION}); upgrade classlab"
            )));
        }
        None => {
            return Err(unrecognized(
                "field `version`: missing or not a whole number".into(),
            ));
        }
    }
    let name = match header.get("name") {
        Some(Value::String(name)) => name.clone(),
        _ => super::name_from_path(path),
    };
    let Some(Value::Array(items)) = header.remove("tasks") else {
        return Err(unrecognized("field `tasks`: missing or not a list".into()));
    };
    let mut problems = Vec::new();
    let tasks = task_json::read_tasks(path, &items, "classlab", &mut problems);
    Ok(Dataset {
        name,
        origin: path.into(),
        format: Format::Classlab,
        tasks,
        problems,
    })
}

#[cfg(test)]
mod tests {
    use super::super::parse_text;

    #[test]
    fn rejects_a_future_version_clearly() {
        let err = parse_text(
            "d.json",
            r#"{"format":"classlab-dataset","version":9,"tasks":[]}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("d.json") && err.contains("version 9"), "{err}");
    }

    #[test]
    fn rejects_a_wrong_tag() {
        let err = parse_text("d.json", r#"{"format":"other","version":1,"tasks":[]}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("`format`"), "{err}");
    }

    #[test]
    fn syntax_errors_carry_line_and_column() {
        let err = parse_text("d.json", "[\n  {\"task_id\": }\n]")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("d.json:2:"), "{err}");
    }
}
