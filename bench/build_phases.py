#!/usr/bin/env python3
"""build_phases.py - the phases of the format builds from a log of -info :mat (PetscInfo() of the common layer).

Each build of one of our types with PetscInfo() on for Mat prints one line,
  <Title> build of M rows, N entries: T ms; phases: NAME t ms, ...; K device allocations (X MB) and F frees took Y ms
each phase timed to the end of its kernels (the build synchronises after each, only then). This prints one markdown
row per build, in the order of the log: bench_spmv builds each type three times (the first matrix of the type, whose
kernels load then; a second one; one assembled on the host), so the second of each is the steady cost.

  BENCH_ARGS="-info :mat" bash bench/run_suite.sh refresh && python3 bench/build_phases.py OUT/refresh.log
"""
import re
import sys

LINE = re.compile(r"(?P<title>[A-Za-z-]+) build of (?P<m>\d+) rows, (?P<nnz>\d+) entries: (?P<ms>[0-9.]+) ms; phases: (?P<phases>.*?); "
                  r"(?P<mallocs>\d+) device allocations \((?P<mb>[0-9.]+) MB\) and (?P<frees>\d+) frees took (?P<alloc_ms>[0-9.]+) ms")


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "-help", "--help"):
        print(__doc__)
        return 0
    rows = []
    for path in argv[1:]:
        for line in open(path, errors="replace"):
            m = LINE.search(line)
            if m:
                rows.append(m.groupdict())
    if not rows:
        print("no build lines found (run with -info :mat)", file=sys.stderr)
        return 1
    print("| format | rows | entries | build ms | phases (ms) | device allocations | MB | frees | alloc + free ms |")
    print("|---|---:|---:|---:|---|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['title']} | {int(r['m']):,} | {int(r['nnz']):,} | {float(r['ms']):.2f} | {r['phases']} | {r['mallocs']} | "
              f"{float(r['mb']):.1f} | {r['frees']} | {float(r['alloc_ms']):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
