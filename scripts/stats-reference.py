#!/usr/bin/env python3
"""Reference values for classlab's statistics (src/stats), computed independently with
SciPy, NumPy and statsmodels. Writes tests/fixtures/stats/reference.json, which
tests/stats_reference.rs compares against.

    python3 -m venv /tmp/statsvenv && /tmp/statsvenv/bin/pip install scipy numpy statsmodels
    /tmp/statsvenv/bin/python scripts/stats-reference.py
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from splitmix64 import SplitMix64  # noqa: E402

import numpy as np
import scipy
import statsmodels
import statsmodels.api as sm
from scipy import stats
from scipy.special import comb
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

Z = 1.959964  # the constant; statsmodels uses norm.ppf(0.975)
OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "stats", "reference.json")
rng = np.random.default_rng(15)


def wilson_cases():
    cases = [(0, 1), (1, 1), (0, 10), (10, 10), (3, 10), (50, 100), (37, 100), (1, 100),
             (99, 100), (0, 100), (62, 100), (7, 13)]
    out = []
    for k, n in cases:
        lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
        out.append({"k": k, "n": n, "lo": float(lo), "hi": float(hi)})
    return out


def clustered(x, g):
    """se_naive and se_clustered two ways: the issue's formulas with NumPy, and statsmodels'
    OLS on a constant (cluster-robust without small-sample correction), which must agree."""
    x, g = np.asarray(x, float), np.asarray(g)
    n = len(x)
    m = x.mean()
    se_naive = math.sqrt(((x - m) ** 2).sum() / (n * (n - 1))) if n > 1 else 0.0
    sums = [(x[g == c] - m).sum() for c in np.unique(g)]
    se_cl = math.sqrt(sum(s * s for s in sums)) / n
    if n > 1 and len(np.unique(g)) > 1:
        X = np.ones((n, 1))
        fit = sm.OLS(x, X).fit(cov_type="cluster", cov_kwds={"groups": g, "use_correction": False})
        assert abs(fit.bse[0] - se_cl) < 1e-12, (fit.bse[0], se_cl)
        if x.std() > 0:
            assert abs(sm.OLS(x, X).fit().bse[0] - se_naive) < 1e-12
    return m, se_naive, se_cl


def clustered_cases():
    data = {
        "random": (rng.integers(0, 2, 60), np.repeat(np.arange(15), 4)),
        "uneven": (rng.integers(0, 2, 23), np.array([0] * 7 + [1] * 2 + [2] * 5 + [3] * 9)),
        "fractional": (rng.random(30), np.repeat(np.arange(6), 5)),
        "all_pass": (np.ones(12), np.repeat(np.arange(4), 3)),
        "none_pass": (np.zeros(12), np.repeat(np.arange(4), 3)),
        "one_cluster": (np.array([1, 0, 1, 1, 0]), np.zeros(5, int)),
        "singletons": (np.array([1, 0, 1, 1, 0, 0, 1]), np.arange(7)),
        "correlated": (np.repeat(rng.integers(0, 2, 10), 5), np.repeat(np.arange(10), 5)),
    }
    out = []
    for name, (x, g) in data.items():
        m, se_n, se_c = clustered(x, g)
        out.append({
            "name": name, "x": [float(v) for v in x], "clusters": [int(c) for c in g],
            "mean": m, "se_naive": se_n, "se": se_c,
            "lo": m - Z * se_c, "hi": m + Z * se_c,
            "design_effect": (se_c / se_n) ** 2 if se_n > 0 else None,
        })
    return out


def mcnemar_cases():
    out = []
    for b, c in [(0, 0), (0, 5), (5, 0), (3, 3), (7, 2), (12, 30), (1, 0), (40, 41), (0, 1), (9, 21)]:
        p = mcnemar(np.array([[10, b], [c, 10]]), exact=True).pvalue
        # The formula with SciPy's binomial, which must agree.
        n = b + c
        p2 = 1.0 if n == 0 else min(1.0, 2 * stats.binom.cdf(min(b, c), n, 0.5))
        assert abs(p - p2) < 1e-12
        out.append({"b": b, "c": c, "p": float(p)})
    return out


def paired_binary_cases():
    out = []
    for name, n in [("random", 40), ("small", 6)]:
        a = rng.integers(0, 2, n)
        b = np.where(rng.random(n) < 0.3, 1 - a, a)
        out.append(paired_binary(name, a, b))
    a = np.array([1, 0, 1, 1, 0])
    out.append(paired_binary("identical", a, a))
    out.append(paired_binary("b_dominates", np.zeros(8, int), np.array([1, 1, 1, 0, 1, 0, 1, 1])))
    return out


def paired_binary(name, a, b):
    n = len(a)
    d = b - a
    diff = d.mean()
    half = Z * math.sqrt(((d - diff) ** 2).sum()) / n
    only_a = int(((a == 1) & (b == 0)).sum())
    only_b = int(((a == 0) & (b == 1)).sum())
    p = mcnemar(np.array([[0, only_a], [only_b, 0]]), exact=True).pvalue
    h = 2 * math.asin(math.sqrt(b.mean())) - 2 * math.asin(math.sqrt(a.mean()))
    return {"name": name, "a": [int(v) for v in a], "b": [int(v) for v in b],
            "pa": a.mean(), "pb": b.mean(), "diff": diff, "lo": diff - half, "hi": diff + half,
            "p": float(p), "only_a": only_a, "only_b": only_b, "cohens_h": h}


def paired_mean_cases():
    out = []
    g = np.repeat(np.arange(12), 3)
    a = rng.integers(0, 2, 36).astype(float)
    b = np.where(rng.random(36) < 0.25, 1 - a, a)
    out.append(paired_mean("random", a, b, g))
    out.append(paired_mean("identical", a, a, g))
    g2 = np.array([0, 0, 1, 1, 1, 2, 3, 3])
    out.append(paired_mean("b_better", np.array([0, 0, 1, 0, 0, 1, 0, 1.0]),
                           np.array([1, 0, 1, 1, 1, 1, 1, 1.0]), g2))
    return out


def paired_mean(name, a, b, g):
    d = b - a
    m, se_n, se_c = clustered(d, g)
    p = 1.0 if (se_c == 0 and m == 0) else (0.0 if se_c == 0 else 2 * stats.norm.sf(abs(m / se_c)))
    sd = d.std(ddof=1)
    return {"name": name, "a": a.tolist(), "b": b.tolist(), "clusters": [int(c) for c in g],
            "pa": a.mean(), "pb": b.mean(), "diff": m, "se": se_c, "se_naive": se_n,
            "lo": m - Z * se_c, "hi": m + Z * se_c, "p": float(p),
            "cohens_dz": (m / sd) if sd > 0 else None}


def holm_cases():
    out = []
    for p in [[0.01, 0.04, 0.03], [0.2], [0.001, 0.5, 0.02, 0.04, 0.9, 0.0001], [0.05, 0.05],
              [1.0, 0.0]]:
        adj = multipletests(p, method="holm")[1]
        out.append({"p": p, "adjusted": [float(v) for v in adj]})
    return out


def spearman_cases():
    out = []
    x = rng.integers(1, 20, 30).astype(float)
    y = (x + rng.normal(0, 5, 30) > 10).astype(float)
    cases = {
        "ties_binary": (x, y),
        "perfect": (np.arange(8.0), np.arange(8.0) ** 2),
        "reversed": (np.arange(5.0), -np.arange(5.0)),
        "continuous": (rng.random(25), rng.random(25)),
        "ties_both": (np.array([1, 2, 2, 3, 3, 3, 4.0]), np.array([0, 1, 0, 1, 1, 0, 1.0])),
    }
    for name, (a, b) in cases.items():
        r = stats.spearmanr(a, b).statistic
        out.append({"name": name, "x": a.tolist(), "y": b.tolist(), "rho": float(r)})
    return out


def bins_cases():
    out = []
    for name, x, q in [
        ("loc", rng.integers(10, 400, 40).astype(float), 4),
        ("ties", np.array([1, 1, 1, 1, 2, 2, 3, 8, 9, 9.0]), 4),
        ("constant", np.full(6, 5.0), 3),
        ("quintiles", rng.random(23), 5),
    ]:
        edges = np.unique(np.quantile(x, np.linspace(0, 1, q + 1)))
        assign = np.searchsorted(edges[1:-1], x, side="left")
        out.append({"name": name, "x": x.tolist(), "bins": q, "edges": edges.tolist(),
                    "assignment": [int(v) for v in assign]})
    return out


def pass_at_k_cases():
    out = []
    for n, c, k in [(1, 0, 1), (1, 1, 1), (5, 2, 1), (5, 2, 3), (10, 3, 5), (10, 0, 5),
                    (10, 8, 5), (20, 1, 10), (200, 13, 100)]:
        out.append({"n": n, "c": c, "k": k,
                    "value": float(1 - comb(n - c, k, exact=True) / comb(n, k, exact=True))})
    return out


def bootstrap(values_fn, n, resamples, seed):
    g = SplitMix64(seed)
    got = []
    for _ in range(resamples):
        idx = [g.below(n) for _ in range(n)]
        v = values_fn(idx)
        if v is not None and math.isfinite(v):
            got.append(v)
    return float(np.percentile(got, 2.5)), float(np.percentile(got, 97.5))


def bootstrap_cases():
    g = SplitMix64(1)
    stream = [g.next() for _ in range(5)]
    tasks = [(5, 1), (5, 0), (5, 5), (5, 2), (5, 4), (5, 3), (5, 0), (5, 5)]
    out = {"splitmix64_seed1": [str(v) for v in stream], "pass_at_k": []}
    for k in [1, 3]:
        per = [1 - comb(n - c, k, exact=True) / comb(n, k, exact=True) for n, c in tasks]
        lo, hi = bootstrap(lambda ix: float(np.mean([per[i] for i in ix])), len(per), 2000, 20240101)
        out["pass_at_k"].append({"tasks": tasks, "k": k, "estimate": float(np.mean(per)),
                                 "lo": lo, "hi": hi, "resamples": 2000, "seed": 20240101})
    x = [3, 7, 7, 12, 20, 4, 9, 15, 1, 30, 11, 6.0]
    y = [1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 0, 1.0]

    def rho(ix):
        a, b = [x[i] for i in ix], [y[i] for i in ix]
        if len(set(a)) < 2 or len(set(b)) < 2:
            return None
        return float(stats.spearmanr(a, b).statistic)

    lo, hi = bootstrap(rho, len(x), 500, 7)
    out["spearman"] = {"x": x, "y": y, "rho": float(stats.spearmanr(x, y).statistic),
                       "lo": lo, "hi": hi, "resamples": 500, "seed": 7}
    return out


def main():
    ref = {
        "generated_by": "scripts/stats-reference.py",
        "versions": {"python": sys.version.split()[0], "numpy": np.__version__,
                     "scipy": scipy.__version__, "statsmodels": statsmodels.__version__},
        "z": Z,
        "wilson": wilson_cases(),
        "clustered": clustered_cases(),
        "mcnemar": mcnemar_cases(),
        "paired_binary": paired_binary_cases(),
        "paired_mean": paired_mean_cases(),
        "holm": holm_cases(),
        "spearman": spearman_cases(),
        "quantile_bins": bins_cases(),
        "pass_at_k": pass_at_k_cases(),
        "bootstrap": bootstrap_cases(),
    }
    with open(OUT, "w") as f:
        json.dump(ref, f, indent=1)
        f.write("\n")
    print(f"wrote {os.path.normpath(OUT)}")


if __name__ == "__main__":
    main()
