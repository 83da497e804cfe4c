//! What the TUI shows of the dataset: the task-list rows, every task's analysis, the
//! predictions scored against the chosen truth and the annotation-vs-code agreement.
//!
//! Two ways in: [`Data::new`] analyses a loaded dataset at once (tests, small inputs);
//! [`Data::streaming`] starts empty and fills in from a background loader and the analysis
//! service (`data_load.rs`), so the first frame never waits for either.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::analysis::{DepGraph, TaskAnalysis, analyze_task};
use crate::dataset::Dataset;
use crate::dataset::predictions::{DepEntry, DepFile};
use crate::depcheck::{self, DepCheck, GroundTruth};
use crate::metrics::deps::TaskScore;

pub use super::data_load::{Loading, Pumped};

/// One row of the task list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskRow {
    pub id: String,
    pub class: String,
    pub methods: usize,
    /// Extracted dependency edges (0 until analysed).
    pub deps: usize,
    pub tests: usize,
    /// The counts come from the analysis (else from the dataset's raw fields).
    pub analysed: bool,
}

impl TaskRow {
    /// The row from the dataset's fields alone (`tests`: the test functions counted).
    pub fn raw(task: &crate::model::Task, tests: usize) -> TaskRow {
        TaskRow {
            id: task.id.clone(),
            class: task.class_name.clone(),
            methods: task.methods.len(),
            deps: 0,
            tests,
            analysed: false,
        }
    }

    /// Counts from the analysis.
    pub fn fill(&mut self, a: &TaskAnalysis) {
        self.methods = a.graph.nodes.len();
        self.deps = a.graph.edge_count();
        if a.test_count() > 0 {
            self.tests = a.test_count();
        }
        self.analysed = true;
    }
}

