// kinematics.js: forward kinematics of an mbt tree from the kinematic data `mbt view` embeds
// in the page (the pose editor's poses). tests/viewer/fk_test.mjs holds it to `mbt eval`'s
// poses to 1e-12.
//
// A pose X is 12 numbers: R row-major (9), then p (3). For each body B in body-node order,
// with P its parent body, F and M the inboard and outboard frames of its mobilizer:
//   X_WB = X_WP · X_PF · X_FM(q) · X_MB      [Drake MultibodyTree, mobilizer kinematics]
// X_FM(q) per mobilizer type, as in src/mobilizers/*.c.

export function identity() {
  return [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0];
}

// X_AC = X_AB · X_BC: R_AC = R_AB·R_BC, p_AoCo = p_AoBo + R_AB·p_BoCo.
export function compose(a, b) {
  const x = new Array(12);
  for (let i = 0; i < 3; ++i) {
    for (let j = 0; j < 3; ++j)
      x[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
    x[9 + i] = a[9 + i] + a[3 * i] * b[9] + a[3 * i + 1] * b[10] + a[3 * i + 2] * b[11];
  }
  return x;
}

// Rotation by angle θ (sin s, cos c) about unit axis a (Rodrigues):
// R = c·I + s·[a]× + (1 − c)·a·aᵀ.
function axisAngle(a, s, c) {
  const t = 1 - c;
  const [x, y, z] = a;
  return [
    c + t * x * x, t * x * y - s * z, t * x * z + s * y,
    t * x * y + s * z, c + t * y * y, t * y * z - s * x,
    t * x * z - s * y, t * y * z + s * x, c + t * z * z,
  ];
}

// R(q) of a quaternion [w x y z], normalized (a zero quaternion gives I).
function quatRotation(w, x, y, z) {
  const n2 = w * w + x * x + y * y + z * z;
  if (!(n2 > 0)) return [1, 0, 0, 0, 1, 0, 0, 0, 1];
  const s = 2 / n2;
  const wx = s * w * x, wy = s * w * y, wz = s * w * z;
  const xx = s * x * x, xy = s * x * y, xz = s * x * z;
  const yy = s * y * y, yz = s * y * z, zz = s * z * z;
  return [1 - yy - zz, xy - wz, xz + wy, xy + wz, 1 - xx - zz, yz - wx, xz - wy, yz + wx, 1 - xx - yy];
}

// X_FM(q) of one mobilizer; q is its own slice.
export function acrossMobilizer(m, q) {
  switch (m.type) {
    case 'weld':
      return identity();
    case 'revolute':
      return [...axisAngle(m.axis, Math.sin(q[0]), Math.cos(q[0])), 0, 0, 0];
    case 'prismatic':
      return [1, 0, 0, 0, 1, 0, 0, 0, 1, m.axis[0] * q[0], m.axis[1] * q[0], m.axis[2] * q[0]];
    case 'screw': {
      const d = m.pitch_per_radian * q[0];
      return [...axisAngle(m.axis, Math.sin(q[0]), Math.cos(q[0])), m.axis[0] * d, m.axis[1] * d, m.axis[2] * d];
    }
    case 'universal': {  // Rx(q0)·Ry(q1)
      const s0 = Math.sin(q[0]), c0 = Math.cos(q[0]), s1 = Math.sin(q[1]), c1 = Math.cos(q[1]);
      return [c1, 0, s1, s0 * s1, c0, -s0 * c1, -c0 * s1, s0, c0 * c1, 0, 0, 0];
    }
    case 'planar': {  // p = (x, y, 0), R = Rz(θ)
      const s = Math.sin(q[2]), c = Math.cos(q[2]);
      return [c, -s, 0, s, c, 0, 0, 0, 1, q[0], q[1], 0];
    }
    case 'space_xyz': {  // Rz(y)·Ry(p)·Rx(r), q = [r, p, y]
      const sr = Math.sin(q[0]), cr = Math.cos(q[0]), sp = Math.sin(q[1]), cp = Math.cos(q[1]);
      const sy = Math.sin(q[2]), cy = Math.cos(q[2]);
      return [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr,
              sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr,
              -sp, cp * sr, cp * cr, 0, 0, 0];
    }
    case 'quaternion_floating':
      return [...quatRotation(q[0], q[1], q[2], q[3]), q[4], q[5], q[6]];
    default:
      throw new Error(`mobilizer '${m.name}': unknown type '${m.type}'`);
  }
}

// X_WB of every body (indexed by body) for the whole-tree q. `mobilizers` lists the bodies'
// inboard mobilizers in body-node order: {body, parent, type, q_start, nq, axis,
// pitch_per_radian, X_PF, X_MB}.
export function forwardKinematics(model, q) {
  const X_WB = new Array(model.bodies.length);
  X_WB[0] = identity();
  for (const m of model.mobilizers) {
    const qm = q.slice(m.q_start, m.q_start + m.nq);
    const X_WF = compose(X_WB[m.parent], m.X_PF);
    X_WB[m.body] = compose(compose(X_WF, acrossMobilizer(m, qm)), m.X_MB);
  }
  return X_WB;
}
