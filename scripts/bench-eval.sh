#!/usr/bin/env bash
# Times, in one run, classlab's sandboxed `eval` of the four shared ClassEval model outputs
# against a plain baseline that runs each task's test module with `python -m unittest` in one
# sequential process per task, no sandbox (scripts/eval-baseline.py), on exactly the code
# classlab extracted and with the same time budget. Then the sandbox's per-suite overhead,
# from the 100 reference solutions run with one worker (cold and warm) vs the baseline.
# Last, the split harness against the in-process one (both warm, default workers), in the same
# run: the references and the four model outputs, time and the agreement of every test's outcome
# (scripts/harness-agreement.py). Targets: split <= 10 % over in-process on the references,
# <= 25 % on the model outputs.
#
# usage: scripts/bench-eval.sh [all|split]   (needs ../shared/data beside the checkout;
#        `split`: only the split-vs-in-process part; CLASSLAB_BIN=path: that binary, no build)
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-all}"
case "$mode" in all|split) ;; *) echo "usage: $0 [all|split]" >&2; exit 2 ;; esac
data=../shared/data/classeval
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [ -n "${CLASSLAB_BIN:-}" ]; then
    bin="$CLASSLAB_BIN"
else
    cargo build --release --quiet
    bin=target/release/classlab
fi

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

# The reference solutions as predictions.
python3 - "$data/ClassEval_data.json" "$work/reference.jsonl" <<'PY'
import json, sys
with open(sys.argv[2], "w") as out:
    for t in json.load(open(sys.argv[1])):
        out.write(json.dumps({"task_id": t["task_id"], "model": "reference", "code": t["solution_code"]}) + "\n")
PY
models="GPT-4-Turbo_class_H_greedy CodeLlama-13b-Instruct-hf_class_H_greedy
        GPT-3.5-Turbo_method_I_greedy GPT-3.5-Turbo_method_C_greedy"
predictions() { # name → the predictions file
    if [ "$1" = reference ]; then echo "$work/reference.jsonl"; else echo "$data/model_output/$1.json"; fi
}

split_vs_inproc() {
    printf '\nsplit vs in-process harness (warm, default workers)\n'
    printf '%-42s %8s %8s %8s %15s %13s\n' "predictions" "inproc" "split" "cost" "tests agree" "classes agree"
    for f in reference $models; do
        local i s
        i=$(run_eval "inproc-$f" --harness inproc --predictions "$(predictions "$f")")
        s=$(run_eval "split-$f" --harness split --predictions "$(predictions "$f")")
        python3 scripts/harness-agreement.py "$work/split-$f"/* "$work/inproc-$f"/* --list 50 \
            > "$work/agreement-$f.json"
        python3 - "$f" "$i" "$s" "$work/agreement-$f.json" <<'PY'
import json, sys
f, i, s, path = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
a = json.load(open(path))
target = 10 if f == "reference" else 25
cost = (s / i - 1) * 100
print("%-42s %7.1fs %7.1fs %+6.1f%%%s %6d/%-6d %6d/%-6d" % (
    f, i, s, cost, "!" if cost > target else " ", a["tests_agreeing"], a["tests"],
    a["test_classes_agreeing"], a["test_classes"]))
for d in a["disagreements"]:
    print("    differs: %s %s: split %s, inproc %s" % (d["task"], d["test"], d["a"], d["b"]))
PY
    done
    echo "(cost target: <= 10 % on the references, <= 25 % on model outputs; '!' marks a miss)"
}

if [ "$mode" = split ]; then
    split_vs_inproc
    exit 0
fi

printf '%-46s %9s %9s %9s %7s %7s\n' "file" "baseline" "warm" "cold" "x warm" "x cold"
for f in $models; do
    w=$(run_eval "warm-$f" --predictions "$data/model_output/$f.json")
    c=$(run_eval "cold-$f" --cold --predictions "$data/model_output/$f.json")
    b=$(baseline "warm-$f")
    python3 -c "print(f'%-46s %9.2f %9.2f %9.2f %6.2fx %6.2fx' % ('$f', $b, $w, $c, $b/$w, $b/$c))"
done

# Per-suite overhead: the reference solutions (they pass quickly), one worker, vs baseline.
w1=$(run_eval ref-warm --jobs 1 --predictions "$work/reference.jsonl")
c1=$(run_eval ref-cold --jobs 1 --cold --predictions "$work/reference.jsonl")
b1=$(baseline ref-warm)
python3 -c "
n = 100
print(f'reference solutions, one worker: baseline {$b1:.2f} s, warm {$w1:.2f} s, cold {$c1:.2f} s')
print(f'sandbox overhead per suite: warm {($w1 - $b1) / n * 1000:+.0f} ms, cold {($c1 - $b1) / n * 1000:+.0f} ms (negative: faster than a bare python -m unittest)')
"

split_vs_inproc
