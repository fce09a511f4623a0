#!/usr/bin/env python3
"""PNG plots of bench_spmv JSON records (needs matplotlib; the GPU host has it).

Usage: python3 bench/plots.py OUTDIR FILE.jsonl [FILE.jsonl ...]

For the default entry of every type (no "/option=value") against aijcusparse on the same matrix and device:
  speedup.png        speedup against aijcusparse, per matrix
  copy_bw.png        fraction of the measured copy bandwidth reached (CSR traffic model), per matrix
  speedup_mu.png     speedup against the mean row length mu (log scale), like the papers' figures
  speedup_sigma.png  speedup against the standard deviation of the row lengths sigma (log scale)
  build.png          format build time in products, per matrix
  memory.png         device memory of the format over the CSR arrays, per matrix
  bytes_per_entry.png  bytes a product moves per entry by the traffic model (the format's device arrays, x and y once;
                     the CSR's for aijcusparse), per matrix, as report.py's table
"""

import json
import os
import statistics
import sys

REFERENCE = "seqaijcusparse"


def load(paths):
    recs = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    rec = json.loads(line)
                    if "status" not in rec and rec.get("median_us") and rec.get("correct", True):
                        recs.append(rec)
    return recs


def series(recs):
    """{entry: [(matrix, record, speedup)]} for the default entries, in the order of the matrices."""
    ref = {}
    for r in recs:
        if r.get("type") == REFERENCE:
            ref.setdefault((r["device"], r["matrix"], r.get("rows")), []).append(r["median_us"])
    ref = {k: statistics.median(v) for k, v in ref.items()}
    out, matrices = {}, []
    for r in recs:
        entry = r.get("entry") or r.get("type")
        if "/" in entry:
            continue
        key = (r["device"], r["matrix"], r.get("rows"))
        if key not in ref:
            continue
        if r["matrix"] not in matrices:
            matrices.append(r["matrix"])
        out.setdefault(entry, []).append((r["matrix"], r, ref[key] / r["median_us"]))
    return out, matrices


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    outdir, paths = sys.argv[1], sys.argv[2:]
    recs = load(paths)
    data, matrices = series(recs)
    device = recs[0]["device"] if recs else "?"
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(outdir, exist_ok=True)
    entries = list(data)
    width = 0.8 / max(1, len(entries))

    def bars(name, value, ylabel, hline=None):
        fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(matrices)), 4))
        for k, entry in enumerate(entries):
            xs, ys = [], []
            for m, r, s in data[entry]:
                v = value(r, s)
                if v is not None:
                    xs.append(matrices.index(m) + (k - (len(entries) - 1) / 2) * width)
                    ys.append(v)
            ax.bar(xs, ys, width, label=entry)
        if hline is not None:
            ax.axhline(hline, color="k", linewidth=0.8)
        ax.set_xticks(range(len(matrices)))
        ax.set_xticklabels(matrices, rotation=30, ha="right")
        ax.set_ylabel(ylabel)
        ax.set_title(f"{ylabel} ({device})")
        ax.legend(fontsize="small")
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, name), dpi=110)
        plt.close(fig)

    def scatter(name, key, xlabel):
        fig, ax = plt.subplots(figsize=(6, 4))
        for entry in entries:
            pts = [(r[key], s) for m, r, s in data[entry] if r.get(key)]
            if pts:
                ax.scatter([p[0] for p in pts], [p[1] for p in pts], label=entry)
        ax.axhline(1.0, color="k", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("speedup against aijcusparse")
        ax.set_title(f"speedup against {xlabel} ({device})")
        ax.legend(fontsize="small")
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, name), dpi=110)
        plt.close(fig)

    bars("speedup.png", lambda r, s: s, "speedup against aijcusparse", 1.0)
    bars("copy_bw.png", lambda r, s: r.get("frac_copy_bw"), "fraction of the copy bandwidth", 1.0)
    scatter("speedup_mu.png", "row_mean", "mean row length mu")
    scatter("speedup_sigma.png", "row_std", "standard deviation of the row lengths sigma")
    bars("build.png", lambda r, s: r.get("build_products"), "build time in products")
    bars("memory.png", lambda r, s: r["device_bytes"] / r["csr_bytes"] if r.get("device_bytes") and r.get("csr_bytes") else None, "device memory over CSR", 1.0)
    bars("bytes_per_entry.png", lambda r, s: (r["device_bytes"] + 8.0 * (r.get("rows", 0) + r.get("cols", 0))) / r["nnz"] if r.get("device_bytes") and r.get("nnz") else None, "bytes moved per entry (model)")
    print(f"plots of {len(entries)} entries on {len(matrices)} matrices in {outdir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
