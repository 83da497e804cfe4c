//! Dependency comparison: a dataset, its analyses, a predictions file and a choice of ground
//! truth → the §4 report plus everything that could not be matched. Pure; shared by the
//! `depcheck` command and the TUI.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::analysis::{DepMap, TaskAnalysis};
use crate::dataset::predictions::{DepEntry, DepFile};
use crate::metrics::deps::{self, DepReport, Prediction, TaskInput};
use crate::model::Task;

/// Which dependencies count as the truth.
#[derive(Debug, Clone)]
pub enum GroundTruth {
    /// From the reference code (domain.md §3).
    Extracted,
    /// The dataset's `method_dependencies`.
    Annotated,
    /// A file in the predictions shape; it defines the method names.
    File(DepFile),
}

impl GroundTruth {
    pub fn label(&self) -> String {
        match self {
            GroundTruth::Extracted => "extracted".into(),
            GroundTruth::Annotated => "annotated".into(),
            GroundTruth::File(f) => f.file.clone(),
        }
    }
}

/// A name the ground-truth file uses that the dataset does not know.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnknownTruthName {
    pub task_id: String,
    pub name: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct DepCheck {
    pub ground_truth: String,
    #[serde(flatten)]
    pub report: DepReport,
    /// Tasks the predictions name that are neither in the dataset nor in the truth.
    pub unknown_tasks: Vec<String>,
    /// Tasks in scope that have no ground truth (only with a truth file).
    pub tasks_without_truth: Vec<String>,
    /// Names in a truth file that the dataset lacks (kept in scoring, reported here).
    pub truth_unknown_names: Vec<UnknownTruthName>,
}

fn prediction_of(entry: &DepEntry) -> Prediction {
    Prediction {
        deps: entry.deps.clone(),
        order: entry.order.clone(),
    }
}

/// Truth for one dataset task under the extracted or annotated choice.
fn dataset_truth(analysis: &TaskAnalysis, annotated: bool) -> DepMap {
    if annotated {
        analysis
            .annotated
            .as_ref()
            .map(|g| g.deps.clone())
            .unwrap_or_default()
    } else {
        analysis.graph.deps.clone()
    }
}

/// Methods named by a truth file entry: its order first, then its keys and their targets;
/// names follow the dataset's skeleton order where it knows them.
fn truth_file_methods(entry: &DepEntry, task: Option<&Task>) -> Vec<String> {
    let mut named: BTreeSet<&str> = BTreeSet::new();
    named.extend(entry.order.iter().flatten().map(String::as_str));
    for (k, targets) in &entry.deps {
        named.insert(k);
        named.extend(targets.iter().map(String::as_str));
    }
    named.remove("__init__");
    let mut methods: Vec<String> = Vec::new();
    if let Some(task) = task {
        methods.extend(
            task.methods
                .iter()
                .filter(|m| named.contains(m.name.as_str()))
                .map(|m| m.name.clone()),
        );
    }
    for name in entry
        .order
        .iter()
        .flatten()
        .map(String::as_str)
        .chain(named.iter().copied())
    {
        if name != "__init__" && !methods.iter().any(|m| m == name) {
            methods.push(name.to_string());
        }
    }
    methods
}

