//! Paired comparison of sessions on the tasks they all finished (`classlab compare`, and
//! `report` with several sessions): McNemar for the class-level metrics, the task-clustered
//! paired difference for the test-class metrics, Holm across pairs.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::multiple::holm;
use super::outcomes::{METRICS, TaskOutcome};
use super::paired::{paired_binary, paired_mean};

/// What a comparison needs of one session.
#[derive(Debug, Clone)]
pub struct SessionData {
    pub id: String,
    /// Every task the run announced, in order.
    pub announced: Vec<String>,
    /// The finished tasks.
    pub outcomes: Vec<TaskOutcome>,
}

/// A task left out of the pairing — of every metric (not finished on a side) or of some
/// (`EnvErr` on a side: the environment's, in no denominator) — and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dropped {
    pub task_id: String,
    pub reason: String,
    /// The metrics it is left out of (all four when it was not finished on a side).
    pub metrics: Vec<&'static str>,
}

/// One metric compared. Class-level metrics carry `only_a`/`only_b` (McNemar), test-class
/// metrics `se` (paired-clustered).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricComparison {
    pub a: f64,
    pub b: f64,
    /// b − a.
    pub diff: f64,
    /// Observations paired: tasks (class-level; those EnvErr on a side left out, see
    /// [`Comparison::dropped`]) or test classes (those the environment failed on a side left
    /// out). `a` and `b` are over these n, so they can differ from a session's own figure.
    pub n: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub se: Option<f64>,
    pub ci95: (f64, f64),
    pub p: f64,
    /// Holm-adjusted p across the pairs of a multi-session comparison.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p_holm: Option<f64>,
    /// `mcnemar-exact` or `paired-clustered`.
    pub test: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub only_a: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub only_b: Option<Vec<String>>,
    pub effect: Effect,
}

/// An effect size: Cohen's h for two proportions, Cohen's d_z for a paired difference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Effect {
    pub name: &'static str,
    pub value: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// Tasks both sessions finished (each metric's `n` says how many of them it pairs).
    pub tasks: usize,
    /// Every task left out of some metric, with the metrics and why.
    pub dropped: Vec<Dropped>,
    #[serde(serialize_with = "crate::stats::outcomes::in_metric_order")]
    pub metrics: BTreeMap<&'static str, MetricComparison>,
}

/// A and B paired on the tasks both finished (with one sample each, the first is used when
/// a task has several: McNemar pairs single outcomes).
pub fn compare(a: &SessionData, b: &SessionData) -> Comparison {
    let (ma, mb) = (by_id(a), by_id(b));
    let mut order: Vec<&str> = Vec::new();
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    for id in a
        .announced
        .iter()
        .chain(&b.announced)
        .chain(ma.keys())
        .chain(mb.keys())
    {
        if seen.insert(id) {
            order.push(id);
        }
    }
    let announced = |s: &SessionData| -> BTreeSet<String> { s.announced.iter().cloned().collect() };
    let (aa, ab) = (announced(a), announced(b));
    let mut dropped = Vec::new();
    let mut pairs: Vec<(&TaskOutcome, &TaskOutcome)> = Vec::new();
    for id in order {
        match (ma.get(id), mb.get(id)) {
            (Some(x), Some(y)) => pairs.push((x, y)),
            (x, y) => {
                let why = |s: &SessionData, listed: &BTreeSet<String>, has: bool| {
                    (!has).then(|| {
                        if listed.contains(id) {
                            format!("not finished in {}", s.id)
                        } else {
                            format!("not in {}", s.id)
                        }
                    })
                };
                let reasons: Vec<String> = [why(a, &aa, x.is_some()), why(b, &ab, y.is_some())]
                    .into_iter()
                    .flatten()
                    .collect();
                dropped.push(Dropped {
                    task_id: id.to_string(),
                    reason: reasons.join("; "),
                    metrics: METRICS.to_vec(),
                });
            }
        }
    }
    dropped.extend(pairs.iter().filter_map(|(x, y)| env_dropped(a, b, x, y)));
    let mut metrics = BTreeMap::new();
    for metric in METRICS {
        let m = if metric.starts_with("class_") {
            class_metric(&pairs, metric)
        } else {
            fun_metric(&pairs, metric)
        };
        if let Some(m) = m {
            metrics.insert(metric, m);
        }
    }
    Comparison {
        tasks: pairs.len(),
        dropped,
        metrics,
    }
}

