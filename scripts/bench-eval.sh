#!/usr/bin/env bash
# Times, in one run, classlab's sandboxed `eval` of the four shared ClassEval model outputs
# against a plain baseline that runs each task's test module with `python -m unittest` in one
# sequential process per task, no sandbox (scripts/eval-baseline.py), on exactly the code
# classlab extracted and with the same time budget. Then the sandbox's per-suite overhead,
# from the 100 reference solutions run with one worker (cold and warm) vs the baseline.
# Last, the split harness against the in-process one (both warm, default workers), in the same
# run: the references and the four model outputs, time and the agreement of every test's outcome
# (scripts/harness-agreement.py), the machine's page faults during each evaluation (steadier
# than one run's wall time), and each harness's agreement, test class by test class, with
# the official ClassEval evaluator (scripts/official-agreement.py). Targets: split <= 10 % over
# in-process on the references, <= 25 % on the model outputs; agreement >= 99 %.
# `realclasseval`: the RealClassEval slices, every model, both harnesses: time and per-test
# agreement with the published reports (scripts/realclasseval-agreement.py; target: split no
# lower than in-process). RCE_SKIP=snippet_N,...: leave those tasks out (both harnesses).
#
# usage: scripts/bench-eval.sh [all|split|realclasseval]   (needs ../shared/data beside the
#        checkout; `split`: only the split-vs-in-process part; CLASSLAB_BIN=path: that binary,
#        no build)
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-all}"
case "$mode" in all|split|realclasseval) ;; *) echo "usage: $0 [all|split|realclasseval]" >&2; exit 2 ;; esac
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
faults() { awk '/^pgfault /{print $2}' /proc/vmstat 2> /dev/null || echo 0; }
run_eval() { # name, extra args… → seconds; the session dir in $work/$name, its JSON in
    local name="$1"; shift  # $work/$name.json, the machine's page faults meanwhile in
    mkdir -p "$work/$name"  # $work/$name.faults
    local t0 t1 f0
    f0=$(faults)
    t0=$(secs)
    "$bin" eval --json --sessions "$work/$name" --dataset "$data/ClassEval_data.json" "$@" \
        > "$work/$name.json" 2> /dev/null || true
    t1=$(secs)
    echo $(( $(faults) - f0 )) > "$work/$name.faults"
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

official() { # predictions name → the official evaluator's results for them
    local dir="$data/official_evaluator_results"
    case "$1" in
        reference) echo "$dir/reference.json" ;;
        GPT-4-Turbo_class_H_greedy) echo "$dir/gpt4t_classH.json" ;;
        CodeLlama-13b-Instruct-hf_class_H_greedy) echo "$dir/codellama13b_classH.json" ;;
        GPT-3.5-Turbo_method_I_greedy) echo "$dir/gpt35_methodI.json" ;;
        GPT-3.5-Turbo_method_C_greedy) echo "$dir/gpt35_methodC.json" ;;
    esac
}

