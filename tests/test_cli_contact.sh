#!/bin/sh
# `mbt simulate` with contact: --ground (and the lift onto it), --friction, --pd, --pd-gravity,
# --contacts, --contact-solver, the integrator chosen for contact, input errors; physical facts checked against
# values derived by hand (a box at rest carries its weight, a sliding box stops after
# v²/(2·μ·g)), and Solo12 standing on its PD controller for 10 s.
# Usage: sh tests/test_cli_contact.sh <source_dir> <binary_dir>.
set -u
SRC=${1:?usage: test_cli_contact.sh <source_dir> <binary_dir>}
BIN=${2:?usage: test_cli_contact.sh <source_dir> <binary_dir>}
BIN=$(cd "$BIN" && pwd) || exit 1
SRC=$(cd "$SRC" && pwd) || exit 1
MBT="$BIN/mbt"
T=$(mktemp -d "${TMPDIR:-/tmp}/mbt_cli_contact.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
. "$SRC/tests/cli_helpers.sh"

# col FILE NAME: the 1-based index of the CSV column NAME.
col() { head -1 "$1" | tr ',' '\n' | grep -n -x -F -- "$2" | cut -d: -f1; }
# at FILE NAME T: the value of column NAME in the row whose t is closest to T.
at() {
  awk -F, -v c="$(col "$1" "$2")" -v t="$3" 'NR > 1 { d = $1 - t; if (d < 0) d = -d;
      if (best == "" || d < best) { best = d; v = $c } } END { print v }' "$1"
}
# range FILE NAME T0: max − min of column NAME over the rows with t >= T0.
range() {
  awk -F, -v c="$(col "$1" "$2")" -v t0="$3" 'NR > 1 && $1 >= t0 { if (n++ == 0 || $c < lo) lo = $c;
      if (n == 1 || $c > hi) hi = $c } END { print hi - lo }' "$1"
}
# below LABEL X LIMIT: X < LIMIT.
below() {
  if awk -v x="$2" -v l="$3" 'BEGIN { exit !(x + 0 < l + 0) }'; then ok; else fail "$1: $2 is not below $3"; fi
}

# A 1 kg box 0.2 × 0.2 × 0.1 m (inertia of a solid box) with its collision box.
cat >"$T/box.urdf" <<'EOF2'
<?xml version="1.0"?>
<robot name="box">
  <link name="box">
    <inertial><mass value="1"/>
      <inertia ixx="0.0041667" iyy="0.0041667" izz="0.0066667" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.2 0.2 0.1"/></geometry></collision>
  </link>
</robot>
EOF2
BOX="$T/box.urdf"

# ---- options and errors -------------------------------------------------------------------
run 0 "simulate --help" "$MBT" simulate --help
has "$T/out" "--pd-gravity" "help lists --pd-gravity"
has "$T/out" "SCENE.json" "help names scenes"
run 2 "--pd-gravity alone" "$MBT" simulate "$BOX" --floating --ground --pd-gravity --out "$T/x.csv" --no-plot
has "$T/err" "give --pd KP,KD too" "--pd-gravity without --pd says why"
run 2 "--pd with one number" "$MBT" simulate "$BOX" --floating --ground --pd 5 --out "$T/x.csv" --no-plot
has "$T/err" "--pd needs two finite numbers" "--pd's message"
run 2 "--friction negative" "$MBT" simulate "$BOX" --floating --ground --friction -1 --out "$T/x.csv" --no-plot
has "$T/err" "--friction needs a finite number >= 0" "--friction's message"
run 2 "--contacts without contact" "$MBT" simulate "$BOX" --floating --contacts --out "$T/x.csv" --no-plot
has "$T/err" "give --ground or a scene" "--contacts without contact says why"
run 2 "rk45 with contact" "$MBT" simulate "$BOX" --floating --ground --integrator rk45 --out "$T/x.csv" --no-plot
has "$T/err" "the integrator is time_stepping" "a smooth integrator with contact is refused"
[ ! -e "$T/x.csv" ] && ok || fail "a refused run wrote its CSV"
cat >"$T/nogeom.urdf" <<'EOF2'
<?xml version="1.0"?>
<robot name="bare"><link name="b"><inertial><mass value="1"/>
  <inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link></robot>
EOF2
run 1 "--ground without collision geometry" "$MBT" simulate "$T/nogeom.urdf" --floating --ground --out "$T/x.csv" --no-plot
has "$T/err" "no collision geometry" "--ground on a robot without collision geometry says why"
sed 's|<box size="0.2 0.2 0.1"/>|<mesh filename="missing.stl"/>|' "$BOX" >"$T/nomesh.urdf"
run 1 "a missing collision mesh" "$MBT" simulate "$T/nomesh.urdf" --floating --ground --out "$T/x.csv" --no-plot
has "$T/err" "mesh 'missing.stl' does not resolve" "a missing mesh is named"
has "$T/err" "body 'box'" "a missing mesh's body is named"

