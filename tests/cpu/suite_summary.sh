#!/bin/bash
# tests/petsc_suite/summarize.py's reasons on diffs whose answers are known
#   bash tests/cpu/suite_summary.sh tests/petsc_suite
set -euo pipefail
PYTHONPATH=$1 python3 - <<'PY'
import summarize as s
# the first changed lines are numbers that PETSc's diff tolerates; the reason names the lines with the type
lines = ['2c2', '<   tolerances: relative=1e-05, absolute=1e-25', '---', '>   tolerances: relative=1e-05, absolute=1e-50',
         '9c9', '<   type: seqaijcusparse', '---', '>   type: seqaijcusparsecmrs']
got = s.name_only_reason(lines, 'cmrs')
want = 'output differs only in the type name: <   type: seqaijcusparse / >   type: seqaijcusparsecmrs'
assert got == want, got
# our view's lines alone (PETSc's output has none to change)
got = s.name_only_reason(['5a6,7', '>         CMRS GPU format:', '>           strip height 16'], 'cmrs')
assert got == 'output differs only in the type name: >         CMRS GPU format:', got
# no line names a type: the first changed lines, as before
got = s.name_only_reason(['3c3', '<   4 KSP Residual norm 1.4e-16', '---', '>   4 KSP Residual norm 1.0e-16'], 'bce')
assert got == 'output differs only in the type name: <   4 KSP Residual norm 1.4e-16 / >   4 KSP Residual norm 1.0e-16', got
print('summarize.py: the reasons of name-only diffs as documented')
PY
