//! Analysis: code → methods, skeletons, dependency graphs. Pure (no I/O), tree-sitter based.

pub mod extract;
pub mod graph;
pub mod lint;
pub mod metrics;
pub mod parse;
pub mod skeleton;
pub mod splice;
pub mod tamper;

use std::collections::BTreeSet;

pub use graph::{DepGraph, DepMap};
pub use parse::{Class, Doctest, MethodDef, Module, parse_module};

use crate::model::Task;

/// The ground-truth dependencies of a class (domain.md §3): A depends on B when both are
/// methods of the class other than `__init__`, A ≠ B, and A's body references `self.B`,
/// `cls.B` or `<ClassName>.B`. Nodes are the distinct method names in definition order.
pub fn class_graph(class: &Class) -> DepGraph {
    let nodes: Vec<String> = class
        .method_names()
        .into_iter()
        .filter(|n| *n != "__init__")
        .map(String::from)
        .collect();
    let known: BTreeSet<&str> = nodes.iter().map(String::as_str).collect();
    let mut deps = DepMap::new();
    for m in class.methods.iter().filter(|m| m.name != "__init__") {
        // A name defined twice (property getter and setter) gathers both bodies' references.
        deps.entry(m.name.clone()).or_default().extend(
            m.self_refs
                .iter()
                .filter(|r| known.contains(r.as_str()) && **r != m.name)
                .cloned(),
        );
    }
    DepGraph::new(nodes, &deps)
}

/// Test classes of a test module with their test methods, in source order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestClass {
    pub name: String,
    pub tests: Vec<String>,
    pub start_line: usize,
}

/// Every top-level class but a base without tests of its own (a forged module's `_FreshDir`,
/// a shared `setUp`): unittest runs its subclasses' tests, not it.
pub fn test_classes(module: &Module) -> Vec<TestClass> {
    let top: Vec<_> = module
        .classes
        .iter()
        .filter(|c| !c.qualified_name.contains('.'))
        .collect();
    let bases: std::collections::HashSet<&str> = top
        .iter()
        .flat_map(|c| c.bases.iter().map(String::as_str))
        .collect();
    top.into_iter()
        .filter(|c| {
            !bases.contains(c.name.as_str())
                || c.method_names().iter().any(|n| n.starts_with("test"))
        })
        .map(|c| TestClass {
            name: c.name.clone(),
            tests: c
                .method_names()
                .into_iter()
                .filter(|n| n.starts_with("test"))
                .map(String::from)
                .collect(),
            start_line: c.header_line,
        })
        .collect()
}

/// Everything the browser shows about one task, derived from its code.
#[derive(Debug, Clone)]
pub struct TaskAnalysis {
    /// The parsed reference solution.
    pub solution: Module,
    /// The parsed dataset skeleton.
    pub skeleton: Module,
    /// The parsed test module.
    pub tests: Module,
    /// The reference class (found by the task's class name), when present.
    pub class: Option<Class>,
    /// Ground truth from the reference code; nodes are the task's target methods when the
    /// dataset lists them (skeleton order), else the class's methods.
    pub graph: DepGraph,
    /// The dataset's `method_dependencies`, on the same nodes (names it lacks are kept apart).
    pub annotated: Option<DepGraph>,
    /// Annotated names that are not target methods: (method, name).
    pub annotated_unknown: Vec<(String, String)>,
    pub order: Vec<String>,
    pub cycles: Vec<Vec<String>>,
    /// Method names in the dataset skeleton (`__init__` excluded).
    pub skeleton_methods: Vec<String>,
    /// Method names of the reference class (`__init__` excluded).
    pub solution_methods: Vec<String>,
    /// Skeleton generated from the reference (bodies removed).
    pub generated_skeleton: String,
    pub test_classes: Vec<TestClass>,
    /// Things a reader should know: a missing class, code that does not parse.
    pub notes: Vec<String>,
}

impl TaskAnalysis {
    /// Test methods in test classes plus module-level `test*` functions (pytest style).
    pub fn test_count(&self) -> usize {
        let functions = self
            .tests
            .functions
            .iter()
            .filter(|f| f.starts_with("test"))
            .count();
        self.test_classes
            .iter()
            .map(|t| t.tests.len())
            .sum::<usize>()
            + functions
    }

