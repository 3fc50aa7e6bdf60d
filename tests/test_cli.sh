#!/bin/sh
# Tests of the mbt command: exit codes, --help, info (text and JSON), eval against values
# derived by hand for a pendulum and an acrobot, input errors, simulate's CSV and plot, and
# Ctrl-C. Usage: sh tests/test_cli.sh <source_dir> <binary_dir>. POSIX sh, grep, sed and
# awk only.
set -u
SRC=${1:?usage: test_cli.sh <source_dir> <binary_dir>}
BIN=${2:?usage: test_cli.sh <source_dir> <binary_dir>}
BIN=$(cd "$BIN" && pwd) || exit 1
SRC=$(cd "$SRC" && pwd) || exit 1
MBT="$BIN/mbt"
T=$(mktemp -d "${TMPDIR:-/tmp}/mbt_cli_test.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM

. "$SRC/tests/cli_helpers.sh"

[ -x "$MBT" ] || { echo "FAIL: $MBT is not built" >&2; exit 1; }

# ---- models derived by hand ------------------------------------------------------------
# Pendulum: a 2 kg body, center of mass 0.5 m below the pin (at 1 m height), rotational
# inertia 0.01 kg·m² about the center of mass, revolute about y, damping 0.1 N·m·s.
#   M = m·l² + I = 0.51; z_cm = 1 − l·cos θ; U = m·g·z_cm; tau_g = −m·g·l·sin θ.
cat >"$T/pendulum.urdf" <<'EOF'
<?xml version="1.0"?>
<robot name="pendulum">
  <link name="world"/>
  <link name="arm">
    <inertial>
      <origin xyz="0 0 -0.5" rpy="0 0 0"/>
      <mass value="2"/>
      <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>
    </inertial>
    <visual><geometry><box size="0.1 0.1 1"/></geometry></visual>
  </link>
  <joint name="pin" type="revolute">
    <parent link="world"/>
    <child link="arm"/>
    <origin xyz="0 0 1" rpy="0 0 0"/>
    <axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="10" velocity="5"/>
    <dynamics damping="0.1"/>
  </joint>
</robot>
EOF
# Acrobot: base (welded, or floating with --floating), two 1 kg links of length 1 with the
# center of mass at 0.5 and I = 0.1 kg·m², both about y. With c2 = cos q2:
#   M11 = I1 + I2 + m1·lc1² + m2·(l1² + lc2² + 2·l1·lc2·c2), M12 = I2 + m2·(lc2² + l1·lc2·c2),
#   M22 = I2 + m2·lc2²;  tau_g1 = −g·((m1·lc1 + m2·l1)·sin q1 + m2·lc2·sin(q1 + q2)),
#   tau_g2 = −g·m2·lc2·sin(q1 + q2).
cat >"$T/acrobot.urdf" <<'EOF'
<?xml version="1.0"?>
<robot name="acrobot">
  <link name="base">
    <inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <link name="upper">
    <inertial><origin xyz="0 0 -0.5"/><mass value="1"/>
      <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <link name="lower">
    <inertial><origin xyz="0 0 -0.5"/><mass value="1"/>
      <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="shoulder" type="continuous">
    <parent link="base"/><child link="upper"/><axis xyz="0 1 0"/>
  </joint>
  <joint name="elbow" type="continuous">
    <parent link="upper"/><child link="lower"/><origin xyz="0 0 -1"/><axis xyz="0 1 0"/>
  </joint>
</robot>
EOF
# A massless, inertia-free link on a revolute joint: forward dynamics is undefined.
cat >"$T/massless.urdf" <<'EOF'
<?xml version="1.0"?>
<robot name="massless">
  <link name="world"/>
  <link name="tip"/>
  <joint name="spin" type="revolute">
    <parent link="world"/><child link="tip"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>
</robot>
EOF
# An inertia that breaks the triangle inequality (1 + 1 < 3).
sed 's/ixx="0.01" iyy="0.01" izz="0.01"/ixx="1" iyy="1" izz="3"/' "$T/pendulum.urdf" >"$T/bad_inertia.urdf"

PI_6=0.52359877559829882   # π/6: sin = 1/2
PI_2=1.5707963267948966    # π/2

# ---- dispatch, --help, exit codes -------------------------------------------------------
run 0 "mbt --help" "$MBT" --help
has "$T/out" "simulate" "mbt --help lists simulate"
has "$T/out" "eval" "mbt --help lists eval"
for cmd in info eval simulate bench; do
  run 0 "mbt $cmd --help" "$MBT" "$cmd" --help
  has "$T/out" "usage: mbt $cmd" "mbt $cmd --help"
done
run 0 "mbt help eval" "$MBT" help eval
has "$T/out" "--states" "mbt help eval"
run 2 "mbt without a command" "$MBT"
run 2 "unknown command" "$MBT" frobnicate
has "$T/err" "frobnicate" "unknown command message"
run 2 "info without MODEL" "$MBT" info
run 2 "info with an unknown option" "$MBT" info "$T/pendulum.urdf" --bogus
has "$T/err" "--bogus" "unknown option message"
run_fails "info of a missing file" "$MBT" info "$T/nonexistent.urdf"
has "$T/err" "nonexistent.urdf" "missing model named in the message"
printf '<robot name="x"><link name="a"></robot>' >"$T/malformed.urdf"
run_fails "info of malformed XML" "$MBT" info "$T/malformed.urdf"
has "$T/err" "malformed.urdf" "malformed model named in the message"

# ---- info ------------------------------------------------------------------------------
run 0 "info pendulum" "$MBT" info "$T/pendulum.urdf"
has "$T/out" "pin" "info names the joint"
has "$T/out" "revolute" "info names the joint type"
has "$T/out" "q[0]" "info shows the q slice"
has "$T/out" "└─ arm" "info draws the tree"
has "$T/out" "nq = 1, nv = 1" "info counts"
has "$T/out" "tree height: 2" "info tree height"
has "$T/out" "geometry: 1 visual, 0 collision" "info counts the geometry the loader kept"

run 0 "info --json pendulum" "$MBT" info "$T/pendulum.urdf" --json
near "info --json nq" "$(field "$T/out" nq)" "1" 0
near "info --json nv" "$(field "$T/out" nv)" "1" 0
near "info --json height" "$(field "$T/out" height)" "2" 0
has "$T/out" '"name":	"arm"' "info --json body name"
near "info --json arm mass" "$(field "$T/out" mass 2)" "2" 1e-15
near "info --json arm level" "$(field "$T/out" level 2)" "1" 0
has "$T/out" '"type":	"revolute"' "info --json joint type"
near "info --json damping" "$(field "$T/out" damping)" "0.1" 1e-15
near "info --json lower limit" "$(field "$T/out" position_lower)" "-3" 0
near "info --json upper limit" "$(field "$T/out" position_upper)" "3" 0
near "info --json q_start" "$(field "$T/out" q_start)" "0" 0
has "$T/out" '"position_names":	["pin.q"]' "info --json position names"

run 0 "info --json acrobot --floating" "$MBT" info "$T/acrobot.urdf" --floating --json
near "floating nq" "$(field "$T/out" nq)" "9" 0
near "floating nv" "$(field "$T/out" nv)" "8" 0
has "$T/out" '"name":	"root_joint"' "floating root joint"
has "$T/out" '"type":	"quaternion_floating"' "floating joint type"
run 0 "info acrobot (welded)" "$MBT" info "$T/acrobot.urdf" --json
near "welded nq" "$(field "$T/out" nq)" "2" 0

run 0 "info ur5" "$MBT" info "$SRC/models/ur5.urdf"
has "$T/out" "shoulder_pan_joint" "info ur5 joint"
has "$T/out" "nq = 6, nv = 6" "info ur5 counts"

run_fails "non-physical inertia is an error" "$MBT" info "$T/bad_inertia.urdf"
has "$T/err" "arm" "non-physical inertia names the link"
run 0 "--allow-invalid-inertia loads it" "$MBT" info "$T/bad_inertia.urdf" --allow-invalid-inertia
has "$T/out" "arm" "--allow-invalid-inertia warns about the link"

# ---- eval: pendulum --------------------------------------------------------------------
# At rest at θ = π/6: tau_id = −tau_g = m·g·l·sin θ = 4.905; M = 0.51; U = 2·9.81·(1 − 0.5·cos θ).
echo "{\"states\": [{\"q\": [$PI_6], \"v\": [0]}]}" >"$T/rest.json"
run 0 "eval pendulum at rest" "$MBT" eval "$T/pendulum.urdf" --states "$T/rest.json"
near "tau_id at rest = -tau_g" "$(field "$T/out" tau_id)" "4.905" 1e-12
near "tau_g at rest" "$(field "$T/out" gravity_generalized_forces)" "-4.905" 1e-12
near "mass matrix" "$(field "$T/out" mass_matrix)" "0.51" 1e-12
near "bias at rest" "$(field "$T/out" bias)" "0" 1e-15
near "kinetic energy at rest" "$(field "$T/out" kinetic_energy)" "0" 1e-15
U=$(awk -v q="$PI_6" 'BEGIN { printf "%.17g", 2 * 9.81 * (1 - 0.5 * cos(q)) }')
near "potential energy" "$(field "$T/out" potential_energy)" "$U" 1e-12
near "arm position" "$(body_field "$T/out" arm p_WB)" "0 0 1" 1e-15
R=$(awk -v q="$PI_6" 'BEGIN { c = cos(q); s = sin(q); printf "%.17g 0 %.17g 0 1 0 %.17g 0 %.17g", c, s, -s, c }')
near "arm orientation R_WB = Ry(θ)" "$(body_field "$T/out" arm R_WB)" "$R" 1e-15
# qdd with tau = 0 and damping (v = 0): tau_g / M.
near "qdd at rest" "$(field "$T/out" qdd)" "$(awk 'BEGIN { printf "%.17g", -4.905 / 0.51 }')" 1e-12

# Moving: v = 2, vdot = 1, tau = 0.3. tau_id = M·vdot − tau_g = 0.51 + 4.905 (no damping in
# inverse dynamics); K = ½·M·v² = 1.02; qdd = (tau + tau_g − d·v)/M, without damping (tau + tau_g)/M.
echo "{\"states\": [{\"q\": [$PI_6], \"v\": [2], \"vdot\": [1], \"tau\": [0.3]}]}" >"$T/moving.json"
run 0 "eval pendulum moving" "$MBT" eval "$T/pendulum.urdf" --states "$T/moving.json"
near "tau_id moving" "$(field "$T/out" tau_id)" "5.415" 1e-12
near "kinetic energy moving" "$(field "$T/out" kinetic_energy)" "1.02" 1e-12
near "qdd with damping" "$(field "$T/out" qdd)" "$(awk 'BEGIN { printf "%.17g", (0.3 - 4.905 - 0.2) / 0.51 }')" 1e-12
run 0 "eval --no-damping" "$MBT" eval "$T/pendulum.urdf" --states "$T/moving.json" --no-damping
near "qdd without damping" "$(field "$T/out" qdd)" "$(awk 'BEGIN { printf "%.17g", (0.3 - 4.905) / 0.51 }')" 1e-12
near "tau_id independent of damping" "$(field "$T/out" tau_id)" "5.415" 1e-12
# --derivatives, pendulum (m·g·l = 9.81, M = 0.51, damping 0.1): tau_id = M·vdot − tau_g(θ) with
# tau_g = −m·g·l·sin θ, so dtau_dq = m·g·l·cos θ, dtau_dv = 0; qdd = (tau + tau_g − d·v)/M.
run 0 "eval --derivatives" "$MBT" eval "$T/pendulum.urdf" --states "$T/moving.json" --derivatives
near "dtau_dq" "$(field "$T/out" dtau_dq)" "$(awk -v q="$PI_6" 'BEGIN { printf "%.17g", 9.81 * cos(q) }')" 1e-12
near "dtau_dv" "$(field "$T/out" dtau_dv)" "0" 1e-15
near "dqdd_dq" "$(field "$T/out" dqdd_dq)" "$(awk -v q="$PI_6" 'BEGIN { printf "%.17g", -9.81 * cos(q) / 0.51 }')" 1e-12
near "dqdd_dv" "$(field "$T/out" dqdd_dv)" "$(awk 'BEGIN { printf "%.17g", -0.1 / 0.51 }')" 1e-12
near "dqdd_dtau" "$(field "$T/out" dqdd_dtau)" "$(awk 'BEGIN { printf "%.17g", 1 / 0.51 }')" 1e-12
run 0 "eval --gravity" "$MBT" eval "$T/pendulum.urdf" --states "$T/rest.json" --gravity 0,0,-1
near "tau_g with g = 1" "$(field "$T/out" gravity_generalized_forces)" "-0.5" 1e-12
run 0 "eval --out" "$MBT" eval "$T/pendulum.urdf" --states "$T/rest.json" --out "$T/sub/eval.json"
near "eval --out writes the file" "$(field "$T/sub/eval.json" tau_id)" "4.905" 1e-12

# ---- eval: acrobot mass matrix and gravity ----------------------------------------------
cat >"$T/acro.json" <<EOF
{"states": [{"q": [$PI_6, 0], "v": [0, 0]}, {"q": [0, $PI_2], "v": [0, 0]}]}
EOF
run 0 "eval acrobot" "$MBT" eval "$T/acrobot.urdf" --states "$T/acro.json"
near "acrobot M at q2 = 0" "$(field "$T/out" mass_matrix 1)" "2.7 0.85 0.85 0.35" 1e-12
near "acrobot M at q2 = pi/2" "$(field "$T/out" mass_matrix 2)" "1.7 0.35 0.35 0.35" 1e-12
near "acrobot tau_g (pi/6, 0)" "$(field "$T/out" gravity_generalized_forces 1)" "-9.81 -2.4525" 1e-12
near "acrobot tau_g (0, pi/2)" "$(field "$T/out" gravity_generalized_forces 2)" "-4.905 -4.905" 1e-12
# Floating base at the identity: q = [1 0 0 0, 0 0 0, q1 q2]. The base force rows of tau_g
# are the total weight m·g = (0, 0, −3·9.81).
cat >"$T/acro_float.json" <<EOF
{"states": [{"q": [1, 0, 0, 0, 0, 0, 0, 0, 0], "v": [0, 0, 0, 0, 0, 0, 0, 0]}]}
EOF
run 0 "eval acrobot --floating" "$MBT" eval "$T/acrobot.urdf" --floating --states "$T/acro_float.json"
near "floating tau_g" "$(field "$T/out" gravity_generalized_forces)" "0 0 0 0 0 -29.43 0 0" 1e-12

# ---- eval: forward dynamics undefined ---------------------------------------------------
echo '{"states": [{"q": [0], "v": [0]}]}' >"$T/one.json"
run 0 "eval with singular forward dynamics" "$MBT" eval "$T/massless.urdf" --states "$T/one.json"
has "$T/out" '"qdd":	null' "qdd is null"
has "$T/out" '"qdd_error":' "qdd_error is written"
has "$T/out" '"mass_matrix":' "the rest is still written"

# ---- eval: input errors name the state and the field ------------------------------------
echo "{\"states\": [{\"q\": [0], \"v\": [0]}, {\"q\": [0, 1], \"v\": [0]}]}" >"$T/bad_size.json"
run_fails "eval wrong q size" "$MBT" eval "$T/pendulum.urdf" --states "$T/bad_size.json"
has "$T/err" "state 1" "wrong size names the state"
has "$T/err" "'q'" "wrong size names the field"
hasnt "$T/out" "tau_id" "no partial output on an input error"
echo "{\"states\": [{\"q\": [0], \"v\": [0], \"vdot\": [1e999]}]}" >"$T/inf.json"
run_fails "eval non-finite vdot" "$MBT" eval "$T/pendulum.urdf" --states "$T/inf.json"
has "$T/err" "state 0" "non-finite names the state"
has "$T/err" "'vdot'" "non-finite names the field"
has "$T/err" "finite" "non-finite says so"
echo "{\"states\": [{\"q\": [0], \"v\": [\"fast\"]}]}" >"$T/str.json"
run_fails "eval non-number" "$MBT" eval "$T/pendulum.urdf" --states "$T/str.json"
has "$T/err" "'v'" "non-number names the field"
echo "{\"states\": [{\"v\": [0]}]}" >"$T/noq.json"
run_fails "eval missing q" "$MBT" eval "$T/pendulum.urdf" --states "$T/noq.json"
has "$T/err" "'q'" "missing field named"
echo "{\"states\": [{\"q\": [0], \"v\": [0], \"tau\": [1, 2]}]}" >"$T/badtau.json"
run_fails "eval wrong tau size" "$MBT" eval "$T/pendulum.urdf" --states "$T/badtau.json"
has "$T/err" "'tau'" "wrong tau size named"
printf '{"states": [\n  {"q": [0], "v": [0]\n' >"$T/broken.json"
run_fails "eval invalid JSON" "$MBT" eval "$T/pendulum.urdf" --states "$T/broken.json"
has "$T/err" "broken.json" "invalid JSON names the file"
run 2 "eval without --states" "$MBT" eval "$T/pendulum.urdf"
run 2 "eval bad --gravity" "$MBT" eval "$T/pendulum.urdf" --states "$T/rest.json" --gravity 0,0
run_fails "eval missing states file" "$MBT" eval "$T/pendulum.urdf" --states "$T/none.json"
echo '{"states": [{"q": [0], "v": [0]}, 3]}' >"$T/notobj.json"
run 1 "eval state not an object" "$MBT" eval "$T/pendulum.urdf" --states "$T/notobj.json"
has "$T/err" "state 1 is not an object" "a state that is not an object is named"
echo '{"state": []}' >"$T/nostates.json"
run 1 "eval without a states array" "$MBT" eval "$T/pendulum.urdf" --states "$T/nostates.json"
has "$T/err" '"states" array' "a file without a states array is named"
mkdir -p "$T/adir"
run 1 "eval --out a directory" "$MBT" eval "$T/pendulum.urdf" --states "$T/rest.json" --out "$T/adir"
has "$T/err" "cannot write '$T/adir'" "eval names the file it cannot write"

# ---- simulate ---------------------------------------------------------------------------
# 0.5 s of the pendulum from θ = π/6 at rest, output every 0.01 s: 51 rows and a header.
run 0 "simulate pendulum" "$MBT" simulate "$T/pendulum.urdf" --duration 0.5 --dt 0.01 --q0 "$PI_6" \
  --out "$T/sim/p.csv" --plot "$T/sim/p.svg"
if [ -f "$T/sim/p.csv" ]; then ok; else fail "simulate wrote no CSV"; fi
header=$(head -n 1 "$T/sim/p.csv" 2>/dev/null)
if [ "$header" = "t,pin.q,pin.w,energy" ]; then ok; else fail "CSV header: '$header'"; fi
rows=$(wc -l <"$T/sim/p.csv" 2>/dev/null)
if [ "${rows:-0}" -eq 52 ]; then ok; else fail "CSV rows: $rows lines, expected 52"; fi
near "CSV first row" "$(sed -n 2p "$T/sim/p.csv" | tr ',' ' ')" "0 $PI_6 0 $U" 1e-12
near "CSV last time" "$(sed -n '$p' "$T/sim/p.csv" | cut -d, -f1)" "0.5" 1e-12
# Damping dissipates: E(end) < E(0).
if awk -F, 'NR == 2 { e0 = $4 } END { exit !($4 < e0) }' "$T/sim/p.csv"; then ok; else fail "energy not dissipated"; fi
has "$T/out" "steps" "summary: steps"
has "$T/out" "rejected" "summary: rejected steps"
has "$T/out" "real-time factor" "summary: real-time factor"
has "$T/out" "limit events" "summary: limit events"
has "$T/out" "$T/sim/p.csv" "summary: CSV path"
has "$T/out" "$T/sim/p.svg" "summary: plot path"
has "$T/sim/p.svg" "<svg" "SVG written"
has "$T/sim/p.svg" "pin.q" "SVG legend names the joint"
has "$T/sim/p.svg" "<polyline" "SVG has curves"
has "$T/sim/p.svg" "energy" "SVG energy panel"
if [ -s "$T/err" ]; then fail "simulate wrote to stderr when it is not a terminal: $(head -c 300 "$T/err")"; else ok; fi

# The plot as PNG: the PNG signature, the image header and the end chunk.
run 0 "simulate --plot png" "$MBT" simulate "$T/pendulum.urdf" --duration 0.2 --out "$T/sim/png.csv" \
  --plot "$T/sim/p.png"
sig=$(head -c 8 "$T/sim/p.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
if [ "$sig" = "89504e470d0a1a0a" ]; then ok; else fail "PNG signature: '$sig'"; fi
if grep -a -q IHDR "$T/sim/p.png" && grep -a -q IEND "$T/sim/p.png"; then ok; else fail "PNG chunks missing"; fi
has "$T/out" "$T/sim/p.png" "summary names the PNG"

# Without damping at tight tolerances the energy is conserved: |E(end) − E(0)| <= 1e-8·E(0).
run 0 "simulate --no-damping" "$MBT" simulate "$T/pendulum.urdf" --duration 1 --q0 "$PI_6" --v0 1 \
  --no-damping --rtol 1e-11 --atol 1e-12 --out "$T/sim/c.csv" --no-plot
if awk -F, 'NR == 2 { e0 = $4 } END { d = $4 - e0; if (d < 0) d = -d; exit !(d <= 1e-8 * e0) }' "$T/sim/c.csv"; then
  ok
else
  fail "energy not conserved without damping: $(sed -n 2p "$T/sim/c.csv") ... $(sed -n '$p' "$T/sim/c.csv")"
fi
# Fixed-step integrator: one row per step.
run 0 "simulate rk4" "$MBT" simulate "$T/pendulum.urdf" --integrator rk4 --dt 0.001 --duration 0.1 \
  --out "$T/sim/r.csv" --no-plot
rows=$(wc -l <"$T/sim/r.csv" 2>/dev/null)
if [ "${rows:-0}" -eq 102 ]; then ok; else fail "rk4 CSV rows: $rows lines, expected 102"; fi

run 2 "simulate wrong --q0 size" "$MBT" simulate "$T/pendulum.urdf" --q0 1,2 --no-plot --out "$T/sim/x.csv"
has "$T/err" "nq = 1" "--q0 size error names nq"
run 2 "simulate unknown integrator" "$MBT" simulate "$T/pendulum.urdf" --integrator leapfrog
has "$T/err" "leapfrog" "unknown integrator named"
run 2 "simulate bad --duration" "$MBT" simulate "$T/pendulum.urdf" --duration abc
run 2 "simulate bad --dt" "$MBT" simulate "$T/pendulum.urdf" --dt 0
run 2 "simulate unsupported plot format" "$MBT" simulate "$T/pendulum.urdf" --plot "$T/sim/p.pdf"
run 2 "simulate wrong --v0 size" "$MBT" simulate "$T/pendulum.urdf" --v0 1,2 --no-plot --out "$T/sim/x.csv"
has "$T/err" "nv = 1" "--v0 size error names nv"
run 2 "simulate bad --gravity" "$MBT" simulate "$T/pendulum.urdf" --gravity 0,0 --no-plot --out "$T/sim/x.csv"
has "$T/err" "three finite numbers" "--gravity error says what it needs"
run 2 "simulate --rtol with rk4" "$MBT" simulate "$T/pendulum.urdf" --integrator rk4 --rtol 1e-3 --no-plot
has "$T/err" "rk45 only" "--rtol is for rk45 only"
run 2 "simulate too many steps" "$MBT" simulate "$T/pendulum.urdf" --duration 1e9 --dt 1e-6 --no-plot
has "$T/err" "1e12" "the step limit is named"
run 2 "simulate negative --limit-damping" "$MBT" simulate "$T/pendulum.urdf" --limit-damping -1 --no-plot
has "$T/err" "must not be negative" "--limit-damping sign error"
run 2 "simulate --dt without a value" "$MBT" simulate "$T/pendulum.urdf" --dt
run 2 "simulate --contacts without contact" "$MBT" simulate "$T/pendulum.urdf" --contacts --no-plot
run 1 "simulate --out a directory" "$MBT" simulate "$T/pendulum.urdf" --duration 0.1 --no-plot --out "$T/adir"
has "$T/err" "cannot write '$T/adir'" "simulate names the CSV it cannot write"
# A joint that starts beyond its limits [-3, 3]: a warning, and the limit penalty acts.
run 0 "simulate from beyond a limit" "$MBT" simulate "$T/pendulum.urdf" --duration 0.1 --q0 3.5 \
  --limit-stiffness 1e3 --limit-damping 10 --no-plot --out "$T/sim/lim.csv"
has "$T/err" "outside its limits" "a start beyond the limits is warned about"
# The penalty pushes the pendulum back inside: q(0.1 s) < 3 (without it q stays near 3.5).
if awk -F, 'END { exit !($2 < 3) }' "$T/sim/lim.csv"; then ok; else fail "limit penalty: $(sed -n '$p' "$T/sim/lim.csv")"; fi

# No MODEL: the shipped Panda, outputs under ./out/.
mkdir -p "$T/cwd"
(cd "$T/cwd" && "$MBT" simulate --duration 0.2 >"$T/out" 2>"$T/err")
status=$?
if [ "$status" -eq 0 ]; then ok; else fail "simulate without MODEL: status $status: $(head -c 600 "$T/err")"; fi
header=$(head -n 1 "$T/cwd/out/simulate.csv" 2>/dev/null)
case "$header" in
  t,panda_joint1.q,*,panda_finger_joint2.x,panda_joint1.w,*,panda_finger_joint2.v,energy) ok ;;
  *) fail "default simulate CSV header: '$header'" ;;
