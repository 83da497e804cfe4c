//! What the TUI shows, computed once at startup: every task's analysis, the task-list rows,
//! the predictions scored against the chosen truth, and the annotation-vs-code agreement.

use std::collections::BTreeMap;

use crate::analysis::{DepGraph, TaskAnalysis, analyze_task};
use crate::dataset::Dataset;
use crate::dataset::predictions::{DepEntry, DepFile};
use crate::depcheck::{self, DepCheck, GroundTruth};
use crate::metrics::deps::TaskScore;

/// One row of the task list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskRow {
    pub id: String,
    pub class: String,
    pub methods: usize,
    /// Extracted dependency edges.
    pub deps: usize,
    pub tests: usize,
}

pub struct Data {
    pub dataset: Dataset,
    /// `analyses[i]` belongs to `dataset.tasks[i]`.
    pub analyses: Vec<TaskAnalysis>,
    pub rows: Vec<TaskRow>,
    pub predictions: Option<DepFile>,
    pub truth: GroundTruth,
    /// The predictions scored against `truth`.
    pub check: Option<DepCheck>,
    /// The extracted graph scored against the annotation (truth = annotated).
    pub agreement: DepCheck,
    /// Per task, the graph of the chosen truth (`None`: a truth file without this task).
    pub truth_graphs: Vec<Option<DepGraph>>,
    /// Problems met loading the dataset and the predictions, one line each.
    pub problems: Vec<String>,
    check_index: BTreeMap<String, usize>,
    agreement_index: BTreeMap<String, usize>,
}

fn index_of(check: &DepCheck) -> BTreeMap<String, usize> {
    check
        .report
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.task_id.clone(), i))
        .collect()
}

/// The extracted graphs as if they were a predictions file (order = the extracted order).
pub fn extracted_as_predictions(dataset: &Dataset, analyses: &[TaskAnalysis]) -> DepFile {
    let tasks = dataset
        .tasks
        .iter()
        .zip(analyses)
        .map(|(t, a)| {
            (
                t.id.clone(),
                DepEntry {
                    deps: a.graph.deps.clone(),
                    order: Some(a.order.clone()),
                },
            )
        })
        .collect();
    DepFile {
        file: "extracted graph".into(),
        tasks,
        problems: Vec::new(),
    }
}

fn truth_graph(truth: &GroundTruth, task_id: &str, analysis: &TaskAnalysis) -> Option<DepGraph> {
    match truth {
        GroundTruth::Extracted => Some(analysis.graph.clone()),
        GroundTruth::Annotated => {
            Some(analysis.annotated.clone().unwrap_or_else(|| {
                DepGraph::new(analysis.graph.nodes.clone(), &Default::default())
            }))
        }
        GroundTruth::File(file) => file.tasks.get(task_id).map(|entry| {
            let mut nodes = analysis.graph.nodes.clone();
            let named = entry
                .deps
                .iter()
                .flat_map(|(k, v)| std::iter::once(k).chain(v));
            for name in named.chain(entry.order.iter().flatten()) {
                if name != "__init__" && !nodes.contains(name) {
                    nodes.push(name.clone());
                }
            }
            DepGraph::new(nodes, &entry.deps)
        }),
    }
}

impl Data {
    pub fn new(dataset: Dataset, predictions: Option<DepFile>, truth: GroundTruth) -> Data {
        let analyses: Vec<TaskAnalysis> = dataset.tasks.iter().map(analyze_task).collect();
        let rows = dataset
            .tasks
            .iter()
            .zip(&analyses)
            .map(|(t, a)| TaskRow {
                id: t.id.clone(),
                class: t.class_name.clone(),
                methods: a.graph.nodes.len(),
                deps: a.graph.edge_count(),
                tests: match a.test_count() {
                    0 => t.test_count(),
                    n => n,
                },
            })
            .collect();
        let check = predictions
            .as_ref()
            .map(|p| depcheck::check(&dataset.tasks, &analyses, p, &truth));
        let as_predictions = extracted_as_predictions(&dataset, &analyses);
        let agreement = depcheck::check(
            &dataset.tasks,
            &analyses,
            &as_predictions,
            &GroundTruth::Annotated,
        );
        let truth_graphs = dataset
            .tasks
            .iter()
            .zip(&analyses)
            .map(|(t, a)| truth_graph(&truth, &t.id, a))
            .collect();
        let mut problems: Vec<String> = dataset.problems.iter().map(|p| p.to_string()).collect();
        if let Some(p) = &predictions {
            problems.extend(p.problems.iter().map(|p| p.to_string()));
        }
        if let Some(c) = &check {
            problems.extend(
                c.unknown_tasks
                    .iter()
                    .map(|t| format!("predictions: task {t} is not in the dataset")),
            );
        }
        Data {
            check_index: check.as_ref().map(index_of).unwrap_or_default(),
            agreement_index: index_of(&agreement),
            dataset,
            analyses,
            rows,
            predictions,
            truth,
            check,
            agreement,
            truth_graphs,
            problems,
        }
    }

    pub fn len(&self) -> usize {
        self.dataset.tasks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.dataset.tasks.is_empty()
    }

    /// The prediction score of task `idx`, when there are predictions for it.
    pub fn task_score(&self, idx: usize) -> Option<&TaskScore> {
        let check = self.check.as_ref()?;
        let id = &self.dataset.tasks.get(idx)?.id;
        self.check_index
            .get(id)
            .and_then(|&i| check.report.tasks.get(i))
    }

    /// Extracted vs annotated for task `idx`.
    pub fn agreement_score(&self, idx: usize) -> Option<&TaskScore> {
        let id = &self.dataset.tasks.get(idx)?.id;
        self.agreement_index
            .get(id)
            .and_then(|&i| self.agreement.report.tasks.get(i))
    }

    /// The predicted order of task `idx`, when the predictions give one.
    pub fn predicted_order(&self, idx: usize) -> Option<&[String]> {
        let id = &self.dataset.tasks.get(idx)?.id;
        self.predictions.as_ref()?.tasks.get(id)?.order.as_deref()
    }

    /// Short label of the ground truth in use.
    pub fn truth_label(&self) -> String {
        match &self.truth {
            GroundTruth::Extracted => "extracted from the reference code".into(),
            GroundTruth::Annotated => "the dataset's annotation".into(),
            GroundTruth::File(f) => format!("file {}", f.file),
        }
    }
}
