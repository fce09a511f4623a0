#!/bin/bash
# run_suite.sh with a stand-in for bench_spmv (no GPU): each suite's matrices and types reach the benchmark, sellcuda runs
# in the same process (SELLCUDA=inline) or in one of its own under SELL_TIMEOUT, a run past that limit is a "timeout"
# record and not a failure, a failed run is a "failed" record and makes the script exit nonzero at its end, and an
# unknown suite or SELLCUDA value is refused; SKIP and DEADLINE (auto, auto-check).   run_suite.sh BENCH_DIR
set -u
suite=$1/run_suite.sh
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
# the stand-in: one record per type of -types; FAKE_FAIL (a matrix kind) fails, FAKE_SLOW (a kind) makes sellcuda sleep
cat > "$t/bench" <<'EOF'
#!/bin/bash
matrix=$2 types= out= args=${*:2}
while [ $# -gt 0 ]; do
  case $1 in -types) types=$2; shift ;; -json_out) out=$2; shift ;; esac
  shift
done
echo "$args" >> "$FAKE_LOG"
[ "$matrix" = "${FAKE_FAIL:-}" ] && exit 3
for ty in ${types//,/ }; do
  [ "$ty" = sellcuda ] && [ "$matrix" = "${FAKE_SLOW:-}" ] && sleep 30
  echo "{\"matrix\": \"$matrix\", \"entry\": \"$ty\"}" >> "$out"
done
EOF
chmod +x "$t/bench"
fail() { echo "FAILED: $*"; exit 1; }
export BENCH=$t/bench FAKE_LOG=$t/calls GIT_COMMIT=0000000 GIT_DIRTY=0

# peers, sellcuda inline: 11 matrices, one process each, 5 types each
: > "$t/calls"
OUT=$t/o1 SELLCUDA=inline bash "$suite" peers > "$t/o1.log" 2>&1 || { cat "$t/o1.log"; fail "peers with SELLCUDA=inline exited nonzero"; }
[ "$(grep -c . "$t/calls")" = 11 ] || fail "peers: $(grep -c . "$t/calls") bench runs, not 11"
[ "$(grep -c . "$t/o1/peers.jsonl")" = 55 ] || fail "peers: $(grep -c . "$t/o1/peers.jsonl") records, not 55"
[ "$(grep -c '"entry": "sellcuda"' "$t/o1/peers.jsonl")" = 11 ] || fail "peers: sellcuda not timed on every matrix"
grep -q '^rmat -scale 22 ' "$t/calls" || fail "peers: R-MAT scale 22 missing"
echo "run_suite.sh peers: 11 matrices, every type and sellcuda in one process each"

# small, sellcuda in processes of its own under the guard: one run past it (timeout record), one failed run
: > "$t/calls"
OUT=$t/o2 SELLCUDA=1 SELL_TIMEOUT=1 FAKE_SLOW=fem FAKE_FAIL=lp1 bash "$suite" small > "$t/o2.log" 2>&1
rc=$?
[ $rc -ne 0 ] || fail "small with a failed run exited 0"
[ "$(grep -c . "$t/calls")" = 26 ] || fail "small: $(grep -c . "$t/calls") bench runs, not 26 (13 matrices, sellcuda apart)"
[ "$(grep -c '"status": "timeout"' "$t/o2/small.jsonl")" = 2 ] || fail "small: not 2 timeout records (the two FEM matrices)"
grep -q '"matrix": "lp1".*"status": "failed", "rc": 3' "$t/o2/small.jsonl" || fail "small: no failed record for lp1"
grep -q 'bench run(s) failed' "$t/o2.log" || fail "small: the failure is not reported"
echo "run_suite.sh small: sellcuda apart under its guard, timeouts recorded, a failed run recorded and reported"

# auto: SKIP leaves out the first matrices (a resumed run), DEADLINE 0 begins none and lists each as not run
: > "$t/calls"
OUT=$t/o5 SELLCUDA=inline SKIP=20 bash "$suite" auto > "$t/o5.log" 2>&1 || fail "auto with SKIP=20 exited nonzero"
[ "$(grep -c . "$t/calls")" = 2 ] || fail "auto, SKIP=20: $(grep -c . "$t/calls") bench runs, not 2"
grep -q '^rmat -scale 14 ' "$t/calls" && grep -q '^lp1 -rows 50000 ' "$t/calls" || fail "auto, SKIP=20: not the last two matrices"
[ "$(grep -c '"entry": "gpuauto/mat_gpuauto_tune=1/mat_gpuformat_build_after=0"' "$t/o5/auto.jsonl")" = 2 ] || fail "auto: gpuauto's tuning not timed"
: > "$t/calls"
OUT=$t/o6 DEADLINE=0 bash "$suite" auto-check > "$t/o6.log" 2>&1 || fail "auto-check with DEADLINE=0 exited nonzero"
[ -s "$t/calls" ] && fail "auto-check, DEADLINE=0: a matrix was begun"
[ "$(grep -c '^--- not run (DEADLINE 0 s passed)' "$t/o6.log")" = 13 ] || fail "auto-check, DEADLINE=0: not 13 matrices listed as not run"
echo "run_suite.sh auto, auto-check: SKIP resumes, DEADLINE stops before a matrix and lists those left"

# bad input
OUT=$t/o3 bash "$suite" nosuch > "$t/o3.log" 2>&1 && fail "an unknown suite was accepted"
grep -q "unknown suite 'nosuch'" "$t/o3.log" || fail "no message for an unknown suite"
OUT=$t/o4 SELLCUDA=maybe bash "$suite" peers > "$t/o4.log" 2>&1 && fail "SELLCUDA=maybe was accepted"
echo "run_suite.sh: an unknown suite and a bad SELLCUDA are refused"
