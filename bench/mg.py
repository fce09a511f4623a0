#!/usr/bin/env python3
"""Multigrid with PETSc's own tutorials, unmodified: every type against aijcusparse.

Runs ksp/ksp/tutorials/ex45 (3D Laplacian, GAMG and Galerkin PCMG), snes/tutorials/ex19 (driven cavity, GAMG) and
ksp/ksp/tutorials/ex56 (3D elasticity, GAMG), built by the project's CMake (build-gpu/tests/petsc_*), with
-log_view -log_view_gpu_time (without it PETSc reports no time for PCSetUp on a GPU), once per type and repeat.
Every run appends one JSON record to RESULTS (default bench/results/<gpu>/mg.jsonl) with the provenance (commit,
dirty flag, GPU, driver, CUDA and PETSc versions); then the report (median of the repeats) is written next to it
as mg.md.

  python3 bench/mg.py [--build build-gpu] [--types aijcusparse,cmrs,sellcs,bce] [--repeat 3] [--warmup 1] [--cases ex45_gamg_65,...] [--np 1,2]
  python3 bench/mg.py --report bench/results/h100/mg.jsonl [--commit C]   # the report only (of C, else of the last run's commit;
                                                                          # C may be a list C1,C2 or all)
  python3 bench/mg.py --report FILE --commit C1,C2 --by-commit            # one block per case and commit (runs apart)

The cases ex2_jacobi, ex45_jacobi_200 and ex45_gamg_200 (time to solution with many products, and GAMG at 200^3) run
when --cases names them; the report gives each type's KSPSolve target, aijcusparse's KSPSolve less 90% of the MatMult
time the type saves.

--np runs each case on each of these process counts (mpiexec -n P; with P GPUs visible, PETSc gives rank r the GPU
r mod P); the records carry nprocs and the GPUs the processes use, and the report has one block per case and count.

Each type's run adds -dll_append <the library>; PETSc's own types (aijcusparse, and sellcuda, the other PETSc GPU type:
--types aijcusparse,sellcuda,...; GAMG refuses it, its failed runs are counted in the report) run without it. A type written TYPE/OPTION=VALUE/...
passes extra options, e.g. cmrs/mat_gpuformat_product_min_rows=100000.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

# name: (program, type option, arguments)
GRID = "-da_grid_x {n} -da_grid_y {n} -da_grid_z {n} -dm_vec_type cuda -ksp_type cg"
CASES = {
    "ex45_gamg_65": ("petsc_ksp_ksp_ex45", "-dm_mat_type", GRID.format(n=65) + " -pc_type gamg"),
    "ex45_mg_65": ("petsc_ksp_ksp_ex45", "-dm_mat_type", GRID.format(n=65) + " -pc_type mg -pc_mg_levels 4 -pc_mg_galerkin both"),
    "ex45_gamg_129": ("petsc_ksp_ksp_ex45", "-dm_mat_type", GRID.format(n=129) + " -pc_type gamg"),
    "ex45_mg_129": ("petsc_ksp_ksp_ex45", "-dm_mat_type", GRID.format(n=129) + " -pc_type mg -pc_mg_levels 4 -pc_mg_galerkin both"),
    # GAMG with its default Chebyshev/Jacobi smoother does not converge on ex19 refined (10,000 linear iterations, any
    # type, on the CPU too); point-block Jacobi (4 fields) under GMRES on the levels does, in 2 Newton steps
    "ex19_gamg": ("petsc_snes_ex19", "-dm_mat_type", "-da_refine 4 -dm_vec_type cuda -pc_type gamg -ksp_type fgmres -mg_levels_ksp_type gmres -mg_levels_ksp_max_it 3 -mg_levels_pc_type pbjacobi"),
    "ex56_gamg": ("petsc_ksp_ksp_ex56", "-mat_type", "-ne 39 -alpha 1.e-3 -ksp_type cg -pc_type gamg -pc_gamg_agg_nsmooths 1 -use_mat_nearnullspace"),
    # time to solution with many products (issue "the cost around the kernel"): a fixed number of CG iterations with
    # Jacobi (rtol 1e-30: every run takes all of them), where the product's gain must reach KSPSolve
    "ex2_jacobi": ("petsc_ksp_ex2", "-mat_type", "-m 2048 -n 2048 -vec_type cuda -ksp_type cg -pc_type jacobi -ksp_rtol 1e-30 -ksp_max_it 1000"),
    "ex45_jacobi_200": ("petsc_ksp_ksp_ex45", "-dm_mat_type", GRID.format(n=200) + " -pc_type jacobi -ksp_rtol 1e-30 -ksp_max_it 500"),
    "ex45_gamg_200": ("petsc_ksp_ksp_ex45", "-dm_mat_type", GRID.format(n=200) + " -pc_type gamg"),
}
# the cases run without --cases: the multigrid ones (the larger time-to-solution ones on request)
DEFAULT_CASES = ("ex45_gamg_65", "ex45_mg_65", "ex45_gamg_129", "ex45_mg_129", "ex19_gamg", "ex56_gamg")
EVENTS = ("PCSetUp", "KSPSolve", "SNESSolve", "MatMult", "MatPtAPNumeric", "MatPtAPSymbolic", "CMRSBuild", "SELLCSBuild", "BCEBuild", "CMRSValues", "SELLCSValues", "BCEValues")


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=30).stdout.strip()
    except Exception:
        return ""


def provenance(root):
    # GIT_COMMIT and GIT_DIRTY first: a GPU host's copy of the tree may carry a .git of an older commit
    commit = os.environ.get("GIT_COMMIT") or sh(f"git -C {root} rev-parse --short HEAD") or "unknown"
    if "GIT_DIRTY" in os.environ:
        dirty = os.environ["GIT_DIRTY"] == "1"
    else:
        dirty = bool(sh(f"git -C {root} status --porcelain --untracked-files=no")) if commit != "unknown" else None
    gpu = sh("nvidia-smi --query-gpu=name,driver_version --format=csv,noheader -i 0").split(", ")
    petsc = os.environ.get("PETSC_DIR", "/opt/petsc-cuda")
    version = sh(f"sed -n 's/^Version: //p' {petsc}/lib/pkgconfig/PETSc.pc")
    cuda = sh("nvcc --version | sed -n 's/.*release \\([0-9.]*\\).*/\\1/p'")
    return {"commit": commit, "dirty": dirty, "gpu": gpu[0] if gpu and gpu[0] else "none", "driver": gpu[1] if len(gpu) > 1 else "",
            "cuda": cuda, "petsc": version}


def parse(out):
    """Times (max over ranks), counts and GPU %F of the events, the iterations and the total time of one -log_view"""
    rec = {"iterations": [int(x) for x in re.findall(r"iterations (\d+)", out)]}
    m = re.search(r"^Time \(sec\):\s+(\S+)", out, re.M)
    rec["total_s"] = float(m.group(1)) if m else None
    for ev in EVENTS:
        m = re.search(rf"^{ev}\s+(\d+)\s+\S+\s+(\S+)\s.*\s(\S+)\s*$", out, re.M)
        if m:
            t = m.group(2)
            rec[ev] = {"count": int(m.group(1)), "s": float(t) if t != "n/a" else None, "gpu_flop_pct": float(m.group(3)) if m.group(3) != "n/a" else None}
    # every event of the table (the profile behind the report's "where the time differs"): name -> [count, max time s]
    events = {}
    for m in re.finditer(r"^([A-Za-z][\w:.-]*)\s+(\d+)\s+[\d.]+\s+(\d[\d.]*e[+-]\d+)\s", out, re.M):
        events.setdefault(m.group(1), [int(m.group(2)), float(m.group(3))])
    if events:
        rec["events"] = events
    return rec


def gpu_count():
    return len([line for line in sh("nvidia-smi -L").splitlines() if line.startswith("GPU ")])


PETSC_TYPES = ("aijcusparse", "sellcuda")  # PETSc's own GPU types: run without our library
BY_RUN = False  # --by-commit: each commit's runs of a case are a block of their own (ratios within one run only)


def label(r):
    """A case and its process count, as the report names them (with --by-commit: and the commit)"""
    n = r.get("nprocs", 1)
    name = r["case"] if n == 1 else f"{r['case']}, {n} processes on {r.get('gpus', '?')} GPUs"
    return f"{name} @ {r.get('commit', '?')}" if BY_RUN else name


def run(args, case, typ, lib, prov, nprocs=1):
    prog, typeopt, cargs = CASES[case]
    parts = typ.split("/")
    base, extra = parts[0], " ".join("-" + p.replace("=", " ", 1) for p in parts[1:])
    exe = os.path.join(args.build, "tests", prog)
    cmd = f"{exe} {cargs} {typeopt} {base} {extra} -ksp_converged_reason -log_view -log_view_gpu_time"
    if nprocs > 1:
        cmd = f"mpiexec -n {nprocs} {cmd}"
    elif args.pin:  # one process on given cores, so that where the system places it does not set its pace
        cmd = f"taskset -c {args.pin} {cmd}"
    if base not in PETSC_TYPES:
        cmd += f" -dll_append {lib}"
    t0 = time.time()
    p = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=args.timeout)
    rec = {"case": case, "type": typ, "nprocs": nprocs, "gpus": min(nprocs, gpu_count()), "command": cmd.replace(args.build + "/", ""), "rc": p.returncode,
           "wall_s": round(time.time() - t0, 3)}
    if args.pin and nprocs == 1:
        rec["pin"] = args.pin
    rec.update(parse(p.stdout))
    rec.update(prov)
    if p.returncode:
        rec["error"] = (p.stdout + p.stderr)[-2000:]
    return rec


def med(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


# events that contain the others (their time is the sum of what runs inside them), left out of the profile
OUTER = {"PCSetUp", "KSPSolve", "SNESSolve", "KSPSetUp", "PCApply", "SNESJacobianEval", "KSPSolve_FS_0", "PCSetUpOnBlocks"}


def profile(recs, cases, top=4):
    """Per case: the share of aijcusparse's setup + solve that the product takes (the most a faster product can gain),
    and, per type, the events whose median time differs most from aijcusparse's (records with the event table only)"""
    out = ["", "## Where the time differs from aijcusparse", "",
           "MatMult share: aijcusparse's MatMult time over its PCSetUp + solve, the most that any product, however fast, can take off "
           "setup + solve. Events: the medians of the events (PETSc's -log_view table, nested events included in their parents) whose "
           "time differs most from aijcusparse's, with the type's minus aijcusparse's time in ms.", "",
           "| case | MatMult share | type | setup + solve - aijcusparse's, ms | events (type - aijcusparse, ms) |", "|---|---:|---|---:|---|"]
    for case in cases:
        rows = [r for r in recs if label(r) == case and r["rc"] == 0 and "events" in r]
        ref = [r for r in rows if r["type"] == "aijcusparse"]
        if not ref:
            continue
        def medev(rr, name):
            return med([r["events"][name][1] for r in rr if name in r["events"]]) or 0.0
        def total(rr):
            solve = "SNESSolve" if any("SNESSolve" in r["events"] for r in rr) else "KSPSolve"
            return medev(rr, "PCSetUp") + medev(rr, solve)
        share = medev(ref, "MatMult") / total(ref) if total(ref) else None
        names = {n for r in rows for n in r["events"]} - OUTER
        for t in dict.fromkeys(r["type"] for r in rows):
            if t == "aijcusparse":
                continue
            rr = [r for r in rows if r["type"] == t]
            diffs = sorted(((medev(rr, n) - medev(ref, n)) * 1e3, n) for n in names)
            big = sorted(diffs, key=lambda d: -abs(d[0]))[:top]
            out.append(f"| {case} | {'' if share is None else f'{100 * share:.1f} %'} | {t} | {(total(rr) - total(ref)) * 1e3:+.1f} | "
                       + ", ".join(f"{n} {d:+.1f}" for d, n in big) + " |")
    return out if len(out) > 7 else []  # the heading alone: no records with the event table


