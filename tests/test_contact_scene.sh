#!/bin/sh
# Scenes (scene files, model instances): the shipped scenes/two_arms_box.json loads in
# `mbt info`, `mbt simulate` and `mbt view` with every name prefixed by its instance; simulated,
# the left arm falls onto the box and pushes it along the ground, where it comes to rest on
# its face; scene file errors name the file, the member and the problem, and write nothing.
# Usage: sh tests/test_contact_scene.sh <source_dir> <binary_dir>.
set -u
SRC=${1:?usage: test_contact_scene.sh <source_dir> <binary_dir>}
BIN=${2:?usage: test_contact_scene.sh <source_dir> <binary_dir>}
BIN=$(cd "$BIN" && pwd) || exit 1
SRC=$(cd "$SRC" && pwd) || exit 1
MBT="$BIN/mbt"
T=$(mktemp -d "${TMPDIR:-/tmp}/mbt_contact_scene.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
. "$SRC/tests/cli_helpers.sh"
SCENE="$SRC/scenes/two_arms_box.json"

# last FILE NAME: column NAME of the CSV's last row.
last() {
  awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i } END { print $c }' "$1"
}
first() {
  awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i } NR == 2 { print $c }' "$1"
}
above() {
  if awk -v x="$2" -v l="$3" 'BEGIN { exit !(x + 0 > l + 0) }'; then ok; else fail "$1: $2 is not above $3"; fi
}

# ---- the scene in the commands ---------------------------------------------------------------
run 0 "info of the scene" "$MBT" info "$SCENE"
has "$T/out" "robot 'two_arms_box'" "info names the scene"
has "$T/out" "left::panda_joint1" "left arm's joints prefixed"
has "$T/out" "right::panda_joint7" "right arm's joints prefixed"
has "$T/out" "box::root_joint" "the box floats"
run 0 "simulate the scene" "$MBT" simulate "$SCENE" --duration 1.5 --contacts --out "$T/s.csv" --no-plot
has "$T/out" "nq = 25, nv = 24" "two 9-coordinate arms and a floating box"
has "$T/out" "integrator: time_stepping" "a scene has contact: time stepping"
# The arms pressing the box and the ground: the default solver (SAP) converges on every step.
has "$T/out" "SAP solver" "the scene's contact steps are solved by SAP"
hasnt "$T/out" "stopped at the iteration limit" "every contact step of the scene converges"
# The box starts at its place in the scene, in world coordinates.
near "box starts at (0, 0, 0.05)" "$(first "$T/s.csv" box::root_joint.x) $(first "$T/s.csv" box::root_joint.y) $(first "$T/s.csv" box::root_joint.z)" "0 0 0.05" 1e-12
# The left arm's hand reaches the box and pushes it; the box slides, stays on the ground and
# comes to rest (speed below 1 mm/s) on one of its faces.
grep -q "^[^,]*,left::panda_[a-z0-9]*,box::box," "$T/s_contacts.csv" && ok || fail "the left arm never touches the box"
dx=$(last "$T/s.csv" box::root_joint.x)
dy=$(last "$T/s.csv" box::root_joint.y)
above "the box is pushed more than 5 cm" "$(awk -v x="$dx" -v y="$dy" 'BEGIN { print sqrt(x * x + y * y) }')" 0.05
near "the box rests on the ground" "$(last "$T/s.csv" box::root_joint.z)" "0.05" 2e-4
# A cube on a face: one of its axes vertical, max_i |R_zi| > cos 5° (R's last row from q).
q="$(last "$T/s.csv" box::root_joint.qw) $(last "$T/s.csv" box::root_joint.qx) $(last "$T/s.csv" box::root_joint.qy)"
q="$q $(last "$T/s.csv" box::root_joint.qz)"
above "the box rests on a face" "$(echo "$q" | awk '{ w = $1; x = $2; y = $3; z = $4;
    a = 2 * (x * z - w * y); b = 2 * (y * z + w * x); c = 1 - 2 * (x * x + y * y);
    m = a < 0 ? -a : a; if (b > m || -b > m) m = b < 0 ? -b : b; if (c > m || -c > m) m = c < 0 ? -c : c; print m }')" 0.9962
speed=$(awk -v a="$(last "$T/s.csv" box::root_joint.vx)" -v b="$(last "$T/s.csv" box::root_joint.vy)" \
  -v c="$(last "$T/s.csv" box::root_joint.vz)" 'BEGIN { print sqrt(a * a + b * b + c * c) }')
above "the box is at rest (1 mm/s − speed)" "$(awk -v s="$speed" 'BEGIN { print 1e-3 - s }')" 0
if "$MBT" view "$SCENE" -o "$T/v.html" >"$T/out" 2>"$T/err"; then
  has "$T/v.html" "left::panda_link3" "the page shows the scene's bodies"
elif grep -q "built without the viewer" "$T/err"; then
  ok
else
  fail "view of the scene: $(head -c 400 "$T/err")"
fi

# ---- scene file errors -------------------------------------------------------------------------
cp "$SRC/scenes/box.urdf" "$T/box.urdf"
bad() { # bad LABEL JSON FRAGMENT
  printf '%s\n' "$2" >"$T/bad.json"
  run 1 "$1" "$MBT" simulate "$T/bad.json" --out "$T/bad.csv" --no-plot
  has "$T/err" "$T/bad.json" "$1: names the file"
  has "$T/err" "$3" "$1: says what"
  [ ! -e "$T/bad.csv" ] && ok || fail "$1: a CSV was written"
}
bad "not JSON" '{"instances": [
  {"name": "a", "model": "box.urdf",}]}' "line 2: not valid JSON"
bad "no instances" '{"name": "x"}' 'needs "instances"'
bad "unknown member" '{"instances": [{"name": "a", "model": "box.urdf"}], "gravity": 1}' 'unknown member "gravity"'
bad "missing model" '{"instances": [{"name": "a", "model": "box.urdf"}, {"name": "b", "model": "nope.urdf"}]}' \
  "instances[1] ('b'): cannot load model"
bad "duplicate instance" '{"instances": [{"name": "a", "model": "box.urdf"}, {"name": "a", "model": "box.urdf"}]}' \
  "body 'a::box' is already in the tree"
bad "bad pose" '{"instances": [{"name": "a", "model": "box.urdf", "xyz": [0, 1]}]}' '"xyz" must be an array of 3 numbers'
bad "unknown joint" '{"instances": [{"name": "a", "model": "box.urdf", "q": {"elbow": 1}}]}' "no joint 'elbow'"
bad "bad friction" '{"ground": {"friction": -1}, "instances": [{"name": "a", "model": "box.urdf"}]}' '"friction" must be a number >= 0'

echo "test_contact_scene: $checks checks passed, $failures failed"
[ "$failures" -eq 0 ]
