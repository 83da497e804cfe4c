//! Minimal tasks for the rules' unit tests.

use super::{Finding, lint_task};
use crate::analysis::parse::parse_module;
use crate::model::{Method, Task};

/// A task from its three texts: the class is the first class of the solution (else of the
/// skeleton), the target methods are its methods other than `__init__`, with no annotation.
pub(crate) fn task(skeleton: &str, solution: &str, tests: &str) -> Task {
    let sol = parse_module(solution);
    let sk = parse_module(skeleton);
    let class = sol.classes.first().or(sk.classes.first());
    let class_name = class.map(|c| c.name.clone()).unwrap_or_default();
    let methods = class
        .map(|c| {
            c.method_names()
                .into_iter()
                .filter(|n| *n != "__init__")
                .map(|n| Method {
                    name: n.to_string(),
                    ..Default::default()
                })
                .collect()
        })
        .unwrap_or_default();
    Task {
        id: "T".into(),
        class_name,
        skeleton: skeleton.into(),
        solution: solution.into(),
        test_module: tests.into(),
        methods,
        ..Task::default()
    }
}

/// The findings of one rule on a task.
pub(crate) fn codes_for(task: &Task, code: &str) -> Vec<Finding> {
    lint_task(task)
        .into_iter()
        .filter(|f| f.code == code)
        .collect()
}
