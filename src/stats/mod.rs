//! Statistics a paper can defend (docs/statistics.md): intervals on every metric, paired
//! comparisons, multiple-comparison adjustment, rank correlation and quantile slices.
//!
//! Pure functions over plain numbers: no I/O, no panics on any input (empty or degenerate
//! input gives `None` or a documented convention). Each is checked against values computed
//! independently with SciPy/statsmodels (`scripts/stats-reference.py`,
//! `tests/fixtures/stats/`).

pub mod bootstrap;
pub mod compare;
pub mod grid;
pub mod interval;
pub mod ks;
pub mod multiple;
pub mod outcomes;
pub mod paired;
pub mod properties;
pub mod rank;
pub mod slices;

/// The two-sided 95 % normal quantile Φ⁻¹(0.975), as the issue fixes it.
pub const Z95: f64 = 1.959964;

/// Standard normal CDF.
pub fn normal_cdf(x: f64) -> f64 {
    use statrs::distribution::{ContinuousCDF, Normal};
    Normal::standard().cdf(x)
}

/// Two-sided normal-theory p of a z statistic; a zero standard error gives 1 for a zero
/// estimate and 0 otherwise (a difference with no variance at all).
pub fn normal_p(estimate: f64, se: f64) -> f64 {
    if !estimate.is_finite() || !se.is_finite() {
        return 1.0;
    }
    if se <= 0.0 {
        return if estimate == 0.0 { 1.0 } else { 0.0 };
    }
    (2.0 * (1.0 - normal_cdf((estimate / se).abs()))).clamp(0.0, 1.0)
}