pub struct Data {
    pub dataset: Dataset,
    pub rows: Vec<TaskRow>,
    pub predictions: Option<DepFile>,
    pub truth: GroundTruth,
    /// The predictions scored against `truth` (once every task is analysed).
    pub check: Option<DepCheck>,
    /// The extracted graph scored against the annotation (once every task is analysed).
    pub agreement: Option<DepCheck>,
    /// Problems met loading the dataset and the predictions, one line each.
    pub problems: Vec<String>,
    /// `slim[i]`: task i's analysis without its parsed modules, once analysed.
    pub(super) slim: Vec<Option<Arc<TaskAnalysis>>>,
    /// Per task, the graph of the chosen truth (`None`: not analysed yet, or a truth file
    /// without this task — see [`Data::is_analysed`]).
    pub(super) truth_graphs: Vec<Option<DepGraph>>,
    /// The background loading and analysis (`None`: everything is here).
    pub(super) loading: Option<Loading>,
    /// The longest task id, in characters (the list's id column).
    pub id_chars: usize,
    /// The dataset's methods and the extracted edges so far, kept as rows come and fill.
    pub method_total: usize,
    pub edge_total: usize,
    /// Rows whose counts changed since [`Data::take_changed_rows`] (analyses arrived).
    pub(super) changed_rows: Vec<usize>,
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

pub(super) fn truth_graph(
    truth: &GroundTruth,
    task_id: &str,
    analysis: &TaskAnalysis,
) -> Option<DepGraph> {
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

/// The two dataset-wide checks: predictions vs truth, and extracted vs annotated.
pub(super) fn checks(
    dataset: &Dataset,
    analyses: &[TaskAnalysis],
    predictions: Option<&DepFile>,
    truth: &GroundTruth,
) -> (Option<DepCheck>, DepCheck) {
    let check = predictions.map(|p| depcheck::check(&dataset.tasks, analyses, p, truth));
    let as_predictions = extracted_as_predictions(dataset, analyses);
    let agreement = depcheck::check(
        &dataset.tasks,
        analyses,
        &as_predictions,
        &GroundTruth::Annotated,
    );
    (check, agreement)
}

impl Data {
    /// Everything at once, on this thread.
    pub fn new(dataset: Dataset, predictions: Option<DepFile>, truth: GroundTruth) -> Data {
        let analyses: Vec<TaskAnalysis> = dataset.tasks.iter().map(analyze_task).collect();
        let rows = dataset
            .tasks
            .iter()
            .zip(&analyses)
            .map(|(t, a)| {
                let mut row = TaskRow::raw(t, t.test_count());
                row.fill(a);
                row
            })
            .collect();
        let (check, agreement) = checks(&dataset, &analyses, predictions.as_ref(), &truth);
        let truth_graphs = dataset
            .tasks
            .iter()
            .zip(&analyses)
            .map(|(t, a)| truth_graph(&truth, &t.id, a))
            .collect();
        let mut data = Data::empty(dataset, predictions, truth);
        data.id_chars = data
            .dataset
            .tasks
            .iter()
            .map(|t| t.id.chars().count())
            .max()
            .unwrap_or(0);
        data.method_total = data.dataset.method_count();
        data.rows = rows;
        data.edge_total = data.rows.iter().map(|r| r.deps).sum();
        data.truth_graphs = truth_graphs;
        data.slim = analyses.into_iter().map(|a| Some(Arc::new(a))).collect();
        data.set_checks(check, agreement);
        data
    }

    /// No tasks yet (the loader and the analysis fill them in).
    pub(super) fn empty(
        dataset: Dataset,
        predictions: Option<DepFile>,
        truth: GroundTruth,
    ) -> Data {
        let mut problems: Vec<String> = dataset.problems.iter().map(|p| p.to_string()).collect();
        if let Some(p) = &predictions {
            problems.extend(p.problems.iter().map(|p| p.to_string()));
        }
        Data {
            dataset,
            rows: Vec::new(),
            predictions,
            truth,
            check: None,
            agreement: None,
            problems,
            slim: Vec::new(),
            truth_graphs: Vec::new(),
            loading: None,
            id_chars: 0,
            method_total: 0,
            edge_total: 0,
            changed_rows: Vec::new(),
            check_index: BTreeMap::new(),
            agreement_index: BTreeMap::new(),
        }
    }

    pub(super) fn set_checks(&mut self, check: Option<DepCheck>, agreement: DepCheck) {
        if let Some(c) = &check {
            self.problems.extend(
                c.unknown_tasks
                    .iter()
                    .map(|t| format!("predictions: task {t} is not in the dataset")),
            );
        }
        self.check_index = check.as_ref().map(index_of).unwrap_or_default();
        self.agreement_index = index_of(&agreement);
        self.check = check;
        self.agreement = Some(agreement);
    }

    /// The rows whose counts changed since the last call.
    pub fn take_changed_rows(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.changed_rows)
    }

    pub fn len(&self) -> usize {
        self.dataset.tasks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.dataset.tasks.is_empty()
    }

    /// Task `idx`'s analysis as far as it is known here: whole when the task was opened
    /// lately, else without its parsed modules; `None` until analysed.
    pub fn analysis(&self, idx: usize) -> Option<&TaskAnalysis> {
        self.full_analysis(idx)
            .or_else(|| self.slim.get(idx)?.as_deref())
    }

    /// Task `idx`'s whole analysis (parsed modules, generated skeleton), when at hand:
    /// always with [`Data::new`], for the tasks opened lately when streaming.
    pub fn full_analysis(&self, idx: usize) -> Option<&TaskAnalysis> {
        match &self.loading {
            None => self.slim.get(idx)?.as_deref(),
            Some(l) => l.full.get(*l.hashes.get(idx)?),
        }
    }

    pub fn is_analysed(&self, idx: usize) -> bool {
        self.slim.get(idx).is_some_and(Option::is_some)
    }

    /// The graph of the chosen truth for task `idx` (`None`: not analysed yet, or a truth
    /// file without this task).
    pub fn truth_graph(&self, idx: usize) -> Option<&DepGraph> {
        self.truth_graphs.get(idx)?.as_ref()
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
            .and_then(|&i| self.agreement.as_ref()?.report.tasks.get(i))
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
