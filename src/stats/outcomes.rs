//! One session's outcomes as the statistics need them: per task, how many samples succeeded
//! as a class, and per test class (clustered in its task) the share of samples that
//! succeeded — and from them an interval for every ClassEval metric.

use std::collections::BTreeMap;

use serde::Serialize;

use super::bootstrap::{self, BootstrapSpec, PassAtK};
use super::interval::{clustered_mean, wilson};
use crate::metrics::functional::{Answer, ClassAnswer, TaskCounts, task_verdicts};

/// The four ClassEval metrics, in report order.
pub const METRICS: [&str; 4] = [
    "class_success",
    "class_partial_success",
    "fun_success",
    "fun_partial_success",
];

/// Serialise a map keyed by metric in [`METRICS`] order (then any other key), as the
/// issue's JSON reads: `class_success` first.
pub fn in_metric_order<S, V>(map: &BTreeMap<&'static str, V>, s: S) -> Result<S::Ok, S::Error>
where
    S: serde::Serializer,
    V: Serialize,
{
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(map.len()))?;
    for k in METRICS {
        if let Some(v) = map.get(k) {
            m.serialize_entry(k, v)?;
        }
    }
    for (k, v) in map.iter().filter(|(k, _)| !METRICS.contains(k)) {
        m.serialize_entry(k, v)?;
    }
    m.end()
}

/// One task's verdicts, counted over its samples.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskOutcome {
    pub task_id: String,
    pub samples: usize,
    /// Samples that are `class_success`.
    pub class_success: usize,
    /// Samples that are `class_success` or `class_partial_success`.
    pub class_partial_success: usize,
    pub test_classes: Vec<TestClassOutcome>,
    /// Samples behind `test_classes` (differs from `samples` when `EnvErr` left some out
    /// of the class level only).
    pub fun_samples: usize,
}

/// One test class: samples with `success`, and with `success` or `partial_success` (a test
/// class missing from a sample counts as not succeeding there).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TestClassOutcome {
    pub name: String,
    pub success: usize,
    pub partial_success: usize,
}

impl TaskOutcome {
    /// The task's pass@1 (share of samples) for a class-level metric.
    pub fn class_value(&self, metric: &str) -> Option<f64> {
        let c = match metric {
            "class_success" => self.class_success,
            "class_partial_success" => self.class_partial_success,
            _ => return None,
        };
        (self.samples > 0).then(|| c as f64 / self.samples as f64)
    }

    /// Each test class's pass@1 for a function-level metric.
    pub fn fun_values(&self, metric: &str) -> Vec<(String, f64)> {
        let n = self.fun_samples.max(1) as f64;
        self.test_classes
            .iter()
            .filter_map(|t| {
                let c = match metric {
                    "fun_success" => t.success,
                    "fun_partial_success" => t.partial_success,
                    _ => return None,
                };
                Some((t.name.clone(), c as f64 / n))
            })
            .collect()
    }
}

/// Outcomes with different denominators per level: `class_level` samples give the class
/// verdicts, `fun_level` ones the test classes (a task in one list only has no entry at
/// the other level).
pub fn outcomes_split(class_level: &[TaskCounts], fun_level: &[TaskCounts]) -> Vec<TaskOutcome> {
    let class: Vec<TaskOutcome> = outcomes(class_level);
    let fun: BTreeMap<String, TaskOutcome> = outcomes(fun_level)
        .into_iter()
        .map(|t| (t.task_id.clone(), t))
        .collect();
    let mut out: Vec<TaskOutcome> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for c in class {
        seen.insert(c.task_id.clone());
        let test_classes = fun
            .get(&c.task_id)
            .map(|f| f.test_classes.clone())
            .unwrap_or_default();
        let fun_samples = fun.get(&c.task_id).map_or(0, |f| f.samples);
        out.push(TaskOutcome {
            test_classes,
            fun_samples,
            ..c
        });
    }
    // Tasks every sample of which was the environment's: test classes only.
    for (id, f) in fun {
        if !seen.contains(&id) {
            out.push(TaskOutcome {
                samples: 0,
                class_success: 0,
                class_partial_success: 0,
                ..f
            });
        }
    }
    out
}

