"""After exploration: hunt the mutants classlab sent, select a small suite (greedy cover of arcs,
killed mutants and one sequence ending in each public method), shrink each selected sequence to
its shortest form that keeps its goals, and replay the result to drop what varies."""

import time

from forge_mutants import MutantHunt, lines_of
from forge_runner import assertions, holds, usable
from forge_values import last_method, unclock


def finish(plan, ex, runner, deadline):
    out = {"deadline_hit": False}
    hunt = MutantHunt(runner, plan.get("mutants", []))
    goals = [{("arc",) + a for a in arcs} for _, _, arcs in ex.corpus]
    if hunt.live:
        for mid, idx in hunt.hunt(ex.corpus).items():
            goals[idx].add(("mutant", mid))
        out["deadline_hit"] = hunt_more(plan, ex, runner, hunt, goals, deadline)
    for idx, (seq, trace, arcs) in enumerate(ex.corpus):
        if last_method(seq) and trace and trace[-1].get("out") in ("ret", "exc"):
            goals[idx].add(("method", last_method(seq)))
    chosen = greedy(goals, ex.corpus)
    tests = []
    for idx, assigned in chosen:
        seq, trace, arcs = ex.corpus[idx]
        if time.monotonic() <= deadline:
            seq, trace = shrink(seq, trace, assigned, runner, hunt)
        tests.append({"seq": seq, "trace": trace, "goals": sorted(map(list, assigned))})
    out["tests"], out["unstable"] = stabilise(tests, runner)
    out["coverage"] = measure(runner, out["tests"])
    out["arcs_reached"] = sorted(map(list, ex.covered))
    killed = set()
    for t in out["tests"]:
        killed |= {g[1] for g in t["goals"] if g[0] == "mutant"}
    out["mutants"] = {"given": len(hunt.mutants), "dead_on_import": len(hunt.dead_on_import),
                      "killed_by_selection": len(killed), "live": sorted(hunt.live),
                      "unruly": sorted(hunt.unruly)}
    out["methods_without_test"] = sorted(
        m["name"] for m in ex.methods
        if not any(last_method(t["seq"]) == m["name"] for t in out["tests"]))
    return out


def hunt_more(plan, ex, runner, hunt, goals, deadline, batch_size=16):
    """Rounds aimed at the mutants still alive: each varies a kept sequence that executes a
    live mutant's lines (new arguments for one call, a new tail, another constructor call);
    every batch of usable variants runs on the live mutants, and a variant that kills one
    joins the corpus with that goal. Returns whether the deadline cut the hunt short."""
    batch = []
    rounds = plan.get("mutant_iterations", 300)
    for n in range(1, rounds + 1):
        targets = hunt.huntable()
        if not targets:
            break
        if time.monotonic() > deadline:
            return True
        seq, res = ex.run_repaired(variant(ex, hunt, ex.rng.choice(targets)))
        if usable(res, runner.documented):
            batch.append((seq, res["trace"], set(res["arcs"])))
        if batch and (len(batch) >= batch_size or n == rounds):
            for mid, i in sorted(hunt.hunt(batch).items()):
                if not isinstance(batch[i], int):
                    ex.corpus.append(batch[i])
                    goals.append({("arc",) + a for a in batch[i][2]})
                    batch[i] = len(ex.corpus) - 1
                goals[batch[i]].add(("mutant", mid))
            batch = []
    return False


def variant(ex, hunt, mid):
    """A sequence aimed at mutant `mid`: a variation of a kept sequence that executes its
    lines (a fresh sequence when none does)."""
    rng = ex.rng
    want = hunt.lines(mid)
    near = [seq for seq, _, arcs in ex.corpus if want & lines_of(arcs)]
    if not near or not ex.methods:
        return fresh_sequence(ex)
    base = rng.choice(near)
    seq = {"init": base["init"], "init_kwargs": base.get("init_kwargs", {}),
           "calls": list(base["calls"])}
    ex.resume(seq)  # new calls may reuse the keys this sequence stored
    how = rng.random()
    by_name = {m["name"]: m for m in ex.methods}
    if how < 0.4 and seq["calls"]:
        k = rng.randrange(len(seq["calls"]))
        m = by_name.get(seq["calls"][k]["method"])
        if seq["calls"][k].get("set"):
            # another field setting, from the state the calls before it leave
            assign = ex.new_set(ex.runner.run(dict(seq, calls=seq["calls"][:k])))
            if assign is not None:
                seq["calls"][k] = assign
        elif m is not None and m.get("kind") != "property":
            a, kw = ex.args(m, [])
            seq["calls"][k] = {"method": m["name"], "args": a, "kwargs": kw}
    elif how < 0.8:
        keep = rng.randint(0, len(seq["calls"]))
        seq["calls"] = seq["calls"][:keep]
        for _ in range(rng.randint(1, 2)):
            if len(seq["calls"]) < ex.max_calls:
                seq["calls"].append(ex.new_call([]))
    else:
        a, kw = ex.args(ex.plan["init"], [])
        seq["init"], seq["init_kwargs"] = a, kw
    return seq


