#!/bin/sh
# Runs each libFuzzer target for SECONDS (default 60), one after the other, at low priority.
# The working corpus is BUILD/corpus/<target>, seeded from fuzz/corpus/<target> (kept inputs)
# and, for the URDF target, the shipped models. A finding stops the run with the target's
# report; its input (crash-*, leak-*, ...) is left in BUILD/findings/<target>: fix the cause and
# copy the input into fuzz/corpus/<target>/ so that the test suite replays it.
# Usage: fuzz/run.sh BUILD [SECONDS] [TARGET...]
set -eu
build=$1
seconds=${2:-60}
shift; [ $# -gt 0 ] && shift
targets=${*:-"urdf builder states derivatives contact"}
src=$(cd "$(dirname "$0")" && pwd)
for t in $targets; do
  corpus=$build/corpus/$t
  findings=$build/findings/$t
  mkdir -p "$corpus" "$findings"
  cp "$src/corpus/$t"/* "$corpus/" 2>/dev/null || true
  if [ "$t" = urdf ]; then
    # The target's first byte holds the loader flags: 0 (fixed base) before each model.
    for m in "$src"/../models/*.urdf; do
      { printf '\000'; cat "$m"; } > "$corpus/model-$(basename "$m")"
    done
  fi
  log=$build/fuzz_$t.log
  echo "fuzz_$t: ${seconds} s (log: $log)"
  if ! nice "$build/fuzz/fuzz_$t" -max_total_time="$seconds" -max_len=65536 -timeout=20 -rss_limit_mb=2048 \
      -artifact_prefix="$findings/" "$corpus" > "$log" 2>&1; then
    tail -n 60 "$log"
    echo "fuzz_$t: FINDING (input in $findings)"
    exit 1
  fi
  grep -E "^Done [0-9]+ runs" "$log" || tail -n 2 "$log"
done
