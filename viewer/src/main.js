// main.js: the page of `mbt view`. Reads the data mbt embedded (<script id="mbt-data">, schema
// in docs/viewer.md), builds the scene (one group per body holding its visual and collision
// geometry, frame triad and centre of mass), and poses the bodies either from the trajectory's
// X_WB (computed by mbt) or from the pose editor's q through kinematics.js.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { STLLoader } from 'three/addons/loaders/STLLoader.js';
import { OBJLoader } from 'three/addons/loaders/OBJLoader.js';
import { ColladaLoader } from 'three/addons/loaders/ColladaLoader.js';
import { forwardKinematics } from './kinematics.js';
import { buildEditor, formatJoints } from './editor.js';

const data = JSON.parse(document.getElementById('mbt-data').textContent);
const $ = (id) => document.getElementById(id);

// ---- renderer, camera, lights, grid --------------------------------------------------------
const container = $('view');
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio || 1);
renderer.setSize(container.clientWidth, container.clientHeight);
container.appendChild(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xeef0f3);
const camera = new THREE.PerspectiveCamera(40, container.clientWidth / container.clientHeight, 0.005, 200);
camera.up.set(0, 0, 1);  // mbt's world is z-up
const controls = new OrbitControls(camera, renderer.domElement);
controls.addEventListener('change', () => requestRender());
const hemi = new THREE.HemisphereLight(0xffffff, 0x667788, 1.6);
hemi.position.set(0, 0, 1);
scene.add(hemi);
const sun = new THREE.DirectionalLight(0xffffff, 1.8);
sun.position.set(2, -3, 5);
scene.add(sun);
// The ground grid in z = 0: a size × size square, a line every size/divisions, the axes
// darker. Each line is cut into one segment per cell: a line that passes behind the camera is
// then drawn in front of it (some WebGL renderers drop a whole line with an end behind the eye).
function groundGrid(size, divisions) {
  const h = size / 2, step = size / divisions, points = [], colors = [];
  const axis = new THREE.Color(0x8a9099), line = new THREE.Color(0xc5cad1);
  for (let i = 0; i <= divisions; ++i) {
    const c = -h + i * step, color = 2 * i === divisions ? axis : line;
    for (let k = 0; k < divisions; ++k) {
      const a = -h + k * step, b = a + step;
      points.push(a, c, 0, b, c, 0, c, a, 0, c, b, 0);
      for (let n = 0; n < 4; ++n) colors.push(color.r, color.g, color.b);
    }
  }
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.Float32BufferAttribute(points, 3));
  geometry.setAttribute('color', new THREE.Float32BufferAttribute(colors, 3));
  return new THREE.LineSegments(geometry, new THREE.LineBasicMaterial({ vertexColors: true }));
}
const grid = groundGrid(4, 40);
scene.add(grid);

// ---- poses ---------------------------------------------------------------------------------
// X (12 numbers: R row-major, p) as a three.js matrix.
function matrixOf(X) {
  return new THREE.Matrix4().set(X[0], X[1], X[2], X[9], X[3], X[4], X[5], X[10], X[6], X[7], X[8], X[11], 0, 0, 0, 1);
}

function placed(object, X) {
  const holder = new THREE.Group();
  holder.matrixAutoUpdate = false;
  holder.matrix.copy(matrixOf(X));
  holder.add(object);
  return holder;
}

// ---- geometry ------------------------------------------------------------------------------
function bytesOf(base64) {
  const s = atob(base64);
  const b = new Uint8Array(s.length);
  for (let i = 0; i < s.length; ++i) b[i] = s.charCodeAt(i);
  return b;
}

