//! The two-sample Kolmogorov–Smirnov test, for showing that a sample (a forged benchmark)
//! represents its population (the filtered corpus) metric by metric.
//!
//! `D` is SciPy's `ks_2samp` statistic (right-continuous empirical CDFs over the pooled
//! values). The two-sided p is exact for any sizes: the share of the C(m+n, m) lattice paths
//! that leave the band |i/m − j/n| < D (SciPy's `method="exact"`, computed here as the
//! probability of a uniformly random path, one row at a time, so it neither overflows nor
//! needs SciPy's switch to an asymptotic form beyond 10,000). Ties are handled as SciPy
//! handles them: in `D`, not in the null distribution. The interval on `D` is a percentile
//! bootstrap that resamples each sample on its own (SplitMix64, as the other intervals).

use serde::Serialize;

use super::bootstrap::{BootstrapSpec, SplitMix64};

/// A KS comparison of two samples.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KsTest {
    pub d: f64,
    pub p: f64,
    /// Percentile bootstrap interval of `d` (`None` with fewer than two values on a side).
    pub ci95: Option<(f64, f64)>,
    pub n1: usize,
    pub n2: usize,
}

impl KsTest {
    /// The two samples are equivalent within `margin`: the interval's upper end is below it.
    pub fn equivalent(&self, margin: f64) -> bool {
        self.ci95.is_some_and(|(_, hi)| hi < margin)
    }
}

/// `D` of two samples (NaN values are left out); `None` when either is empty.
pub fn statistic(a: &[f64], b: &[f64]) -> Option<f64> {
    let mut x: Vec<f64> = a.iter().copied().filter(|v| !v.is_nan()).collect();
    let mut y: Vec<f64> = b.iter().copied().filter(|v| !v.is_nan()).collect();
    x.sort_by(f64::total_cmp);
    y.sort_by(f64::total_cmp);
    statistic_sorted(&x, &y)
}

fn statistic_sorted(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.is_empty() || y.is_empty() {
        return None;
    }
    let (n1, n2) = (x.len() as f64, y.len() as f64);
    let (mut i, mut j) = (0, 0);
    let mut d: f64 = 0.0;
    while i < x.len() || j < y.len() {
        // The next pooled value; both ECDFs step past every copy of it.
        let v = match (x.get(i), y.get(j)) {
            (Some(&a), Some(&b)) => a.min(b),
            (Some(&a), None) => a,
            (None, Some(&b)) => b,
            (None, None) => break,
        };
        while i < x.len() && x[i] <= v {
            i += 1;
        }
        while j < y.len() && y[j] <= v {
            j += 1;
        }
        d = d.max((i as f64 / n1 - j as f64 / n2).abs());
    }
    Some(d)
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Exact two-sided p of `d` for sizes m and n: P(D ≥ d) under the null.
pub fn p_exact(d: f64, m: usize, n: usize) -> f64 {
    if m == 0 || n == 0 {
        return 1.0;
    }
    let (mu, nu) = (m as u64, n as u64);
    let g = gcd(mu, nu);
    let lcm = mu / g * nu;
    let h = (d * lcm as f64).round() as i128;
    if h <= 0 {
        return 1.0;
    }
    // Point (i, j): i values of the first sample and j of the second are at or below some
    // threshold; the path is inside while |i·(lcm/m) − j·(lcm/n)| < h.
    let (sm, sn) = ((lcm / mu) as i128, (lcm / nu) as i128);
    let inside = |i: usize, j: usize| (i as i128 * sm - j as i128 * sn).abs() < h;
    // row[j] = probability that a uniformly random path reaches (i, j) staying inside.
    let mut row = vec![0.0f64; n + 1];
    row[0] = 1.0;
    for j in 1..=n {
        let left = row[j - 1] * (n - j + 1) as f64 / (m + n - j + 1) as f64;
        row[j] = if inside(0, j) { left } else { 0.0 };
    }
    for i in 1..=m {
        let mut prev = 0.0; // row[i][j - 1]
        for (j, cell) in row.iter_mut().enumerate() {
            let rest = (m + n - i - j + 1) as f64;
            let from_up = *cell * (m - i + 1) as f64 / rest;
            let from_left = if j > 0 {
                prev * (n - j + 1) as f64 / rest
            } else {
                0.0
            };
            let v = if inside(i, j) {
                from_up + from_left
            } else {
                0.0
            };
            *cell = v;
            prev = v;
        }
    }
    (1.0 - row[n]).clamp(0.0, 1.0)
}

/// D, its exact p, and a bootstrap interval of D.
pub fn two_sample(a: &[f64], b: &[f64], spec: BootstrapSpec) -> Option<KsTest> {
    // The bootstrap draws from the samples in their given order (reproducible by index).
    let x: Vec<f64> = a.iter().copied().filter(|v| !v.is_nan()).collect();
    let y: Vec<f64> = b.iter().copied().filter(|v| !v.is_nan()).collect();
    let d = statistic(&x, &y)?;
    let p = p_exact(d, x.len(), y.len());
    Some(KsTest {
        d,
        p,
        ci95: bootstrap_d(&x, &y, spec),
        n1: x.len(),
        n2: y.len(),
    })
}

/// Percentile interval of D over resamples: per resample, the first sample's indices are
/// drawn, then the second's, from one SplitMix64 stream.
fn bootstrap_d(x: &[f64], y: &[f64], spec: BootstrapSpec) -> Option<(f64, f64)> {
    if x.len() < 2 || y.len() < 2 || spec.resamples == 0 {
        return None;
    }
    let mut rng = SplitMix64::new(spec.seed);
    let mut rx = vec![0.0; x.len()];
    let mut ry = vec![0.0; y.len()];
    let mut got = Vec::with_capacity(spec.resamples);
    for _ in 0..spec.resamples {
        for v in rx.iter_mut() {
            *v = x[rng.below(x.len())];
        }
        for v in ry.iter_mut() {
            *v = y[rng.below(y.len())];
        }
        rx.sort_by(f64::total_cmp);
        ry.sort_by(f64::total_cmp);
        got.extend(statistic_sorted(&rx, &ry));
    }
    got.sort_by(f64::total_cmp);
    Some((
        super::rank::quantile_sorted(&got, 0.025)?,
        super::rank::quantile_sorted(&got, 0.975)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_samples_have_d_zero_and_p_one() {
        let t = two_sample(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0], BootstrapSpec::default()).unwrap();
        assert_eq!(t.d, 0.0);
        assert_eq!(t.p, 1.0);
    }

    #[test]
    fn disjoint_samples_have_d_one() {
        let t = two_sample(&[1.0, 2.0], &[5.0, 6.0, 7.0], BootstrapSpec::default()).unwrap();
        assert_eq!(t.d, 1.0);
        // Only the two extreme paths of C(5, 2) = 10 reach D = 1.
        assert!((t.p - 0.2).abs() < 1e-12, "{}", t.p);
        assert!(!t.equivalent(0.1));
    }

    #[test]
    fn empty_or_nan_only_is_none() {
        assert!(two_sample(&[], &[1.0], BootstrapSpec::default()).is_none());
        assert!(statistic(&[f64::NAN], &[1.0]).is_none());
    }
}
