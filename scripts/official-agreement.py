#!/usr/bin/env python3
"""Test-class agreement of one `classlab eval --json` output with the official ClassEval
evaluator's results on this kind of machine (../shared/data/classeval/official_evaluator_results),
as tests/eval_classeval.rs counts it: a test class agrees when its answer (success, partial,
fail, error) is the official one. Use it to measure a harness other than the default, e.g.

    classlab eval --json --harness split --predictions OUT.json > ours.json
    scripts/official-agreement.py ours.json ../shared/data/classeval/official_evaluator_results/F.json

Prints: test classes, agreeing, the rate, and each disagreement (the explained ones of
tests/eval_classeval.rs marked as such)."""
import json
import sys

# tests/eval_classeval.rs's EXPLAINED: (task, test class or "*").
EXPLAINED = {("ClassEval_22", "*"), ("ClassEval_50", "JSONProcessorTestWriteJson"),
             ("ClassEval_58", "*")}


def main():
    ours = json.load(open(sys.argv[1], encoding="utf-8"))
    official = json.load(open(sys.argv[2], encoding="utf-8"))
    total = agree = 0
    for task, t in official["tasks"].items():
        for cls, v in t["samples"]["0"]["test_classes"].items():
            total += 1
            want = v["answer"]
            got = ours["tasks"].get(task, {}).get("test_classes", {}).get(cls, {})
            got = got.get("answer", "missing") if isinstance(got, dict) else "missing"
            if want == got:
                agree += 1
                continue
            why = "explained" if (task, "*") in EXPLAINED or (task, cls) in EXPLAINED else "UNEXPLAINED"
            print("  %s %s %s: official %s, classlab %s" % (why, task, cls, want, got))
    print("%d/%d test classes agree (%.2f %%)" % (agree, total, 100.0 * agree / total))


if __name__ == "__main__":
    main()
