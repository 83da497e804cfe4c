//! Intervals on one metric: Wilson for a share of tasks, naive and task-clustered standard
//! errors for a mean over test classes (methods are clustered inside classes, so the naive
//! one is too narrow), and the design effect between them.

use serde::Serialize;

use super::Z95;

/// The Wilson score interval (95 %) of `successes` out of `n`; `None` for n = 0.
pub fn wilson(successes: usize, n: usize) -> Option<(f64, f64)> {
    if n == 0 {
        return None;
    }
    let (n, p) = (n as f64, successes.min(n) as f64 / n as f64);
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n;
    let center = (p + z2 / (2.0 * n)) / denom;
    let half = Z95 / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    // At p = 0 and p = 1 the bound is exactly 0 (resp. 1); rounding would say 1e-17.
    let lo = if successes == 0 {
        0.0
    } else {
        (center - half).max(0.0)
    };
    let hi = if p >= 1.0 {
        1.0
    } else {
        (center + half).min(1.0)
    };
    Some((lo, hi))
}

/// A mean over test classes with both standard errors (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusteredMean {
    pub mean: f64,
    /// sqrt(Σ_c (Σ_{i∈c} (x_i − x̄))²) / n.
    pub se: f64,
    /// sqrt(Σ (x_i − x̄)² / (n(n − 1))); 0 for a single observation.
    pub se_naive: f64,
    /// x̄ ± 1.959964·se.
    pub ci95: (f64, f64),
    /// (se / se_naive)²; `None` when se_naive is 0.
    pub design_effect: Option<f64>,
    pub n: usize,
    pub clusters: usize,
}

/// The mean of `values`, each with its cluster, and its standard errors. Clusters are any
/// labels (the task of a test class); `None` for no observations or a non-finite value.
pub fn clustered_mean<C: PartialEq>(values: &[(C, f64)]) -> Option<ClusteredMean> {
    let n = values.len();
    if n == 0 || values.iter().any(|(_, x)| !x.is_finite()) {
        return None;
    }
    let nf = n as f64;
    let mean = values.iter().map(|(_, x)| x).sum::<f64>() / nf;
    let ss: f64 = values.iter().map(|(_, x)| (x - mean).powi(2)).sum();
    let se_naive = if n > 1 {
        (ss / (nf * (nf - 1.0))).sqrt()
    } else {
        0.0
    };
    // Residual sums per cluster, clusters in first-seen order (few clusters: a scan is fine,
    // and it needs only PartialEq of the labels).
    let mut sums: Vec<(&C, f64)> = Vec::new();
    for (c, x) in values {
        match sums.iter_mut().find(|(k, _)| *k == c) {
            Some((_, s)) => *s += x - mean,
            None => sums.push((c, x - mean)),
        }
    }
    let se = sums.iter().map(|(_, s)| s * s).sum::<f64>().sqrt() / nf;
    let design_effect = (se_naive > 0.0).then(|| (se / se_naive).powi(2));
    Some(ClusteredMean {
        mean,
        se,
        se_naive,
        ci95: (mean - Z95 * se, mean + Z95 * se),
        design_effect,
        n,
        clusters: sums.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_edges() {
        assert_eq!(wilson(0, 0), None);
        let (lo, hi) = wilson(0, 10).unwrap();
        assert_eq!(lo, 0.0);
        assert!(hi > 0.2 && hi < 0.35);
        let (lo, hi) = wilson(10, 10).unwrap();
        assert_eq!(hi, 1.0);
        assert!(lo > 0.65);
        // More successes than trials are clamped, never a panic or NaN.
        assert_eq!(wilson(12, 10), wilson(10, 10));
    }

    #[test]
    fn one_cluster_has_zero_clustered_se() {
        let m = clustered_mean(&[("a", 1.0), ("a", 0.0), ("a", 1.0)]).unwrap();
        assert_eq!(m.clusters, 1);
        assert!(m.se.abs() < 1e-12);
        assert!(m.se_naive > 0.0);
        assert!(clustered_mean::<&str>(&[]).is_none());
        assert!(clustered_mean(&[("a", f64::NAN)]).is_none());
        let one = clustered_mean(&[("a", 1.0)]).unwrap();
        assert_eq!((one.se, one.se_naive, one.design_effect), (0.0, 0.0, None));
    }
}