def select(path, commit=None):
    """The records (warm-up runs left out) of one commit (default: the commit of the last record; the file is
    append-only), or of several (commit: a comma separated list, or "all")"""
    recs = [r for r in (json.loads(line) for line in open(path) if line.strip()) if not r.get("warmup")]
    if recs and commit and (commit == "all" or "," in commit):
        wanted = commit.split(",")
        recs = [r for r in recs if commit == "all" or any(r.get("commit", "").startswith(c) for c in wanted)]
    elif recs:
        last = recs[-1]
        key = (commit, None) if commit else (last.get("commit"), last.get("dirty"))
        recs = [r for r in recs if r.get("commit", "").startswith(key[0] or "") and (commit or r.get("dirty") == key[1])]
    if not recs:
        print(f"no records of commit {commit} in {path}", file=sys.stderr)
    return recs


# events that run the same code with every type, their time per call telling how fast the process ran as a whole
PACE = ("VecMDot", "VecNorm", "SNESFunctionEval")


def runs(path, case, commit=None):
    """Every run of one case, in the order they ran (the types interleaved): iterations, setup and solve, and the time
    per call of events whose code is the same for every type (PACE), which shows a run that was slower as a whole"""
    recs = [r for r in select(path, commit) if label(r) == case and r["rc"] == 0]
    pace = [e for e in PACE if any(e in r.get("events", {}) for r in recs)]
    out = [f"Runs of {case}, in the order they ran; µs per call of events whose code is the same for every type:", "",
           "| commit | type | iterations | PCSetUp s | solve s | " + " | ".join(f"{e} µs/call" for e in pace) + " |",
           "|---|---|---|---:|---:|" + "---:|" * len(pace)]
    for r in recs:
        solve = r.get("SNESSolve", r.get("KSPSolve", {})).get("s")
        cells = []
        for e in pace:
            n, t = r.get("events", {}).get(e, (0, 0.0))
            cells.append(f"{1e6 * t / n:.1f}" if n else "")
        out.append(f"| {r.get('commit', '')} | {r['type']} | {' '.join(map(str, r['iterations']))} | {r.get('PCSetUp', {}).get('s', 0):.3f} | "
                   f"{'' if solve is None else f'{solve:.3f}'} | " + " | ".join(cells) + " |")
    print("\n".join(out))