/// Score `predictions` against the chosen truth. `analyses[i]` belongs to `tasks[i]`.
pub fn check(
    tasks: &[Task],
    analyses: &[TaskAnalysis],
    predictions: &DepFile,
    truth: &GroundTruth,
) -> DepCheck {
    let by_id: BTreeMap<&str, usize> = tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id.as_str(), i))
        .collect();
    let mut inputs = Vec::new();
    let mut tasks_without_truth = Vec::new();
    let mut truth_unknown_names = Vec::new();
    match truth {
        GroundTruth::Extracted | GroundTruth::Annotated => {
            let annotated = matches!(truth, GroundTruth::Annotated);
            for (task, analysis) in tasks.iter().zip(analyses) {
                inputs.push(TaskInput {
                    task_id: task.id.clone(),
                    methods: analysis.graph.nodes.clone(),
                    truth: dataset_truth(analysis, annotated),
                    predicted: predictions.tasks.get(&task.id).map(prediction_of),
                });
            }
        }
        GroundTruth::File(file) => {
            for (task_id, entry) in &file.tasks {
                let task = by_id.get(task_id.as_str()).map(|&i| &tasks[i]);
                let methods = truth_file_methods(entry, task);
                match task {
                    Some(task) => truth_unknown_names.extend(
                        methods
                            .iter()
                            .filter(|m| task.method(m).is_none())
                            .map(|m| UnknownTruthName {
                                task_id: task_id.clone(),
                                name: m.clone(),
                            }),
                    ),
                    None => truth_unknown_names.push(UnknownTruthName {
                        task_id: task_id.clone(),
                        name: "(task not in dataset)".into(),
                    }),
                }
                inputs.push(TaskInput {
                    task_id: task_id.clone(),
                    methods,
                    truth: entry.deps.clone(),
                    predicted: predictions.tasks.get(task_id).map(prediction_of),
                });
            }
            tasks_without_truth = tasks
                .iter()
                .filter(|t| {
                    !file.tasks.contains_key(&t.id) && predictions.tasks.contains_key(&t.id)
                })
                .map(|t| t.id.clone())
                .collect();
        }
    }
    let scored: BTreeSet<&str> = inputs.iter().map(|i| i.task_id.as_str()).collect();
    let unknown_tasks = predictions
        .tasks
        .keys()
        .filter(|id| !scored.contains(id.as_str()) && !by_id.contains_key(id.as_str()))
        .cloned()
        .collect();
    DepCheck {
        ground_truth: truth.label(),
        report: deps::score(&inputs),
        unknown_tasks,
        tasks_without_truth,
        truth_unknown_names,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze_task;
    use crate::dataset::predictions;

    fn sample_task() -> Task {
        let solution = "class C:\n    def a(self):\n        return self.b()\n    def b(self):\n        return self.c()\n    def c(self):\n        return 1\n";
        Task {
            id: "T".into(),
            class_name: "C".into(),
            description: String::new(),
            imports: vec![],
            constructor: String::new(),
            fields: vec![],
            skeleton: String::new(),
            solution: solution.into(),
            test_module: String::new(),
            test_classes: vec![],
            methods: ["a", "b", "c"]
                .iter()
                .map(|n| crate::model::Method {
                    name: n.to_string(),
                    description: String::new(),
                    test_class: None,
                    test_code: String::new(),
                    solution: String::new(),
                    annotated: Some(crate::model::AnnotatedDeps::default()),
                    public_tests: None,
                })
                .collect(),
            test_layout: Default::default(),
            provenance: Default::default(),
        }
    }

    #[test]
    fn extracted_vs_annotated_vs_file() {
        let tasks = vec![sample_task()];
        let analyses: Vec<_> = tasks.iter().map(analyze_task).collect();
        let preds = predictions::parse(
            "p.json",
            r#"{"T": {"dependencies": {"a": ["b"], "b": ["c"]}, "order": ["c", "b", "a"]},
                "Nope": {"dependencies": {}}}"#,
        )
        .unwrap();
        let extracted = check(&tasks, &analyses, &preds, &GroundTruth::Extracted);
        assert_eq!(extracted.report.metrics.counts.exact, 3);
        assert_eq!(extracted.unknown_tasks, ["Nope"]);
        // The annotation here is empty: a and b become extra-only.
        let annotated = check(&tasks, &analyses, &preds, &GroundTruth::Annotated);
        assert_eq!(annotated.report.metrics.counts.extra_only, 2);
        // A truth file naming a method the dataset lacks keeps it and reports it.
        let gt = predictions::parse("gt.json", r#"{"T": {"dependencies": {"a": ["b", "zz"]}}}"#)
            .unwrap();
        let file = check(&tasks, &analyses, &preds, &GroundTruth::File(gt));
        assert_eq!(
            file.truth_unknown_names,
            [UnknownTruthName {
                task_id: "T".into(),
                name: "zz".into()
            }]
        );
        assert_eq!(file.report.tasks[0].methods.len(), 3);
    }
}