pub fn outcomes(tasks: &[TaskCounts]) -> Vec<TaskOutcome> {
    tasks
        .iter()
        .filter(|t| !t.samples.is_empty())
        .map(|t| {
            let v = task_verdicts(t);
            let col = |j: usize, ok: fn(Answer) -> bool| {
                v.answers
                    .iter()
                    .filter(|row| row.get(j).copied().flatten().is_some_and(ok))
                    .count()
            };
            TaskOutcome {
                task_id: t.task_id.clone(),
                samples: t.samples.len(),
                fun_samples: t.samples.len(),
                class_success: v
                    .class_answers
                    .iter()
                    .filter(|a| **a == ClassAnswer::ClassSuccess)
                    .count(),
                class_partial_success: v
                    .class_answers
                    .iter()
                    .filter(|a| **a != ClassAnswer::ClassFail)
                    .count(),
                test_classes: v
                    .test_classes
                    .iter()
                    .enumerate()
                    .map(|(j, name)| TestClassOutcome {
                        name: name.clone(),
                        success: col(j, |a| a == Answer::Success),
                        partial_success: col(j, Answer::is_partial_or_better),
                    })
                    .collect(),
            }
        })
        .collect()
}

/// A metric's estimate and its 95 % interval, with how it was computed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Interval {
    pub estimate: f64,
    pub ci95: (f64, f64),
    /// `wilson` (one sample per task), `bootstrap` (several) or `clustered`.
    pub method: &'static str,
    /// Clustered standard error (function-level metrics).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub se: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub se_naive: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub design_effect: Option<f64>,
    /// Tasks (clusters) behind a function-level metric.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clusters: Option<usize>,
    /// Observations: tasks, or test classes.
    pub n: usize,
}

/// The interval of one of [`METRICS`]; `None` when nothing was judged.
pub fn metric_interval(tasks: &[TaskOutcome], metric: &str) -> Option<Interval> {
    if metric.starts_with("class_") {
        return class_interval(tasks, metric);
    }
    let values: Vec<(&str, f64)> = tasks
        .iter()
        .flat_map(|t| {
            t.fun_values(metric)
                .into_iter()
                .map(move |(_, x)| (t.task_id.as_str(), x))
        })
        .collect();
    let m = clustered_mean(&values)?;
    Some(Interval {
        estimate: m.mean,
        // A share: the normal interval is clipped to [0, 1] (docs/statistics.md).
        ci95: (m.ci95.0.max(0.0), m.ci95.1.min(1.0)),
        method: "clustered",
        se: Some(m.se),
        se_naive: Some(m.se_naive),
        design_effect: m.design_effect,
        clusters: Some(m.clusters),
        n: m.n,
    })
}

fn class_interval(tasks: &[TaskOutcome], metric: &str) -> Option<Interval> {
    let values: Vec<f64> = tasks.iter().filter_map(|t| t.class_value(metric)).collect();
    if values.is_empty() {
        return None;
    }
    let n = values.len();
    let estimate = values.iter().sum::<f64>() / n as f64;
    if tasks
        .iter()
        .filter(|t| t.samples > 0)
        .all(|t| t.samples == 1)
    {
        let successes = values.iter().filter(|v| **v >= 1.0).count();
        return Some(Interval {
            estimate,
            ci95: wilson(successes, n)?,
            method: "wilson",
            se: None,
            se_naive: None,
            design_effect: None,
            clusters: None,
            n,
        });
    }
    let mean = |ix: &[usize]| Some(ix.iter().map(|&i| values[i]).sum::<f64>() / ix.len() as f64);
    Some(Interval {
        estimate,
        ci95: bootstrap::percentile_ci(n, BootstrapSpec::default(), mean)?,
        method: "bootstrap",
        se: None,
        se_naive: None,
        design_effect: None,
        clusters: None,
        n,
    })
}