esac
has "$T/cwd/out/simulate.svg" "panda_joint7.q" "default simulate plot"
has "$T/out" "out/simulate.csv" "default simulate names the CSV"
has "$T/out" "out/simulate.svg" "default simulate names the plot"
# Non-trivial initial pose: panda_joint2 starts at 0.5 rad.
near "default pose" "$(sed -n 2p "$T/cwd/out/simulate.csv" | cut -d, -f3)" "0.5" 1e-15

# Ctrl-C: stops cleanly, keeps the output, says where it stopped, exits 130. The handler is
# in place once the CSV exists; a watchdog ends the run if the signal is lost.
"$MBT" simulate "$T/pendulum.urdf" --duration 1e9 --dt 1 --out "$T/sim/i.csv" --plot "$T/sim/i.svg" \
  >"$T/out" 2>"$T/err" &
pid=$!
(sleep 60; kill -KILL "$pid") >/dev/null 2>&1 &
watchdog=$!
waited=0
while [ ! -f "$T/sim/i.csv" ] && [ "$waited" -lt 50 ]; do
  sleep 1
  waited=$((waited + 1))
done
sleep 1
kill -INT "$pid" 2>/dev/null
wait "$pid"
status=$?
kill "$watchdog" 2>/dev/null
if [ "$status" -eq 130 ]; then
  ok
else
  fail "interrupted simulate: status $status, expected 130: $(head -c 300 "$T/err")"
fi
has "$T/out" "interrupted at t =" "interrupted run says where it stopped"
rows=$(wc -l <"$T/sim/i.csv" 2>/dev/null)
if [ "${rows:-0}" -ge 3 ]; then ok; else fail "interrupted run kept $rows CSV lines, expected >= 3"; fi
has "$T/sim/i.svg" "</svg>" "interrupted run writes a complete plot"

echo "test_cli: $checks checks passed, $failures failed"
[ "$failures" -eq 0 ]
