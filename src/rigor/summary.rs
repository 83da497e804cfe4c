//! Dataset-level figures: distributions over tasks (mean, median, quartiles, a bootstrap
//! interval of the mean, as `report` does), mutant totals, the slowest tasks. Pure.

use serde::Serialize;

use super::operators::Operator;
use super::result::{Counts, TaskRigor};
use crate::stats::bootstrap::{BootstrapSpec, percentile_ci};
use crate::stats::rank::quantile_sorted;

/// One figure over tasks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Distribution {
    /// Tasks with a value.
    pub n: usize,
    pub mean: f64,
    pub median: f64,
    pub q1: f64,
    pub q3: f64,
    pub min: f64,
    pub max: f64,
    /// 95 % percentile-bootstrap interval of the mean over tasks.
    pub ci95: Option<(f64, f64)>,
}

impl Distribution {
    pub fn of(values: &[f64]) -> Option<Distribution> {
        let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        if sorted.is_empty() {
            return None;
        }
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let mean = sorted.iter().sum::<f64>() / n as f64;
        let ci95 = percentile_ci(n, BootstrapSpec::default(), |idx| {
            Some(idx.iter().map(|&i| sorted[i]).sum::<f64>() / idx.len() as f64)
        });
        Some(Distribution {
            n,
            mean,
            median: quantile_sorted(&sorted, 0.5)?,
            q1: quantile_sorted(&sorted, 0.25)?,
            q3: quantile_sorted(&sorted, 0.75)?,
            min: sorted[0],
            max: sorted[n - 1],
            ci95,
        })
    }
}

/// A slow task, named.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Slow {
    pub task: String,
    pub seconds: f64,
    pub mutants: usize,
}

/// Everything `classlab rigor` says about a dataset as a whole.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub tasks: usize,
    /// Tasks that could not be analysed, with why.
    pub errors: Vec<(String, String)>,
    pub operators: Vec<&'static str>,
    pub totals: Counts,
    /// Line coverage (percent) over tasks.
    pub line: Option<Distribution>,
    /// Branch coverage (percent) over tasks with branches.
    pub branch: Option<Distribution>,
    /// Tasks without a branch (branch coverage `null`).
    pub no_branches: usize,
    /// Mutation score (fraction) over tasks with a score.
    pub score: Option<Distribution>,
    /// Tests left out of mutation runs (not passing on the reference), over all tasks.
    pub excluded_tests: usize,
    /// The five slowest tasks.
    pub slowest: Vec<Slow>,
    /// Sandbox seconds over all tasks (those computed now and those from the store alike).
    pub task_seconds: f64,
}

pub fn summarize(results: &[TaskRigor]) -> Summary {
    let mut totals = Counts::default();
    let (mut line, mut branch, mut score) = (Vec::new(), Vec::new(), Vec::new());
    let mut no_branches = 0;
    let mut errors = Vec::new();
    let mut excluded = 0;
    for r in results {
        totals.add(&r.counts());
        if let Some(e) = &r.error {
            errors.push((r.task_id.clone(), e.clone()));
        }
        if let Some(c) = &r.coverage {
            line.extend(c.line);
            match c.branch {
                Some(b) => branch.push(b),
                None => no_branches += 1,
            }
        }
        score.extend(r.score());
        excluded += r.excluded.len();
    }
    let mut slowest: Vec<Slow> = results
        .iter()
        .map(|r| Slow {
            task: r.task_id.clone(),
            seconds: r.wall_s,
            mutants: r.mutants.len(),
        })
        .collect();
    slowest.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
    slowest.truncate(5);
    Summary {
        tasks: results.len(),
        errors,
        operators: Operator::ALL.iter().map(|o| o.name()).collect(),
        totals,
        line: Distribution::of(&line),
        branch: Distribution::of(&branch),
        no_branches,
        score: Distribution::of(&score),
        excluded_tests: excluded,
        slowest,
        task_seconds: results.iter().map(|r| r.wall_s).sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distribution_of_known_values() {
        let d = Distribution::of(&[1.0, 2.0, 3.0, 4.0, f64::NAN]).unwrap();
        assert_eq!(
            (d.n, d.mean, d.median, d.min, d.max),
            (4, 2.5, 2.5, 1.0, 4.0)
        );
        let (lo, hi) = d.ci95.unwrap();
        assert!(lo <= 2.5 && 2.5 <= hi && lo >= 1.0 && hi <= 4.0);
        assert_eq!(Distribution::of(&[]), None);
    }
}
