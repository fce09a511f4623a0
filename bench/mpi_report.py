#!/usr/bin/env python3
"""mpi_report.py - the table of bench/mpi.sh's records (mpi.jsonl): per process count and matrix, each type's speed-up
of the whole product over mpiaijcusparse, measured and predicted, and the spread of the ghost scatter's time.

Predicted: mpiaijcusparse's product with its diagonal block's time replaced by ours (the one-process gain less the share
of the scatter and the off-diagonal product). The scatter is the same operation for every entry, so its spread over the
entries of one matrix is the noise of the run. Records that carry the least and the greatest batch (bench_mpi since
2026-11-26) add the ratio's range in brackets: mpiaijcusparse's least over our greatest, its greatest over our least.
Records with the paired measurement (a batch of mpiaijcusparse's products, then one of ours, for every batch, so that
what drifts during the run falls on both) add "paired" and the median of the per-pair ratios with their range.

  python3 bench/mpi_report.py bench/results/h200/mpi.jsonl [--offdiag] [--commit C]
  (--offdiag: the /offdiag entries; --commit: the records of commit C, default those of the last record's commit; records
  written before the benchmark carried its provenance have none, selected by --commit none)
"""
import json
import statistics
import sys


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "-help", "--help"):
        print(__doc__)
        return 0
    suffix = "/offdiag" if "--offdiag" in argv[2:] else ""
    records = [json.loads(line) for line in open(argv[1]) if line.strip()]
    commit = argv[argv.index("--commit") + 1] if "--commit" in argv[2:-1] else (records[-1].get("commit") or "none" if records else "none")
    table = {}
    for r in records:
        if (r.get("commit") or "none") == commit:
            table.setdefault((r["nprocs"], r["matrix"]), {})[r["entry"]] = r
    print(f"Commit {commit}.\n")
    types = ["cmrs", "sellcs", "bce"]
    print("| processes | matrix | device | scatter spread | " + " | ".join(f"{t}{suffix} measured / predicted" for t in types) + " |")
    print("|---" * (4 + len(types)) + "|")
    for (nprocs, matrix), entries in sorted(table.items()):
        scatter = [e["scatter_us"] for e in entries.values()]
        spread = (max(scatter) - min(scatter)) / statistics.median(scatter) if len(scatter) > 1 and statistics.median(scatter) > 0 else 0.0
        cells = []
        for t in types:
            e = entries.get(t + suffix)
            if not e:
                cells.append("n.a.")
                continue
            measured = e["ref_product_us"] / e["product_us"]
            predicted = e["ref_product_us"] / (e["ref_product_us"] - e["ref_diagonal_us"] + e["diagonal_us"])
            if "product_lo_us" in e:  # the ratio's range over the batches: the slowest and the fastest of each
                lo = e["ref_product_lo_us"] / e["product_hi_us"]
                hi = e["ref_product_hi_us"] / e["product_lo_us"]
                paired = ""
                if "paired_ratio" in e:
                    paired = f"; paired {e['paired_ratio']:.2f} ({e['paired_ratio_lo']:.2f}-{e['paired_ratio_hi']:.2f})"
                cells.append(f"{measured:.2f} ({lo:.2f}-{hi:.2f}){paired} / {predicted:.2f}")
            else:
                cells.append(f"{measured:.2f} / {predicted:.2f}")
        device = next(iter(entries.values()))["device"]
        spreadcell = f"{100 * spread:.0f}%" if nprocs > 1 else "none (1 process)"
        print(f"| {nprocs} | {matrix} | {device} | {spreadcell} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
