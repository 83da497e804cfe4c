//! Paired comparisons of two sessions on the same tasks: the exact McNemar test for task
//! verdicts, and the task-clustered paired difference for test-class verdicts, each with an
//! effect size.

use serde::Serialize;

use super::interval::{ClusteredMean, clustered_mean};
use super::{Z95, normal_p};

/// McNemar's exact test on `b` (only A succeeds) and `c` (only B succeeds) discordant
/// pairs: X ~ Bin(b + c, ½), p = min(1, 2·P(X ≤ min(b, c))). No discordant pair gives 1.
pub fn mcnemar_exact(b: usize, c: usize) -> f64 {
    use statrs::distribution::{Binomial, DiscreteCDF};
    let n = b.saturating_add(c);
    if n == 0 {
        return 1.0;
    }
    match Binomial::new(0.5, n as u64) {
        Ok(d) => (2.0 * d.cdf(b.min(c) as u64)).min(1.0),
        Err(_) => 1.0,
    }
}

/// Cohen's h between two proportions: 2·asin√p_b − 2·asin√p_a.
pub fn cohens_h(p_a: f64, p_b: f64) -> f64 {
    let phi = |p: f64| 2.0 * p.clamp(0.0, 1.0).sqrt().asin();
    phi(p_b) - phi(p_a)
}

/// Paired binary outcomes on n tasks (A's and B's verdicts, in the same task order).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairedBinary {
    pub a: f64,
    pub b: f64,
    /// b − a.
    pub diff: f64,
    /// Wald interval of the paired difference: diff ± z·sqrt(Σ (d_i − d̄)²) / n.
    pub ci95: (f64, f64),
    pub p: f64,
    /// Tasks A solves and B does not (indices into the input).
    pub only_a: Vec<usize>,
    pub only_b: Vec<usize>,
    pub cohens_h: f64,
}

/// McNemar on paired 0/1 outcomes; `None` when there are no pairs.
pub fn paired_binary(pairs: &[(bool, bool)]) -> Option<PairedBinary> {
    if pairs.is_empty() {
        return None;
    }
    let n = pairs.len() as f64;
    let only_a: Vec<usize> = (0..pairs.len())
        .filter(|&i| pairs[i] == (true, false))
        .collect();
    let only_b: Vec<usize> = (0..pairs.len())
        .filter(|&i| pairs[i] == (false, true))
        .collect();
    let a = pairs.iter().filter(|p| p.0).count() as f64 / n;
    let b = pairs.iter().filter(|p| p.1).count() as f64 / n;
    let diff = b - a;
    let ss: f64 = pairs
        .iter()
        .map(|&(x, y)| (f64::from(u8::from(y)) - f64::from(u8::from(x)) - diff).powi(2))
        .sum();
    let half = Z95 * ss.sqrt() / n;
    Some(PairedBinary {
        a,
        b,
        diff,
        ci95: (diff - half, diff + half),
        p: mcnemar_exact(only_a.len(), only_b.len()),
        only_a,
        only_b,
        cohens_h: cohens_h(a, b),
    })
}

/// A paired difference of means over clustered observations.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairedMean {
    pub a: f64,
    pub b: f64,
    /// The mean of d_i = b_i − a_i with its clustered and naive standard errors.
    pub diff: ClusteredMean,
    /// Normal-theory two-sided p of diff / se.
    pub p: f64,
    /// Cohen's d_z: mean(d) / sd(d) (sd with n − 1); `None` when sd is 0 or n < 2.
    pub cohens_dz: Option<f64>,
}

/// `obs` are (cluster, a_i, b_i); `None` when empty or not finite.
pub fn paired_mean<C: PartialEq + Clone>(obs: &[(C, f64, f64)]) -> Option<PairedMean> {
    let d: Vec<(C, f64)> = obs.iter().map(|(c, a, b)| (c.clone(), b - a)).collect();
    let diff = clustered_mean(&d)?;
    let n = obs.len() as f64;
    let a = obs.iter().map(|o| o.1).sum::<f64>() / n;
    let b = obs.iter().map(|o| o.2).sum::<f64>() / n;
    let sd = if obs.len() > 1 {
        (d.iter().map(|(_, x)| (x - diff.mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    Some(PairedMean {
        a,
        b,
        p: normal_p(diff.mean, diff.se),
        cohens_dz: (sd > 0.0).then(|| diff.mean / sd),
        diff,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcnemar_edges() {
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        assert_eq!(mcnemar_exact(3, 3), 1.0);
        // 0 vs 5 discordant: 2·(½)^5.
        assert!((mcnemar_exact(0, 5) - 0.0625).abs() < 1e-12);
        assert!((mcnemar_exact(5, 0) - 0.0625).abs() < 1e-12);
    }

    #[test]
    fn identical_runs_differ_by_nothing() {
        let pb = paired_binary(&[(true, true), (false, false)]).unwrap();
        assert_eq!((pb.diff, pb.p, pb.cohens_h), (0.0, 1.0, 0.0));
        assert!(pb.only_a.is_empty() && pb.only_b.is_empty());
        let pm = paired_mean(&[("t", 1.0, 1.0), ("u", 0.0, 0.0)]).unwrap();
        assert_eq!((pm.diff.mean, pm.p, pm.cohens_dz), (0.0, 1.0, None));
        assert!(paired_binary(&[]).is_none());
        assert!(paired_mean::<&str>(&[]).is_none());
    }
}
