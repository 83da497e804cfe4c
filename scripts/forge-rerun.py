#!/usr/bin/env python3
"""No false failures: evaluate a forged dataset's references against its own generated tests
N times, as `classlab eval` does, and count every test that does not pass.

    scripts/forge-rerun.py DATASET [--runs 10] [--harness inproc|split|both] [--classlab BIN]
                           [--sessions DIR] [--jobs N]

Each run is an ordinary `classlab eval` of the references (written once as ClassEval-style
predictions next to the sessions) with another PYTHONHASHSEED (`--hash-seed k`), fresh work
directories (every suite gets its own), and on odd runs the test classes in reverse order (a
copy of the dataset with `test_classes` reversed); with `--harness both` the runs alternate
between the in-process and the split harness. Prints, as JSON: the runs, the tests judged,
and every test that failed or errored (task, test, run, harness, outcome, message): a forged
test must pass on its reference every time, so `false_failures` must be 0.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dataset")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--harness", choices=["inproc", "split", "both"], default="both")
    ap.add_argument("--classlab", default=os.environ.get("CLASSLAB", "classlab"))
    ap.add_argument("--sessions", default=None)
    ap.add_argument("--jobs", type=int, default=None)
    args = ap.parse_args()

    with open(args.dataset) as f:
        doc = json.load(f)
    tasks = doc["tasks"] if isinstance(doc, dict) else doc
    work = args.sessions or tempfile.mkdtemp(prefix="forge-rerun-")
    os.makedirs(work, exist_ok=True)
    predictions = os.path.join(work, "references.json")
    with open(predictions, "w") as f:
        json.dump([{"task_id": t["task_id"], "predict": [t["solution_code"]]} for t in tasks], f)
    reversed_doc = json.loads(json.dumps(doc))
    for t in (reversed_doc["tasks"] if isinstance(doc, dict) else reversed_doc):
        t["test_classes"] = list(reversed(t.get("test_classes") or []))
    reversed_path = os.path.join(work, "dataset-reversed.json")
    with open(reversed_path, "w") as f:
        json.dump(reversed_doc, f)

    failing, judged, runs = [], 0, []
    for k in range(1, args.runs + 1):
        harness = args.harness if args.harness != "both" else ("inproc", "split")[k % 2 == 0]
        dataset = reversed_path if k % 2 == 1 else args.dataset
        cmd = [args.classlab, "--json", "eval", "--dataset", dataset, "--predictions",
               predictions, "--sessions", os.path.join(work, "sessions"), "--hash-seed", str(k),
               "--harness", harness]
        if args.jobs:
            cmd += ["--jobs", str(args.jobs)]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode not in (0, 1):
            sys.exit("run %d failed (exit %d): %s" % (k, out.returncode, out.stderr[-2000:]))
        result = json.loads(out.stdout)
        runs.append({"run": k, "harness": harness, "reversed": k % 2 == 1,
                     "session": result.get("session")})
        for task_id, t in sorted(result.get("tasks", {}).items()):
            for test in t.get("tests", []):
                judged += 1
                if test["outcome"] not in ("pass", "skip"):
                    failing.append({"task": task_id, "test": test["id"], "run": k,
                                    "harness": harness, "outcome": test["outcome"],
                                    "message": (test.get("message") or "")[:500]})
            if t.get("failure"):
                failing.append({"task": task_id, "test": None, "run": k, "harness": harness,
                                "outcome": "suite failure", "message": json.dumps(t["failure"])[:500]})
    print(json.dumps({"dataset": args.dataset, "runs": runs, "tests_judged": judged,
                      "false_failures": len(failing), "failing": failing}, indent=1))


if __name__ == "__main__":
    main()
