//! Task properties to slice results by (`report --by`): size, coupling and documentation
//! of the reference class, or a corpus metric the dataset carries (RealClassEval's 27
//! Understand metrics).

use crate::analysis::analyze_task;
use crate::model::Task;

/// Properties every task has.
pub const BUILTIN: [&str; 5] = [
    "methods",
    "loc",
    "dep_edges",
    "dep_depth",
    "docstring_coverage",
];

/// A property's value for a task; `None` when the task does not have it. Dataset metrics
/// are matched by name, case-insensitively (`countline` finds `CountLine`).
pub fn property(task: &Task, name: &str) -> Option<f64> {
    match name {
        "methods" => Some(task.methods.len() as f64),
        "loc" | "lines" => Some(lines_of_code(&task.solution) as f64),
        "dep_edges" | "dependency_edges" => Some(analyze_task(task).graph.edge_count() as f64),
        "dep_depth" | "dependency_depth" => {
            Some(analyze_task(task).graph.layers().len().saturating_sub(1) as f64)
        }
        "docstring_coverage" => docstring_coverage(task),
        _ => task
            .provenance
            .extra
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .and_then(|(_, v)| v.as_f64()),
    }
}

/// Lines that are neither blank nor comments.
pub fn lines_of_code(code: &str) -> usize {
    code.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .count()
}

/// Share of target methods whose skeleton entry carries a docstring.
pub fn docstring_coverage(task: &Task) -> Option<f64> {
    if task.methods.is_empty() {
        return None;
    }
    let documented = task
        .methods
        .iter()
        .filter(|m| m.description.contains("\"\"\"") || m.description.contains("'''"))
        .count();
    Some(documented as f64 / task.methods.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_of_the_sample() {
        let ds = crate::dataset::sample();
        let t = &ds.tasks[0];
        assert_eq!(property(t, "methods"), Some(t.methods.len() as f64));
        assert!(property(t, "loc").unwrap() > 0.0);
        assert!(property(t, "dep_depth").is_some());
        assert!(property(t, "no_such_metric").is_none());
        assert_eq!(lines_of_code("# c\n\nx = 1\n  y = 2\n"), 2);
    }
}