/// pass@k of `class_success` for k = 1 and k = the samples every task has, when above 1.
pub fn pass_at_k(tasks: &[TaskOutcome]) -> Vec<PassAtK> {
    let pairs: Vec<(usize, usize)> = tasks
        .iter()
        .filter(|t| t.samples > 0)
        .map(|t| (t.samples, t.class_success))
        .collect();
    let kmax = pairs.iter().map(|p| p.0).min().unwrap_or(0);
    if kmax < 2 {
        return Vec::new();
    }
    [1, kmax]
        .into_iter()
        .filter_map(|k| bootstrap::pass_at_k(&pairs, k, BootstrapSpec::default()))
        .collect()
}

/// A share of a total with its Wilson interval (fingerprint buckets, exception kinds).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Share {
    pub name: String,
    pub count: usize,
    pub share: f64,
    pub ci95: (f64, f64),
}

/// Shares of `counts` in their total; nothing for a zero total.
pub fn shares(counts: &[(String, usize)]) -> Vec<Share> {
    let total: usize = counts.iter().map(|c| c.1).sum();
    counts
        .iter()
        .filter_map(|(name, count)| {
            Some(Share {
                name: name.clone(),
                count: *count,
                share: *count as f64 / total as f64,
                ci95: wilson(*count, total)?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::functional::{ClassCounts, classeval_metrics};

    fn task(id: &str, samples: Vec<Vec<(&str, ClassCounts)>>) -> TaskCounts {
        TaskCounts {
            task_id: id.into(),
            samples: samples
                .into_iter()
                .map(|s| s.into_iter().map(|(n, c)| (n.to_string(), c)).collect())
                .collect(),
        }
    }

    #[test]
    fn estimates_equal_the_classeval_metrics() {
        let ok = ClassCounts::new(3, 0, 0);
        let part = ClassCounts::new(3, 1, 0);
        let bad = ClassCounts::new(3, 0, 3);
        let tasks = vec![
            task("A", vec![vec![("T1", ok), ("T2", ok)]]),
            task("B", vec![vec![("T1", part), ("T2", ok)]]),
            task("C", vec![vec![("T1", bad)]]),
            task("D", vec![vec![]]),
        ];
        let m = classeval_metrics(&tasks, 1);
        let o = outcomes(&tasks);
        let got: Vec<f64> = METRICS
            .iter()
            .map(|k| metric_interval(&o, k).unwrap().estimate)
            .collect();
        let want = [
            m.class_success,
            m.class_partial_success,
            m.fun_success,
            m.fun_partial_success,
        ];
        for (g, w) in got.iter().zip(want) {
            assert!((g - w.unwrap()).abs() < 1e-12, "{got:?} vs {want:?}");
        }
        let fun = metric_interval(&o, "fun_success").unwrap();
        assert_eq!((fun.clusters, fun.n), (Some(3), 5));
        assert_eq!(
            metric_interval(&o, "class_success").unwrap().method,
            "wilson"
        );
        assert!(pass_at_k(&o).is_empty());
        assert!(metric_interval(&[], "class_success").is_none());
    }

    #[test]
    fn several_samples_bootstrap() {
        let ok = ClassCounts::new(1, 0, 0);
        let bad = ClassCounts::new(1, 1, 0);
        let tasks: Vec<TaskCounts> = (0..6)
            .map(|i| {
                let s = |good: bool| vec![("T", if good { ok } else { bad })];
                task(&format!("t{i}"), vec![s(i % 2 == 0), s(i % 3 == 0)])
            })
            .collect();
        let o = outcomes(&tasks);
        let i = metric_interval(&o, "class_success").unwrap();
        assert_eq!(i.method, "bootstrap");
        let p = pass_at_k(&o);
        assert_eq!(p.iter().map(|p| p.k).collect::<Vec<_>>(), vec![1, 2]);
        assert!((p[0].estimate - i.estimate).abs() < 1e-12);
    }

    #[test]
    fn shares_sum_to_one() {
        let s = shares(&[("a".into(), 3), ("b".into(), 1)]);
        assert_eq!(s[0].share, 0.75);
        assert!(shares(&[("a".into(), 0)]).is_empty());
    }
}
