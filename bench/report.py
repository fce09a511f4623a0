#!/usr/bin/env python3
"""Markdown report of bench_spmv JSON records (bench_spmv -json_out and the drivers in bench/ write them).

Usage: python3 bench/report.py [--commit C] [--compare-commits] FILE.jsonl [FILE.jsonl ...]

--commit C: only the records of commit C (their "commit" field begins with C).
--compare-commits: instead of the tables, one table per device with a column per commit (in order of first
appearance): each entry's median time per product and, where the records have it, its value refresh. A JSONL file
is append-only: records of several commits side by side.

One section per device: its copy bandwidth, then a table with one row per record: matrix, rows,
nonzeros, entry (and the resulting type), median time per product, GFLOP/s, fraction of the copy
bandwidth reached by the CSR traffic model, speedup against aijcusparse on the same matrix and
device, build time in products, device memory of the format against CSR, and the correctness check.
After the table, the geometric mean of each entry's speedup against aijcusparse over the matrices
where both have correct records, with the number of matrices it covers; then, where the records have them, the table
against the faster PETSc type, the refreshes, the builds, and the bytes per entry of each format (stored, moved by the
traffic model: its arrays, x and y once; and what the copy bandwidth moves in the measured time).
Records with a "status" (timeout, failed) are shown as such in the section of their device; when
they carry no device they go to the devices of records from the same file.
"""

import argparse
import json
import signal
import statistics
import sys

MB = 1e6  # bytes per MB in the table
REFERENCE_TYPE = "seqaijcusparse"
UNKNOWN_DEVICE = "unknown device"


def read_records(paths):
    """Records of all files in order, each tagged with the index of its file."""
    records = []
    for index, path in enumerate(paths):
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                line = line.strip()
                if not line.startswith("{"):
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as err:
                    print(f"{path}:{lineno}: skipping malformed record ({err})", file=sys.stderr)
                    continue
                rec["_file"] = index
                records.append(rec)
    return records


def is_status(rec):
    return rec.get("status") not in (None, "ok")


def assign_devices(records):
    """Map device name -> its records; status records without a known device follow their file."""
    devices = {}
    file_devices = {}
    for rec in records:
        if not is_status(rec) and rec.get("device"):
            devices.setdefault(rec["device"], [])
            file_devices.setdefault(rec["_file"], [])
            if rec["device"] not in file_devices[rec["_file"]]:
                file_devices[rec["_file"]].append(rec["device"])
    for rec in records:
        if not is_status(rec):
            devices.setdefault(rec.get("device") or UNKNOWN_DEVICE, []).append(rec)
        elif rec.get("device") in devices:
            devices[rec["device"]].append(rec)
        else:
            for dev in file_devices.get(rec["_file"], [UNKNOWN_DEVICE]):
                devices.setdefault(dev, []).append(rec)
    return devices


def md(text):
    """Escape a table cell."""
    return str(text).replace("|", "\\|")


def fmt(value, spec, missing="–"):
    if value is None:
        return missing
    try:
        return format(value, spec)
    except (TypeError, ValueError):
        return md(value)


def matrix_key(rec):
    return (rec.get("matrix"), rec.get("rows"), rec.get("nnz"))


def reference_times(records):
    """Median time of aijcusparse per matrix (median over repeated runs)."""
    times = {}
    for rec in records:
        if not is_status(rec) and rec.get("type") == REFERENCE_TYPE and rec.get("median_us"):
            times.setdefault(matrix_key(rec), []).append(rec["median_us"])
    return {key: statistics.median(vals) for key, vals in times.items()}


def entry_label(rec):
    entry = rec.get("entry") or rec.get("type") or "?"
    label = entry
    rtype = rec.get("type")
    if rtype and rtype != entry and not is_status(rec):
        label += f" ({rtype})"
    if rec.get("cmrs_height") is not None:
        label += f" h={rec['cmrs_height']}"
    return md(label)


