// browser_test.mjs: the viewer's pages in headless Chromium (Debian's, driven by playwright-core):
// each page loads with no console error and no request beyond the page itself, the canvas
// shows the robot (pixels differ from the same scene without it), a trajectory's frames at
// two times differ where the robot moved, #t=SECONDS opens paused at that time, and the
// screenshots of the Panda, UR5 and Solo12 that docs/viewer.md shows.
// Usage: node browser_test.mjs SOURCE_DIR BUILD_DIR WORK_DIR; exit 77 (skipped) without Chromium.
import { existsSync, mkdirSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { mbt, evalPoses, check, finish } from './common.mjs';

const [src, build, work] = process.argv.slice(2);
const CHROMIUM = process.env.MBT_CHROMIUM || '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  console.log(`SKIP: no Chromium at ${CHROMIUM}: the viewer's browser tests did not run ` +
              '(scripts/install-deps.sh --viewer installs Debian\'s chromium)');
  process.exit(77);
}
mkdirSync(`${work}/shots`, { recursive: true });
const { chromium } = await import(pathToFileURL(`${src}/viewer/node_modules/playwright-core/index.mjs`));

// The pages: a Panda trajectory from `mbt simulate` (its page beside the CSV), the pose
// editor of the UR5 and of the Solo12 on a floating base.
const csv = `${work}/panda.csv`;
mbt(build, ['simulate', '--duration', '2', '--out', csv, '--no-plot']);
mbt(build, ['view', `${src}/models/ur5.urdf`, '-o', `${work}/ur5.html`]);
mbt(build, ['view', `${src}/models/solo12.urdf`, '--floating', '-o', `${work}/solo12.html`]);

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: ['--headless=new', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-sandbox',
         '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
         '--disable-quic', '--disable-gpu-sandbox'],
});

// Opens a page; returns it with the console errors and the requests it made.
async function open(file, fragment = '') {
  const page = await browser.newPage({ viewport: { width: 960, height: 640 } });
  const errors = [], requests = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  const url = pathToFileURL(file).href;
  page.on('request', (r) => { if (r.url() !== url) requests.push(r.url()); });
  const start = Date.now();
  await page.goto(url + fragment, { timeout: 120000 }); // multi-MB pages under SwiftShader: slow on a loaded machine
  await page.waitForFunction(() => window.mbtViewer && window.mbtViewer.ready, null, { timeout: 60000 });
  console.log(`${file.split('/').pop()}${fragment}: ready in ${Date.now() - start} ms`);
  return { page, errors, requests };
}

// In the page: the canvas's pixels now, kept under `key`; the number of pixels that differ
// (any channel by more than 8) between two kept images.
const GRAB = (key) => {
  const c = document.querySelector('#view canvas');
  const t = document.createElement('canvas');
  t.width = c.width; t.height = c.height;
  const g = t.getContext('2d');
  g.drawImage(c, 0, 0);
  (window.__shots ||= {})[key] = g.getImageData(0, 0, t.width, t.height).data;
};
const DIFF = ([a, b]) => {
  const x = window.__shots[a], y = window.__shots[b];
  let n = 0;
  for (let i = 0; i < x.length; i += 4)
    if (Math.abs(x[i] - y[i]) > 8 || Math.abs(x[i + 1] - y[i + 1]) > 8 || Math.abs(x[i + 2] - y[i + 2]) > 8) ++n;
  return n;
};

// The pixels that differ between kept images a and b but lie outside the robot in both (the
// robot in a: a differs from abare, the same scene without the visual geometry).
const OUTSIDE = ([a, b, abare, bbare]) => {
  const [x, y, xb, yb] = [a, b, abare, bbare].map((k) => window.__shots[k]);
  const differ = (u, v, i) => Math.abs(u[i] - v[i]) > 8 || Math.abs(u[i + 1] - v[i + 1]) > 8 ||
                              Math.abs(u[i + 2] - v[i + 2]) > 8;
  let n = 0;
  for (let i = 0; i < x.length; i += 4) if (differ(x, y, i) && !differ(x, xb, i) && !differ(y, yb, i)) ++n;
  return n;
};

async function robotPixels(page) {
  await page.evaluate(() => window.mbtViewer.render());
  await page.evaluate(GRAB, 'with');
  await page.evaluate(() => window.mbtViewer.setShow('visual', false));
  await page.evaluate(GRAB, 'without');
  await page.evaluate(() => window.mbtViewer.setShow('visual', true));
  return page.evaluate(DIFF, ['with', 'without']);
}

// In the page: for each point (canvas pixels), whether a pixel within r pixels of it differs
// from the background (the canvas's top left pixel) in kept image `key`.
const HITS = ({ points, key, r }) => {
  const x = window.__shots[key];
  const c = document.querySelector('#view canvas');
  const differs = (i, j) => {
    if (i < 0 || j < 0 || i >= c.width || j >= c.height) return false;
    const k = 4 * (j * c.width + i);
    return Math.abs(x[k] - x[0]) + Math.abs(x[k + 1] - x[1]) + Math.abs(x[k + 2] - x[2]) > 24;
  };
  return points.map(([u, v]) => {
    for (let dj = -r; dj <= r; ++dj)
      for (let di = -r; di <= r; ++di) if (differs(Math.round(u) + di, Math.round(v) + dj)) return true;
    return false;
  });
};

// The bodies are drawn where the library puts them: with only the body frames shown (on the
// background colour), each body origin p_WB of `mbt eval` (C forward kinematics) at the page's
// q, projected with the page's camera, falls on a drawn frame. The check can fail: the
// origins at another q (every coordinate + 0.6) that moved on screen mostly fall on nothing.
async function framesAtEvalPoses(page, name, model, flags) {
  const { q, data } = await page.evaluate(() => ({ q: window.mbtViewer.state().q, data: window.mbtViewer.data }));
  const nv = data.mobilizers.reduce((n, m) => n + (m.type === 'quaternion_floating' ? 6 : m.nq), 0);
  const other = q.map((x, i) => (data.mobilizers.some((m) => m.type === 'quaternion_floating' &&
                                   i >= m.q_start && i < m.q_start + 4) ? x : x + 0.6));
  const [atQ, atOther] = evalPoses(build, work, model, flags, [q, other], nv, `${name}_onscreen`);
  await page.evaluate(() => {
    for (const n of ['visual', 'grid']) window.mbtViewer.setShow(n, false);
    window.mbtViewer.setShow('frames', true);
  });
  await page.evaluate(GRAB, 'frames');
  await page.evaluate(() => {
    window.mbtViewer.setShow('frames', false);
    for (const n of ['visual', 'grid']) window.mbtViewer.setShow(n, true);
  });
  const project = (poses) => page.evaluate(([names, P]) => names.map((n) => {
    const [u, v] = window.mbtViewer.project(P[n].p_WB);
    return [u * window.devicePixelRatio, v * window.devicePixelRatio];
  }), [data.bodies.map((b) => b.name), poses]);
  const here = await project(atQ), there = await project(atOther);
  const hits = await page.evaluate(HITS, { points: here, key: 'frames', r: 2 });
  const moved = there.map((p, i) => Math.hypot(p[0] - here[i][0], p[1] - here[i][1]) > 15);
  const falseHits = (await page.evaluate(HITS, { points: there, key: 'frames', r: 2 }))
    .filter((h, i) => h && moved[i]).length;
  const missed = data.bodies.filter((b, i) => !hits[i]).map((b) => b.name);
  const nMoved = moved.filter(Boolean).length;
  console.log(`${name}: ${hits.length - missed.length} of ${hits.length} body origins of mbt eval fall on their ` +
              `frames; at another q ${falseHits} of ${nMoved} moved origins do`);
  check(missed.length === 0, `${name}: every body origin of mbt eval is on a drawn frame (missed: ${missed.join(' ')})`);
  check(nMoved >= 3 && falseHits <= nMoved / 2, `${name}: origins at another q fall off the frames (${falseHits} of ${nMoved})`);
}

const MIN_ROBOT_PIXELS = 2000;  // of 960 × 640
// Pose-editor pages are shown at a pose of the editor's (null: the default q).
const UR5_Q = [0.4, -1.2, 1.6, -1.9, -1.57, 0];
// solo12 on its floating base: [qw qx qy qz x y z], then the legs FL, FR, HL, HR (HAA, HFE, KFE).
const SOLO_Q = [1, 0, 0, 0, 0, 0, 0.3, 0.1, 0.8, -1.6, -0.1, 0.8, -1.6, 0.1, -0.8, 1.6, -0.1, -0.8, 1.6];
// The Panda trajectory page, further: #t opens paused there; collision geometry, frames and
// centres of mass change the picture; two times differ where the robot moved, the same time
// draws the same pixels; play resumes.
async function trajectoryChecks(page) {
  const s = await page.evaluate(() => window.mbtViewer.state());
  check(!s.playing && Math.abs(s.t - 0.25) < 1e-9, `#t=0.25 opens paused at 0.25 s (playing ${s.playing}, t ${s.t})`);
  await page.evaluate(GRAB, 'plain');
  for (const name of ['collision', 'frames', 'com']) await page.evaluate((n) => window.mbtViewer.setShow(n, true), name);
  await page.evaluate(GRAB, 'all');
  const n = await page.evaluate(DIFF, ['plain', 'all']);
  check(n > 1000, `panda: collision geometry, frames and centres of mass change the picture (${n} pixels)`);
  await page.evaluate(() => window.mbtViewer.setShow('visual', false));
  await page.screenshot({ path: `${work}/shots/panda_collision.png` });
  await page.evaluate(() => {
    for (const name of ['collision', 'frames', 'com']) window.mbtViewer.setShow(name, false);
    window.mbtViewer.setShow('visual', true);
  });
  for (const [t, key] of [[0, 't0'], [1.5, 't1']]) {
    await page.evaluate((x) => { window.mbtViewer.setTime(x); }, t);
    await page.evaluate(GRAB, key);
    await page.evaluate(() => window.mbtViewer.setShow('visual', false));
    await page.evaluate(GRAB, `${key}bare`);
    await page.evaluate(() => window.mbtViewer.setShow('visual', true));
  }
  const moved = await page.evaluate(DIFF, ['t0', 't1']);
  const outside = await page.evaluate(OUTSIDE, ['t0', 't1', 't0bare', 't1bare']);
  console.log(`panda: ${moved} pixels differ between t = 0 and t = 1.5 s, ${outside} of them outside the robot`);
  check(moved > 500, `panda: frames at t = 0 and 1.5 s differ (${moved} pixels)`);
  check(outside <= moved / 100, `panda: they differ where the robot is at either time (${outside} pixels outside)`);
  await page.evaluate(() => { window.mbtViewer.setTime(0.5); });
  await page.evaluate(GRAB, 't2');
  await page.evaluate(() => { window.mbtViewer.setTime(0.5); });
  await page.evaluate(GRAB, 't3');
  check(await page.evaluate(DIFF, ['t2', 't3']) === 0, 'panda: the same time draws the same pixels');
  await page.click('#play');
  await page.waitForTimeout(600);
  const p = await page.evaluate(() => window.mbtViewer.state());
  check(p.playing && p.t > 0.5, `play resumes from 0.5 s (t ${p.t})`);
}

