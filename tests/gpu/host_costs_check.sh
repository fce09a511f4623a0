#!/bin/bash
# host_costs_check.sh PROGRAM [options]: host_costs prints one line per step (14), each with a positive number of
# nanoseconds, and exits 0
set -u
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] || { echo "FAILED: host_costs exited $rc"; exit 1; }
n=$(printf '%s\n' "$out" | grep -c '^host_costs: ')
[ "$n" -eq 14 ] || { echo "FAILED: $n lines of steps, not 14"; exit 1; }
bad=$(printf '%s\n' "$out" | awk '/^host_costs: / && !($3 > 0) {print $2}')
[ -z "$bad" ] || { echo "FAILED: steps without a positive time: $bad"; exit 1; }
echo "host_costs: 14 steps timed"
