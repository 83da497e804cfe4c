#!/usr/bin/env python3
"""Per-test agreement of one `classlab eval --json` run on a RealClassEval slice with the
published pytest report of the same model (`reports/<model>.csv`), counted as
tests/eval_realclasseval.rs counts it; also without the tasks classlab classed `EnvErr`
(issue 22's fidelity target: the split harness no lower than the in-process one). E.g.

    classlab --python .python/realclasseval/bin/python eval --json --harness split \\
        --dataset ../shared/data/realclasseval/csn \\
        --predictions ../shared/data/realclasseval/csn/generated/gpt-5.csv > ours.json
    scripts/realclasseval-agreement.py ours.json ../shared/data/realclasseval/csn/reports/gpt-5.csv

Prints JSON: tests, agreeing, and the same without EnvErr tasks, then each disagreement
(--list N, default 0). --skip snippet_N,...: tasks left out of the run (their report rows are
not counted)."""
import csv
import json
import sys

# pytest's report words for classlab's outcomes (pytest says `failed` for assertion failures
# and other exceptions alike, and for a strict xfail that passed).
AS_PYTEST = {"pass": "passed", "fail": "failed", "error": "failed", "xpass": "failed",
             "xfail": "xfailed", "skip": "skipped"}


def agreement(ours, report_path, skip=()):
    got, env_err = {}, set()
    for task, t in ours["tasks"].items():
        if t.get("outcome") == "EnvErr":
            env_err.add(task)
        for test in t.get("tests") or []:
            got[(task, test.get("id", ""))] = AS_PYTEST.get(test.get("outcome", ""), "not run")
    out = {"tests": 0, "agree": 0, "tests_without_enverr": 0, "agree_without_enverr": 0,
           "differ": []}
    with open(report_path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            snippet = row["file"].rsplit("/", 1)[-1]
            snippet = snippet[len("test_"):] if snippet.startswith("test_") else snippet
            snippet = snippet[:-3] if snippet.endswith(".py") else snippet
            if snippet in skip:
                continue
            # A collection error fails every test of the module.
            want = "failed" if row["status"] == "error" else row["status"]
            have = got.get((snippet, row["name"]), "missing")
            same = have == want
            out["tests"] += 1
            out["agree"] += same
            if snippet not in env_err:
                out["tests_without_enverr"] += 1
                out["agree_without_enverr"] += same
            if not same:
                out["differ"].append("%s::%s: report %s (%s), classlab %s" % (
                    snippet, row["name"], want, row["message"][:90], have))
    return out


def main():
    args = sys.argv[1:]
    shown, skip = 0, set()
    if "--list" in args:
        i = args.index("--list")
        shown = int(args[i + 1])
        del args[i:i + 2]
    if "--skip" in args:
        i = args.index("--skip")
        skip = set(args[i + 1].split(","))
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    with open(args[0], encoding="utf-8") as f:
        ours = json.load(f)
    a = agreement(ours, args[1], skip)
    a["differ"] = a["differ"][:shown]
    json.dump(a, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
