//! Dependency metrics: predicted vs ground-truth intra-class method dependencies
//! (domain.md §4).
//!
//! Pure functions only: no I/O, no panics on any input.
//!
//! Conventions worth knowing when reading the numbers:
//! * A method's predicted set P keeps every name the prediction gives, including names that
//!   are not target methods (hallucinated methods, `__init__`) and self-dependencies: those are
//!   real extra edges. Non-target names are additionally listed in [`DepReport::unknown_names`].
//! * A task whose prediction is missing (`predicted == None`) is never scored as "predicted
//!   nothing": it is listed in [`DepReport::unscored_tasks`] and left out of every metric.
//! * When a set of methods is empty (no methods in scope), every rate and average is a metric
//!   over nothing: it is `0.0` in the struct (never NaN) but serialises as `null` and is shown
//!   as `n/a` ([`Metrics::scored`] tells). The "1 when empty" rules for precision/recall apply
//!   per method and to micro sums over at least one method.
//! * Duplicate names in `TaskInput::methods` are scored once (first occurrence).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

/// method -> the methods it depends on.
pub use crate::model::DepMap;

/// Everything needed to score one task.
#[derive(Clone, Debug, Default)]
pub struct TaskInput {
    pub task_id: String,
    /// The universe of target methods, in skeleton order (`__init__` never included).
    pub methods: Vec<String>,
    /// Ground truth: one entry per method in `methods` (missing entry = empty set).
    pub truth: DepMap,
    /// The prediction for this task, or None when the predictions file has no entry for it.
    pub predicted: Option<Prediction>,
}

/// One model's dependency prediction for one task.
#[derive(Clone, Debug, Default)]
pub struct Prediction {
    pub deps: DepMap,
    /// The predicted generation order; None when the prediction gives none.
    pub order: Option<Vec<String>>,
}

/// Scores over a set of tasks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DepReport {
    /// Over all scored methods/tasks.
    pub metrics: Metrics,
    pub by_regime: ByRegime,
    /// Only tasks with at least one violated edge, in input order.
    pub violations: Vec<Violation>,
    /// Tasks with no prediction: reported, never scored as empty.
    pub unscored_tasks: Vec<String>,
    /// Names in predictions that are not in the task's `methods`.
    pub unknown_names: Vec<UnknownName>,
    /// One per scored task, input order.
    pub tasks: Vec<TaskScore>,
}

/// Metrics stratified by whether the method has ground-truth dependencies.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ByRegime {
    /// Methods whose ground-truth set G is non-empty.
    pub with_deps: Metrics,
    /// Methods whose ground-truth set G is empty.
    pub no_deps: Metrics,
}

/// Aggregate metrics over the methods in scope. Serialised with every rate `null` when no
/// method is in scope (see [`Metrics::scored`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Metrics {
    /// Tasks with at least one method in scope (the denominator of `class_accuracy`).
    pub tasks: usize,
    pub methods: usize,
    pub edges_truth: usize,
    pub edges_predicted: usize,
    pub edges_correct: usize,
    pub counts: CategoryCounts,
    /// Percent of methods; the four sum to 100 (all 0 when no methods).
    pub exact_pct: f64,
    pub missing_only_pct: f64,
    pub extra_only_pct: f64,
    pub wrong_pct: f64,
    /// Per-method precision/recall/F1, each averaged over methods (F1 is the mean of the
    /// per-method F1s, not the harmonic mean of the averaged P and R). JSON: `macro`.
    pub macro_avg: Prf,
    /// Edge-level: Σ|P∩G| / Σ|P|, Σ|P∩G| / Σ|G|, F1 their harmonic mean.
    pub micro: Prf,
    /// Mean over tasks of (exact methods / methods of that task in scope).
    pub class_accuracy: f64,
    /// Tasks whose every in-scope method is exact (tasks with no method in scope not counted).
    pub fully_correct_tasks: usize,
    /// Tasks with at least one violated ground-truth edge (regime entries repeat the overall count).
    pub tasks_with_violations: usize,
}

impl Metrics {
    /// Whether any method was scored: otherwise every rate is over nothing (`n/a`).
    pub fn scored(&self) -> bool {
        self.methods > 0
    }
}