def data_row(rec, refs):
    median = rec.get("median_us")
    ref = refs.get(matrix_key(rec))
    speedup = ref / median if ref and median else None
    frac = rec.get("frac_copy_bw")
    dev_b, csr_b = rec.get("device_bytes"), rec.get("csr_bytes")
    if rec.get("correct") is False:
        correct = f"**NO** ({fmt(rec.get('rel_err'), '.1e', 'NaN')})"
    elif rec.get("correct") is None:  # the stream kernel computes nothing to check
        correct = "–"
    else:
        correct = "yes"
    return [
        md(rec.get("matrix", "?")),
        fmt(rec.get("rows"), ","),
        fmt(rec.get("nnz"), ","),
        entry_label(rec),
        fmt(median, ".1f"),
        fmt(rec.get("gflops"), ".1f"),
        fmt(100.0 * frac if frac is not None else None, ".0f"),
        fmt(speedup, ".2f"),
        fmt(rec.get("build_products"), ".1f"),
        fmt(dev_b / MB if dev_b is not None else None, ".1f"),
        fmt(csr_b / MB if csr_b is not None else None, ".1f"),
        correct,
    ]


def status_row(rec):
    status = rec.get("status")
    if status == "timeout":
        text = f"**timeout** ({rec.get('limit_s', '?')} s)"
    elif status == "failed":
        text = f"**failed** (rc {rec.get('rc', '?')})"
    else:
        text = f"**{md(status)}**"
    return [md(rec.get("matrix", "?")), "", "", entry_label(rec), text] + [""] * 7


HEADER = [
    "matrix",
    "rows",
    "nnz",
    "type / entry",
    "median µs",
    "GFLOP/s",
    "% copy BW",
    "speedup vs aijcusparse",
    "build (products)",
    "device MB",
    "CSR MB",
    "correct",
]


def entry_key(rec):
    return rec.get("entry") or rec.get("type") or "?"


def speedup_summary(data, refs):
    """[(entry, type, geometric mean speedup, matrices covered)] in order of first appearance.

    A matrix counts for an entry when aijcusparse and the entry both have correct records on it; the
    entry's time on a matrix is the median over its records there, as for the reference.
    """
    times = {}  # entry -> matrix key -> median times
    types = {}
    for rec in data:
        if rec.get("type") == REFERENCE_TYPE or rec.get("correct") is False or not rec.get("median_us"):
            continue
        key = matrix_key(rec)
        if key not in refs:
            continue
        entry = entry_key(rec)
        times.setdefault(entry, {}).setdefault(key, []).append(rec["median_us"])
        types.setdefault(entry, [])
        if rec.get("type") and rec["type"] not in types[entry]:
            types[entry].append(rec["type"])
    rows = []
    for entry, per_matrix in times.items():
        speedups = [refs[key] / statistics.median(vals) for key, vals in per_matrix.items()]
        rows.append((entry, ", ".join(types[entry]), statistics.geometric_mean(speedups), len(speedups)))
    return rows


def print_speedup_summary(data):
    correct_refs = reference_times([r for r in data if r.get("correct") is not False])
    rows = speedup_summary(data, correct_refs)
    if not rows:
        return
    print(
        f"Geometric mean of the speedup vs aijcusparse over the matrices where the entry and aijcusparse "
        f"both have correct records ({len(correct_refs)} matrices with a correct aijcusparse record):\n"
    )
    print("| type / entry | geomean speedup | matrices |")
    print("|---|---:|---:|")
    for entry, rtype, geomean, count in rows:
        label = entry if not rtype or rtype == entry else f"{entry} ({rtype})"
        print(f"| {md(label)} | {geomean:.2f} | {count} of {len(correct_refs)} |")
    print()


def print_value_changes(data):
    """Products right after a change of values (value_change_us), where the records have them.

    refresh µs is the entry's extra time after a change, (value_change_us - median_us), less the same
    difference for aijcusparse on the matrix (the MatScale() both pay): the cost of the format's value refresh.
    """
    rows = [r for r in data if r.get("value_change_us") is not None and r.get("median_us")]
    if not rows:
        return
    print(
        "Products right after a change of values (`MatScale(B, -1)` before each): µs per product, and the "
        "refresh, the extra time over aijcusparse's extra time (its `MatScale()`):\n"
    )
    print("| matrix | rows | type / entry | product µs | after a value change µs | refresh µs |")
    print("|---|---:|---|---:|---:|---:|")
    for rec in rows:
        refresh = refresh_us(rec, rows)
        print(
            f"| {md(rec.get('matrix', '?'))} | {fmt(rec.get('rows'), ',')} | {entry_label(rec)} | {fmt(rec['median_us'], '.1f')} | "
            f"{fmt(rec['value_change_us'], '.1f')} | {fmt(refresh, '.1f')} |"
        )
    print()


