#!/usr/bin/env python3
"""Agreement between two classlab evaluation sessions of the same predictions, e.g. one run with
`--harness split` and one with `--harness inproc` (scripts/bench-eval.sh): every test's outcome
(pass, fail, error, ...) compared between the two, from the sessions' `test_run` events (the
last result of each suite, as a resume leaves it).

usage: harness-agreement.py SESSION_DIR_A SESSION_DIR_B [--list N]
Prints JSON: tests compared, tests agreeing, test classes (unittest TestCase classes, one per
task and class name) compared and agreeing (every test of the class has the same outcome), the
fraction of each, suites in only one session, and the first N disagreements (default 20)."""
import json
import os
import sys


def outcomes(session):
    """(task, sample, test id) -> outcome, from the private suites' last results."""
    out = {}
    with open(os.path.join(session, "events.jsonl"), encoding="utf-8") as f:
        for line in f:
            ev = json.loads(line)
            if ev.get("kind") != "test_run" or ev.get("scope") != "private":
                continue
            key = (ev["task_id"], ev.get("sample", 0))
            # A later result of the same suite (a resume) replaces the earlier one.
            for k in [k for k in out if k[:2] == key]:
                del out[k]
            for t in ev["result"]["tests"]:
                out[key + (t["id"],)] = t["outcome"]
    return out


def test_class(key):
    task, sample, test = key
    return (task, sample, test.rsplit(".", 1)[0] if "." in test else test)


def main():
    args = sys.argv[1:]
    shown = 20
    if "--list" in args:
        i = args.index("--list")
        shown = int(args[i + 1])
        del args[i:i + 2]
    a_dir, b_dir = args
    a, b = outcomes(a_dir), outcomes(b_dir)
    suites_a = {k[:2] for k in a}
    suites_b = {k[:2] for k in b}
    common = sorted(k for k in a.keys() | b.keys() if k[:2] in suites_a & suites_b)
    agree = [k for k in common if a.get(k) == b.get(k)]
    classes = {}
    for k in common:
        c = test_class(k)
        classes[c] = classes.get(c, True) and a.get(k) == b.get(k)
    differ = [
        {"task": k[0], "sample": k[1], "test": k[2], "a": a.get(k), "b": b.get(k)}
        for k in common
        if a.get(k) != b.get(k)
    ]
    print(json.dumps({
        "tests": len(common),
        "tests_agreeing": len(agree),
        "test_agreement": round(len(agree) / len(common), 4) if common else None,
        "test_classes": len(classes),
        "test_classes_agreeing": sum(classes.values()),
        "class_agreement": round(sum(classes.values()) / len(classes), 4) if classes else None,
        "suites_only_in_a": len(suites_a - suites_b),
        "suites_only_in_b": len(suites_b - suites_a),
        "disagreements": differ[:shown],
    }, indent=1))


if __name__ == "__main__":
    main()
