#!/usr/bin/env python3
"""gpuauto_fit.py - fits gpuauto's model (issue 19) on benchmark records and checks it against the code.

  python3 bench/gpuauto_fit.py [--check] [--src DIR] RECORDS.jsonl [...]

Reads bench_spmv records (run_suite.sh auto, and any other suite that timed the candidates on one matrix in one
process; a matrix in several files is taken from the one that timed the most candidates on it). Each matrix is put in the kind that gpuauto's code gives it: the thresholds are read from
src/mat/impls/gpuauto/gpuauto.h, the rule below is GPUAutoClassify() of gpuauto.c. In each kind, every candidate
(aijcusparse, cmrs, sellcs, bce, dia, hyb, ell, argcsr) gets the geometric mean, over the matrices it holds (a format
that declined one, "declined": true, is passed over there, as gpuauto does), of the fastest candidate's time over its
own; the fitted order (fit_order()) puts first the best by that mean, then, on the matrices it does not hold, the best
there, and so on; the rest by their mean (ties and candidates without a record in the kind: in the candidates' fixed
order, after the others). Printed:
  - per kind, the fitted order beside the code's (GPUAutoOrder in gpuauto.c), and each candidate's mean and minimum;
  - per matrix, the code's choice (the first of its order that holds the matrix), its time over the fastest candidate's
    and over aijcusparse's, and gpuauto's own records (the choice and time of "gpuauto" entries) where present; a
    choice under 0.97 of the fastest or slower than aijcusparse by more than 2 % is marked.
With --check the exit code is 1 when a kind's fitted order differs from the code's (the model committed is the one fitted
on the committed records), 0 otherwise.
"""
import argparse
import json
import math
import os
import re
import sys

CANDIDATES = ["aijcusparse", "cmrs", "sellcs", "bce", "dia", "hyb", "ell", "argcsr"]
ENUM = {"GPUAUTO_CSR": "aijcusparse", "GPUAUTO_CMRS": "cmrs", "GPUAUTO_SELLCS": "sellcs", "GPUAUTO_BCE": "bce",
        "GPUAUTO_DIA": "dia", "GPUAUTO_HYB": "hyb", "GPUAUTO_ELL": "ell", "GPUAUTO_ARGCSR": "argcsr"}


def read_model(src):
    """The thresholds (gpuauto.h), the kinds' names and the order of each kind (gpuauto.c)"""
    with open(os.path.join(src, "gpuauto.h")) as f:
        h = f.read()
    th = {m.group(1): float(m.group(2)) for m in re.finditer(r"#define\s+GPUAUTO_(\w+)\s+([0-9.eE+-]+)", h)}
    with open(os.path.join(src, "gpuauto.c")) as f:
        c = f.read()
    names = re.search(r"GPUAutoRuleNames\[\]\s*=\s*\{([^}]*)\}", c).group(1)
    rules = re.findall(r'"([^"]*)"', names)
    block = re.search(r"GPUAutoOrder\[[^]]*\]\[[^]]*\]\s*=\s*\{(.*?)\n\};", c, re.S).group(1)
    orders = [[ENUM[t] for t in re.findall(r"GPUAUTO_\w+", row)] for row in re.findall(r"\{([^{}]*)\}", block)]
    if len(orders) != len(rules) or any(sorted(o) != sorted(CANDIDATES) for o in orders):
        sys.exit("gpuauto_fit.py: could not read GPUAutoOrder of gpuauto.c")
    return th, rules, orders


def classify(th, rows, nnz, mean, std, maxlen):
    """GPUAutoClassify() of gpuauto.c: the index of the kind"""
    cv = std / mean if mean > 0 else 0.0
    if nnz <= th["SMALL_NNZ"]:
        return 0
    if cv <= th["REGULAR_CV"]:
        return 1 if maxlen <= th["SHORT_ROW"] else 2
    if cv >= th["POWER_CV"] and mean >= th["POWER_MEAN"]:
        return 3 if nnz <= th["POWER_LARGE_NNZ"] else 4
    return 5


def load(paths):
    """{(file, matrix, params): {entry: record}} of the timed records, the first of each entry (not the interleaved)"""
    mats = {}
    for p in paths:
        with open(p) as f:
            for line in f:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                r = json.loads(line)
                if r.get("mode") == "interleaved" or r.get("median_us") is None or r.get("status"):
                    continue
                key = (os.path.basename(p), r["matrix"], r.get("matrix_params", ""))
                mats.setdefault(key, {}).setdefault(r["entry"], r)
    # a matrix in several files: the file that timed the most candidates on it, the first of those
    keep = {}
    for key, d in mats.items():
        n = sum(c in d for c in CANDIDATES)
        if key[1:] not in keep or n > keep[key[1:]][0]:
            keep[key[1:]] = (n, key)
    return {key: mats[key] for n, key in keep.values()}


def geomean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v))