# ---- a box set on the ground carries its weight ---------------------------------------------
run 0 "box on the ground" "$MBT" simulate "$BOX" --floating --ground --contacts --duration 1 --out "$T/rest.csv" --no-plot
has "$T/out" "integrator: time_stepping (step 0.001 s)" "contact selects time stepping at 1 ms"
has "$T/out" "lifted by 0.05 m" "the box is lifted by half its height"
near "lifted onto the ground: z(0) = 0.05" "$(at "$T/rest.csv" root_joint.z 0)" "0.05" 1e-12
# At rest: z = 0.05 − mg/(4k) (four corners, each the default 1e5 N/m of the box and of the
# ground in series: k = 5e4 N/m), no speed, the contact force is mg.
near "rest height" "$(at "$T/rest.csv" root_joint.z 1)" "0.04995095" 1e-7
below "rest speed (m/s)" "$(at "$T/rest.csv" root_joint.vz 1 | awk '{ print $1 < 0 ? -$1 : $1 }')" 1e-3
near "contact force = weight" "$(at "$T/rest.csv" box.fz 1)" "9.81" 1e-3
near "four contact points" "$(at "$T/rest.csv" contacts 1)" "4" 0
has "$T/rest_contacts.csv" "t,body_A,body_B,px,py,pz,nx,ny,nz,depth,fx,fy,fz,fn" "contacts log header"
fn_sum=$(awk -F, '$1 == "1" { s += $14 } END { print s }' "$T/rest_contacts.csv")
near "the contact points' normal forces sum to the weight" "$fn_sum" "9.81" 1e-3

# ---- the contact solver ---------------------------------------------------------------------
has "$T/out" "SAP solver" "SAP is the default contact solver"
run 0 "box on the ground, PGS" "$MBT" simulate "$BOX" --floating --ground --contact-solver pgs --duration 1 \
  --out "$T/rest_pgs.csv" --no-plot
has "$T/out" "PGS solver" "--contact-solver pgs selects projected Gauss-Seidel"
near "rest height, PGS" "$(at "$T/rest_pgs.csv" root_joint.z 1)" "0.04995095" 1e-7
run 2 "--contact-solver unknown" "$MBT" simulate "$BOX" --floating --ground --contact-solver newton --out "$T/x.csv" --no-plot
has "$T/err" "--contact-solver is 'sap' or 'pgs', got 'newton'" "--contact-solver's message"
run 2 "--contact-solver without contact" "$MBT" simulate "$BOX" --floating --contact-solver pgs --out "$T/x.csv" --no-plot
has "$T/err" "give --ground or a scene" "--contact-solver without contact says why"

# ---- a box sliding on the ground stops after v²/(2·μ·g) -------------------------------------
# (μ = 1 at most: at μ > width/height = 2 the box would tip over its front edge.)
for mu in 0.25 1; do
  run 0 "sliding box mu $mu" "$MBT" simulate "$BOX" --floating --ground --friction $mu --v0 0,0,0,1,0,0 \
    --duration 0.6 --out "$T/slide$mu.csv" --no-plot
  expected=$(awk -v mu=$mu 'BEGIN { print 1 / (2 * mu * 9.81) }')
  near "slide distance at mu $mu" "$(at "$T/slide$mu.csv" root_joint.x 0.6)" "$expected" 0.01
done

# ---- Solo12 released above the ground stands on its PD controller for 10 s ------------------
SOLO="$SRC/models/solo12.urdf"
run 0 "Solo12 default pose on the ground" "$MBT" simulate "$SOLO" --floating --ground --duration 0 --out "$T/solo0.csv" --no-plot
q0=$(awk -F, -v nq=19 'NR == 2 { s = $2; for (i = 3; i <= nq + 1; i++) s = s "," $i; print s }' "$T/solo0.csv")
z0=$(at "$T/solo0.csv" root_joint.z 0)
q0_high=$(echo "$q0" | awk -F, -v OFS=, '{ $7 = $7 + 0.05; print }')
run 0 "Solo12 standing" "$MBT" simulate "$SOLO" --floating --ground --pd 20,0.3 --pd-gravity --q0 "$q0_high" \
  --duration 10 --out "$T/solo.csv" --no-plot
grep "^contact:" "$T/out"
below "Solo12 base height steady over [1 s, 10 s] (m)" "$(range "$T/solo.csv" root_joint.z 1)" 0.005
zend=$(at "$T/solo.csv" root_joint.z 10)
below "Solo12 stands: base within 2 cm of its default height" "$(awk -v a="$zend" -v b="$z0" 'BEGIN { d = a - b; print d < 0 ? -d : d }')" 0.02
# The feet's positions at 1 s and 10 s (mbt eval's body poses at those states).
states() {
  awk -F, -v t1=1 -v t2=10 'NR > 1 && ($1 == t1 || $1 == t2) { s = $2; for (i = 3; i <= 20; i++) s = s "," $i;
      printf "%s{\"q\": [%s], \"v\": [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}", n++ ? "," : "", s }' "$1"
}
printf '{"states": [%s]}\n' "$(states "$T/solo.csv")" >"$T/solo_states.json"
run 0 "Solo12 feet by mbt eval" "$MBT" eval "$SOLO" --floating --states "$T/solo_states.json" --out "$T/solo_eval.json"
for foot in FL_FOOT FR_FOOT HL_FOOT HR_FOOT; do
  p1=$(awk -v body="\"$foot\":" 'index($0, body) { inside = 1 } inside && index($0, "\"p_WB\":") {
      line = substr($0, index($0, "\"p_WB\":") + 7); gsub(/[][,\t]/, " ", line); print line; inside = 0 }' "$T/solo_eval.json")
  slide=$(echo "$p1" | awk 'NR == 1 { x = $1; y = $2 } NR == 2 { print sqrt(($1 - x)^2 + ($2 - y)^2) }')
  echo "Solo12: $foot slides ${slide:-?} m from 1 s to 10 s"
  below "Solo12 $foot slides less than 5 mm from 1 s to 10 s (m)" "${slide:-1}" 0.005
done
echo "Solo12: base $(at "$T/solo.csv" root_joint.z 10) m at 10 s, range over [1, 10] s $(range "$T/solo.csv" root_joint.z 1) m"

echo "test_cli_contact: $checks checks passed, $failures failed"
[ "$failures" -eq 0 ]
