//! What the reducer derives from the runs, kept current one run change at a time: progress,
//! the fingerprint, the environment's share, and ClassEval's metrics. Each run (and each
//! task, for the metrics) has a part in running sums; when it changes, its old part is taken
//! out and its new one put in, so applying an event costs O(samples × test classes) of one
//! task, never O(tasks), and reading a figure costs nothing.
//!
//! `EnvErr` is the environment's, not the model's: an `EnvErr` sample is left out of the
//! class-level metrics, and its test classes that the environment failed (those of a method
//! judged `EnvErr`, or of no method) out of the test-class-level ones. `official` keeps the
//! published evaluator's way (every sample and test class counted, `EnvErr` as failures).

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::event::TaskSummary;
use super::task_run::{FingerprintView, Status, TaskRun};
use crate::metrics::fingerprint::{Bucket, ExceptionHistogram, Spectrum};
use crate::metrics::functional::{
    Answer, ClassAnswer, ClassCounts, FunctionalMetrics, answer, class_answer,
};
use crate::model::camel_case;

/// What the environment kept out of the metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct EnvErrCount {
    /// Evaluated classes (task, sample) judged `EnvErr`: out of `class_success` and
    /// `class_partial_success`.
    pub tasks: usize,
    /// Their test classes the environment failed: out of `fun_success` and
    /// `fun_partial_success`.
    pub test_classes: usize,
}

/// The test classes of a judged sample that enter the metrics, with their counts: all of
/// them, unless the sample is `EnvErr`; then those the environment failed are left out (the
/// test class of a method judged `EnvErr`, and any test class of no method).
pub fn counted_test_classes(summary: &TaskSummary) -> Vec<(String, ClassCounts)> {
    if summary.outcome != Some(Bucket::EnvErr) {
        return summary.test_classes.clone();
    }
    let judged = model_judged(summary);
    summary
        .test_classes
        .iter()
        .filter(|(n, _)| judged.get(n.as_str()).copied().unwrap_or(false))
        .cloned()
        .collect()
}

/// Test class → whether every method it tests has a verdict on the model (not `EnvErr`).
/// A test class of no method is absent.
fn model_judged(summary: &TaskSummary) -> HashMap<&str, bool> {
    let mut judged: HashMap<&str, bool> = HashMap::new();
    let recorded: HashMap<&str, &str> = summary
        .method_tests
        .iter()
        .map(|(m, c)| (m.as_str(), c.as_str()))
        .collect();
    for (method, bucket) in &summary.methods {
        let model = *bucket != Some(Bucket::EnvErr);
        let class = match recorded.get(method.as_str()) {
            Some(c) => Some(*c),
            // Older logs: ClassEval's naming, `<Class>Test<Method>`.
            None => {
                let suffix = format!("Test{}", camel_case(method));
                summary
                    .test_classes
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .find(|n| n.ends_with(&suffix))
            }
        };
        if let Some(c) = class {
            let e = judged.entry(c).or_insert(true);
            *e &= model;
        }
    }
    judged
}

/// Integer sums behind the four metrics, for the tasks (or test classes) that have `n`
/// counted samples; pass@1 over n samples of which c succeed is c / n.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Sums {
    tasks: usize,
    test_classes: usize,
    fun_ok: usize,
    fun_partial: usize,
    class_ok: usize,
    class_partial: usize,
}

impl Sums {
    fn is_zero(&self) -> bool {
        *self == Sums::default()
    }

    fn add(&mut self, o: &Sums, sign: bool) {
        let f = |a: &mut usize, b: usize| {
            *a = if sign {
                a.saturating_add(b)
            } else {
                a.saturating_sub(b)
            }
        };
        f(&mut self.tasks, o.tasks);
        f(&mut self.test_classes, o.test_classes);
        f(&mut self.fun_ok, o.fun_ok);
        f(&mut self.fun_partial, o.fun_partial);
        f(&mut self.class_ok, o.class_ok);
        f(&mut self.class_partial, o.class_partial);
    }
}

/// A task's part in the metric sums, keyed by number of samples.
type Part = Vec<(usize, Sums)>;

fn part_add(part: &mut Part, n: usize, s: Sums) {
    match part.iter_mut().find(|(k, _)| *k == n) {
        Some((_, e)) => e.add(&s, true),
        None => part.push((n, s)),
    }
}

/// A task's part given its judged samples; `env_out` leaves the environment's out.
fn task_part(samples: &[&TaskSummary], env_out: bool) -> Part {
    let mut part = Part::new();
    let env = |s: &TaskSummary| env_out && s.outcome == Some(Bucket::EnvErr);
    // Class level: the samples that judge the model.
    let kept: Vec<&&TaskSummary> = samples.iter().filter(|s| !env(s)).collect();
    if !kept.is_empty() {
        let mut s = Sums {
            tasks: 1,
            ..Sums::default()
        };
        for sample in &kept {
            // A test class named twice counts once, the last entry winning (a Python dict).
            let by_name: BTreeMap<&str, ClassCounts> = sample
                .test_classes
                .iter()
                .map(|(n, c)| (n.as_str(), *c))
                .collect();
            let a = class_answer(by_name.values().map(|c| answer(*c)));
            s.class_ok += usize::from(a == ClassAnswer::ClassSuccess);
            s.class_partial += usize::from(a != ClassAnswer::ClassFail);
        }
        part_add(&mut part, kept.len(), s);
    }
    // Test-class level: each test class over the samples that count it (a sample judging
    // the model without it counts it as not succeeding).
    let per_sample: Vec<(bool, BTreeMap<&str, ClassCounts>)> = samples
        .iter()
        .map(|s| {
            let judged = env(s).then(|| model_judged(s));
            let counted: BTreeMap<&str, ClassCounts> = s
                .test_classes
                .iter()
                .filter(|(n, _)| {
                    judged
                        .as_ref()
                        .is_none_or(|j| j.get(n.as_str()).copied().unwrap_or(false))
                })
                .map(|(n, c)| (n.as_str(), *c))
                .collect();
            (env(s), counted)
        })
        .collect();
    let mut names: Vec<&str> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (_, counted) in &per_sample {
        for n in counted.keys() {
            if seen.insert(*n) {
                names.push(n);
            }
        }
    }
    for name in names {
        let (mut n, mut ok, mut partial) = (0, 0, 0);
        for (env, counted) in &per_sample {
            match counted.get(name) {
                Some(c) => {
                    n += 1;
                    let a = answer(*c);
                    ok += usize::from(a == Answer::Success);
                    partial += usize::from(a.is_partial_or_better());
                }
                None if !env => n += 1,
                None => {}
            }
        }
        part_add(
            &mut part,
            n,
            Sums {
                test_classes: 1,
                fun_ok: ok,
                fun_partial: partial,
                ..Sums::default()
            },
        );
    }
    part
}