split_vs_inproc() {
    printf '\nsplit vs in-process harness (warm, default workers); load before: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
    printf '%-42s %8s %8s %8s %15s %13s %15s %15s\n' "predictions" "inproc" "split" "cost" \
        "tests agree" "classes agree" "official split" "official inproc"
    for f in reference $models; do
        local i s
        i=$(run_eval "inproc-$f" --harness inproc --predictions "$(predictions "$f")")
        s=$(run_eval "split-$f" --harness split --predictions "$(predictions "$f")")
        python3 scripts/harness-agreement.py "$work/split-$f"/* "$work/inproc-$f"/* --list 50 \
            > "$work/agreement-$f.json"
        for h in split inproc; do
            python3 scripts/official-agreement.py "$work/$h-$f.json" "$(official "$f")" \
                > "$work/official-$h-$f.txt" || true
        done
        python3 - "$f" "$i" "$s" "$work/agreement-$f.json" "$work/official-split-$f.txt" \
            "$work/official-inproc-$f.txt" "$(cat "$work/inproc-$f.faults")" \
            "$(cat "$work/split-$f.faults")" <<'PY'
import json, sys
f, i, s, path = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
a = json.load(open(path))
official = [open(p).read().splitlines() for p in sys.argv[5:7]]
fi, fs = int(sys.argv[7]), int(sys.argv[8])
rate = [(o[-1].split()[0] if o else "?") for o in official]
target = 10 if f == "reference" else 25
cost = (s / i - 1) * 100
print("%-42s %7.1fs %7.1fs %+6.1f%%%s %6d/%-6d %6d/%-6d %15s %15s" % (
    f, i, s, cost, "!" if cost > target else " ", a["tests_agreeing"], a["tests"],
    a["test_classes_agreeing"], a["test_classes"], rate[0], rate[1]))
if fi > 0:
    # Steadier than one run's wall time: the machine's page faults during each evaluation.
    print("    page faults: inproc %d, split %d (%+.1f %%)" % (fi, fs, (fs / fi - 1) * 100))
for d in a["disagreements"]:
    print("    differs: %s %s: split %s, inproc %s" % (d["task"], d["test"], d["a"], d["b"]))
for h, o in zip(("split", "inproc"), official):
    for line in o[:-1]:
        print("    official vs %s:%s" % (h, line))
PY
    done
    printf 'load after: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
    echo "(cost target: <= 10 % on the references, <= 25 % on model outputs; '!' marks a miss;"
    echo " official: test classes agreeing with the official evaluator, target >= 99 %)"
}

realclasseval() {
    local rce=../shared/data/realclasseval python=.python/realclasseval/bin/python
    printf '\nRealClassEval, both harnesses (warm, default workers); load before: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
    printf '%-28s %8s %8s %15s %15s %15s %15s\n' "slice/model" "inproc" "split" \
        "inproc agree" "split agree" "inproc -EnvErr" "split -EnvErr"
    for slice in post_cut-off csn; do
        local tasks
        tasks=$(python3 - "$rce/$slice/classes_full_docstr.csv" "${RCE_SKIP:-}" <<'PY'
import csv, sys
skip = set(sys.argv[2].split(","))
rows = csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8"))
print(",".join(r["snippet_id"] for r in rows if r["snippet_id"] not in skip))
PY
)
        for gen in "$rce/$slice"/generated/*.csv; do
            local model name t
            model=$(basename "$gen" .csv)
            for h in inproc split; do
                name="rce-$h-$slice-$model"
                mkdir -p "$work/$name"
                t=$(secs)
                "$bin" --python "$python" eval --json --harness "$h" --sessions "$work/$name" \
                    --dataset "$rce/$slice" --predictions "$gen" --tasks "$tasks" \
                    > "$work/$name.json" 2> /dev/null || true
                python3 -c "print(round($(secs) - $t, 2))" > "$work/$name.secs"
                python3 scripts/realclasseval-agreement.py "$work/$name.json" \
                    "$rce/$slice/reports/$model.csv" --skip "${RCE_SKIP:-}" > "$work/$name.agree"
            done
            python3 - "$slice/$model" "$work/rce-inproc-$slice-$model" "$work/rce-split-$slice-$model" <<'PY'
import json, sys
row = [sys.argv[1]]
a = [json.load(open(p + ".agree")) for p in sys.argv[2:4]]
t = [float(open(p + ".secs").read()) for p in sys.argv[2:4]]
print("%-28s %7.1fs %7.1fs %15s %15s %15s %15s" % (
    sys.argv[1], t[0], t[1], *("%d/%d" % (x["agree"], x["tests"]) for x in a),
    *("%d/%d" % (x["agree_without_enverr"], x["tests_without_enverr"]) for x in a)))
PY
        done
    done
    python3 - "$work" <<'PY'
import glob, json, sys
for h in ("inproc", "split"):
    a = [json.load(open(p)) for p in sorted(glob.glob(sys.argv[1] + "/rce-%s-*.agree" % h))]
    n, k = sum(x["tests"] for x in a), sum(x["agree"] for x in a)
    n2, k2 = sum(x["tests_without_enverr"] for x in a), sum(x["agree_without_enverr"] for x in a)
    print("%s: %d/%d tests agree (%.1f %%); EnvErr tasks aside %d/%d (%.1f %%)"
          % (h, k, n, 100.0 * k / n, k2, n2, 100.0 * k2 / n2))
PY
    printf 'load after: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
}

if [ "$mode" = split ]; then
    split_vs_inproc
    exit 0
fi
if [ "$mode" = realclasseval ]; then
    realclasseval
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
