#!/bin/bash
# tests/petsc_suite/summarize.py's reasons on diffs whose answers are known, and its merge of runs made apart
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
# --from-tsv: two runs (aijcusparse's rows in both, the first wins), one record of every type
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/r1" "$t/r2"
h=$'type\ttest\tlabel\tfile\tnsize\tstatus\tprints_type\tname_only\tcpu_s\treason\tdetail'
printf '%s\n' "$h" $'aijcusparse\tt1\tt1\tf.c\t1\tpass\t\t\t1\t\t' $'cmrs\tt1\tt1\tf.c\t1\tfail-error\t\t\t1\tboom\t' \
  $'aijcusparse\tt2\tt2\tf.c\t2\tpass\t\t\t1\t\t' $'cmrs\tt2\tt2\tf.c\t2\tpass\t\t\t1\t\t' > "$t/r1/results.tsv"
printf '%s\n' "$h" $'aijcusparse\tt1\tt1\tf.c\t1\tfail-error\t\t\t1\tother\t' $'bce\tt1\tt1\tf.c\t1\tpass\t\t\t1\t\t' \
  $'aijcusparse\tt2\tt2\tf.c\t2\tpass\t\t\t1\t\t' $'bce\tt2\tt2\tf.c\t2\tfail-diff\t\tyes\t1\tname\t' > "$t/r2/results.tsv"
printf '# x\n\n- repository: `abc`\n- GPU: G\n\nrest\n' > "$t/r1/summary.md"
python3 "$1/summarize.py" --out "$t/m" --from-tsv "$t/r1/results.tsv" "$t/r2/results.tsv" > "$t/stdout"
grep -q '^aijcusparse  pass 2 ' "$t/stdout" || { echo "aijcusparse's rows not taken from the first run"; cat "$t/stdout"; exit 1; }
grep -q '^bce .*fail-diff 1' "$t/stdout" || { echo "the second run's type is missing"; cat "$t/stdout"; exit 1; }
[ "$(grep -c . "$t/m/results.tsv")" = 7 ] || { echo "results.tsv: not 6 rows and a header"; cat "$t/m/results.tsv"; exit 1; }
grep -q '^| t1 | 1 | cmrs | fail-error | boom |' "$t/m/summary.md" || { echo "the single-process failure is not listed"; cat "$t/m/summary.md"; exit 1; }
grep -q '^| t2 | 2 | bce | fail-diff (type name and view only) |' "$t/m/summary.md" || { echo "the multi-rank name-only diff is not listed"; exit 1; }
grep -q '^  - repository: `abc`' "$t/m/summary.md" || { echo "the first run's header is not quoted"; exit 1; }
# a merged record merged again: its runs are quoted one level down
mkdir -p "$t/r3"
cp "$t/m/results.tsv" "$t/m/summary.md" "$t/r3/"
python3 "$1/summarize.py" --out "$t/m2" --from-tsv "$t/r1/results.tsv" "$t/r3/results.tsv" > /dev/null
grep -q '^  - run 1 (aijcusparse, cmrs):' "$t/m2/summary.md" || { echo "the merged record's runs are not quoted"; cat "$t/m2/summary.md"; exit 1; }
grep -q '^    - repository: `abc`' "$t/m2/summary.md" || { echo "the merged record's run headers are not quoted"; cat "$t/m2/summary.md"; exit 1; }
echo 'summarize.py --from-tsv: one record of two runs'
