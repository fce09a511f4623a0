#!/usr/bin/env python3
"""scaling_report.py - the report of bench/scaling.sh's records (scaling.jsonl): strong and weak scaling of the product,
one process per GPU, every entry against mpiaijcusparse.

  python3 bench/scaling_report.py OUTDIR/scaling.jsonl [--targets lap3d7,lap3d27] > scaling.md

Strong: the same matrix on 1 and N GPUs. Efficiency = T(1) / (N T(N)) of the product (maximum over the processes,
median of the batches). Kept = the entry's speed-up over mpiaijcusparse on N GPUs / its speed-up on 1 GPU. Each speed-up is over the
mpiaijcusparse of the entry's own run (its record's ref_product_us), so that records of several runs can be merged; the
last column names the commit of the entry's run on N GPUs.
Targets (issue "Two GPUs", on the --targets matrices): efficiency at least 80%, kept at least 0.8.
Weak: the matrix with N times the rows on N GPUs against the 1-GPU run; efficiency = T(1) / T(N).
The parts on N GPUs (diagonal block, off-diagonal block, ghost scatter, each timed alone; the scatter split into its
VecScatterBegin() and VecScatterEnd() where recorded) say what a missed target is made of; the scatter's rate counts 8 bytes per ghost value of the process with the most.
"""
import json
import sys


def fmt(v, d=1):
    return "" if v is None else f"{v:.{d}f}"


def split(r):
    """The scatter's VecScatterBegin() and VecScatterEnd() host times, where the record has them"""
    if "scatter_begin_us" not in r:
        return ""
    return f" ({r['scatter_begin_us']:.0f} + {r['scatter_end_us']:.0f})"


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "-help", "--help"):
        print(__doc__)
        return 0
    targets = ["lap3d7", "lap3d27"]
    if "--targets" in argv:
        targets = argv[argv.index("--targets") + 1].split(",")
    runs = {}  # (matrix, params, nprocs) -> {entry: record}, the last record of each entry
    for line in open(argv[1]):
        if line.strip():
            r = json.loads(line)
            runs.setdefault((r["matrix"], r["matrix_params"], r["nprocs"]), {})[r["entry"]] = r
    if not runs:
        print("no records", file=sys.stderr)
        return 1
    any_rec = next(iter(next(iter(runs.values())).values()))
    commits = sorted({e["commit"] + ("-dirty" if e.get("dirty") else "") for v in runs.values() for e in v.values()})
    devices = sorted({f"{e['device']} x {e.get('gpus', '?')}" for v in runs.values() for e in v.values()})
    bws = [e["copy_bw_GBs"] for v in runs.values() for e in v.values()]
    print("# Strong and weak scaling of the product on several GPUs\n")
    print(f"Devices: {', '.join(devices)} (one process per GPU); commit {', '.join(commits)}; PETSc {any_rec.get('petsc', '')}, "
          f"CUDA runtime {any_rec.get('cuda_runtime', '')}, driver {any_rec.get('cuda_driver', '')}; copy bandwidth of rank 0's GPU "
          f"{min(bws):.0f} to {max(bws):.0f} GB/s. Written by `bench/scaling.sh` and `bench/scaling_report.py`. "
          "Times in microseconds per product: the maximum over the processes of each batch, median of the batches.\n")
    base = {(m, p): v for (m, p, n), v in runs.items() if n == 1}
    strong, weak = [], []
    for (m, p, n), v in sorted(runs.items()):
        if n == 1:
            continue
        if (m, p) in base:
            strong.append((m, p, n, base[(m, p)], v))
        else:
            rows = next(iter(v.values()))["rows"]
            for (bm, bp), bv in sorted(base.items()):
                if bm == m and n * next(iter(bv.values()))["rows"] == rows:
                    weak.append((m, bp, p, n, bv, v))

    def entries(v1, vn):
        return [e for e in vn if e in v1]

    def speedup(r, ref):
        """r's speed-up over the mpiaijcusparse of its own run (or, in records without it, of the aijcusparse entry)"""
        return r.get("ref_product_us", ref["product_us"]) / r["product_us"]

    def commit(r):
        return r["commit"] + ("-dirty" if r.get("dirty") else "")

    print("## Strong scaling\n")
    print("Target met: efficiency >= 80% and kept >= 0.8 " + f"(on {', '.join(targets)}).\n")
    print("| matrix | entries | entry | 1 GPU | N GPUs | efficiency | vs mpiaijcusparse, 1 GPU | N GPUs | kept | on N GPUs: diagonal / off-diagonal / scatter | target | commit |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---|---|---|")
    for m, p, n, v1, vn in strong:
        r1, rn = v1["aijcusparse"], vn["aijcusparse"]
        for e in entries(v1, vn):
            a, b = v1[e], vn[e]
            eff = a["product_us"] / (n * b["product_us"])
            s1 = speedup(a, r1)
            sn = speedup(b, rn)
            kept = sn / s1
            tgt = ""
            if m in targets:
                ok = eff >= 0.8 and (e == "aijcusparse" or kept >= 0.8)
                tgt = "met" if ok else "missed"
            parts = f"{fmt(b['diagonal_us'])} / {fmt(b.get('offdiag_us'))} / {fmt(b['scatter_us'])}{split(b)}"
            print(f"| {m} {p} | {a['nnz'] / 1e6:.1f} M | {e} | {fmt(a['product_us'])} | {fmt(b['product_us'])} ({n}) | {100 * eff:.0f}% | "
                  f"{s1:.2f} | {sn:.2f} | {kept:.2f} | {parts} | {tgt} | {commit(b)} |")
        g = rn.get("ghosts_max")
        if g:
            print(f"| | | ghost scatter | | {g} values a process | | | | | {8 * g / rn['scatter_us'] / 1e3:.2f} GB/s | | {commit(rn)} |")
    print("\n## Weak scaling\n")
    print("| matrix on 1 GPU | on N GPUs | rows per GPU | entry | 1 GPU | N GPUs | efficiency | vs mpiaijcusparse, 1 GPU | N GPUs | on N GPUs: diagonal / off-diagonal / scatter | commit |")
    print("|---|---|---:|---|---:|---:|---:|---:|---:|---|---|")
    for m, p1, pn, n, v1, vn in weak:
        r1, rn = v1["aijcusparse"], vn["aijcusparse"]
        for e in entries(v1, vn):
            a, b = v1[e], vn[e]
            parts = f"{fmt(b['diagonal_us'])} / {fmt(b.get('offdiag_us'))} / {fmt(b['scatter_us'])}{split(b)}"
            print(f"| {m} {p1} | {pn} ({n}) | {a['rows']} | {e} | {fmt(a['product_us'])} | {fmt(b['product_us'])} | {100 * a['product_us'] / b['product_us']:.0f}% | "
                  f"{speedup(a, r1):.2f} | {speedup(b, rn):.2f} | {parts} | {commit(b)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