/// A finished task the environment kept out of some metric on a side: its class verdict
/// (`EnvErr`: no class-level value) or some of its test classes (those of a method the
/// environment failed).
fn env_dropped(
    a: &SessionData,
    b: &SessionData,
    x: &TaskOutcome,
    y: &TaskOutcome,
) -> Option<Dropped> {
    fn names(t: &TaskOutcome) -> BTreeSet<&str> {
        t.test_classes.iter().map(|c| c.name.as_str()).collect()
    }
    let (nx, ny) = (names(x), names(y));
    let mut sides = Vec::new();
    let mut metrics: Vec<&'static str> = Vec::new();
    for (s, t, own, other) in [(a, x, &nx, &ny), (b, y, &ny, &nx)] {
        let class_out = t.class_value("class_success").is_none();
        let fun_out = other.iter().any(|n| !own.contains(n));
        if class_out || fun_out {
            sides.push(format!("EnvErr in {}", s.id));
        }
        if class_out {
            metrics.extend(["class_success", "class_partial_success"]);
        }
        if fun_out {
            metrics.extend(["fun_success", "fun_partial_success"]);
        }
    }
    if sides.is_empty() {
        return None;
    }
    metrics.sort_by_key(|m| METRICS.iter().position(|x| x == m));
    metrics.dedup();
    let what = if metrics.len() == METRICS.len() {
        "every metric".to_string()
    } else if metrics.iter().all(|m| m.starts_with("class_")) {
        "the class-level metrics".to_string()
    } else {
        "the test-class metrics (the test classes the environment failed)".to_string()
    };
    Some(Dropped {
        task_id: x.task_id.clone(),
        reason: format!(
            "{} (the environment's, not the model's): out of {what}",
            sides.join("; ")
        ),
        metrics,
    })
}

fn by_id(s: &SessionData) -> BTreeMap<String, &TaskOutcome> {
    s.outcomes.iter().map(|t| (t.task_id.clone(), t)).collect()
}

fn class_metric(pairs: &[(&TaskOutcome, &TaskOutcome)], metric: &str) -> Option<MetricComparison> {
    // The first sample's verdict: a task succeeds when its pass@1 share is 1 (greedy runs).
    // Tasks whose every sample was the environment's (EnvErr) on either side are in no
    // class-level denominator, so in no pair.
    let pairs: Vec<&(&TaskOutcome, &TaskOutcome)> = pairs
        .iter()
        .filter(|(x, y)| x.class_value(metric).is_some() && y.class_value(metric).is_some())
        .collect();
    let solved = |t: &TaskOutcome| t.class_value(metric).is_some_and(|v| v >= 1.0);
    let flags: Vec<(bool, bool)> = pairs.iter().map(|(x, y)| (solved(x), solved(y))).collect();
    let r = paired_binary(&flags)?;
    let ids = |ix: &[usize]| ix.iter().map(|&i| pairs[i].0.task_id.clone()).collect();
    Some(MetricComparison {
        a: r.a,
        b: r.b,
        diff: r.diff,
        n: flags.len(),
        se: None,
        ci95: r.ci95,
        p: r.p,
        p_holm: None,
        test: "mcnemar-exact",
        only_a: Some(ids(&r.only_a)),
        only_b: Some(ids(&r.only_b)),
        effect: Effect {
            name: "cohen_h",
            value: Some(r.cohens_h),
        },
    })
}