def fit_order(group):
    """gpuauto builds the first candidate of its order that holds the matrix: the first place goes to the candidate with
    the best geometric mean of the fastest time over its own on the matrices it holds (among those that hold at least
    half of them, where any does); the next place is fitted the same way on the matrices that no candidate placed so
    far holds, and so on; once every matrix is held, the rest follow by their mean over all the kind's matrices"""
    fast = []
    for key, d in group:
        held = {c: d[c]["median_us"] for c in CANDIDATES if c in d and not d[c].get("declined")}
        best = min(held.values())
        fast.append({c: best / t for c, t in held.items()})
    order, left = [], list(range(len(fast)))
    while len(order) < len(CANDIDATES):
        pool = [c for c in CANDIDATES if c not in order]
        on = left if left else range(len(fast))
        held = {c: [fast[i][c] for i in on if c in fast[i]] for c in pool}
        held = {c: v for c, v in held.items() if v}
        if not held:
            order += pool
            break
        wide = {c: v for c, v in held.items() if 2 * len(v) >= len(on)}
        pick = wide or held
        c = max(pick, key=lambda c: (round(geomean(pick[c]), 3), -CANDIDATES.index(c)))
        order.append(c)
        left = [i for i in left if c not in fast[i]]
    return order


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("records", nargs="+")
    ap.add_argument("--check", action="store_true", help="exit 1 when a fitted order differs from the code's")
    ap.add_argument("--src", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "mat", "impls", "gpuauto"))
    a = ap.parse_args()
    th, rules, orders = read_model(a.src)
    mats = load(a.records)
    kinds = {}
    for key, d in mats.items():
        ref = d.get("aijcusparse")
        if ref is None or not any(c in d for c in CANDIDATES[1:]):
            continue
        k = classify(th, ref["rows"], ref["nnz"], ref["row_mean"], ref["row_std"], ref["row_max"])
        kinds.setdefault(k, []).append((key, d))
    if not kinds:
        sys.exit("gpuauto_fit.py: no matrix with aijcusparse and another candidate timed")

    differ = 0
    print("# gpuauto's model fitted on %s\n" % ", ".join(os.path.basename(p) for p in a.records))
    print("Thresholds (gpuauto.h): " + ", ".join("%s %g" % (n, v) for n, v in sorted(th.items())) + "\n")
    for k in sorted(kinds):
        group = kinds[k]
        score = {}
        for key, d in group:
            held = {c: d[c]["median_us"] for c in CANDIDATES if c in d and not d[c].get("declined")}
            best = min(held.values())
            for c, t in held.items():
                score.setdefault(c, []).append(best / t)
        gm = {c: math.exp(sum(math.log(v) for v in s) / len(s)) for c, s in score.items()}
        fitted = fit_order(group)
        same = fitted == orders[k]
        differ += not same
        print("## %s: %d matrices\n" % (rules[k], len(group)))
        print("fitted order: %s" % ", ".join(fitted))
        print("code's order: %s%s\n" % (", ".join(orders[k]), "" if same else "   <-- differs"))
        print("| candidate | matrices held | geomean of fastest / its time | minimum |")
        print("|---|---:|---:|---:|")
        for c in fitted:
            if c in score:
                print("| %s | %d | %.3f | %.3f |" % (c, len(score[c]), gm[c], min(score[c])))
        print("\n| matrix | rows | entries | code's choice | of the fastest (which) | over aijcusparse | gpuauto's record | gpuauto of the fastest | tuned |")
        print("|---|---:|---:|---|---:|---:|---|---:|---|")
        for key, d in sorted(group, key=lambda g: (g[0][1], g[1]["aijcusparse"]["nnz"])):
            held = {c: d[c]["median_us"] for c in CANDIDATES if c in d and not d[c].get("declined")}
            best = min(held, key=held.get)
            choice = next((c for c in orders[k] if c in held), None)
            ref = d["aijcusparse"]
            fb = held[best] / held[choice]
            fa = ref["median_us"] / held[choice]
            mark = " **miss**" if fb < 0.97 or fa < 0.98 else ""
            g = d.get("gpuauto")
            gs = "%s %.1f µs" % (g.get("gpuauto_choice"), g["median_us"]) if g else "–"
            gf = "%.3f" % (held[best] / g["median_us"]) if g else "–"
            t = next((d[e] for e in sorted(d) if e.startswith("gpuauto/") and "mat_gpuauto_tune=1" in e), None)
            ts = "%s (%.3f)" % (t.get("gpuauto_choice"), held[best] / t["median_us"]) if t else "–"
            print("| %s %s | %d | %d | %s | %.3f (%s)%s | %.3f | %s | %s | %s |" % (key[1], key[2], ref["rows"], ref["nnz"], choice, fb, best, mark, fa, gs, gf, ts))
        print()
    if a.check and differ:
        print("gpuauto_fit.py: %d kind(s) whose fitted order differs from gpuauto.c's" % differ, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
