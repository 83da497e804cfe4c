//! Representative selection: a stratified sample over the quantiles of the filtered population,
//! and the evidence that a sample (or the tasks that pass the gates) represents the rest,
//! metric by metric: medians, the two-sample Kolmogorov–Smirnov D with its bootstrap interval
//! against an equivalence margin, p Holm-adjusted across metrics.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::analysis::metrics::METRIC_NAMES;
use crate::corpus::extract::analyse_source;
use crate::corpus::walk::SourceFile;
use crate::model::Task;
use crate::stats::bootstrap::{BootstrapSpec, SplitMix64};
use crate::stats::{ks, multiple, rank};

/// Default strata: the size and the complexity of a class.
pub const DEFAULT_STRATA: [&str; 2] = ["CountDeclMethod", "SumCyclomatic"];

/// The equivalence margin on D.
pub const MARGIN: f64 = 0.1;

/// The 27 Understand metrics of a task: those the dataset carries (RealClassEval, a corpus
/// export), else computed from the reference with the corpus's own extraction.
pub fn metrics_of(task: &Task) -> BTreeMap<&'static str, f64> {
    let carried: BTreeMap<&'static str, f64> = METRIC_NAMES
        .iter()
        .filter_map(|&m| {
            let v = task
                .provenance
                .extra
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(m))?
                .1
                .as_f64()?;
            Some((m, v))
        })
        .collect();
    if carried.len() == METRIC_NAMES.len() {
        return carried;
    }
    let file = SourceFile {
        abs: std::path::PathBuf::from(format!("{}.py", task.id)),
        path: format!("{}.py", task.id),
        repo: String::new(),
        size: task.solution.len() as u64,
        mtime_ns: 0,
    };
    let r = analyse_source(file, String::new(), &task.solution, &BTreeSet::new());
    let Some(c) = r.classes.iter().find(|c| c.name == task.class_name) else {
        return carried;
    };
    METRIC_NAMES
        .iter()
        .enumerate()
        .map(|(i, &m)| (m, carried.get(m).copied().unwrap_or(c.metrics.values[i])))
        .collect()
}

/// A stratified sample of `n` of the population's indices: the population is cut into cells
/// by the quartiles of each stratum metric; each cell gets its proportional share (largest
/// remainders, ties to the earlier cell) and draws it by a seeded shuffle. Sorted.
pub fn stratified(
    metrics: &[BTreeMap<&'static str, f64>],
    strata: &[&str],
    n: usize,
    seed: u64,
) -> Vec<usize> {
    let total = metrics.len();
    if n >= total {
        return (0..total).collect();
    }
    let mut cell_of: Vec<Vec<usize>> = vec![Vec::new(); total];
    for s in strata {
        let x: Vec<f64> = metrics
            .iter()
            .map(|m| m.get(s).copied().unwrap_or(f64::NAN))
            .collect();
        let bins = rank::quantile_bins(&x, 4);
        for (i, b) in bins.assignment.iter().enumerate() {
            cell_of[i].push(b.map_or(usize::MAX, |b| b));
        }
    }
    let mut cells: BTreeMap<&Vec<usize>, Vec<usize>> = BTreeMap::new();
    for (i, key) in cell_of.iter().enumerate() {
        cells.entry(key).or_default().push(i);
    }
    let quota: Vec<(f64, usize)> = cells
        .values()
        .map(|m| {
            let q = n as f64 * m.len() as f64 / total as f64;
            (q, q.floor() as usize)
        })
        .collect();
    let mut take: Vec<usize> = quota.iter().map(|q| q.1).collect();
    let mut left = n - take.iter().sum::<usize>();
    let mut by_rest: Vec<usize> = (0..quota.len()).collect();
    by_rest.sort_by(|&a, &b| {
        (quota[b].0 - quota[b].1 as f64).total_cmp(&(quota[a].0 - quota[a].1 as f64))
    });
    for c in by_rest {
        if left == 0 {
            break;
        }
        take[c] += 1;
        left -= 1;
    }
    let mut rng = SplitMix64::new(seed);
    let mut out = Vec::with_capacity(n);
    for (members, k) in cells.into_values().zip(take) {
        let mut m = members;
        // Fisher–Yates, seeded.
        for i in (1..m.len()).rev() {
            let j = rng.below(i + 1);
            m.swap(i, j);
        }
        out.extend(m.into_iter().take(k));
    }
    out.sort_unstable();
    out
}

/// One metric's comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricComparison {
    pub median_sample: Option<f64>,
    pub median_gated: Option<f64>,
    pub median_rest: Option<f64>,
    pub d: Option<f64>,
    pub p: Option<f64>,
    pub p_holm: Option<f64>,
    pub d_ci95: Option<(f64, f64)>,
    /// The interval's upper end is below [`MARGIN`].
    pub equivalent: bool,
}

