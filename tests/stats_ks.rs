//! The two-sample Kolmogorov–Smirnov test of `classlab::stats::ks` against SciPy's
//! `ks_2samp(method="exact")` and a NumPy percentile bootstrap on the same SplitMix64 draws
//! (`scripts/ks-reference.py` → `tests/fixtures/stats/ks.json`).

use classlab::stats::bootstrap::BootstrapSpec;
use classlab::stats::ks;
use serde_json::Value;

fn reference() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/stats/ks.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got}, want {want} (|Δ| = {})",
        (got - want).abs()
    );
}

#[test]
fn d_p_and_interval_match_scipy() {
    let cases = reference()["cases"].as_array().unwrap().clone();
    assert!(cases.len() >= 8);
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let spec = BootstrapSpec {
            resamples: c["resamples"].as_u64().unwrap() as usize,
            seed: c["seed"].as_u64().unwrap(),
        };
        let t = ks::two_sample(&floats(&c["a"]), &floats(&c["b"]), spec).unwrap();
        close(t.d, c["d"].as_f64().unwrap(), 1e-12, &format!("{name} d"));
        close(t.p, c["p"].as_f64().unwrap(), 1e-9, &format!("{name} p"));
        let (lo, hi) = t.ci95.unwrap();
        close(lo, c["lo"].as_f64().unwrap(), 1e-12, &format!("{name} lo"));
        close(hi, c["hi"].as_f64().unwrap(), 1e-12, &format!("{name} hi"));
    }
}

#[test]
fn large_samples_stay_exact_and_finite() {
    // Beyond SciPy's exact limit (10,000): still a probability, monotone in D.
    let a: Vec<f64> = (0..200).map(|i| f64::from(i % 37)).collect();
    let b: Vec<f64> = (0..30_000).map(|i| f64::from(i % 41)).collect();
    let d = ks::statistic(&a, &b).unwrap();
    let p = ks::p_exact(d, a.len(), b.len());
    assert!((0.0..=1.0).contains(&p), "{p}");
    assert!(ks::p_exact(d + 0.05, a.len(), b.len()) < p);
}
