// editor.js: the pose editor (one slider per joint coordinate, within its limits; a floating
// joint gets x, y, z and roll, pitch, yaw) and the joint values shown as text.

const PI = Math.PI;

// q = [qw qx qy qz] of R = Rz(yaw)·Ry(pitch)·Rx(roll) (Drake's RollPitchYaw).
export function quaternionFromRpy(r, p, y) {
  const cr = Math.cos(r / 2), sr = Math.sin(r / 2), cp = Math.cos(p / 2), sp = Math.sin(p / 2);
  const cy = Math.cos(y / 2), sy = Math.sin(y / 2);
  return [cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
          cr * cp * sy - sr * sp * cy];
}

// Slider range of coordinate k of a joint: its limits, else ±π for angles, ±1 m (around the
// default) for translations.
function range(joint, k, q0) {
  const lo = joint.lower[k], hi = joint.upper[k];
  if (lo !== null && hi !== null) return [lo, hi];
  const linear = joint.type === 'prismatic' || (joint.type === 'planar' && k < 2);
  return linear ? [q0 - 1, q0 + 1] : [-PI, PI];
}

// One labelled slider; returns a function that moves it to a value (without calling onInput).
function slider(parent, label, lo, hi, value, onInput) {
  const row = document.createElement('div');
  row.className = 'row';
  const name = document.createElement('span');
  name.textContent = label;
  name.title = label;
  const input = document.createElement('input');
  Object.assign(input, { type: 'range', min: String(lo), max: String(hi), step: 'any', value: String(value) });
  const text = document.createElement('span');
  const show = () => { text.textContent = Number(input.value).toFixed(3); };
  input.addEventListener('input', () => { show(); onInput(Number(input.value)); });
  show();
  row.append(name, input, text);
  parent.append(row);
  return (x) => { input.value = String(x); show(); };
}

// [roll, pitch, yaw] of the rotation of quaternion [w x y z] (normalized), R = Rz·Ry·Rx:
// pitch = atan2(−R20, √(R00² + R10²)), roll = atan2(R21, R22), yaw = atan2(R10, R00).
export function rpyFromQuaternion(w, x, y, z) {
  const n = Math.hypot(w, x, y, z) || 1;
  [w, x, y, z] = [w / n, x / n, y / n, z / n];
  const R00 = 1 - 2 * (y * y + z * z), R10 = 2 * (x * y + w * z), R20 = 2 * (x * z - w * y);
  const R21 = 2 * (y * z + w * x), R22 = 1 - 2 * (x * x + y * y);
  return [Math.atan2(R21, R22), Math.atan2(-R20, Math.hypot(R00, R10)), Math.atan2(R10, R00)];
}

// Sliders for every joint; onChange(q) with the whole q after each move (and once at start).
// Returns a function that sets q from outside (the sliders follow, onChange is called).
export function buildEditor(container, data, onChange) {
  const q = data.q0.slice();
  const title = document.createElement('div');
  title.textContent = 'pose editor';
  title.style.margin = '6px 0 2px';
  container.append(title);
  const setters = [];  // (q) => move the sliders of one joint to q
  for (const j of data.joints) {
    const s = j.q_start;
    if (j.nq === 7) {  // quaternion floating: position and roll, pitch, yaw
      const rpy = rpyFromQuaternion(q[s], q[s + 1], q[s + 2], q[s + 3]);
      const setQuat = () => { q.splice(s, 4, ...quaternionFromRpy(rpy[0], rpy[1], rpy[2])); onChange(q.slice()); };
      const moves = ['x', 'y', 'z'].map((axis, k) =>
        slider(container, `${j.name}.${axis}`, q[s + 4 + k] - 1, q[s + 4 + k] + 1, q[s + 4 + k],
               (x) => { q[s + 4 + k] = x; onChange(q.slice()); }));
      const turns = ['roll', 'pitch', 'yaw'].map((angle, k) =>
        slider(container, `${j.name}.${angle}`, -PI, PI, rpy[k], (x) => { rpy[k] = x; setQuat(); }));
      setters.push((v) => {
        moves.forEach((move, k) => move(v[s + 4 + k]));
        rpyFromQuaternion(v[s], v[s + 1], v[s + 2], v[s + 3]).forEach((a, k) => { rpy[k] = a; turns[k](a); });
      });
      q.splice(s, 4, ...quaternionFromRpy(rpy[0], rpy[1], rpy[2]));  // the default, normalized
      continue;
    }
    const moves = [];
    for (let k = 0; k < j.nq; ++k) {
      const [lo, hi] = range(j, k, q[s + k]);
      const label = j.nq === 1 ? j.name : `${j.name}.${j.suffixes[k]}`;
      moves.push(slider(container, label, lo, hi, q[s + k], (x) => { q[s + k] = x; onChange(q.slice()); }));
    }
    setters.push((v) => moves.forEach((move, k) => move(v[s + k])));
  }
  onChange(q.slice());
  return (v) => {
    q.splice(0, q.length, ...v);
    for (const set of setters) set(v);
    onChange(q.slice());
  };
}

// "joint.suffix  value" per coordinate of q.
export function formatJoints(data, q) {
  const lines = [];
  for (const j of data.joints)
    for (let k = 0; k < j.nq; ++k) {
      const label = j.nq === 1 ? j.name : `${j.name}.${j.suffixes[k]}`;
      lines.push(`${label.padEnd(24)} ${q[j.q_start + k].toFixed(4).padStart(9)}`);
    }
  return lines.join('\n');
}