    /// Skeleton method set ≠ reference method set (a dataset inconsistency, finding S4).
    pub fn skeleton_mismatch(&self) -> (Vec<String>, Vec<String>) {
        let sk: BTreeSet<&String> = self.skeleton_methods.iter().collect();
        let so: BTreeSet<&String> = self.solution_methods.iter().collect();
        (
            so.difference(&sk).map(|s| s.to_string()).collect(),
            sk.difference(&so).map(|s| s.to_string()).collect(),
        )
    }

    pub fn method_def(&self, name: &str) -> Option<&MethodDef> {
        self.class.as_ref().and_then(|c| c.method(name))
    }
}

fn non_init_names(class: Option<&Class>) -> Vec<String> {
    class
        .map(|c| {
            c.method_names()
                .into_iter()
                .filter(|n| *n != "__init__")
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

pub fn analyze_task(task: &Task) -> TaskAnalysis {
    let solution = parse_module(&task.solution);
    let skeleton = parse_module(&task.skeleton);
    let tests = parse_module(&task.test_module);
    let mut notes = Vec::new();
    if !solution.parses() {
        notes.push(format!(
            "solution: syntax error at line(s) {:?}",
            solution.error_lines
        ));
    }
    if !task.skeleton.is_empty() && !skeleton.parses() {
        notes.push(format!(
            "skeleton: syntax error at line(s) {:?}",
            skeleton.error_lines
        ));
    }
    if !task.test_module.is_empty() && !tests.parses() {
        notes.push(format!(
            "tests: syntax error at line(s) {:?}",
            tests.error_lines
        ));
    }
    let class = solution.class(&task.class_name).cloned();
    if class.is_none() {
        notes.push(format!("solution: no class named `{}`", task.class_name));
    }
    let solution_methods = non_init_names(class.as_ref());
    let skeleton_methods = non_init_names(skeleton.class(&task.class_name));
    let extracted = class.as_ref().map(class_graph);

    // Nodes: the dataset's target methods when it lists them, so every view shares one list.
    let nodes: Vec<String> = if task.methods.is_empty() {
        solution_methods.clone()
    } else {
        task.methods.iter().map(|m| m.name.clone()).collect()
    };
    let graph = DepGraph::new(
        nodes.clone(),
        &extracted.map(|g| g.deps).unwrap_or_default(),
    );

    let mut annotated_unknown = Vec::new();
    let annotated = if task.methods.iter().any(|m| m.annotated.is_some()) {
        let known: BTreeSet<&str> = nodes.iter().map(String::as_str).collect();
        let mut deps = DepMap::new();
        for m in &task.methods {
            for d in m.annotated.iter().flat_map(|a| &a.methods) {
                if !known.contains(d.as_str()) {
                    annotated_unknown.push((m.name.clone(), d.clone()));
                }
                deps.entry(m.name.clone()).or_default().insert(d.clone());
            }
        }
        Some(DepGraph::new(nodes, &deps))
    } else {
        None
    };
    let generated_skeleton = class
        .as_ref()
        .map(|c| skeleton::skeleton_of(&task.solution, &solution, c))
        .unwrap_or_default();
    TaskAnalysis {
        order: graph.topo_order(),
        cycles: graph.cycles(),
        test_classes: test_classes(&tests),
        graph,
        annotated,
        annotated_unknown,
        skeleton_methods,
        solution_methods,
        generated_skeleton,
        class,
        solution,
        skeleton,
        tests,
        notes,
    }
}

/// One class found in arbitrary Python code (`classlab analyze`, from `corpus::extract`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct ClassSummary {
    pub class: String,
    pub line: usize,
    pub methods: Vec<String>,
    pub edges: Vec<[String; 2]>,
    /// Length in lines of the generated skeleton (proves it was built; cheap to compare).
    pub skeleton_lines: usize,
}

#[cfg(test)]
mod test_class_tests {
    use super::{parse::parse_module, test_classes};

    #[test]
    fn a_base_without_tests_is_not_a_test_class() {
        let module = parse_module(
            "import unittest\n\nclass _FreshDir(unittest.TestCase):\n    def setUp(self):\n        pass\n\n\
             class ATest(_FreshDir):\n    def test_a(self):\n        pass\n\n\
             class Empty(unittest.TestCase):\n    pass\n",
        );
        let names: Vec<_> = test_classes(&module).into_iter().map(|c| c.name).collect();
        // A class with no tests that nothing derives from stays listed (0 tests is a finding).
        assert_eq!(names, ["ATest", "Empty"]);
    }
}