/// Metric sums of a whole run, by number of samples.
#[derive(Debug, Clone, Default)]
struct MetricSums {
    by_n: BTreeMap<usize, Sums>,
}

impl MetricSums {
    fn apply(&mut self, part: &Part, sign: bool) {
        for (n, s) in part {
            let e = self.by_n.entry(*n).or_default();
            e.add(s, sign);
            if e.is_zero() {
                self.by_n.remove(n);
            }
        }
    }

    /// The metrics, pass@1 (k = 1: every task has at least one sample, none is skipped).
    fn metrics(&self) -> FunctionalMetrics {
        let mut m = FunctionalMetrics::zero(1);
        for (n, s) in &self.by_n {
            let n = (*n).max(1) as f64;
            m.tasks += s.tasks;
            m.test_classes += s.test_classes;
            m.fun_success_sum += s.fun_ok as f64 / n;
            m.fun_partial_success_sum += s.fun_partial as f64 / n;
            m.class_success_sum += s.class_ok as f64 / n;
            m.class_partial_success_sum += s.class_partial as f64 / n;
        }
        m.set_rates_from_sums();
        m
    }
}

fn spectrum_add(s: &mut Spectrum, b: Bucket, sign: bool) {
    let n = s.counts.entry(b).or_insert(0);
    *n = if sign {
        n.saturating_add(1)
    } else {
        n.saturating_sub(1)
    };
}

fn histogram_add(h: &mut ExceptionHistogram, o: &ExceptionHistogram, sign: bool) {
    for (k, n) in &o.counts {
        let e = h.counts.entry(*k).or_insert(0);
        *e = if sign {
            e.saturating_add(*n)
        } else {
            e.saturating_sub(*n)
        };
        if *e == 0 {
            h.counts.remove(k);
        }
    }
}

/// Everything derived, as running sums.
#[derive(Debug, Clone, Default)]
pub(super) struct Derived {
    /// Runs with status `Done` (not generated ones too).
    pub done: usize,
    pub not_generated: usize,
    pub fingerprint: FingerprintView,
    pub env: EnvErrCount,
    metrics: MetricSums,
    official: MetricSums,
    /// Each task's part in `metrics` and `official`.
    parts: HashMap<String, (Part, Part)>,
}

impl Derived {
    /// Take a run's part out (`sign` false) or put it in (true).
    pub fn account(&mut self, run: &TaskRun, sign: bool) {
        let step = |n: &mut usize| {
            *n = if sign {
                n.saturating_add(1)
            } else {
                n.saturating_sub(1)
            }
        };
        if run.status == Status::Done {
            step(&mut self.done);
        }
        if run.not_generated.is_some() {
            step(&mut self.not_generated);
        }
        let Some(summary) = &run.summary else {
            return;
        };
        let fp = &mut self.fingerprint;
        if let Some(b) = summary.outcome {
            spectrum_add(&mut fp.spectrum, b, sign);
        }
        for b in summary.methods.iter().filter_map(|(_, b)| *b) {
            spectrum_add(&mut fp.method_spectrum, b, sign);
        }
        histogram_add(&mut fp.exceptions, &summary.exceptions, sign);
        histogram_add(&mut fp.env_exceptions, &summary.env_exceptions, sign);
        if summary.outcome == Some(Bucket::EnvErr) {
            step(&mut self.env.tasks);
            let left_out = summary
                .test_classes
                .len()
                .saturating_sub(counted_test_classes(summary).len());
            self.env.test_classes = if sign {
                self.env.test_classes.saturating_add(left_out)
            } else {
                self.env.test_classes.saturating_sub(left_out)
            };
        }
    }

    /// A task's judged samples changed: replace its part in the metric sums.
    pub fn retask<'a>(&mut self, task_id: &str, samples: impl Iterator<Item = &'a TaskSummary>) {
        if let Some((m, o)) = self.parts.remove(task_id) {
            self.metrics.apply(&m, false);
            self.official.apply(&o, false);
        }
        let samples: Vec<&TaskSummary> = samples.collect();
        if samples.is_empty() {
            return;
        }
        let (m, o) = (task_part(&samples, true), task_part(&samples, false));
        self.metrics.apply(&m, true);
        self.official.apply(&o, true);
        self.parts.insert(task_id.to_string(), (m, o));
    }

    pub fn metrics(&self) -> FunctionalMetrics {
        self.metrics.metrics()
    }

    pub fn official(&self) -> FunctionalMetrics {
        self.official.metrics()
    }
}