const meshCache = new Map();
// The mesh file k as a three.js object (a fresh clone per use); null if left out.
function meshObject(k) {
  if (k < 0 || k >= data.meshes.length) return null;
  if (!meshCache.has(k)) {
    const m = data.meshes[k];
    const bytes = bytesOf(m.base64);
    let object;
    if (m.format === 'stl') {
      object = new THREE.Mesh(new STLLoader().parse(bytes.buffer), null);
      object.userData.plain = true;  // no colours of its own
    } else if (m.format === 'obj') {
      object = new OBJLoader().parse(new TextDecoder().decode(bytes));
    } else {
      // COLLADA: three turns Z_UP files to y-up; mbt's frames are the file's own, z-up.
      object = new ColladaLoader().parse(new TextDecoder().decode(bytes), '').scene;
      object.rotation.set(0, 0, 0);
    }
    meshCache.set(k, object);
  }
  return meshCache.get(k).clone(true);
}

function primitive(g) {
  const upright = (geometry) => geometry.rotateX(Math.PI / 2);  // three's y axis to the shape's z
  switch (g.shape) {
    case 'box': return new THREE.BoxGeometry(g.size[0], g.size[1], g.size[2]);
    case 'sphere': return new THREE.SphereGeometry(g.radius, 32, 16);
    case 'cylinder': return upright(new THREE.CylinderGeometry(g.radius, g.radius, g.length, 32));
    case 'capsule': return upright(new THREE.CapsuleGeometry(g.radius, g.length, 8, 24));
    case 'half_space': return new THREE.PlaneGeometry(4, 4);
    default: return null;
  }
}

const collisionMaterial = new THREE.MeshStandardMaterial({
  color: 0xff7a1a, transparent: true, opacity: 0.5, depthWrite: false, side: THREE.DoubleSide,
  polygonOffset: true, polygonOffsetFactor: -2, polygonOffsetUnits: -2 });  // drawn over a coinciding visual

function visualMaterial(rgba) {
  const c = rgba || [0.75, 0.76, 0.78, 1];
  return new THREE.MeshStandardMaterial({
    color: new THREE.Color(c[0], c[1], c[2]), roughness: 0.6, metalness: 0.1,
    transparent: c[3] < 1, opacity: c[3] });
}

// One geometry as an object placed at X_BG. Meshes keep their file's own materials when they
// have some (COLLADA, OBJ) and the URDF gives no colour.
function geometryObject(g) {
  const collision = g.role === 'collision';
  let object;
  if (g.shape === 'mesh') {
    object = meshObject(g.mesh);
    if (!object) return null;
    object.scale.set(g.scale[0], g.scale[1], g.scale[2]);
    const material = collision ? collisionMaterial : (g.rgba || object.userData.plain) ? visualMaterial(g.rgba) : null;
    if (material) object.traverse((o) => { if (o.isMesh) o.material = material; });
  } else {
    object = new THREE.Mesh(primitive(g), collision ? collisionMaterial : visualMaterial(g.rgba));
  }
  return placed(object, g.X_BG);
}

// ---- bodies --------------------------------------------------------------------------------
const bodies = data.bodies.map((b) => {
  const group = new THREE.Group();
  group.matrixAutoUpdate = false;
  const parts = { visual: new THREE.Group(), collision: new THREE.Group(), frame: null, com: null };
  group.add(parts.visual, parts.collision);
  scene.add(group);
  return { ...b, group, parts, hasVisual: false };
});
for (const g of data.geometries) {
  const object = geometryObject(g);
  if (!object) continue;
  const body = bodies[g.body];
  body.parts[g.role].add(object);
  if (g.role === 'visual') body.hasVisual = true;
}

// Sizes for the triads and centre-of-mass markers: from the robot's extent.
const extent = new THREE.Box3();
const links = new THREE.Group();  // lines from the bodies without visuals to their parents
scene.add(links);

