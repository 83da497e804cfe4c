#!/usr/bin/env python3
"""Agreement of forged suites with a dataset's own tests on the same model outputs.

    scripts/forge-agreement.py OFFICIAL_SESSION FORGED_SESSION

Both arguments are eval session directories of the same predictions: one evaluated against the
dataset's own tests, one against the forged dataset. A class *passes* when every test of its
suite passes (outcome `Perfect`). Classes where either run is EnvErr (the environment, not the
model, failed) are left out, as the issue says. Prints, as JSON: of the classes the official
tests fail, the share the forged tests fail too; of those they pass, the share the forged tests
pass; and the ids of the disagreements (to study them one by one), each extra failure with
its first failing test's counterexample (the calls up to the first that differs from the
reference, expected and actual), which says whether the difference is real.
"""

import json
import sys


def outcomes(session_dir):
    """task id -> the class outcome of its first sample (`Perfect`, `Fail`, `EnvErr`, ...)."""
    out = {}
    with open(f"{session_dir}/events.jsonl") as f:
        for line in f:
            e = json.loads(line)
            if e.get("kind") == "task_finished" and e.get("sample", 0) == 0:
                out[e["task_id"]] = e["summary"]["outcome"]
    return out


def counterexamples(session_dir):
    """task id -> the first failing test's explanation: its counterexample block (the forged
    test module writes one into the message, or as a note into the traceback), else its
    exception and message."""
    out = {}
    with open(f"{session_dir}/events.jsonl") as f:
        for line in f:
            e = json.loads(line)
            if e.get("kind") != "test_run" or e.get("scope") != "private" \
                    or e.get("sample", 0) != 0:
                continue
            for t in e["result"]["tests"]:
                if t["outcome"] in ("pass", "skip", "xfail"):
                    continue
                text = "\n".join(x for x in (t.get("message"), t.get("traceback")) if x)
                at = text.find("counterexample: ")
                if at >= 0:
                    block = text[at:].split("\n")
                    end = next((i for i, l in enumerate(block)
                                if l.strip().startswith("actual:")), len(block) - 1)
                    shown = "\n".join(block[:end + 1])
                else:
                    shown = "%s: %s" % (t.get("exc_type"), (t.get("message") or "")[:300])
                out[e["task_id"]] = {"test": t["id"], "outcome": t["outcome"],
                                     "explanation": shown}
                break
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    official, forged = outcomes(sys.argv[1]), outcomes(sys.argv[2])
    explained = counterexamples(sys.argv[2])
    both = [t for t in official if t in forged
            and "EnvErr" not in (official[t], forged[t])]
    fail = [t for t in both if official[t] != "Perfect"]
    ok = [t for t in both if official[t] == "Perfect"]
    caught = [t for t in fail if forged[t] != "Perfect"]
    passed = [t for t in ok if forged[t] == "Perfect"]
    print(json.dumps({
        "classes": len(both),
        "left_out": sorted(set(official) ^ set(forged)
                           | {t for t in official if t in forged and t not in both}),
        "official_fail": len(fail),
        "forged_fail_of_those": len(caught),
        "fail_agreement": round(len(caught) / len(fail), 4) if fail else None,
        "official_pass": len(ok),
        "forged_pass_of_those": len(passed),
        "pass_agreement": round(len(passed) / len(ok), 4) if ok else None,
        "missed_failures": sorted(set(fail) - set(caught)),
        "extra_failures": {t: {"bucket": forged[t], **explained.get(t, {})}
                           for t in ok if forged[t] != "Perfect"},
    }, indent=1))


if __name__ == "__main__":
    main()