def fresh_sequence(ex):
    ex.resume(None)
    a, k = ex.args(ex.plan["init"], [])
    seq = {"init": a, "init_kwargs": k, "calls": []}
    for _ in range(ex.rng.randint(1, ex.max_calls)):
        if not ex.methods:
            break
        seq["calls"].append(ex.new_call([]))
    return seq


def greedy(goals, corpus):
    """Repeatedly the sequence that reaches the most goals not yet reached (ties: fewer calls,
    then earlier); each chosen one keeps the goals it was chosen for."""
    reached = set()
    chosen = []
    left = set(range(len(goals)))
    while left:
        best, gain = None, set()
        for i in sorted(left):
            g = goals[i] - reached
            if len(g) > len(gain) or (g and len(g) == len(gain) and
                                      len(corpus[i][0]["calls"]) < len(corpus[best][0]["calls"])):
                best, gain = i, g
        if best is None:
            break
        chosen.append((best, gain))
        reached |= gain
        left.discard(best)
    return chosen


def shrink(seq, trace, assigned, runner, hunt):
    """Drop calls (last first) while the sequence still reaches every goal it was chosen for
    and its last call is still to the same method."""
    target = last_method(seq)
    best, best_trace = seq, trace
    changed = True
    while changed:
        changed = False
        for i in range(len(best["calls"]) - 1, -1, -1):
            calls = best["calls"][:i] + best["calls"][i + 1:]
            if _refers_to(calls, i + 1):
                continue
            cand = {"init": best["init"], "init_kwargs": best.get("init_kwargs", {}),
                    "calls": _renumber(calls, i + 1)}
            if target and last_method(cand) != target:
                continue
            res = runner.run(cand)
            if not usable(res, runner.documented) or not keeps(cand, res, assigned, hunt):
                continue
            best, best_trace, changed = cand, res["trace"], True
            break
    return best, best_trace


def keeps(seq, res, assigned, hunt):
    arcs = res["arcs"]
    for g in assigned:
        if g[0] == "arc" and (g[1], g[2]) not in arcs:
            return False
        if g[0] == "method" and last_method(seq) != g[1]:
            return False
    mutants = {g[1] for g in assigned if g[0] == "mutant"}
    return not mutants or hunt.still_kills((seq, res["trace"], arcs), mutants)


def _refers_to(calls, step):
    """Whether any call uses the result of `step` (which is being removed)."""
    def walk(a):
        if isinstance(a, dict):
            if a.get("ref") == step:
                return True
            return any(walk(x) for x in a.values())
        if isinstance(a, list):
            return any(walk(x) for x in a)
        return False
    return walk(calls)


def _renumber(calls, removed):
    def walk(a):
        if isinstance(a, dict):
            if "ref" in a and a["ref"] > removed:
                return {"ref": a["ref"] - 1}
            return {k: walk(v) for k, v in a.items()}
        if isinstance(a, list):
            return [walk(x) for x in a]
        return a
    return walk(calls)


def clock_texts():
    """The current date and time as classes print them: a value holding one of these is the
    clock's, not the class's (it would differ on another day or minute)."""
    now = time.localtime()
    fmts = ("%Y-%m-%d", "%d/%m/%Y", "%m/%d/%Y", "%Y%m%d", "%H:%M", "%Y/%m/%d", "%d-%m-%Y")
    return {time.strftime(f, now) for f in fmts}


RANDOM_REPLAYS = 16
RANDOM_DEPENDENT = "value depends on `random`"  # (src/forge/task.rs counts these)


