#!/usr/bin/env python3
"""Reference values for classlab's two-sample Kolmogorov-Smirnov test (src/stats/ks.rs),
computed independently with SciPy and NumPy. Writes tests/fixtures/stats/ks.json, which
tests/stats_ks.rs compares against.

    .python/classeval/bin/python scripts/ks-reference.py     (any Python with scipy, numpy)

`D` and `p` are scipy.stats.ks_2samp(a, b, method="exact"); the bootstrap interval re-draws
each sample with SplitMix64 (first sample's indices, then the second's, per resample) and
takes NumPy's linear 2.5 / 97.5 percentiles, as classlab does.
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from splitmix64 import SplitMix64  # noqa: E402

import numpy as np
import scipy
from scipy import stats

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "stats", "ks.json")
def boot(a, b, resamples, seed):
    g = SplitMix64(seed)
    got = []
    for _ in range(resamples):
        x = [a[g.below(len(a))] for _ in a]
        y = [b[g.below(len(b))] for _ in b]
        got.append(float(stats.ks_2samp(x, y, method="asymp").statistic))
    return float(np.percentile(got, 2.5)), float(np.percentile(got, 97.5))


def case(name, a, b, resamples=300, seed=20240101):
    r = stats.ks_2samp(a, b, method="exact")
    lo, hi = boot(a, b, resamples, seed)
    return {"name": name, "a": [float(v) for v in a], "b": [float(v) for v in b],
            "d": float(r.statistic), "p": float(r.pvalue), "lo": lo, "hi": hi,
            "resamples": resamples, "seed": seed}


def main():
    rng = np.random.default_rng(24)
    cases = [
        case("disjoint", [1, 2], [5, 6, 7]),
        case("identical", [1, 2, 3, 4], [4, 3, 2, 1]),
        case("ties", [1, 1, 2, 2, 3, 5, 8], [1, 2, 2, 3, 3, 3, 4, 9, 9]),
        case("normal_shift", list(rng.normal(0, 1, 40)), list(rng.normal(0.5, 1, 55))),
        case("same_normal", list(rng.normal(0, 1, 60)), list(rng.normal(0, 1, 60))),
        case("counts_like_methods", list(rng.poisson(6, 50)), list(rng.poisson(6, 300))),
        case("skewed", list(rng.lognormal(1, 1, 30)), list(rng.lognormal(1.3, 1, 90))),
        case("sample_vs_rest", list(rng.integers(1, 40, 120)), list(rng.integers(1, 45, 900)),
             resamples=100),
    ]
    ref = {"generated_by": "scripts/ks-reference.py",
           "versions": {"python": sys.version.split()[0], "numpy": np.__version__,
                        "scipy": scipy.__version__},
           "cases": cases}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(ref, f, indent=1)
        f.write("\n")
    print(f"wrote {os.path.normpath(OUT)}")


if __name__ == "__main__":
    main()