impl Serialize for Metrics {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Out<'a> {
            tasks: usize,
            methods: usize,
            edges_truth: usize,
            edges_predicted: usize,
            edges_correct: usize,
            counts: &'a CategoryCounts,
            exact_pct: Option<f64>,
            missing_only_pct: Option<f64>,
            extra_only_pct: Option<f64>,
            wrong_pct: Option<f64>,
            #[serde(rename = "macro")]
            macro_avg: Option<Prf>,
            micro: Option<Prf>,
            class_accuracy: Option<f64>,
            fully_correct_tasks: usize,
            tasks_with_violations: usize,
        }
        let on = |x: f64| self.scored().then_some(x);
        Out {
            tasks: self.tasks,
            methods: self.methods,
            edges_truth: self.edges_truth,
            edges_predicted: self.edges_predicted,
            edges_correct: self.edges_correct,
            counts: &self.counts,
            exact_pct: on(self.exact_pct),
            missing_only_pct: on(self.missing_only_pct),
            extra_only_pct: on(self.extra_only_pct),
            wrong_pct: on(self.wrong_pct),
            macro_avg: self.scored().then_some(self.macro_avg),
            micro: self.scored().then_some(self.micro),
            class_accuracy: on(self.class_accuracy),
            fully_correct_tasks: self.fully_correct_tasks,
            tasks_with_violations: self.tasks_with_violations,
        }
        .serialize(s)
    }
}

/// Number of methods in each category.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CategoryCounts {
    pub exact: usize,
    pub missing_only: usize,
    pub extra_only: usize,
    pub wrong: usize,
}

/// Precision, recall, F1.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Prf {
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

/// A task whose predicted order breaks at least one ground-truth edge.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Violation {
    pub task_id: String,
    /// The predicted order, as given.
    pub order: Vec<String>,
    /// `[A, B]`: A depends on B but B is absent from the order or placed after A.
    pub violated_edges: Vec<[String; 2]>,
    /// Target methods absent from the order, skeleton order.
    pub missing_from_order: Vec<String>,
}

/// A name used by a prediction that is not one of the task's target methods.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnknownName {
    pub task_id: String,
    pub name: String,
    /// `"key"` (a predicted method that is not a target method), `"dependency of <m>"`,
    /// or `"order"` (a name in the predicted generation order).
    pub context: String,
}

/// Scores of one task.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskScore {
    pub task_id: String,
    /// Skeleton order.
    pub methods: Vec<MethodScore>,
    /// This task alone.
    pub metrics: Metrics,
    pub violated_edges: Vec<[String; 2]>,
    pub order_given: bool,
}

/// How a method's predicted set compares with its ground truth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// P = G.
    Exact,
    /// P ⊂ G strictly: some dependencies missed, none invented.
    MissingOnly,
    /// G ⊂ P strictly: some dependencies invented, none missed.
    ExtraOnly,
    /// Both missed and invented dependencies.
    Wrong,
}

/// Scores of one method.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MethodScore {
    pub method: String,
    /// All five lists are sorted.
    pub truth: Vec<String>,
    pub predicted: Vec<String>,
    pub correct: Vec<String>,
    pub missing: Vec<String>,
    pub extra: Vec<String>,
    pub category: Category,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

/// Score every task. Tasks without a prediction are listed in `unscored_tasks` only.
pub fn score(tasks: &[TaskInput]) -> DepReport {
    let mut scores = Vec::new();
    let mut violations = Vec::new();
    let mut unscored_tasks = Vec::new();
    let mut unknown_names = Vec::new();

    for task in tasks {
        let Some(prediction) = &task.predicted else {
            unscored_tasks.push(task.task_id.clone());
            continue;
        };
        let scored = score_prediction(task, prediction);
        unknown_names.extend(scored.unknown_names);
        if let Some(violation) = scored.violation {
            violations.push(violation);
        }
        scores.push(scored.score);
    }

    let with_violations = violations.len();
    let per_task = || scores.iter().map(|t| t.methods.as_slice());
    let all = aggregate(per_task(), |_| true, with_violations);
    let with_deps = aggregate(per_task(), |m| !m.truth.is_empty(), with_violations);
    let no_deps = aggregate(per_task(), |m| m.truth.is_empty(), with_violations);

    DepReport {
        metrics: all,
        by_regime: ByRegime { with_deps, no_deps },
        violations,
        unscored_tasks,
        unknown_names,
        tasks: scores,
    }
}

