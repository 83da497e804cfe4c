//! Every statistic of `classlab::stats` against values computed independently with SciPy,
//! NumPy and statsmodels (`scripts/stats-reference.py` → `tests/fixtures/stats/reference.json`),
//! edge cases included: all pass, none pass, one cluster, zero discordant pairs.

use classlab::stats::bootstrap::{self, BootstrapSpec, SplitMix64};
use classlab::stats::{interval, multiple, paired, rank};
use serde_json::Value;

fn reference() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/stats/reference.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(f).collect()
}

fn close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got}, want {want} (|Δ| = {})",
        (got - want).abs()
    );
}

// statsmodels takes z = Φ⁻¹(0.975) = 1.95996398…, the issue fixes 1.959964: 1e-7 apart.
const TOL: f64 = 1e-9;
const TOL_Z: f64 = 1e-7;

#[test]
fn wilson_matches_statsmodels() {
    for c in reference()["wilson"].as_array().unwrap() {
        let (k, n) = (
            c["k"].as_u64().unwrap() as usize,
            c["n"].as_u64().unwrap() as usize,
        );
        let (lo, hi) = interval::wilson(k, n).unwrap();
        close(lo, f(&c["lo"]), TOL_Z, &format!("wilson lo {k}/{n}"));
        close(hi, f(&c["hi"]), TOL_Z, &format!("wilson hi {k}/{n}"));
    }
}

