// fk_test.mjs: the poses of the viewer's page against `mbt eval`'s body poses, to 1e-12:
//  - the pose editor's forward kinematics (viewer/src/kinematics.js) on the kinematic data
//    `mbt view` embeds, at random states of the shipped models and of a model with every
//    joint type URDF has;
//  - the trajectory's embedded X_WB at the q of its frames.
// Usage: node fk_test.mjs SOURCE_DIR BUILD_DIR WORK_DIR
import { writeFileSync, mkdirSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { mbt, pageData, evalPoses, check, finish } from './common.mjs';

const [src, build, work] = process.argv.slice(2);
mkdirSync(work, { recursive: true });
const { forwardKinematics, acrossMobilizer } = await import(pathToFileURL(`${src}/viewer/src/kinematics.js`));
const { quaternionFromRpy, rpyFromQuaternion } = await import(pathToFileURL(`${src}/viewer/src/editor.js`));
const TOL = 1e-12;

// A seeded generator (xorshift32): the same states at every run.
let seed = 0x9e3779b9;
function rand() {
  seed ^= seed << 13; seed >>>= 0; seed ^= seed >>> 17; seed ^= seed << 5; seed >>>= 0;
  return seed / 4294967296 * 2 - 1;
}

// The largest difference between the page's pose of every body and eval's.
function maxDiff(data, X_WB, evalBodies) {
  let worst = 0;
  data.bodies.forEach((b, i) => {
    const e = evalBodies[b.name];
    const R = e.R_WB.flat();
    for (let k = 0; k < 9; ++k) worst = Math.max(worst, Math.abs(X_WB[i][k] - R[k]));
    for (let k = 0; k < 3; ++k) worst = Math.max(worst, Math.abs(X_WB[i][9 + k] - e.p_WB[k]));
  });
  return worst;
}

function evalAt(model, flags, qs, name) {
  return evalPoses(build, work, model, flags, qs, qs.nv, name);
}

// Random q: angles and positions in [-2, 2]; quaternions of random, not unit, length.
function randomQ(data) {
  const q = new Array(data.nq).fill(0).map(() => 2 * rand());
  for (const m of data.mobilizers)
    if (m.type === 'quaternion_floating') for (let k = 0; k < 4; ++k) q[m.q_start + k] = 1.5 * rand();
  return q;
}

const ALL_JOINTS = `<robot name="all_joints">
  <link name="base"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <link name="a"><inertial><origin xyz="0.1 0 0"/><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <link name="b"/><link name="c"/><link name="d"/><link name="e"/><link name="f"/>
  <joint name="ja" type="revolute"><parent link="base"/><child link="a"/><origin xyz="0.1 0.2 0.3" rpy="0.3 -0.2 1.1"/><axis xyz="1 2 3"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="jb" type="prismatic"><parent link="a"/><child link="b"/><origin xyz="0 0 0.5" rpy="0 1.2 0"/><axis xyz="0 -1 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="jc" type="continuous"><parent link="b"/><child link="c"/><origin xyz="0.2 0 0"/><axis xyz="0 0 1"/></joint>
  <joint name="jd" type="planar"><parent link="c"/><child link="d"/><origin xyz="0 0.1 0" rpy="0.5 0 0"/><axis xyz="1 1 0"/></joint>
  <joint name="je" type="floating"><parent link="d"/><child link="e"/><origin xyz="0.3 0 0" rpy="0 0 0.7"/></joint>
  <joint name="jf" type="fixed"><parent link="e"/><child link="f"/><origin xyz="0.1 0.1 0.1" rpy="1 2 3"/></joint>
</robot>`;
writeFileSync(`${work}/all_joints.urdf`, ALL_JOINTS);

const models = [
  ['panda', `${src}/models/panda.urdf`, []],
  ['ur5', `${src}/models/ur5.urdf`, []],
  ['solo12', `${src}/models/solo12.urdf`, ['--floating']],
  ['double_pendulum', `${src}/models/double_pendulum.urdf`, []],
  ['all_joints', `${work}/all_joints.urdf`, ['--floating']],
];
for (const [name, model, flags] of models) {
  const page = `${work}/${name}_editor.html`;
  mbt(build, ['view', model, '-o', page, ...flags]);
  const data = pageData(page);
  check(data.trajectory === null, `${name}: a page without trajectory opens the pose editor`);
  const qs = [data.q0];
  for (let k = 0; k < 20; ++k) qs.push(randomQ(data));
  qs.nv = data.mobilizers.reduce((n, m) => n + (m.type === 'quaternion_floating' ? 6 : m.nq), 0);
  const evals = evalAt(model, flags, qs, name);
  let worst = 0;
  qs.forEach((q, k) => { worst = Math.max(worst, maxDiff(data, forwardKinematics(data, q), evals[k])); });
  console.log(`${name}: pose editor vs mbt eval over ${qs.length} states: max |difference| = ${worst.toExponential(2)}`);
  check(worst <= TOL, `${name}: pose editor poses within ${TOL} of mbt eval (max ${worst})`);
  // The check can fail: a perturbed axis is seen.
  if (name === 'all_joints') {
    const bad = JSON.parse(JSON.stringify(data));
    bad.mobilizers.find((m) => m.type === 'revolute').axis[0] += 1e-9;
    const w = maxDiff(bad, forwardKinematics(bad, qs[1]), evals[1]);
    check(w > TOL, `${name}: a 1e-9 change of an axis is detected (difference ${w})`);
  }
}

// The editor's floating-joint sliders: roll, pitch, yaw to the quaternion and back; the
// quaternion's rotation is Drake's RollPitchYaw Rz(y)·Ry(p)·Rx(r) (the space_xyz mobilizer's).
{
  let worstRpy = 0, worstR = 0;
  for (let k = 0; k < 200; ++k) {
    const rpy = [Math.PI * rand(), 0.45 * Math.PI * rand(), Math.PI * rand()];  // away from pitch ±π/2
    const quat = quaternionFromRpy(...rpy);
    const back = rpyFromQuaternion(...quat);
    for (let i = 0; i < 3; ++i) worstRpy = Math.max(worstRpy, Math.abs(back[i] - rpy[i]));
    const Rq = acrossMobilizer({ type: 'quaternion_floating' }, [...quat, 0, 0, 0]);
    const Rs = acrossMobilizer({ type: 'space_xyz' }, rpy);
    for (let i = 0; i < 9; ++i) worstR = Math.max(worstR, Math.abs(Rq[i] - Rs[i]));
  }
  console.log(`editor: rpy -> quaternion -> rpy max |difference| ${worstRpy.toExponential(2)}, ` +
              `rotation vs Rz·Ry·Rx ${worstR.toExponential(2)}`);
  check(worstRpy <= TOL && worstR <= TOL, `editor: roll-pitch-yaw sliders map to the quaternion (${worstRpy}, ${worstR})`);
}

// The trajectory: embedded X_WB of every frame = eval's at that frame's q.
const csv = `${work}/pendulum_sim.csv`;
mbt(build, ['simulate', `${src}/models/double_pendulum.urdf`, '--duration', '0.5', '--q0', '1,0.5', '--out', csv, '--no-plot']);
const tpage = `${work}/pendulum_traj.html`;
mbt(build, ['view', `${src}/models/double_pendulum.urdf`, '--trajectory', csv, '-o', tpage]);
const td = pageData(tpage);
check(td.trajectory && td.trajectory.t.length === 51, `trajectory: 51 frames (${td.trajectory && td.trajectory.t.length})`);
const tq = td.trajectory.q;
tq.nv = td.nq;
const tev = evalAt(`${src}/models/double_pendulum.urdf`, [], tq, 'traj');
let tworst = 0;
td.trajectory.X_WB.forEach((flat, k) => {
  const X = [];
  for (let i = 0; i < flat.length; i += 12) X.push(flat.slice(i, i + 12));
  tworst = Math.max(tworst, maxDiff(td, X, tev[k]));
});
console.log(`trajectory: embedded X_WB vs mbt eval over ${tq.length} frames: max |difference| = ${tworst.toExponential(2)}`);
check(tworst <= TOL, `trajectory: embedded poses within ${TOL} of mbt eval (max ${tworst})`);
check(Math.abs(tq[25][0] - tq[0][0]) > 1e-3, 'trajectory: the pendulum moves');
finish('viewer fk');