fn fun_metric(pairs: &[(&TaskOutcome, &TaskOutcome)], metric: &str) -> Option<MetricComparison> {
    let mut obs: Vec<(&str, f64, f64)> = Vec::new();
    for (x, y) in pairs {
        let (vx, vy) = (x.fun_values(metric), y.fun_values(metric));
        // Test classes by name, on both sides: one absent on a side is one the environment
        // failed there (no verdict on the model): out of the pair as out of the metric.
        let other: BTreeMap<&str, f64> = vy.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        for (n, v) in &vx {
            if let Some(w) = other.get(n.as_str()) {
                obs.push((x.task_id.as_str(), *v, *w));
            }
        }
    }
    let r = paired_mean(&obs)?;
    Some(MetricComparison {
        a: r.a,
        b: r.b,
        diff: r.diff.mean,
        n: r.diff.n,
        se: Some(r.diff.se),
        ci95: r.diff.ci95,
        p: r.p,
        p_holm: None,
        test: "paired-clustered",
        only_a: None,
        only_b: None,
        effect: Effect {
            name: "cohen_dz",
            value: r.cohens_dz,
        },
    })
}

/// One pair of a multi-session comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairComparison {
    pub a: String,
    pub b: String,
    #[serde(flatten)]
    pub comparison: Comparison,
}

/// Every pair (i < j), with each metric's p Holm-adjusted across the pairs.
pub fn all_pairs(sessions: &[SessionData]) -> Vec<PairComparison> {
    let mut out = Vec::new();
    for i in 0..sessions.len() {
        for j in i + 1..sessions.len() {
            out.push(PairComparison {
                a: sessions[i].id.clone(),
                b: sessions[j].id.clone(),
                comparison: compare(&sessions[i], &sessions[j]),
            });
        }
    }
    for metric in METRICS {
        let ps: Vec<f64> = out
            .iter()
            .filter_map(|p| p.comparison.metrics.get(metric).map(|m| m.p))
            .collect();
        let mut adjusted = holm(&ps).into_iter();
        for p in &mut out {
            if let Some(m) = p.comparison.metrics.get_mut(metric) {
                m.p_holm = adjusted.next();
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::outcomes::TestClassOutcome;

    fn task(id: &str, ok: bool, tcs: &[bool]) -> TaskOutcome {
        TaskOutcome {
            task_id: id.into(),
            samples: 1,
            fun_samples: 1,
            class_success: usize::from(ok),
            class_partial_success: usize::from(ok),
            test_classes: tcs
                .iter()
                .enumerate()
                .map(|(i, &s)| TestClassOutcome {
                    name: format!("T{i}"),
                    success: usize::from(s),
                    partial_success: usize::from(s),
                })
                .collect(),
        }
    }

    fn session(id: &str, announced: &[&str], done: Vec<TaskOutcome>) -> SessionData {
        SessionData {
            id: id.into(),
            announced: announced.iter().map(|s| s.to_string()).collect(),
            outcomes: done,
        }
    }

    #[test]
    fn pairs_on_common_tasks_and_says_why_others_dropped() {
        let a = session(
            "A",
            &["t1", "t2", "t3"],
            vec![task("t1", true, &[true]), task("t2", false, &[false, true])],
        );
        let b = session(
            "B",
            &["t1", "t2", "t4"],
            vec![
                task("t1", false, &[false]),
                task("t2", true, &[true, true]),
                task("t4", true, &[true]),
            ],
        );
        let c = compare(&a, &b);
        assert_eq!(c.tasks, 2);
        let reasons: Vec<_> = c
            .dropped
            .iter()
            .map(|d| (d.task_id.as_str(), d.reason.as_str()))
            .collect();
        assert_eq!(
            reasons,
            [("t3", "not finished in A; not in B"), ("t4", "not in A")]
        );
        let cs = &c.metrics["class_success"];
        assert_eq!(cs.only_a.as_deref(), Some(&["t1".to_string()][..]));
        assert_eq!(cs.only_b.as_deref(), Some(&["t2".to_string()][..]));
        assert_eq!((cs.diff, cs.p), (0.0, 1.0));
        let fs = &c.metrics["fun_success"];
        assert_eq!(fs.test, "paired-clustered");
        // A: 1, 0, 1; B: 0, 1, 1 (t1.T0, t2.T0, t2.T1).
        assert!((fs.a - 2.0 / 3.0).abs() < 1e-12 && (fs.b - 2.0 / 3.0).abs() < 1e-12);
        let pairs = all_pairs(&[a.clone(), b.clone(), a]);
        assert_eq!(pairs.len(), 3);
        assert!(
            pairs
                .iter()
                .all(|p| p.comparison.metrics["class_success"].p_holm.is_some())
        );
    }
}
