#!/usr/bin/env bash
# Times, in one run, classlab's sandboxed `eval` of the four shared ClassEval model outputs
# against a plain baseline that runs each task's test module with `python -m unittest` in one
# sequential process per task, no sandbox (scripts/eval-baseline.py), on exactly the code
# classlab extracted and with the same time budget. Then the sandbox's per-suite overhead,
# from the 100 reference solutions run with one worker (cold and warm) vs the baseline.
#
# usage: scripts/bench-eval.sh        (needs ../shared/data beside the checkout)
set -euo pipefail
cd "$(dirname "$0")/.."
data=../shared/data/classeval
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cargo build --release --quiet
bin=target/release/classlab

secs() { python3 -c "import sys,time; print(time.time())"; }
run_eval() { # name, extra args… → seconds; the session dir in $work/$name
    local name="$1"; shift
    mkdir -p "$work/$name"
    local t0 t1
    t0=$(secs)
    "$bin" eval --sessions "$work/$name" --dataset "$data/ClassEval_data.json" "$@" > /dev/null 2>&1 || true
    t1=$(secs)
    python3 -c "print(round($t1 - $t0, 2))"
}
baseline() { # session name → seconds
    python3 scripts/eval-baseline.py "$work/$1"/* "$data/ClassEval_data.json" \
        | python3 -c "import json,sys; print(json.load(sys.stdin)['seconds'])"
}

printf '%-46s %9s %9s %9s %7s %7s\n' "file" "baseline" "warm" "cold" "x warm" "x cold"
for f in GPT-4-Turbo_class_H_greedy CodeLlama-13b-Instruct-hf_class_H_greedy \
         GPT-3.5-Turbo_method_I_greedy GPT-3.5-Turbo_method_C_greedy; do
    w=$(run_eval "warm-$f" --predictions "$data/model_output/$f.json")
    c=$(run_eval "cold-$f" --cold --predictions "$data/model_output/$f.json")
    b=$(baseline "warm-$f")
    python3 -c "print(f'%-46s %9.2f %9.2f %9.2f %6.2fx %6.2fx' % ('$f', $b, $w, $c, $b/$w, $b/$c))"
done

# Per-suite overhead: the reference solutions (they pass quickly), one worker, vs baseline.
python3 - "$data/ClassEval_data.json" "$work/reference.jsonl" <<'PY'
import json, sys
with open(sys.argv[2], "w") as out:
    for t in json.load(open(sys.argv[1])):
        out.write(json.dumps({"task_id": t["task_id"], "model": "reference", "code": t["solution_code"]}) + "\n")
PY
w1=$(run_eval ref-warm --jobs 1 --predictions "$work/reference.jsonl")
c1=$(run_eval ref-cold --jobs 1 --cold --predictions "$work/reference.jsonl")
b1=$(baseline ref-warm)
python3 -c "
n = 100
print(f'reference solutions, one worker: baseline {$b1:.2f} s, warm {$w1:.2f} s, cold {$c1:.2f} s')
print(f'sandbox overhead per suite: warm {($w1 - $b1) / n * 1000:+.0f} ms, cold {($c1 - $b1) / n * 1000:+.0f} ms (negative: faster than a bare python -m unittest)')
"
