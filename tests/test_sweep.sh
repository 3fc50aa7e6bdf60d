#!/bin/sh
# Tests of `mbt sweep`: a 64-run Monte Carlo sweep gives the same results file (wall times
# aside) with 1 thread, 2 threads, `mpirun -n 2` and `mpirun -n 2` of 2 threads each, and a
# restart under mpirun completes a cut file to it (or, in a build without MPI, a message
# saying how to get it); runs whose parameters the model refuses are rows with their error
# while the others finish; a restart skips the runs already in the file and completes it to
# the same file; Ctrl-C keeps the finished runs; spec errors name the field or the line.
# Usage: sh tests/test_sweep.sh <source_dir> <binary_dir>. POSIX sh, grep, sed, awk.
set -u
SRC=${1:?usage: test_sweep.sh <source_dir> <binary_dir>}
BIN=${2:?usage: test_sweep.sh <source_dir> <binary_dir>}
BIN=$(cd "$BIN" && pwd) || exit 1
SRC=$(cd "$SRC" && pwd) || exit 1
MBT="$BIN/mbt"
T=$(mktemp -d "${TMPDIR:-/tmp}/mbt_sweep_test.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM

. "$SRC/tests/cli_helpers.sh"   # fail, ok, has: the checks and their counts
# same A B LABEL: the two results files are equal but for the last column (wall_time_s).
same() {
  sed 's/,[^,]*$//' "$1" >"$T/a.cmp"
  sed 's/,[^,]*$//' "$2" >"$T/b.cmp"
  if cmp -s "$T/a.cmp" "$T/b.cmp"; then ok; else fail "$3: $1 and $2 differ: $(diff "$T/a.cmp" "$T/b.cmp" | head -c 600)"; fi
}

# A Monte Carlo sample of 64 short runs of the UR5 under PD control, varying the initial state,
# the gain, the payload (wrist mass and center of mass), joint damping and gravity; about a
# third of them draw a negative wrist mass, which the model refuses.
cat >"$T/mc.json" <<EOF
{
  "model": "$SRC/models/ur5.urdf",
  "duration": 0.1,
  "integrator": "rk4",
  "dt": 0.002,
  "sampling": "monte_carlo",
  "runs": 64,
  "seed": 7,
  "set": {"kd": 4},
  "vary": {
    "q0.shoulder_lift_joint": {"uniform": [-1.5, -0.5]},
    "v0.elbow_joint": {"normal": [0, 0.5]},
    "kp": {"uniform": [10, 200]},
    "mass.wrist_3_link": [-1.0, 0.5, 2.0],
    "com.wrist_3_link.z": {"uniform": [0, 0.05]},
    "damping.elbow_joint": {"uniform": [0, 2]},
    "gravity.z": {"normal": [-9.81, 0.1]}
  }
}
EOF

"$MBT" sweep "$T/mc.json" --threads 1 --out "$T/t1.csv" >"$T/out" 2>"$T/err"
status=$?
if [ "$status" -eq 0 ]; then ok; else fail "1-thread sweep: status $status: $(head -c 600 "$T/err")"; fi
lines=$(wc -l <"$T/t1.csv")
if [ "$lines" -eq 65 ]; then ok; else fail "64 runs give $lines lines, expected 65"; fi
header=$(head -n 1 "$T/t1.csv")
case "$header" in
  run,status,error,q0.shoulder_lift_joint,v0.elbow_joint,kp,mass.wrist_3_link,com.wrist_3_link.z,damping.elbow_joint,gravity.z,t_final,q.shoulder_pan_joint.q,*,energy_drift,*,max_abs_tau,*,limit_events,steps,wall_time_s) ok ;;
  *) fail "header: '$header'" ;;
esac
# Rows in run order; failed runs name the parameter and the problem, the others finished.
awk -F, 'NR > 1 && $1 != NR - 2 { bad = 1 } END { exit bad }' "$T/t1.csv" && ok || fail "rows are not in run order"
errors=$(grep -c '^[0-9]*,error,"mass.wrist_3_link: .*wrist_3_link.*mass' "$T/t1.csv")
oks=$(grep -c '^[0-9]*,ok,"",' "$T/t1.csv")
if [ "$errors" -gt 5 ] && [ "$oks" -gt 20 ] && [ $((errors + oks)) -eq 64 ]; then ok; else
  fail "expected failed and finished runs: $errors failed, $oks ok"; fi
