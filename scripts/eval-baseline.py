#!/usr/bin/env python3
"""The baseline of scripts/bench-eval.sh: each task's tests run with `python -m unittest` in
one sequential process per task, no sandbox — on exactly the modules a classlab session ran
(read from its `code_extracted` events), with the same wall-clock limit per task.

usage: eval-baseline.py SESSION_DIR DATASET_JSON [--class-budget SECS]
The limit per task is the budget times its number of test classes, plus 5 s (what classlab
gives a suite's CPU).
Prints: tasks, seconds, and how many processes ended ok / failed / timed out."""
import json
import os
import subprocess
import sys
import tempfile
import time


def main():
    args = sys.argv[1:]
    budget = 5.0
    if "--class-budget" in args:
        i = args.index("--class-budget")
        budget = float(args[i + 1])
        del args[i:i + 2]
    session, dataset = args
    tasks = {t["task_id"]: t for t in json.load(open(dataset, encoding="utf-8"))}
    codes = {}
    with open(os.path.join(session, "events.jsonl"), encoding="utf-8") as f:
        for line in f:
            ev = json.loads(line)
            if ev.get("kind") == "code_extracted":
                codes[ev["task_id"]] = ev["code"]
    counts = {"ok": 0, "failed": 0, "timeout": 0}
    start = time.perf_counter()
    for task_id, code in codes.items():
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "test_classeval.py"), "w", encoding="utf-8") as f:
                f.write(code + "\n\n" + tasks[task_id]["test"])
            timeout = budget * max(len(tasks[task_id]["test_classes"]), 1) + 5.0
            try:
                p = subprocess.run([sys.executable, "-m", "unittest", "-q", "test_classeval"], cwd=d,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, timeout=timeout)
                counts["ok" if p.returncode == 0 else "failed"] += 1
            except subprocess.TimeoutExpired:
                counts["timeout"] += 1
    elapsed = time.perf_counter() - start
    print(json.dumps({"tasks": len(codes), "seconds": round(elapsed, 3), **counts}))


if __name__ == "__main__":
    main()
