//! Metrics per quantile bin of a task property, and Spearman's ρ between the property and
//! success ("do longer, more coupled classes fail more?").

use std::collections::BTreeMap;

use serde::Serialize;

use super::bootstrap::{BootstrapSpec, spearman_ci};
use super::outcomes::{Interval, METRICS, TaskOutcome, metric_interval};
use super::rank::quantile_bins;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Slices {
    pub property: String,
    pub bins: Vec<Bin>,
    /// Per metric: ρ between the property and the task's value of the metric.
    #[serde(serialize_with = "crate::stats::outcomes::in_metric_order")]
    pub spearman: BTreeMap<&'static str, Rho>,
    /// Tasks without a value of the property (left out).
    pub missing: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bin {
    /// The property's range: (lo, hi], the first closed.
    pub lo: f64,
    pub hi: f64,
    pub tasks: usize,
    #[serde(serialize_with = "crate::stats::outcomes::in_metric_order")]
    pub metrics: BTreeMap<&'static str, Interval>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rho {
    pub rho: f64,
    pub ci95: (f64, f64),
    pub n: usize,
    pub bootstrap: BootstrapSpec,
}

/// A task's value of a metric: its class verdict share, or the mean over its test classes.
pub fn task_value(t: &TaskOutcome, metric: &str) -> Option<f64> {
    t.class_value(metric).or_else(|| {
        let v = t.fun_values(metric);
        (!v.is_empty()).then(|| v.iter().map(|x| x.1).sum::<f64>() / v.len() as f64)
    })
}

/// `values`: the property per task id.
pub fn slices(
    property: &str,
    tasks: &[TaskOutcome],
    values: &BTreeMap<String, f64>,
    bins: usize,
) -> Slices {
    let known: Vec<(&TaskOutcome, f64)> = tasks
        .iter()
        .filter_map(|t| Some((t, *values.get(&t.task_id)?)).filter(|(_, v)| v.is_finite()))
        .collect();
    let x: Vec<f64> = known.iter().map(|k| k.1).collect();
    let b = quantile_bins(&x, bins);
    let mut out_bins = Vec::new();
    for i in 0..b.count() {
        let members: Vec<TaskOutcome> = known
            .iter()
            .zip(&b.assignment)
            .filter(|(_, a)| **a == Some(i))
            .map(|((t, _), _)| (*t).clone())
            .collect();
        let lo = b.edges.get(i).copied().unwrap_or(f64::NAN);
        out_bins.push(Bin {
            lo,
            hi: b.edges.get(i + 1).copied().unwrap_or(lo),
            tasks: members.len(),
            metrics: METRICS
                .iter()
                .filter_map(|m| Some((*m, metric_interval(&members, m)?)))
                .collect(),
        });
    }
    let mut spearman = BTreeMap::new();
    for m in METRICS {
        let (xs, ys): (Vec<f64>, Vec<f64>) = known
            .iter()
            .filter_map(|(t, v)| Some((*v, task_value(t, m)?)))
            .unzip();
        let spec = BootstrapSpec::default();
        if let Some((rho, ci95)) = spearman_ci(&xs, &ys, spec) {
            spearman.insert(
                m,
                Rho {
                    rho,
                    ci95,
                    n: xs.len(),
                    bootstrap: spec,
                },
            );
        }
    }
    Slices {
        property: property.to_string(),
        bins: out_bins,
        spearman,
        missing: tasks.len() - known.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::outcomes::TestClassOutcome;

    #[test]
    fn bigger_tasks_fail_more() {
        let tasks: Vec<TaskOutcome> = (0..20)
            .map(|i| TaskOutcome {
                task_id: format!("t{i}"),
                samples: 1,
                fun_samples: 1,
                class_success: usize::from(i < 10),
                class_partial_success: usize::from(i < 14),
                test_classes: vec![TestClassOutcome {
                    name: "T".into(),
                    success: usize::from(i < 10),
                    partial_success: 1,
                }],
            })
            .collect();
        let values: BTreeMap<String, f64> = (0..19).map(|i| (format!("t{i}"), i as f64)).collect();
        let s = slices("loc", &tasks, &values, 4);
        assert_eq!(s.missing, 1);
        assert_eq!(s.bins.len(), 4);
        assert_eq!(s.bins.iter().map(|b| b.tasks).sum::<usize>(), 19);
        assert_eq!(s.bins[0].metrics["class_success"].estimate, 1.0);
        let rho = &s.spearman["class_success"];
        assert!(rho.rho < -0.5 && rho.ci95.1 < 0.0, "{rho:?}");
        // A constant metric has no ρ.
        assert!(!s.spearman.contains_key("fun_partial_success"));
    }
}