fn median(v: &[f64]) -> Option<f64> {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    s.sort_by(f64::total_cmp);
    rank::quantile_sorted(&s, 0.5)
}

/// Per metric: medians of the sample, of its gated tasks and of the rest of the population,
/// and the KS test of the sample against the rest.
pub fn compare(
    metrics: &[BTreeMap<&'static str, f64>],
    sample: &[usize],
    gated: &[usize],
    spec: BootstrapSpec,
) -> BTreeMap<&'static str, MetricComparison> {
    let in_sample: BTreeSet<usize> = sample.iter().copied().collect();
    let mut out = BTreeMap::new();
    let mut ps = Vec::new();
    for &m in METRIC_NAMES.iter() {
        let pick = |ix: &mut dyn Iterator<Item = usize>| -> Vec<f64> {
            ix.filter_map(|i| metrics[i].get(m).copied()).collect()
        };
        let s = pick(&mut sample.iter().copied());
        let g = pick(&mut gated.iter().copied());
        let rest = pick(&mut (0..metrics.len()).filter(|i| !in_sample.contains(i)));
        let t = ks::two_sample(&s, &rest, spec);
        ps.push(t.as_ref().map_or(f64::NAN, |t| t.p));
        out.insert(
            m,
            MetricComparison {
                median_sample: median(&s),
                median_gated: median(&g),
                median_rest: median(&rest),
                d: t.as_ref().map(|t| t.d),
                p: t.as_ref().map(|t| t.p),
                p_holm: None,
                d_ci95: t.as_ref().and_then(|t| t.ci95),
                equivalent: t.as_ref().is_some_and(|t| t.equivalent(MARGIN)),
            },
        );
    }
    let adjusted = multiple::holm(&ps);
    for ((_, c), p) in out.iter_mut().zip(adjusted) {
        if c.p.is_some() {
            c.p_holm = Some(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pop(n: usize) -> Vec<BTreeMap<&'static str, f64>> {
        (0..n)
            .map(|i| {
                BTreeMap::from([
                    ("CountDeclMethod", (i % 17) as f64),
                    ("SumCyclomatic", (i * 7 % 31) as f64),
                ])
            })
            .collect()
    }

    #[test]
    fn a_stratified_sample_has_its_size_is_seeded_and_spreads() {
        let p = pop(1000);
        let a = stratified(&p, &DEFAULT_STRATA, 200, 7);
        assert_eq!(a.len(), 200);
        assert_eq!(a, stratified(&p, &DEFAULT_STRATA, 200, 7));
        assert_ne!(a, stratified(&p, &DEFAULT_STRATA, 200, 8));
        let small = a.iter().filter(|&&i| p[i]["CountDeclMethod"] < 4.0).count();
        let share = p.iter().filter(|m| m["CountDeclMethod"] < 4.0).count() as f64 / 1000.0;
        assert!((small as f64 / 200.0 - share).abs() < 0.05, "{small}");
        assert_eq!(stratified(&p, &DEFAULT_STRATA, 5000, 1).len(), 1000);
    }

    #[test]
    fn comparisons_say_when_a_sample_represents() {
        let p = pop(1000);
        let s = stratified(&p, &DEFAULT_STRATA, 300, 3);
        let c = compare(
            &p,
            &s,
            &s,
            BootstrapSpec {
                resamples: 200,
                seed: 1,
            },
        );
        let m = &c["CountDeclMethod"];
        assert!(m.d.unwrap() < 0.1 && m.p.unwrap() > 0.05, "{m:?}");
        // Metrics the population lacks compare nothing.
        assert_eq!(c["CountLine"].d, None);
    }
}