/// Score one task alone, with the same semantics as [`score`].
///
/// Returns `None` when the task has no prediction: such a task is unscored, never scored as if
/// the model had predicted no dependencies.
pub fn score_task(task: &TaskInput) -> Option<TaskScore> {
    let prediction = task.predicted.as_ref()?;
    Some(score_prediction(task, prediction).score)
}

/// One task's score plus the findings that `score` collects report-wide.
struct ScoredTask {
    score: TaskScore,
    unknown_names: Vec<UnknownName>,
    violation: Option<Violation>,
}

fn score_prediction(task: &TaskInput, prediction: &Prediction) -> ScoredTask {
    let methods = dedup_keep_order(&task.methods);
    let targets: BTreeSet<&str> = methods.iter().copied().collect();
    let empty = BTreeSet::new();

    let method_scores: Vec<MethodScore> = methods
        .iter()
        .map(|&m| {
            let truth = task.truth.get(m).unwrap_or(&empty);
            let predicted = prediction.deps.get(m).unwrap_or(&empty);
            score_method(m, truth, predicted)
        })
        .collect();

    let unknown_names = find_unknown_names(task, prediction, &methods, &targets);

    let (violated_edges, violation) = match &prediction.order {
        None => (Vec::new(), None),
        Some(order) => {
            let violated = violated_edges(&methods, &task.truth, order);
            let violation = (!violated.is_empty()).then(|| Violation {
                task_id: task.task_id.clone(),
                order: order.clone(),
                violated_edges: violated.clone(),
                missing_from_order: missing_from_order(&methods, order),
            });
            (violated, violation)
        }
    };

    let has_violation = usize::from(!violated_edges.is_empty());
    let metrics = aggregate([method_scores.as_slice()], |_| true, has_violation);

    ScoredTask {
        score: TaskScore {
            task_id: task.task_id.clone(),
            methods: method_scores,
            metrics,
            violated_edges,
            order_given: prediction.order.is_some(),
        },
        unknown_names,
        violation,
    }
}

fn score_method(
    method: &str,
    truth: &BTreeSet<String>,
    predicted: &BTreeSet<String>,
) -> MethodScore {
    let correct: Vec<String> = truth.intersection(predicted).cloned().collect();
    let missing: Vec<String> = truth.difference(predicted).cloned().collect();
    let extra: Vec<String> = predicted.difference(truth).cloned().collect();

    let category = match (missing.is_empty(), extra.is_empty()) {
        (true, true) => Category::Exact,
        (false, true) => Category::MissingOnly,
        (true, false) => Category::ExtraOnly,
        (false, false) => Category::Wrong,
    };
    let prf = prf(correct.len(), predicted.len(), truth.len());

    MethodScore {
        method: method.to_string(),
        truth: truth.iter().cloned().collect(),
        predicted: predicted.iter().cloned().collect(),
        correct,
        missing,
        extra,
        category,
        precision: prf.precision,
        recall: prf.recall,
        f1: prf.f1,
    }
}

/// P/R/F1 from counts; an empty predicted (truth) side gives precision (recall) 1.
fn prf(correct: usize, predicted: usize, truth: usize) -> Prf {
    let precision = if predicted == 0 {
        1.0
    } else {
        correct as f64 / predicted as f64
    };
    let recall = if truth == 0 {
        1.0
    } else {
        correct as f64 / truth as f64
    };
    Prf {
        precision,
        recall,
        f1: harmonic_mean(precision, recall),
    }
}

fn harmonic_mean(a: f64, b: f64) -> f64 {
    if a + b > 0.0 {
        2.0 * a * b / (a + b)
    } else {
        0.0
    }
}

/// Ground-truth edges A→B broken by `order`: B absent, or A present and B placed after A.
/// Duplicate names in the order count at their first position.
pub fn violated_edges(methods: &[&str], truth: &DepMap, order: &[String]) -> Vec<[String; 2]> {
    let mut position: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, name) in order.iter().enumerate() {
        position.entry(name.as_str()).or_insert(i);
    }
    let mut violated = Vec::new();
    for &a in methods {
        let Some(deps) = truth.get(a) else { continue };
        for b in deps {
            let broken = match (position.get(a), position.get(b.as_str())) {
                (_, None) => true,
                (Some(pa), Some(pb)) => pb > pa,
                (None, Some(_)) => false,
            };
            if broken {
                violated.push([a.to_string(), b.clone()]);
            }
        }
    }
    violated
}