def print_builds(data):
    """The cost of a build, where the records have it (rebuild_ms: a second matrix of the type, its kernels loaded),
    in products of aijcusparse on the same matrix."""
    rows = [r for r in data if r.get("rebuild_ms") is not None and r.get("median_us")]
    if not rows:
        return
    refs = reference_times(data)
    host_ref = {}
    for rec in rows:
        if rec.get("type") == REFERENCE_TYPE and rec.get("host_first_ms") is not None:
            host_ref.setdefault(matrix_key(rec), []).append(rec["host_first_ms"])
    print(
        "Builds, in products of aijcusparse on the same matrix: the first matrix of the type in the program (its kernels "
        "loaded then, the CSR uploaded in the build), a second one (rebuild: a MatDuplicate(), whose CSR too is uploaded "
        "in the build), the build of a matrix whose CSR is already on the GPU (on device: MatConvert() in place, first "
        "product less one product; older records lack it), and the first product of a matrix assembled on the host, "
        "upload and build included, against aijcusparse's:\n"
    )
    print(
        "| matrix | type / entry | first build (products) | rebuild (products) | rebuild ms | on device (products) | "
        "on device ms | host: upload + build + product ms | aijcusparse's ms |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for rec in rows:
        ref_us = refs.get(matrix_key(rec))
        ref = host_ref.get(matrix_key(rec))
        first = 1e3 * rec["build_ms"] / ref_us if ref_us and rec.get("build_ms") is not None else None
        rebuild = 1e3 * rec["rebuild_ms"] / ref_us if ref_us else None
        device = 1e3 * rec["device_build_ms"] / ref_us if ref_us and rec.get("device_build_ms") is not None else None
        print(
            f"| {md(rec.get('matrix', '?'))} | {entry_label(rec)} | {fmt(first, '.1f')} | {fmt(rebuild, '.1f')} | "
            f"{fmt(rec.get('rebuild_ms'), '.2f')} | {fmt(device, '.1f')} | {fmt(rec.get('device_build_ms'), '.2f')} | "
            f"{fmt(rec.get('host_first_ms'), '.1f')} | {fmt(statistics.median(ref) if ref else None, '.1f')} |"
        )
    print()


OUR_TYPES = ("cmrs", "sellcs", "bce", "dia", "hyb", "ell", "argcsr", "gpuauto")  # the default entries of our types
PEER_TYPE = "seqsellcuda"


def print_peer_table(data, title=None):
    """Per matrix: the fastest of our types' default entries against the faster of aijcusparse and sellcuda.

    Only matrices with correct records of aijcusparse, sellcuda and at least one of our default entries count; each
    time is the median over the records of that entry on that matrix. Nothing is printed without sellcuda records.
    title: the sentence before the table (default: that of the entries' own runs).
    """
    times = {}  # matrix key -> entry -> times
    for rec in data:
        if rec.get("correct") is not True or not rec.get("median_us"):
            continue
        entry = entry_key(rec)
        if rec.get("type") == REFERENCE_TYPE:
            entry = "aijcusparse"
        elif rec.get("type") == PEER_TYPE:
            entry = "sellcuda"
        elif entry not in OUR_TYPES:
            continue
        times.setdefault(matrix_key(rec), {}).setdefault(entry, []).append(rec["median_us"])
    rows = []
    for key, per in times.items():
        ours = {t: statistics.median(per[t]) for t in OUR_TYPES if t in per}
        if "aijcusparse" not in per or "sellcuda" not in per or not ours:
            continue
        aij, sell = statistics.median(per["aijcusparse"]), statistics.median(per["sellcuda"])
        best = min(ours, key=ours.get)
        rows.append((key, aij, sell, best, ours[best], aij / ours[best], min(aij, sell) / ours[best]))
    if not rows:
        return
    print(
        title
        or "Against the faster PETSc GPU type: per matrix, the fastest of our types (default parameters) against "
        "aijcusparse and against the faster of aijcusparse and sellcuda (PETSc's own AIJ -> SELL -> SELLCUDA "
        "conversion), median µs:\n"
    )
    print("| matrix | rows | nnz | aijcusparse µs | sellcuda µs | fastest of ours | µs | vs aijcusparse | vs the faster PETSc type |")
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|")
    for (name, nrows, nnz), aij, sell, best, t, s_aij, s_peer in rows:
        mark = "**" if s_peer < 1.0 else ""
        print(
            f"| {md(name or '?')} | {fmt(nrows, ',')} | {fmt(nnz, ',')} | {aij:.1f} | {sell:.1f} | {best} | {t:.1f} | "
            f"{s_aij:.2f} | {mark}{s_peer:.2f}{mark} |"
        )
    g_aij = statistics.geometric_mean([r[5] for r in rows])
    g_peer = statistics.geometric_mean([r[6] for r in rows])
    print(
        f"\nGeometric mean over {len(rows)} matrices: {g_aij:.2f} against aijcusparse, {g_peer:.2f} against the faster "
        f"PETSc type; least {min(r[6] for r in rows):.2f}.\n"
    )


def print_gpuauto_table(data):
    """Per matrix with a gpuauto record: what it chose, against the best of our other types and aijcusparse (issue 19's
    targets: at least 0.97 of the best type, never below 0.98 of aijcusparse), medians over the records."""
    times, choice = {}, {}
    for rec in data:
        if rec.get("correct") is not True or not rec.get("median_us"):
            continue
        entry = "aijcusparse" if rec.get("type") == REFERENCE_TYPE else entry_key(rec)
        if entry not in OUR_TYPES and entry != "aijcusparse":
            continue
        times.setdefault(matrix_key(rec), {}).setdefault(entry, []).append(rec["median_us"])
        if entry == "gpuauto":
            choice.setdefault(matrix_key(rec), set()).add(rec.get("gpuauto_choice") or "?")
    rows = []
    for key, per in times.items():
        if "gpuauto" not in per or "aijcusparse" not in per:
            continue
        others = {t: statistics.median(per[t]) for t in OUR_TYPES if t in per and t != "gpuauto"}
        others["aijcusparse"] = statistics.median(per["aijcusparse"])
        best = min(others, key=others.get)
        auto = statistics.median(per["gpuauto"])
        rows.append((key, "/".join(sorted(choice.get(key, {"?"}))), auto, best, others[best], others[best] / auto, others["aijcusparse"] / auto))
    if not rows:
        return
    print("gpuauto: per matrix, what it chose, against the fastest of aijcusparse and our other types' default entries "
          "(targets: at least 0.97 of the fastest, at least 0.98 of aijcusparse), median µs:\n")
    print("| matrix | rows | nnz | gpuauto chose | gpuauto µs | fastest other | µs | fastest / gpuauto | aijcusparse / gpuauto | targets |")
    print("|---|---:|---:|---|---:|---|---:|---:|---:|---|")
    for (name, nrows, nnz), chose, auto, best, t, r_best, r_aij in rows:
        met = "met" if r_best >= 0.97 and r_aij >= 0.98 else "**missed**"
        print(
            f"| {md(name or '?')} | {fmt(nrows, ',')} | {fmt(nnz, ',')} | {md(chose)} | {auto:.1f} | {best} | {t:.1f} | "
            f"{r_best:.2f} | {r_aij:.2f} | {met} |"
        )
    nmet = sum(1 for r in rows if r[5] >= 0.97 and r[6] >= 0.98)
    print(
        f"\nTargets met on {nmet} of {len(rows)} matrices; least fastest / gpuauto {min(r[5] for r in rows):.2f}, least "
        f"aijcusparse / gpuauto {min(r[6] for r in rows):.2f}.\n"
    )


def print_gpuauto_peers(data):
    """Per matrix with a gpuauto record (its defaults) and aijcusparse's first 20 products: gpuauto against aijcusparse and
    the faster of aijcusparse and sellcuda (the peer), the first 20 products of a fresh matrix (first20_ms: the CSR's upload
    and any build included), and the build of the format on a matrix whose CSR is already on the GPU (device_build_ms) in
    products of aijcusparse, built at the first product (entry gpuauto/...build_after=0) and tuned (gpuauto/...tune=1).
    The first record of each entry on a matrix."""
    per = {}
    for rec in data:
        if rec.get("correct") is not True or not rec.get("median_us"):
            continue
        entry = "aijcusparse" if rec.get("type") == REFERENCE_TYPE else entry_key(rec)
        per.setdefault(matrix_key(rec), {}).setdefault(entry, rec)
    rows = []
    for key, d in per.items():
        ref, g = d.get("aijcusparse"), d.get("gpuauto")
        if not ref or not g or g.get("first20_ms") is None or ref.get("first20_ms") is None:
            continue
        now = next((d[e] for e in sorted(d) if e.startswith("gpuauto/") and "build_after=0" in e and "tune" not in e), None)
        tune = next((d[e] for e in sorted(d) if e.startswith("gpuauto/") and "mat_gpuauto_tune=1" in e), None)
        rows.append((key, ref, g, now, tune, d.get("sellcuda")))
    if not rows:
        return
    print("gpuauto against the PETSc types, its first products and its builds. The peer is the faster of aijcusparse and "
          "sellcuda on the matrix; first 20: the first 20 products of a fresh matrix (its CSR's upload and any build "
          "included), aijcusparse's over gpuauto's at its defaults; build: the format's build on a matrix whose CSR is "
          "already on the GPU (device_build_ms), in products of aijcusparse, built at the first product (build_after=0) "
          "and tuned:\n")
    print("| matrix | rows | nnz | gpuauto chose | µs | over aijcusparse | sellcuda µs | over the peer | first 20, aijcusparse / gpuauto (ms) | build at once | build tuned (chose) |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---|---:|---|")
    for (name, nrows, nnz), ref, g, now, tune, sell in sorted(rows, key=lambda r: (str(r[0][0]), r[0][2] or 0)):
        peer = min(ref["median_us"], sell["median_us"]) if sell else None
        b0 = f"{now['device_build_ms'] * 1e3 / ref['median_us']:.1f}" if now and now.get("device_build_ms") is not None else "–"
        bt = (f"{tune['device_build_ms'] * 1e3 / ref['median_us']:.0f} ({md(tune.get('gpuauto_choice') or '?')})"
              if tune and tune.get("device_build_ms") is not None else "–")
        print(
            f"| {md(name or '?')} | {fmt(nrows, ',')} | {fmt(nnz, ',')} | {md(g.get('gpuauto_choice') or '?')} | {g['median_us']:.1f} | "
            f"{ref['median_us'] / g['median_us']:.3f} | {sell['median_us']:.1f} | {peer / g['median_us']:.3f} | "
            f"{ref['first20_ms'] / g['first20_ms']:.3f} ({ref['first20_ms']:.1f} / {g['first20_ms']:.1f}) | {b0} | {bt} |"
            if sell else
            f"| {md(name or '?')} | {fmt(nrows, ',')} | {fmt(nnz, ',')} | {md(g.get('gpuauto_choice') or '?')} | {g['median_us']:.1f} | "
            f"{ref['median_us'] / g['median_us']:.3f} | – | – | "
            f"{ref['first20_ms'] / g['first20_ms']:.3f} ({ref['first20_ms']:.1f} / {g['first20_ms']:.1f}) | {b0} | {bt} |"
        )
    print()


def is_interleaved(rec):
    """A record of bench_spmv -interleave (the types timed in turn, one batch each per round)"""
    return rec.get("mode") == "interleaved"


def print_interleaved(inter):
    """The records of bench_spmv -interleave: per matrix and entry, the medians over the rounds, then the peer table"""
    if not inter:
        return
    print(
        "Interleaved (`bench_spmv -interleave R`: after the entries' own runs, R rounds in which every type times one "
        "batch in turn, the first moving on each round, so that a drift of the host's speed touches all alike); µs per "
        "product and the host's µs to issue one, medians over the rounds:\n"
    )
    print("| matrix | rows | nnz | type / entry | rounds | µs | issue µs | speedup vs aijcusparse | correct |")
    print("|---|---:|---:|---|---:|---:|---:|---:|:---:|")
    refs = reference_times([r for r in inter if r.get("correct") is not False])
    for rec in inter:
        ref = refs.get(matrix_key(rec))
        sp = f"{ref / rec['median_us']:.2f}" if ref and rec.get("median_us") else "–"
        print(
            f"| {md(rec.get('matrix') or '?')} | {fmt(rec.get('rows'), ',')} | {fmt(rec.get('nnz'), ',')} | {entry_label(rec)} | "
            f"{fmt(rec.get('rounds'), 'd')} | {fmt(rec.get('median_us'), '.2f')} | {fmt(rec.get('issue_us'), '.2f')} | {sp} | "
            f"{'yes' if rec.get('correct') else '**no**'} |"
        )
    print()
    print_peer_table(
        inter,
        "Interleaved, against the faster PETSc GPU type: per matrix, the fastest of our types (default parameters) "
        "against aijcusparse and against the faster of aijcusparse and sellcuda, medians over the rounds (µs):\n",
    )


def print_device(device, records):
    print(f"## {device}\n")
    inter = [r for r in records if is_interleaved(r)]
    records = [r for r in records if not is_interleaved(r)]
    data = [r for r in records if not is_status(r)]
    bws = [r["copy_bw_GBs"] for r in data + inter if r.get("copy_bw_GBs")]
    if bws:
        line = f"Copy bandwidth (device to device, read + write): {statistics.median(bws):.0f} GB/s"
        if len(set(bws)) > 1:
            line += f" (median; {min(bws):.0f} to {max(bws):.0f} over {len(bws)} records)"
        l2 = next((r.get("l2_bytes") for r in data + inter if r.get("l2_bytes")), None)
        if l2:
            line += f", L2 {l2 / 2**20:.0f} MiB"
        print(line + "\n")

    refs = reference_times(data)
    # matrices in order of first appearance, records of a matrix in their order
    order = []
    for rec in records:
        if rec.get("matrix") not in order:
            order.append(rec.get("matrix"))
    if records:
        print("| " + " | ".join(HEADER) + " |")
        print("|" + "|".join(["---"] * 4 + ["---:"] * 7 + [":---:"]) + "|")
        for name in order:
            for rec in records:
                if rec.get("matrix") != name:
                    continue
                cells = status_row(rec) if is_status(rec) else data_row(rec, refs)
                print("| " + " | ".join(cells) + " |")
        print()
    print_speedup_summary(data)
    print_peer_table(data)
    print_gpuauto_table(data)
    print_gpuauto_peers(data)
    print_value_changes(data)
    print_builds(data)
    print_bytes_per_entry(data)
    print_interleaved(inter)


def commit_key(rec):
    return str(rec.get("commit") or "unknown commit").split(" ")[0]


def refresh_us(rec, records):
    """The entry's refresh after a value change: its extra time less aijcusparse's extra time in the same records"""
    if rec.get("value_change_us") is None or not rec.get("median_us") or rec.get("type") == REFERENCE_TYPE:
        return None
    ref = [r["value_change_us"] - r["median_us"] for r in records
           if r.get("type") == REFERENCE_TYPE and matrix_key(r) == matrix_key(rec) and r.get("value_change_us") is not None]
    return rec["value_change_us"] - rec["median_us"] - statistics.median(ref) if ref else None


def print_commit_comparison(device, records):
    data = [r for r in records if not is_status(r) and not is_interleaved(r) and r.get("median_us")]
    if not data:
        return
    commits = []
    for rec in data:
        if commit_key(rec) not in commits:
            commits.append(commit_key(rec))
    rows = []
    for rec in data:
        key = (rec.get("matrix"), entry_key(rec))
        if key not in rows:
            rows.append(key)
    refresh = any(r.get("value_change_us") is not None for r in data)
    print(f"## {device}\n")
    print("Median µs per product" + (" / value refresh µs (extra time after `MatScale(B, -1)` over aijcusparse's)" if refresh else "")
          + ", per commit (the median over the records of that commit):\n")
    print("| matrix | type / entry | " + " | ".join(md(c) for c in commits) + " |")
    print("|---|---|" + "---:|" * len(commits))
    for matrix, entry in rows:
        cells = []
        for c in commits:
            recs = [r for r in data if commit_key(r) == c and r.get("matrix") == matrix and entry_key(r) == entry]
            if not recs:
                cells.append("–")
                continue
            same = [r for r in data if commit_key(r) == c]
            t = statistics.median(r["median_us"] for r in recs)
            cell = f"{t:.1f}"
            if refresh:
                rs = [x for x in (refresh_us(r, same) for r in recs) if x is not None]
                cell += f" / {statistics.median(rs):.0f}" if rs else " / –"
            cells.append(cell)
        print(f"| {md(matrix or '?')} | {md(entry)} | " + " | ".join(cells) + " |")
    print()


def print_bytes_per_entry(data):
    """Bytes per entry of each format (issue 18): the device arrays it reads in a product (device_bytes: the CSR's for
    aijcusparse), with x and y once (8 n + 8 m), over the entries; and what the measured time would move at the copy
    bandwidth, per entry (the product's speed in the unit of the model). A format below the CSR's first figure moves
    fewer bytes than any CSR product can."""
    rows = [r for r in data if r.get("device_bytes") is not None and r.get("nnz") and r.get("median_us") and r.get("copy_bw_GBs")]
    if not rows:
        return
    print(
        "Bytes per entry: stored (the format's device arrays, the CSR's for aijcusparse) and moved by the model (the arrays, "
        "x and y once), over the entries; and the bytes the copy bandwidth moves in the measured time, per entry:\n"
    )
    print("| matrix | nnz | type / entry | stored B/entry | model B/entry | CSR model B/entry | at the copy bandwidth B/entry |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for rec in rows:
        nnz, vecs = rec["nnz"], 8.0 * (rec.get("rows", 0) + rec.get("cols", 0))
        csr = rec.get("csr_bytes")
        at_bw = rec["median_us"] * 1e-6 * rec["copy_bw_GBs"] * 1e9 / nnz
        if rec["device_bytes"] > 0 or rec.get("type") == REFERENCE_TYPE:
            stored, model = f"{rec['device_bytes'] / nnz:.2f}", f"{(rec['device_bytes'] + vecs) / nnz:.2f}"
        else:  # no format held: declined (DIA's bound) or not built; the products were aijcusparse's
            stored, model = "none (aijcusparse's product)", "–"
        print(
            f"| {md(rec.get('matrix', '?'))} | {fmt(nnz, ',')} | {entry_label(rec)} | {stored} | {model} | "
            f"{fmt((csr + vecs) / nnz if csr is not None else None, '.2f')} | {at_bw:.2f} |"
        )
    print()


def main():
    if hasattr(signal, "SIGPIPE"):  # quiet exit when piped into head
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", help="JSONL files written by bench_spmv -json_out or the drivers in bench/")
    parser.add_argument("--commit", help="only the records whose commit begins with this")
    parser.add_argument("--compare-commits", action="store_true", help="one column per commit instead of the tables")
    args = parser.parse_args()

    records = read_records(args.files)
    if args.commit:
        records = [r for r in records if commit_key(r).startswith(args.commit)]
    if not records:
        print("no records found", file=sys.stderr)
        return 1
    if args.compare_commits:
        print("# SpMV benchmark: commits compared\n")
        for device, recs in assign_devices(records).items():
            print_commit_comparison(device, recs)
        return 0
    print("# SpMV benchmark\n")
    print(
        "% copy BW: model bytes (12 nnz + 4 (m + 1) + 8 n + 8 m) per median time, over the measured "
        "copy bandwidth. Build: format construction time in units of one product. MB = 1e6 bytes.\n"
    )
    for device, recs in assign_devices(records).items():
        print_device(device, recs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