#[test]
fn clustered_and_naive_standard_errors_match() {
    for c in reference()["clustered"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let x = floats(&c["x"]);
        let g: Vec<u64> = c["clusters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        let obs: Vec<(u64, f64)> = g.into_iter().zip(x).collect();
        let m = interval::clustered_mean(&obs).unwrap();
        close(m.mean, f(&c["mean"]), TOL, name);
        close(m.se, f(&c["se"]), TOL, &format!("{name} se"));
        close(
            m.se_naive,
            f(&c["se_naive"]),
            TOL,
            &format!("{name} se_naive"),
        );
        close(m.ci95.0, f(&c["lo"]), TOL, &format!("{name} lo"));
        close(m.ci95.1, f(&c["hi"]), TOL, &format!("{name} hi"));
        match c["design_effect"].as_f64() {
            Some(d) => close(m.design_effect.unwrap(), d, 1e-7, &format!("{name} deff")),
            None => assert_eq!(m.design_effect, None, "{name}"),
        }
    }
}

#[test]
fn mcnemar_matches_statsmodels() {
    for c in reference()["mcnemar"].as_array().unwrap() {
        let (b, cc) = (
            c["b"].as_u64().unwrap() as usize,
            c["c"].as_u64().unwrap() as usize,
        );
        close(
            paired::mcnemar_exact(b, cc),
            f(&c["p"]),
            1e-12,
            &format!("mcnemar {b},{cc}"),
        );
    }
}

#[test]
fn paired_binary_matches() {
    for c in reference()["paired_binary"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let pairs: Vec<(bool, bool)> = floats(&c["a"])
            .into_iter()
            .zip(floats(&c["b"]))
            .map(|(a, b)| (a > 0.5, b > 0.5))
            .collect();
        let r = paired::paired_binary(&pairs).unwrap();
        close(r.a, f(&c["pa"]), TOL, name);
        close(r.b, f(&c["pb"]), TOL, name);
        close(r.diff, f(&c["diff"]), TOL, name);
        close(r.ci95.0, f(&c["lo"]), TOL, &format!("{name} lo"));
        close(r.ci95.1, f(&c["hi"]), TOL, &format!("{name} hi"));
        close(r.p, f(&c["p"]), 1e-12, &format!("{name} p"));
        close(r.cohens_h, f(&c["cohens_h"]), TOL, &format!("{name} h"));
        assert_eq!(
            r.only_a.len() as u64,
            c["only_a"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(
            r.only_b.len() as u64,
            c["only_b"].as_u64().unwrap(),
            "{name}"
        );
    }
}

#[test]
fn paired_clustered_difference_matches() {
    for c in reference()["paired_mean"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let g = c["clusters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap());
        let obs: Vec<(u64, f64, f64)> = g
            .zip(floats(&c["a"]).into_iter().zip(floats(&c["b"])))
            .map(|(g, (a, b))| (g, a, b))
            .collect();
        let r = paired::paired_mean(&obs).unwrap();
        close(r.a, f(&c["pa"]), TOL, name);
        close(r.b, f(&c["pb"]), TOL, name);
        close(r.diff.mean, f(&c["diff"]), TOL, name);
        close(r.diff.se, f(&c["se"]), TOL, &format!("{name} se"));
        close(
            r.diff.se_naive,
            f(&c["se_naive"]),
            TOL,
            &format!("{name} se_naive"),
        );
        close(r.diff.ci95.0, f(&c["lo"]), TOL, &format!("{name} lo"));
        close(r.diff.ci95.1, f(&c["hi"]), TOL, &format!("{name} hi"));
        close(r.p, f(&c["p"]), 1e-7, &format!("{name} p"));
        match c["cohens_dz"].as_f64() {
            Some(d) => close(r.cohens_dz.unwrap(), d, TOL, &format!("{name} dz")),
            None => assert_eq!(r.cohens_dz, None, "{name}"),
        }
    }
}

#[test]
fn holm_matches_statsmodels() {
    for c in reference()["holm"].as_array().unwrap() {
        let got = multiple::holm(&floats(&c["p"]));
        for (g, w) in got.iter().zip(floats(&c["adjusted"])) {
            close(*g, w, 1e-12, &format!("holm {}", c["p"]));
        }
    }
}

#[test]
fn spearman_matches_scipy() {
    for c in reference()["spearman"].as_array().unwrap() {
        let rho = rank::spearman(&floats(&c["x"]), &floats(&c["y"])).unwrap();
        close(rho, f(&c["rho"]), 1e-12, c["name"].as_str().unwrap());
    }
}

#[test]
fn quantile_bins_match_numpy() {
    for c in reference()["quantile_bins"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let b = rank::quantile_bins(&floats(&c["x"]), c["bins"].as_u64().unwrap() as usize);
        let edges = floats(&c["edges"]);
        assert_eq!(
            b.edges.len(),
            edges.len(),
            "{name}: {:?} vs {edges:?}",
            b.edges
        );
        for (g, w) in b.edges.iter().zip(&edges) {
            close(*g, *w, 1e-12, name);
        }
        let want: Vec<Option<usize>> = c["assignment"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| Some(v.as_u64().unwrap() as usize))
            .collect();
        assert_eq!(b.assignment, want, "{name}");
    }
}

#[test]
fn pass_at_k_matches_binomial_coefficients() {
    for c in reference()["pass_at_k"].as_array().unwrap() {
        let (n, cc, k) = (
            c["n"].as_u64().unwrap() as usize,
            c["c"].as_u64().unwrap() as usize,
            c["k"].as_u64().unwrap() as usize,
        );
        let got = classlab::metrics::functional::pass_at_k(n, cc, k).unwrap();
        close(
            got,
            f(&c["value"]),
            1e-12,
            &format!("pass@{k} n={n} c={cc}"),
        );
    }
}

#[test]
fn bootstrap_intervals_are_reproduced_from_an_independent_resampler() {
    let r = reference();
    let b = &r["bootstrap"];
    let mut g = SplitMix64::new(1);
    for want in b["splitmix64_seed1"].as_array().unwrap() {
        assert_eq!(g.next_u64().to_string(), want.as_str().unwrap());
    }
    for c in b["pass_at_k"].as_array().unwrap() {
        let tasks: Vec<(usize, usize)> = c["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    t[0].as_u64().unwrap() as usize,
                    t[1].as_u64().unwrap() as usize,
                )
            })
            .collect();
        let spec = BootstrapSpec {
            resamples: c["resamples"].as_u64().unwrap() as usize,
            seed: c["seed"].as_u64().unwrap(),
        };
        let k = c["k"].as_u64().unwrap() as usize;
        let p = bootstrap::pass_at_k(&tasks, k, spec).unwrap();
        close(p.estimate, f(&c["estimate"]), 1e-12, "pass@k estimate");
        close(p.ci95.0, f(&c["lo"]), 1e-12, "pass@k lo");
        close(p.ci95.1, f(&c["hi"]), 1e-12, "pass@k hi");
    }
    let s = &b["spearman"];
    let spec = BootstrapSpec {
        resamples: s["resamples"].as_u64().unwrap() as usize,
        seed: s["seed"].as_u64().unwrap(),
    };
    let (rho, (lo, hi)) = bootstrap::spearman_ci(&floats(&s["x"]), &floats(&s["y"]), spec).unwrap();
    close(rho, f(&s["rho"]), 1e-12, "rho");
    close(lo, f(&s["lo"]), 1e-9, "rho lo");
    close(hi, f(&s["hi"]), 1e-9, "rho hi");
}