def report(path, commit=None):
    """The report of one commit's records (default: the commit of the last record; the file is append-only), or of
    several (commit: a comma separated list, or "all": every record, for a file that merges runs without repeats)"""
    recs = select(path, commit)
    if not recs:
        return
    out = []
    dev = {r["gpu"] for r in recs}
    commits = sorted({r["commit"] + ("-dirty" if r.get("dirty") else "") for r in recs})
    out.append(f"# Multigrid with PETSc's tutorials: every type against aijcusparse\n")
    out.append(f"GPU: {', '.join(sorted(dev))}; commit {', '.join(commits)}; PETSc {recs[0]['petsc']}, CUDA {recs[0]['cuda']}, driver {recs[0]['driver']}. "
               "Times from `-log_view -log_view_gpu_time` (max over ranks), median of the repeats (PCSetUp: with the least and the "
               "greatest of them); written by `bench/mg.py`.\n")
    out.append("Product µs: MatMult less the one-time work of the first product (the upload of the host-assembled CSR, "
               "`MatCUSPARSCopyTo`, or our build, whose event holds that upload), per product; only where the run has one upload "
               "and at most one build (the Jacobi cases), since in GAMG's setup the uploads and builds happen outside MatMult.\n")
    out.append("KSPSolve target: aijcusparse's KSPSolve less 90% of the product time the type saves (issue \"the cost around the kernel\"): "
               "the products' count times the difference of the product µs where both have it (so the build and any slower upload "
               "must be won back within the solve), else the difference of the MatMult times; met when the type's KSPSolve is at most it.\n")
    out.append("| case | type | runs | iterations | PCSetUp s | KSPSolve s | SNESSolve s | PCSetUp / aijcusparse | setup + solve / aijcusparse | MatMult s (count) | product µs | format builds (s) | PtAP GPU %F | KSPSolve target s |")
    out.append("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    cases = []
    for r in recs:
        if label(r) not in cases:
            cases.append(label(r))
    for case in cases:
        rows = [r for r in recs if label(r) == case]
        types = []
        for r in rows:
            if r["type"] not in types:
                types.append(r["type"])
        stats = {}
        for t in types:
            rr = [r for r in rows if r["type"] == t and r["rc"] == 0]
            def ev(name, key="s"):
                return med([r[name][key] for r in rr if name in r])
            solve = ev("SNESSolve") if ev("SNESSolve") is not None else ev("KSPSolve")
            setup = ev("PCSetUp")
            setups = [r["PCSetUp"]["s"] for r in rr if "PCSetUp" in r]
            builds = sum(med([r[e]["s"] for r in rr if e in r]) or 0 for e in ("CMRSBuild", "SELLCSBuild", "BCEBuild"))
            nbuilds = sum(med([r[e]["count"] for r in rr if e in r]) or 0 for e in ("CMRSBuild", "SELLCSBuild", "BCEBuild"))
            its = sorted({" ".join(map(str, r["iterations"])) for r in rr})
            # a product's time without the one-time work of the first (the upload of the host-assembled CSR, and our build,
            # whose event holds that upload): only where there is one upload and at most one build, both within the first
            # MatMult (the Jacobi cases; in GAMG the setup uploads and builds elsewhere)
            pp = []
            for r in rr:
                e = r.get("events", {})
                nb = sum(e[b][0] for b in ("CMRSBuild", "SELLCSBuild", "BCEBuild") if b in e)
                up = e.get("MatCUSPARSCopyTo", [0, 0.0])
                if "jacobi" in r["case"] and "events" in r and r["MatMult"]["count"] > 1 and up[0] <= 1 and nb <= 1:
                    once = max([up[1]] + [e[b][1] for b in ("CMRSBuild", "SELLCSBuild", "BCEBuild") if b in e])
                    pp.append((r["MatMult"]["s"] - once) / r["MatMult"]["count"])
            stats[t] = dict(n=len(rr), nfail=len([r for r in rows if r["type"] == t and r["rc"]]), its=" / ".join(its), setup=setup, ksp=ev("KSPSolve"), snes=ev("SNESSolve"),
                            sum=(setup or 0) + (solve or 0) if setup is not None else None, mm=ev("MatMult"), mmc=ev("MatMult", "count"), builds=builds, nbuilds=nbuilds,
                            ptap=ev("MatPtAPNumeric", "gpu_flop_pct"), product=med(pp) if len(pp) == len(rr) and pp else None, setup_range=(min(setups), max(setups)) if len(setups) > 1 else None)
        ref = stats.get("aijcusparse")
        for t in types:
            s = stats[t]
            f = lambda v, d=3: "" if v is None else f"{v:.{d}f}"
            rs = "" if not ref or not ref["setup"] or s["setup"] is None else f"{s['setup'] / ref['setup']:.3f}"
            rt = "" if not ref or not ref["sum"] or s["sum"] is None else f"{s['sum'] / ref['sum']:.3f}"
            fails = f" ({s['nfail']} failed)" if s["nfail"] else ""
            spread = "" if s["setup_range"] is None else f" ({s['setup_range'][0]:.3f}-{s['setup_range'][1]:.3f})"
            target = ""
            if t != "aijcusparse" and ref and None not in (ref["ksp"], ref["product"], s["ksp"], s["product"], s["mmc"]):
                goal = ref["ksp"] - 0.9 * s["mmc"] * (ref["product"] - s["product"])
                target = f"{goal:.3f} ({'met' if s['ksp'] <= goal else 'not met'})"
            elif t != "aijcusparse" and ref and None not in (ref["ksp"], ref["mm"], s["ksp"], s["mm"]):
                goal = ref["ksp"] - 0.9 * (ref["mm"] - s["mm"])
                target = f"{goal:.3f} ({'met' if s['ksp'] <= goal else 'not met'})"
            out.append(f"| {case} | {t} | {s['n']}{fails} | {s['its']} | {f(s['setup'])}{spread} | {f(s['ksp'])} | {f(s['snes'])} | {rs} | {rt} | {f(s['mm'], 4)} ({'' if s['mmc'] is None else int(s['mmc'])}) | {f(None if s['product'] is None else s['product'] * 1e6, 1)} | "
                       f"{int(s['nbuilds'])} ({s['builds']:.4f}) | {'' if s['ptap'] is None else int(s['ptap'])} | {target} |")
    out += profile(recs, cases)
    md = os.path.splitext(path)[0] + ".md"
    open(md, "w").write("\n".join(out) + "\n")
    print("\n".join(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build-gpu")
    ap.add_argument("--types", default="aijcusparse,cmrs,sellcs,bce")
    ap.add_argument("--cases", default=",".join(DEFAULT_CASES), help="among " + ",".join(CASES))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1, help="runs of every type per case before the repeats, recorded as warm-up and left out of the report")
    ap.add_argument("--np", default="1", help="comma separated process counts (mpiexec -n)")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--results", default=None)
    ap.add_argument("--report", default=None, help="only write the report of this JSONL file")
    ap.add_argument("--commit", default=None, help="with --report: the records of this commit, of a comma separated list of them, or all (default: the last record's)")
    ap.add_argument("--pin", default=None, help="run the one-process cases on these cores (taskset -c, e.g. 2 or 2-3); the records say so")
    ap.add_argument("--runs", default=None, help="with --report: print every run of this case (its label, as in the report) instead, "
                    "with the time per call of events whose code is the same for every type")
    ap.add_argument("--by-commit", action="store_true", help="with --report and several commits: one block per case and commit "
                    "(each commit's records one run on one machine), instead of one median over them all")
    args = ap.parse_args()
    global BY_RUN
    BY_RUN = args.by_commit
    if args.report and args.runs:
        runs(args.report, args.runs, args.commit)
        return
    if args.report:
        report(args.report, args.commit)
        return
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    prov = provenance(root)
    gpu = re.sub(r"[^a-z0-9]+", "", prov["gpu"].lower().replace("nvidia", "").split()[0] if prov["gpu"] != "none" else "none")
    results = args.results or os.path.join(root, "bench", "results", gpu, "mg.jsonl")
    os.makedirs(os.path.dirname(results), exist_ok=True)
    lib = os.path.abspath(os.path.join(args.build, "libpetscgpuformats.so"))
    with open(results, "a") as f:
        for case in args.cases.split(","):
            for rep in range(-args.warmup, args.repeat):
                for nprocs in [int(n) for n in args.np.split(",")]:
                    for typ in args.types.split(","):  # types interleaved, so that drift hits all alike
                        rec = run(args, case, typ, lib, prov, nprocs)
                        if rep < 0:  # the first run of a program pays for loading it and its libraries from disk
                            rec["warmup"] = True
                        f.write(json.dumps(rec) + "\n")
                        f.flush()
                        print(f"{case} np {nprocs} {typ} rep {rep}: rc {rec['rc']} its {rec.get('iterations')} PCSetUp {rec.get('PCSetUp', {}).get('s')} "
                              f"KSPSolve {rec.get('KSPSolve', {}).get('s')} wall {rec['wall_s']}", flush=True)
    report(results)


if __name__ == "__main__":
    sys.exit(main())
