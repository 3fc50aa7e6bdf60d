#!/bin/sh
# `mbt view` and the page `mbt simulate` writes: options, errors (message, exit status, no
# page), the page's parts. The poses and the browser: test_viewer*.sh.
# Usage: test_cli_view.sh SOURCE_DIR BUILD_DIR
SRC="$1"
MBT="$2/mbt"
T=$(mktemp -d /tmp/mbt_cli_view.XXXXXX)
trap 'rm -rf "$T"' EXIT
checks=0
failures=0
# expect STATUS LABEL FRAGMENT CMD...: exit status STATUS and FRAGMENT in stdout or stderr.
expect() {
  want=$1 label=$2 frag=$3
  shift 3
  "$@" >"$T/out" 2>"$T/err"
  got=$?
  checks=$((checks + 1))
  if [ "$got" -ne "$want" ] || ! cat "$T/out" "$T/err" | grep -F -q -- "$frag"; then
    failures=$((failures + 1))
    echo "FAIL: $label: status $got (expected $want), output: $(head -c 400 "$T/out") $(head -c 400 "$T/err")"
  fi
}
if "$MBT" view "$SRC/models/double_pendulum.urdf" -o "$T/probe.html" 2>&1 | grep -q "built without the viewer"; then
  echo "SKIP: this mbt was built without the viewer"
  exit 77
fi
DP="$SRC/models/double_pendulum.urdf"
expect 0 "view --help" "--package-path NAME=DIR" "$MBT" view --help
expect 0 "mbt --help lists view" "view MODEL" "$MBT" --help
expect 2 "view without MODEL" "no MODEL given" "$MBT" view
expect 2 "view unknown option" "unknown option '--bogus'" "$MBT" view "$DP" --bogus
expect 2 "bad package path" "--package-path 'nodir': expected NAME=DIR" "$MBT" view "$DP" --package-path nodir
expect 1 "missing model" "cannot load model" "$MBT" view "$T/none.urdf" -o "$T/none.html"
expect 0 "view prints the page" "$T/dp.html" "$MBT" view "$DP" -o "$T/dp.html"
for part in '<script id="mbt-data" type="application/json">' '"mobilizers":' '"format":"stl"' \
            '"trajectory":null' "default-src 'none'"; do
  expect 0 "page holds $part" "$part" cat "$T/dp.html"
done
# A trajectory CSV: a good one, then broken ones (no page written).
"$MBT" simulate "$DP" --duration 0.2 --q0 1,0 --out "$T/sim/dp.csv" --no-plot >"$T/sim.out" 2>&1
expect 0 "simulate names its page" "view: $T/sim/dp.html" cat "$T/sim.out"
expect 0 "simulate's page has the trajectory" '"trajectory":{"t":[0,' cat "$T/sim/dp.html"
expect 0 "view --trajectory" "$T/tr.html" "$MBT" view "$DP" --trajectory "$T/sim/dp.csv" -o "$T/tr.html"
head -1 "$T/sim/dp.csv" | sed 's/joint1.q/other.q/' >"$T/bad1.csv"
expect 1 "CSV of another model" "bad1.csv:1: column 2 is 'other.q', the model's q[0] is 'joint1.q'" \
  "$MBT" view "$DP" --trajectory "$T/bad1.csv" -o "$T/bad1.html"
{ head -2 "$T/sim/dp.csv"; echo "0.5,1,x,0,0,1"; } >"$T/bad2.csv"
expect 1 "non-numeric field" "bad2.csv:3: field 3 'x' is not a finite number" \
  "$MBT" view "$DP" --trajectory "$T/bad2.csv" -o "$T/bad2.html"
{ head -3 "$T/sim/dp.csv"; head -2 "$T/sim/dp.csv" | tail -1; } >"$T/bad3.csv"
expect 1 "time going back" "bad3.csv:4: time 0 does not increase" \
  "$MBT" view "$DP" --trajectory "$T/bad3.csv" -o "$T/bad3.html"
{ head -1 "$T/sim/dp.csv"; echo "0,1"; } >"$T/bad4.csv"
expect 1 "short row" "bad4.csv:2: 2 fields, expected at least 3" "$MBT" view "$DP" --trajectory "$T/bad4.csv" -o "$T/bad4.html"
head -1 "$T/sim/dp.csv" >"$T/bad5.csv"
expect 1 "no rows" "bad5.csv: no rows after the header" "$MBT" view "$DP" --trajectory "$T/bad5.csv" -o "$T/bad5.html"
for k in 1 2 3 4 5; do
  checks=$((checks + 1))
  if [ -e "$T/bad$k.html" ]; then failures=$((failures + 1)); echo "FAIL: bad$k.csv left a page"; fi
done
# A mesh that does not resolve: a warning, the page without it.
sed 's|package://example-robot-data/robots/double_pendulum_description/meshes/link1.stl|package://nowhere/link1.stl|' \
  "$DP" >"$T/moved.urdf"
expect 0 "unresolved mesh: page written" "did not resolve to a file; left out" "$MBT" view "$T/moved.urdf" -o "$T/moved.html"
cp -r "$SRC/models/example-robot-data/robots/double_pendulum_description" "$T/nowhere"
expect 0 "--package-path resolves it" "$T/pp.html" "$MBT" view "$T/moved.urdf" \
  --package-path "nowhere=$T/nowhere/meshes" --package-path "example-robot-data=$SRC/models/example-robot-data" -o "$T/pp.html"
checks=$((checks + 1))
if grep -q "left out" "$T/err"; then failures=$((failures + 1)); echo "FAIL: --package-path: $(cat "$T/err")"; fi
echo "test_cli_view: $((checks - failures)) checks passed, $failures failed"
[ "$failures" -eq 0 ]