fn missing_from_order(methods: &[&str], order: &[String]) -> Vec<String> {
    let present: BTreeSet<&str> = order.iter().map(String::as_str).collect();
    methods
        .iter()
        .filter(|m| !present.contains(*m))
        .map(|m| m.to_string())
        .collect()
}

/// Prediction names outside the target methods: keys (sorted), then dependencies of each target
/// method (skeleton order), then order entries (first occurrence, deduplicated).
fn find_unknown_names(
    task: &TaskInput,
    prediction: &Prediction,
    methods: &[&str],
    targets: &BTreeSet<&str>,
) -> Vec<UnknownName> {
    let unknown = |name: &str, context: String| UnknownName {
        task_id: task.task_id.clone(),
        name: name.to_string(),
        context,
    };
    let mut found = Vec::new();
    for key in prediction.deps.keys() {
        if !targets.contains(key.as_str()) {
            found.push(unknown(key, "key".to_string()));
        }
    }
    for &m in methods {
        for dep in prediction.deps.get(m).into_iter().flatten() {
            if !targets.contains(dep.as_str()) {
                found.push(unknown(dep, format!("dependency of {m}")));
            }
        }
    }
    let mut seen_in_order = BTreeSet::new();
    for name in prediction.order.iter().flatten() {
        if !targets.contains(name.as_str()) && seen_in_order.insert(name.as_str()) {
            found.push(unknown(name, "order".to_string()));
        }
    }
    found
}

fn dedup_keep_order(names: &[String]) -> Vec<&str> {
    let mut seen = BTreeSet::new();
    names
        .iter()
        .map(String::as_str)
        .filter(|n| seen.insert(*n))
        .collect()
}

/// Metrics over the methods of `tasks` selected by `in_scope`.
fn aggregate<'a>(
    tasks: impl IntoIterator<Item = &'a [MethodScore]>,
    in_scope: impl Fn(&MethodScore) -> bool,
    tasks_with_violations: usize,
) -> Metrics {
    let mut counts = CategoryCounts::default();
    let (mut n_tasks, mut n_methods, mut fully_correct) = (0, 0, 0);
    let (mut edges_truth, mut edges_predicted, mut edges_correct) = (0, 0, 0);
    let (mut sum_p, mut sum_r, mut sum_f1, mut sum_class_acc) = (0.0, 0.0, 0.0, 0.0);

    for task in tasks {
        let (mut task_methods, mut task_exact) = (0usize, 0usize);
        for m in task.iter().filter(|m| in_scope(m)) {
            task_methods += 1;
            edges_truth += m.truth.len();
            edges_predicted += m.predicted.len();
            edges_correct += m.correct.len();
            sum_p += m.precision;
            sum_r += m.recall;
            sum_f1 += m.f1;
            match m.category {
                Category::Exact => {
                    counts.exact += 1;
                    task_exact += 1;
                }
                Category::MissingOnly => counts.missing_only += 1,
                Category::ExtraOnly => counts.extra_only += 1,
                Category::Wrong => counts.wrong += 1,
            }
        }
        // Tasks with no method in scope say nothing about class accuracy.
        if task_methods > 0 {
            n_tasks += 1;
            n_methods += task_methods;
            sum_class_acc += task_exact as f64 / task_methods as f64;
            fully_correct += usize::from(task_exact == task_methods);
        }
    }

    let mean = |sum: f64, n: usize| if n == 0 { 0.0 } else { sum / n as f64 };
    let pct = |count: usize| mean(100.0 * count as f64, n_methods);
    // With no method at all there is no edge-level evidence either: 0, not the "1 when empty" rule.
    let micro = if n_methods == 0 {
        Prf::default()
    } else {
        prf(edges_correct, edges_predicted, edges_truth)
    };

    Metrics {
        tasks: n_tasks,
        methods: n_methods,
        edges_truth,
        edges_predicted,
        edges_correct,
        exact_pct: pct(counts.exact),
        missing_only_pct: pct(counts.missing_only),
        extra_only_pct: pct(counts.extra_only),
        wrong_pct: pct(counts.wrong),
        counts,
        macro_avg: Prf {
            precision: mean(sum_p, n_methods),
            recall: mean(sum_r, n_methods),
            f1: mean(sum_f1, n_methods),
        },
        micro,
        class_accuracy: mean(sum_class_acc, n_tasks),
        fully_correct_tasks: fully_correct,
        tasks_with_violations,
    }
}

#[cfg(test)]
mod tests;