has "$T/t1.csv" "must be finite and >= 0 (got -1)" "error rows say what was refused"
has "$T/out" "64 of 64 runs" "summary"
# Finished runs reached the end time (t_final column = 0.1).
awk -F, 'NR > 1 && $2 == "ok" && $11 != "0.1" { bad = 1 } END { exit bad }' "$T/t1.csv" && ok ||
  fail "a finished run did not reach t = 0.1"

"$MBT" sweep "$T/mc.json" --threads 2 --out "$T/t2.csv" >"$T/out" 2>"$T/err"
status=$?
if [ "$status" -eq 0 ]; then ok; else fail "2-thread sweep: status $status: $(head -c 600 "$T/err")"; fi
same "$T/t1.csv" "$T/t2.csv" "1 thread vs 2 threads"

# MPI: the same file from two ranks; a build without MPI says how to get it.
MPIRUN=$(command -v mpirun 2>/dev/null || true)
if [ -n "$MPIRUN" ]; then
  root_flag=""
  [ "$(id -u)" -eq 0 ] && root_flag="--allow-run-as-root"
  # Open MPI's own allocations at exit are not the program's leaks.
  ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" "$MPIRUN" $root_flag -n 2 --oversubscribe \
    "$MBT" sweep "$T/mc.json" --out "$T/mpi.csv" >"$T/out" 2>"$T/err"
  status=$?
  if grep -q "built without MPI" "$T/err"; then
    has "$T/err" "libopenmpi-dev" "a build without MPI says how to get it"
  elif [ "$status" -eq 0 ]; then
    ok
    same "$T/t1.csv" "$T/mpi.csv" "1 process vs mpirun -n 2"
    has "$T/out" "2 processes" "the MPI summary counts the ranks"
    # Two ranks of two threads each: rows reach rank 0 from the main threads while runs go on.
    ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" "$MPIRUN" $root_flag -n 2 --oversubscribe \
      "$MBT" sweep "$T/mc.json" --threads 2 --out "$T/mpi_t2.csv" >"$T/out" 2>"$T/err"
    status=$?
    if [ "$status" -eq 0 ]; then ok; else fail "mpirun -n 2 --threads 2: status $status: $(head -c 600 "$T/err")"; fi
    same "$T/t1.csv" "$T/mpi_t2.csv" "1 process vs mpirun -n 2 with 2 threads each"
    # A restart under MPI: rank 0 reads the 20 runs done, the ranks share the other 44.
    head -n 21 "$T/t1.csv" >"$T/mpi_re.csv"
    ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" "$MPIRUN" $root_flag -n 2 --oversubscribe \
      "$MBT" sweep "$T/mc.json" --out "$T/mpi_re.csv" >"$T/out" 2>"$T/err"
    status=$?
    if [ "$status" -eq 0 ]; then ok; else fail "mpirun restart: status $status: $(head -c 600 "$T/err")"; fi
    same "$T/t1.csv" "$T/mpi_re.csv" "restarted sweep under mpirun"
    head -n 21 "$T/t1.csv" >"$T/a.cmp"
    head -n 21 "$T/mpi_re.csv" >"$T/b.cmp"
    cmp -s "$T/a.cmp" "$T/b.cmp" && ok || fail "the restart under mpirun rewrote the runs already done"
  else
    fail "mpirun -n 2 sweep: status $status: $(head -c 600 "$T/err")"
  fi
else
  echo "test_sweep: SKIPPED the mpirun -n 2 comparison: mpirun is not installed (apt-get install openmpi-bin libopenmpi-dev)"
fi

