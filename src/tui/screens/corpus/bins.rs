//! The distribution panel's bins. Class metrics are counts with a long tail (12,440 classes
//! of a site-packages: 11,820 under a twentieth of the largest `CountLineCode`), so equal-width
//! bins put nearly everything in the first bar. A column of non-negative values that spans
//! more than [`LINEAR_BINS`] units gets powers-of-two bins instead — `[0, 1)`, `[1, 2)`,
//! `[2, 4)`, `[4, 8)` … — which show the shape of the tail and have round edges; a narrow
//! column (a share in 0..1, a small count) keeps equal-width bins.

/// Equal-width bins of a narrow column.
pub const LINEAR_BINS: usize = 20;

/// A histogram with its bin edges: bin i is `[edges[i], edges[i + 1])`, the last one closed.
#[derive(Debug, Clone, PartialEq)]
pub struct Bins {
    pub column: String,
    /// `counts.len() + 1` edges, ascending.
    pub edges: Vec<f64>,
    pub counts: Vec<u64>,
    /// Powers-of-two bins (else equal-width).
    pub log: bool,
}

impl Bins {
    pub fn min(&self) -> f64 {
        self.edges.first().copied().unwrap_or(0.0)
    }

    pub fn max(&self) -> f64 {
        self.edges.last().copied().unwrap_or(0.0)
    }
}

/// The bins of `values` (one pass for the range, one to count).
pub fn bins_of(column: &str, values: impl Iterator<Item = f64> + Clone) -> Bins {
    let (mut min, mut max, mut n) = (f64::INFINITY, f64::NEG_INFINITY, 0usize);
    for v in values.clone().filter(|v| v.is_finite()) {
        min = min.min(v);
        max = max.max(v);
        n += 1;
    }
    if n == 0 {
        return Bins {
            column: column.into(),
            edges: vec![0.0, 0.0],
            counts: vec![0],
            log: false,
        };
    }
    let edges = if min >= 0.0 && max - min > LINEAR_BINS as f64 {
        log_edges(min, max)
    } else {
        let width = if max > min {
            (max - min) / LINEAR_BINS as f64
        } else {
            1.0
        };
        (0..=LINEAR_BINS).map(|i| min + i as f64 * width).collect()
    };
    let log = min >= 0.0 && max - min > LINEAR_BINS as f64;
    let last = edges.len() - 2;
    let mut counts = vec![0u64; edges.len() - 1];
    for v in values.filter(|v| v.is_finite()) {
        // The bin whose lower edge is the last at or below v (`partition_point`: binary search).
        let b = edges.partition_point(|e| *e <= v).saturating_sub(1).min(last);
        counts[b] += 1;
    }
    Bins {
        column: column.into(),
        edges,
        counts,
        log,
    }
}

/// 0 (when the minimum is below 1), then the powers of two from the one at or below the
/// minimum to the first above the maximum.
fn log_edges(min: f64, max: f64) -> Vec<f64> {
    let mut edges = Vec::new();
    let mut e = if min < 1.0 {
        edges.push(0.0);
        1.0
    } else {
        2f64.powi(min.log2().floor() as i32)
    };
    loop {
        edges.push(e);
        if e > max {
            break;
        }
        e *= 2.0;
    }
    edges
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_tail_gets_powers_of_two() {
        // 11,820 small classes and a few huge ones (a site-packages' CountLineCode).
        let values: Vec<f64> = (0..11_820)
            .map(|i| f64::from(i % 40))
            .chain((0..620).map(|i| f64::from(40 + i * 9)))
            .collect();
        let b = bins_of("CountLineCode", values.iter().copied());
        assert!(b.log);
        assert_eq!(&b.edges[..5], &[0.0, 1.0, 2.0, 4.0, 8.0]);
        assert_eq!(b.counts.iter().sum::<u64>(), values.len() as u64);
        assert_eq!(b.counts[0], 11_820u64.div_ceil(40), "the zeros");
        assert_eq!(b.counts[1], 11_820u64.div_ceil(40), "the ones");
        // No bar holds most of the classes, unlike 20 equal-width bins (11,820 in the first).
        let peak = *b.counts.iter().max().unwrap();
        assert!(peak < 5_000, "{:?}", b.counts);
        assert!(b.max() > 5_000.0);
    }

    #[test]
    fn a_narrow_column_keeps_equal_width_bins_and_every_value_counts() {
        let values = [0.0, 0.25, 0.5, 1.0, 1.0];
        let b = bins_of("doc", values.iter().copied());
        assert!(!b.log);
        assert_eq!(b.counts.len(), LINEAR_BINS);
        assert_eq!(b.counts.iter().sum::<u64>(), 5);
        assert_eq!(b.counts[LINEAR_BINS - 1], 2, "the maximum is in the last bin");
        let empty = bins_of("x", std::iter::empty());
        assert_eq!(empty.counts.iter().sum::<u64>(), 0);
        let one = bins_of("x", [7.0].into_iter());
        assert_eq!(one.counts.iter().sum::<u64>(), 1);
        let big = bins_of("x", [3.0, 100.0, 1000.0].into_iter());
        assert!(big.log);
        assert_eq!(big.min(), 2.0);
        assert_eq!(big.counts.iter().sum::<u64>(), 3);
    }
}