function addMarkers(size) {
  for (const b of bodies) {
    b.parts.frame = new THREE.AxesHelper(size);
    b.group.add(b.parts.frame);
    if (b.mass > 0) {
      b.parts.com = new THREE.Mesh(new THREE.SphereGeometry(size * 0.12, 16, 8),
                                   new THREE.MeshBasicMaterial({ color: 0x1a1a1a, depthTest: false }));
      b.parts.com.renderOrder = 2;
      b.parts.com.position.set(b.com[0], b.com[1], b.com[2]);
      b.group.add(b.parts.com);
    }
    // A body with nothing to draw: its triad always, and a line to its parent.
    b.bare = !b.hasVisual && b.parent >= 0;
    if (b.bare) {
      const line = new THREE.Line(new THREE.BufferGeometry().setFromPoints([new THREE.Vector3(), new THREE.Vector3()]),
                                  new THREE.LineBasicMaterial({ color: 0x3a4a5a }));
      line.frustumCulled = false;
      b.line = line;
      links.add(line);
    }
  }
}

let poses = null;  // X_WB of every body, as shown
function setPoses(X_WB) {
  poses = X_WB;
  for (let i = 0; i < bodies.length; ++i) {
    bodies[i].group.matrix.copy(matrixOf(X_WB[i]));
    bodies[i].group.matrixWorldNeedsUpdate = true;
  }
  for (const b of bodies) {
    if (!b.line) continue;
    const P = X_WB[b.parent], B = X_WB[bodies.indexOf(b)];
    const a = b.line.geometry.attributes.position;
    a.setXYZ(0, P[9], P[10], P[11]);
    a.setXYZ(1, B[9], B[10], B[11]);
    a.needsUpdate = true;
  }
  requestRender();
}

// ---- display toggles -----------------------------------------------------------------------
const show = { visual: true, collision: false, frames: false, com: false, grid: true };
function applyShow() {
  for (const b of bodies) {
    b.parts.visual.visible = show.visual;
    b.parts.collision.visible = show.collision;
    // A body without visual geometry stands in with its triad and link, drawn with the visuals.
    if (b.parts.frame) b.parts.frame.visible = show.frames || (show.visual && b.bare);
    if (b.parts.com) b.parts.com.visible = show.com;
  }
  for (const name of Object.keys(show)) $(`show-${name}`).checked = show[name];
  grid.visible = show.grid;
  links.visible = show.visual;
  requestRender();
}
for (const name of Object.keys(show)) {
  const box = $(`show-${name}`);
  box.addEventListener('change', () => { show[name] = box.checked; applyShow(); });
}

// ---- time, playback ------------------------------------------------------------------------
const traj = data.trajectory;
const state = { t: 0, playing: !!traj, speed: 1, q: data.q0 };
const t0 = traj ? traj.t[0] : 0, t1 = traj ? traj.t[traj.t.length - 1] : 0;

// The last frame at or before t.
function frameAt(t) {
  let lo = 0, hi = traj.t.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (traj.t[mid] <= t) lo = mid; else hi = mid - 1;
  }
  return lo;
}

function chunk(flat) {
  const X = [];
  for (let i = 0; i < flat.length; i += 12) X.push(flat.slice(i, i + 12));
  return X;
}

function setTime(t) {
  state.t = Math.min(Math.max(t, t0), t1);
  const k = frameAt(state.t);
  state.q = traj.q[k];
  setPoses(chunk(traj.X_WB[k]));
  $('slider').value = String(state.t);
  $('time').textContent = `t = ${state.t.toFixed(3)} s / ${t1.toFixed(3)} s`;
  $('joints').textContent = formatJoints(data, state.q);
}

function setPlaying(on) {
  state.playing = on && !!traj;
  $('play').textContent = state.playing ? 'pause' : 'play';
  last = performance.now();
  if (state.playing) requestRender();
}