def stabilise(tests, runner):
    """Replay every test twice more (fresh directories, other seeds of `random`; the second
    round after the clock's second has turned), and a test whose runs draw from `random` (the
    generator's state moved) RANDOM_REPLAYS times more under further seeds; an assertion that
    does not hold on a replay is dropped with its reason. A value holding the current date or time is compared with its timestamps masked
    (`noclock`), or dropped when masking does not remove the clock from it. A test whose calls all stopped holding
    is dropped."""
    clock = clock_texts()
    state = []
    for t in tests:
        expected = assertions(t["trace"])
        dropped = []
        for k, a in enumerate(list(expected)):
            if "src" not in a or not any(c in a["src"] for c in clock):
                continue
            masked = unclock(a["src"])
            if not a.get("norm") and not any(c in masked for c in clock):
                expected[expected.index(a)] = dict(a, src=masked, norm="noclock")
            else:
                expected.remove(a)
                dropped.append(dict(a, reason="holds the current date or time"))
        state.append((t, expected, dropped))
    drew = set()  # tests whose runs draw from `random`: replayed under more seeds
    for round_ in range(2 + RANDOM_REPLAYS):
        if round_ == 1:
            time.sleep(1.05 - (time.time() % 1.0))
        runner.random_seed = round_ + 1  # the exploration ran with seed 0
        for k, (t, expected, dropped) in enumerate(state):
            if not expected or round_ >= 2 and k not in drew:
                continue
            res = runner.run(t["seq"], traced=False)
            if res is None or res["timeout"]:
                expected.clear()
                dropped.append({"reason": "the replay did not complete"})
                continue
            if res["random"]:
                drew.add(k)
            outcomes = [r.get("out") for r in res["trace"]]
            if outcomes != [r.get("out") for r in t["trace"]]:
                # a call raised (or returned) where it did not before: the test itself
                # depends on luck, not only a value it asserts
                dropped.append({"reason": RANDOM_DEPENDENT if k in drew else
                                "a call's outcome differs between runs"})
                expected.clear()
                continue
            for a in list(expected):
                if not holds(a, res["trace"]):
                    expected.remove(a)
                    dropped.append(dict(a, reason="value differs between runs"
                                        if k not in drew else RANDOM_DEPENDENT))
    runner.random_seed = 0
    kept, unstable = [], []
    for t, expected, dropped in state:
        if any(r.get("unstable") for r in t["trace"]):
            unstable.append({"seq": t["seq"], "reason": "recursion or memory error on the reference"})
        elif not any(a["kind"] != "ok" for a in expected) and dropped:
            unstable.append({"seq": t["seq"], "reason": "no stable assertion", "dropped": dropped})
        elif not expected:
            unstable.append({"seq": t["seq"], "reason": "no stable assertion", "dropped": dropped})
        else:
            t["assertions"] = expected
            t["dropped"] = dropped
            kept.append(t)
    return kept, unstable


def measure(runner, tests):
    """coverage.py's own figures (branch=True, the reference module only) for the selected
    sequences, replayed on a fresh import of the reference: line = covered / statements,
    branch = covered_branches / num_branches of its JSON report (None without branches)."""
    try:
        import coverage
    except ImportError as e:
        return {"error": "coverage.py not importable: %s" % e}
    import json
    import os
    cov = coverage.Coverage(branch=True, data_file=None, include=[runner.ref_file])
    try:
        cov.start()
        try:
            cls = runner.fresh_class()
            for t in tests:
                runner.run(t["seq"], cls=cls, traced=False)
        finally:
            cov.stop()
        path = os.path.join(runner.base, "coverage.json")
        with runner.quiet():
            cov.json_report(outfile=path)
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
        os.unlink(path)
    except BaseException as e:
        return {"error": "%s: %s" % (type(e).__name__, str(e)[:300])}
    files = list(report.get("files", {}).values())
    if not files:
        return {"error": "the reference was not measured"}
    s = files[0]["summary"]
    nb = s.get("num_branches", 0)
    return {
        "line": 100.0 * s["covered_lines"] / s["num_statements"] if s["num_statements"] else None,
        "branch": 100.0 * s["covered_branches"] / nb if nb else None,
        "branches": [s.get("covered_branches", 0), nb],
        "missing_lines": files[0].get("missing_lines", []),
        "missing_arcs": files[0].get("missing_branches", []),
    }
