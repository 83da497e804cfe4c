#!/usr/bin/env python3
"""Forged suites against hand-written ones, by `classlab rigor` in the same run.

usage: scripts/forge-vs-hand.py HAND.json FORGED.json

HAND.json and FORGED.json are `classlab --json rigor` outputs of the original dataset and of
the dataset `classlab forge` made from its references (same task ids, so the same references
and the same mutants). A task the forge dropped (in HAND, not in FORGED) counts as 0 for the
forged suites, as the forge issue asks; a task rigor could not analyse in HAND (its reference
fails its own tests here) is left out of both. Prints mutation score and branch coverage
(line where a task has no branches), mean and median, and the paired difference per task.
"""
import json
import statistics
import sys


def load(path):
    with open(path) as f:
        return json.load(f)["tasks"]


def branch(t):
    return t["branch"] if t.get("branch") is not None else t.get("line")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    hand, forged = load(sys.argv[1]), load(sys.argv[2])
    ids = sorted(t for t, v in hand.items() if v.get("score") is not None)
    dropped = [t for t in ids if t not in forged]
    rows = []
    for t in ids:
        f = forged.get(t)
        fs = (f or {}).get("score")
        rows.append((t, hand[t]["score"], fs if fs is not None else 0.0,
                     branch(hand[t]) or 0.0, (branch(f) or 0.0) if f else 0.0))
    print(f"{len(ids)} tasks with a score on the hand-written suites; "
          f"{len(dropped)} dropped by the forge (count 0): {', '.join(dropped) or '-'}")
    for name, i, k in [("mutation score", 1, 100.0), ("branch coverage", 3, 1.0)]:
        h = [r[i] * k for r in rows]
        g = [r[i + 1] * k for r in rows]
        d = [b - a for a, b in zip(h, g)]
        print(f"{name:16} hand-written mean {statistics.mean(h):5.1f} median {statistics.median(h):5.1f}"
              f" | forged mean {statistics.mean(g):5.1f} median {statistics.median(g):5.1f}"
              f" | forged - hand mean {statistics.mean(d):+5.1f}, forged higher on "
              f"{sum(x > 0 for x in d)}, equal {sum(x == 0 for x in d)}, lower {sum(x < 0 for x in d)}")


if __name__ == "__main__":
    main()
