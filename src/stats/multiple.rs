//! Holm's step-down adjustment for several pairwise comparisons.

/// Holm-adjusted p-values, in the input order: sorted ascending, the j-th (0-based) of m is
/// scaled by (m − j), made monotone, capped at 1. Non-finite p count as 1.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let clean: Vec<f64> = p
        .iter()
        .map(|&x| {
            if x.is_finite() {
                x.clamp(0.0, 1.0)
            } else {
                1.0
            }
        })
        .collect();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| clean[i].total_cmp(&clean[j]));
    let mut out = vec![1.0; m];
    let mut running: f64 = 0.0;
    for (j, &i) in order.iter().enumerate() {
        running = running.max(((m - j) as f64 * clean[i]).min(1.0));
        out[i] = running;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::holm;

    #[test]
    fn holm_small() {
        assert!(holm(&[]).is_empty());
        assert_eq!(holm(&[0.2]), vec![0.2]);
        let got = holm(&[0.01, 0.04, 0.03]);
        let want = [0.03, 0.06, 0.06];
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-12, "{got:?}");
        }
        assert_eq!(holm(&[f64::NAN, 0.5]), vec![1.0, 1.0]);
    }
}
