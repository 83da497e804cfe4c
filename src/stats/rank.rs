//! Rank correlation and quantile slices, for "do longer, more coupled classes fail more?".

/// Ranks 1..n, ties sharing their average rank (SciPy's `rankdata(method="average")`).
pub fn average_ranks(x: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_by(|&i, &j| x[i].total_cmp(&x[j]));
    let mut ranks = vec![0.0; x.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && x[order[end]] == x[order[start]] {
            end += 1;
        }
        // Positions start..end hold ranks start+1..=end.
        let avg = (start + 1 + end) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[i] = avg;
        }
        start = end;
    }
    ranks
}

/// Pearson's r; `None` for fewer than 2 points, unequal lengths, or a constant side.
pub fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len();
    if n < 2 || y.len() != n || x.iter().chain(y).any(|v| !v.is_finite()) {
        return None;
    }
    let (mx, my) = (
        x.iter().sum::<f64>() / n as f64,
        y.iter().sum::<f64>() / n as f64,
    );
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx).powi(2);
        syy += (b - my).powi(2);
    }
    if sxx <= 0.0 || syy <= 0.0 {
        return None;
    }
    Some((sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0))
}

/// Spearman's ρ: Pearson's r of the average ranks.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() != y.len() || x.iter().chain(y).any(|v| !v.is_finite()) {
        return None;
    }
    pearson(&average_ranks(x), &average_ranks(y))
}

/// The q-quantile of sorted data by linear interpolation (NumPy's default method).
pub fn quantile_sorted(sorted: &[f64], q: f64) -> Option<f64> {
    let n = sorted.len();
    if n == 0 || !q.is_finite() {
        return None;
    }
    let h = (n - 1) as f64 * q.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(n - 1);
    Some(sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo]))
}

/// Quantile bins: edges at the k/`bins` quantiles (duplicates from ties merged), and each
/// value's bin, intervals closed on the right as `pandas.qcut` makes them (the first
/// includes the minimum). Non-finite values get no bin.
#[derive(Debug, Clone, PartialEq)]
pub struct Bins {
    pub edges: Vec<f64>,
    pub assignment: Vec<Option<usize>>,
}

impl Bins {
    pub fn count(&self) -> usize {
        self.edges
            .len()
            .saturating_sub(1)
            .max(usize::from(!self.edges.is_empty()))
    }
}

pub fn quantile_bins(x: &[f64], bins: usize) -> Bins {
    let mut sorted: Vec<f64> = x.iter().copied().filter(|v| v.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let bins = bins.max(1);
    let mut edges: Vec<f64> = (0..=bins)
        .filter_map(|k| quantile_sorted(&sorted, k as f64 / bins as f64))
        .collect();
    edges.dedup();
    let interior = if edges.len() > 2 {
        &edges[1..edges.len() - 1]
    } else {
        &[][..]
    };
    let assignment = x
        .iter()
        .map(|&v| {
            v.is_finite()
                .then(|| interior.iter().filter(|&&e| e < v).count())
        })
        .collect();
    Bins { edges, assignment }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_with_ties() {
        assert_eq!(
            average_ranks(&[3.0, 1.0, 3.0, 2.0]),
            vec![3.5, 1.0, 3.5, 2.0]
        );
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), Some(-1.0));
        assert_eq!(spearman(&[1.0, 1.0], &[1.0, 2.0]), None);
    }

    #[test]
    fn bins_of_constant_data_are_one() {
        let b = quantile_bins(&[2.0, 2.0, 2.0], 4);
        assert_eq!(b.edges, vec![2.0]);
        assert_eq!(b.assignment, vec![Some(0); 3]);
        assert_eq!(b.count(), 1);
        assert!(quantile_bins(&[], 4).edges.is_empty());
    }
}