// Each page: opened, (the editor pages set to a pose), the robot drawn, a screenshot, its
// frames where mbt eval puts the bodies, no console error and no request.
const pages = [['panda', `${work}/panda.html`, '#t=0.25', null, `${src}/models/panda.urdf`, []],
               ['ur5', `${work}/ur5.html`, '', UR5_Q, `${src}/models/ur5.urdf`, []],
               ['solo12', `${work}/solo12.html`, '', SOLO_Q, `${src}/models/solo12.urdf`, ['--floating']]];
for (const [name, file, fragment, q, model, flags] of pages) {
  const { page, errors, requests } = await open(file, fragment);
  if (q) {
    await page.evaluate((v) => { window.mbtViewer.setQ(v); window.mbtViewer.frame(); }, q);
    const shown = await page.evaluate(() => [...document.querySelectorAll('#editor input')].map((e) => Number(e.value)));
    const want = q.length === shown.length ? q : [...q.slice(4, 7), 0, 0, 0, ...q.slice(7)];  // floating: x y z r p y
    check(want.every((x, k) => Math.abs(x - shown[k]) < 1e-9), `${name}: the editor's sliders follow setQ (${shown})`);
  } else {
    await trajectoryChecks(page);
    await page.evaluate(() => { window.mbtViewer.setTime(0.4); });
  }
  const n = await robotPixels(page);
  console.log(`${name}: ${n} pixels show the robot`);
  check(n > MIN_ROBOT_PIXELS, `${name}: the robot is drawn (${n} pixels differ from the scene without it)`);
  await page.screenshot({ path: `${work}/shots/${name}.png` });
  await framesAtEvalPoses(page, name, model, flags);
  check(errors.length === 0, `${name}: no console error (${errors.join(' | ')})`);
  check(requests.length === 0, `${name}: no request beyond the page (${requests.join(' ')})`);
  await page.close();
}
{
  // Without a fragment the page opens playing.
  const { page } = await open(`${work}/panda.html`);
  await page.waitForTimeout(500);
  const s = await page.evaluate(() => window.mbtViewer.state());
  check(s.playing && s.t > 0, `opens playing (t ${s.t})`);
  await page.close();
}
await browser.close();
finish('viewer browser');