# Restart: a file cut after 10 runs (and in the middle of a line) is completed to the same file.
head -n 11 "$T/t1.csv" >"$T/re.csv"
printf '11,ok,"",-0.9' >>"$T/re.csv"
"$MBT" sweep "$T/mc.json" --threads 2 --out "$T/re.csv" >"$T/out" 2>"$T/err"
status=$?
if [ "$status" -eq 0 ]; then ok; else fail "restart: status $status: $(head -c 600 "$T/err")"; fi
same "$T/t1.csv" "$T/re.csv" "restarted sweep"
# The first 10 rows were kept as they were (their wall times too).
head -n 11 "$T/t1.csv" >"$T/a.cmp"
head -n 11 "$T/re.csv" >"$T/b.cmp"
cmp -s "$T/a.cmp" "$T/b.cmp" && ok || fail "restart rewrote the runs already done"
# A file of another spec is refused, not overwritten.
printf 'run,status,other\n' >"$T/other.csv"
"$MBT" sweep "$T/mc.json" --out "$T/other.csv" >"$T/out" 2>"$T/err" && fail "another spec's file accepted" || ok
has "$T/err" "other columns" "another spec's file"
has "$T/other.csv" "run,status,other" "another spec's file is left as it was"

# Ctrl-C: stops cleanly (status 130) keeping the finished runs; running again completes them.
sed -e 's/"runs": 64/"runs": 400/' -e 's/"duration": 0.1/"duration": 1.0/' "$T/mc.json" >"$T/long.json"
"$MBT" sweep "$T/long.json" --threads 1 --out "$T/int.csv" >"$T/out" 2>"$T/err" &
pid=$!
(sleep 120; kill -KILL "$pid") >/dev/null 2>&1 &
watchdog=$!
waited=0
lines_of() { if [ -f "$1" ]; then wc -l <"$1"; else echo 0; fi; }
while [ "$(lines_of "$T/int.csv")" -lt 3 ] && [ "$waited" -lt 300 ]; do
  sleep 0.1
  waited=$((waited + 1))
done
kill -INT "$pid" 2>/dev/null
wait "$pid"
status=$?
kill "$watchdog" 2>/dev/null
if [ "$status" -eq 130 ]; then ok; else fail "interrupted sweep: status $status, expected 130: $(head -c 300 "$T/err")"; fi
has "$T/err" "run the same command again" "the interrupted sweep says how to finish"
kept=$(grep -c '^[0-9]' "$T/int.csv")
if [ "$kept" -ge 2 ] && [ "$kept" -lt 400 ]; then ok; else fail "interrupted sweep kept $kept rows"; fi

# Spec errors name the field or the line; nothing is written.
printf '{"model": "%s/models/ur5.urdf", "duraton": 1}\n' "$SRC" >"$T/bad1.json"
"$MBT" sweep "$T/bad1.json" --out "$T/bad.csv" >"$T/out" 2>"$T/err" && fail "unknown field accepted" || ok
has "$T/err" "bad1.json: unknown field 'duraton'" "unknown field"
printf '{"model": "%s/models/ur5.urdf", "vary": {"mass.no_such_link": [1, 2]}}\n' "$SRC" >"$T/bad2.json"
"$MBT" sweep "$T/bad2.json" --out "$T/bad.csv" >"$T/out" 2>"$T/err" && fail "unknown parameter accepted" || ok
has "$T/err" "vary: unknown parameter 'mass.no_such_link'" "unknown parameter"
printf '{\n  "model": "x.urdf",\n  "duration": 1,,\n}\n' >"$T/bad3.json"
"$MBT" sweep "$T/bad3.json" --out "$T/bad.csv" >"$T/out" 2>"$T/err" && fail "bad JSON accepted" || ok
has "$T/err" "bad3.json: line 3" "JSON syntax error"
printf '{"model": "%s/models/ur5.urdf", "metrics": ["final_state", "speed"]}\n' "$SRC" >"$T/bad4.json"
"$MBT" sweep "$T/bad4.json" --out "$T/bad.csv" >"$T/out" 2>"$T/err" && fail "unknown metric accepted" || ok
has "$T/err" "unknown metric 'speed'" "unknown metric"
printf '{"model": "%s/models/ur5.urdf", "vary": {"kp": {"uniform": [1, 2]}}}\n' "$SRC" >"$T/bad5.json"
"$MBT" sweep "$T/bad5.json" --out "$T/bad.csv" >"$T/out" 2>"$T/err" && fail "uniform in a grid accepted" || ok
has "$T/err" "monte_carlo" "a distribution needs Monte Carlo sampling"
[ ! -e "$T/bad.csv" ] && ok || fail "a refused spec wrote a results file"

echo "test_sweep: $checks checks passed, $failures failed"
[ "$failures" -eq 0 ]
