#!/bin/sh
# The sweep the README shows (examples/sweep_ur5.json) runs to the end with at least 8
# finished runs. Its full length under the sanitizers' slow-down would take minutes, and the
# sanitized build runs the same code on the short sweeps of test_sweep.sh: this test is in the
# plain build only (label noasan).
# Usage: sh tests/test_sweep_example.sh <source_dir> <binary_dir>.
set -u
SRC=${1:?usage: test_sweep_example.sh <source_dir> <binary_dir>}
BIN=${2:?usage: test_sweep_example.sh <source_dir> <binary_dir>}
MBT="$BIN/mbt"
T=$(mktemp -d "${TMPDIR:-/tmp}/mbt_sweep_example.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
. "$SRC/tests/cli_helpers.sh"   # fail, ok: the checks and their counts

# The shipped example runs (at least 8 runs).
"$MBT" sweep "$SRC/examples/sweep_ur5.json" --out "$T/example.csv" >"$T/out" 2>"$T/err"
status=$?
if [ "$status" -eq 0 ]; then ok; else fail "example sweep: status $status: $(head -c 600 "$T/err")"; fi
rows=$(grep -c '^[0-9]*,ok,' "$T/example.csv")
if [ "$rows" -ge 8 ]; then ok; else fail "the example has $rows finished runs, expected >= 8"; fi

echo "test_sweep_example: $checks checks passed, $failures failed"
[ "$failures" -eq 0 ]