// #t=SECONDS: paused at that time.
function applyHash() {
  const m = /(?:^#|&)t=([-+0-9.eE]+)/.exec(window.location.hash);
  if (!m || !traj) return false;
  setPlaying(false);
  setTime(parseFloat(m[1]));
  return true;
}

// The pose editor's q: poses from kinematics.js.
function showQ(q) {
  state.q = q;
  setPoses(forwardKinematics(data, q));
  $('joints').textContent = formatJoints(data, q);
}

let last = performance.now();
let renderQueued = false;
function requestRender() {
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(tick);
}

function tick(now) {
  renderQueued = false;
  if (state.playing) {
    let t = state.t + ((now - last) / 1000) * state.speed;
    if (t > t1) t = t0 + (t - t1) % Math.max(t1 - t0, 1e-9);
    setTime(t);
    renderQueued = true;
    requestAnimationFrame(tick);
  }
  last = now;
  controls.update();
  renderer.render(scene, camera);
}

// ---- set-up --------------------------------------------------------------------------------
function frameCamera() {
  extent.makeEmpty();
  for (const b of bodies) b.group.updateMatrixWorld(true);
  for (const b of bodies) extent.expandByObject(b.parts.visual.children.length ? b.parts.visual : b.group);
  // Every body origin at every frame: the whole motion stays in view.
  const frames = traj ? traj.X_WB : [poses.flat()];
  for (const flat of frames)
    for (let i = 0; i < flat.length; i += 12) extent.expandByPoint(new THREE.Vector3(flat[i + 9], flat[i + 10], flat[i + 11]));
  const center = extent.getCenter(new THREE.Vector3());
  const size = Math.max(extent.getSize(new THREE.Vector3()).length(), 0.2);
  controls.target.copy(center);
  camera.position.copy(center).add(new THREE.Vector3(1.0, -1.25, 0.75).normalize().multiplyScalar(size * 1.45));
  fitView();
  return size;
}

// The side panel covers the left: the picture is centred in what is left of the window.
function fitView() {
  const w = container.clientWidth, h = container.clientHeight, panel = Math.min($('side').offsetWidth + 16, w / 3);
  renderer.setSize(w, h);
  camera.aspect = w / h;
  camera.setViewOffset(w, h, -panel / 2, 0, w, h);
  camera.updateProjectionMatrix();
}

$('title').textContent = `${data.model || 'model'}${traj ? '' : ' (pose editor)'}`;
document.title = `mbt view: ${data.model}`;
let setEditorQ = showQ;  // the pose editor's, which moves its sliders too
if (traj) {
  $('slider').min = String(t0);
  $('slider').max = String(t1);
  $('slider').addEventListener('input', () => { setPlaying(false); setTime(parseFloat($('slider').value)); });
  $('play').addEventListener('click', () => setPlaying(!state.playing));
  $('speed').addEventListener('change', () => { state.speed = parseFloat($('speed').value); });
  setTime(t0);
} else {
  $('bar').classList.add('hidden');
  const editor = $('editor');
  editor.classList.remove('hidden');
  setEditorQ = buildEditor(editor, data, showQ);
}
addMarkers(frameCamera() * 0.06);
applyShow();
window.addEventListener('hashchange', applyHash);
window.addEventListener('resize', () => { fitView(); requestRender(); });
if (!applyHash()) setPlaying(state.playing);
requestRender();

// For tests and scripting: the state, and a synchronous render.
window.mbtViewer = {
  data,
  setTime: (t) => { setPlaying(false); setTime(t); renderer.render(scene, camera); },
  setShow: (name, on) => { show[name] = on; applyShow(); renderer.render(scene, camera); },
  setQ: (q) => { setEditorQ(q); renderer.render(scene, camera); },
  render: () => { controls.update(); renderer.render(scene, camera); },
  frame: () => { frameCamera(); controls.update(); renderer.render(scene, camera); },
  state: () => ({ t: state.t, playing: state.playing, q: state.q, X_WB: poses }),
  // Where world point p falls in the canvas, in CSS pixels from its top left.
  project: (p) => {
    const v = new THREE.Vector3(p[0], p[1], p[2]).project(camera);
    const r = renderer.domElement.getBoundingClientRect();
    return [r.left + (v.x + 1) / 2 * r.width, r.top + (1 - v.y) / 2 * r.height, v.z];
  },
  camera: () => ({ position: camera.position.toArray(), target: controls.target.toArray(), near: camera.near, far: camera.far }),
  ready: true,
};
