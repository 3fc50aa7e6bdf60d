// common.mjs: what the viewer tests share: running mbt, reading the data a page embeds.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

export function mbt(build, args) {
  return execFileSync(`${build}/mbt`, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

// The JSON of <script id="mbt-data"> ("<\/" is JSON for "</").
export function pageData(path) {
  const html = readFileSync(path, 'utf8');
  const m = /<script id="mbt-data" type="application\/json">([\s\S]*?)<\/script>/.exec(html);
  if (!m) throw new Error(`${path}: no mbt-data script`);
  return JSON.parse(m[1]);
}

let failures = 0, checks = 0;
export function check(ok, what) {
  ++checks;
  if (!ok) {
    ++failures;
    console.log(`FAIL: ${what}`);
  }
}
export function finish(name) {
  console.log(`${name}: ${checks - failures} checks passed, ${failures} failed`);
  process.exit(failures ? 1 : 0);
}

// `mbt eval`'s body poses ({name: {p_WB, R_WB}}) at each q of qs (v = 0, nv entries), through
// files WORK/NAME_states.json and WORK/NAME_eval.json.
export function evalPoses(build, work, model, flags, qs, nv, name) {
  const states = `${work}/${name}_states.json`, out = `${work}/${name}_eval.json`;
  writeFileSync(states, JSON.stringify({ states: qs.map((q) => ({ q, v: new Array(nv).fill(0) })) }));
  mbt(build, ['eval', model, '--states', states, '--out', out, ...flags]);
  return JSON.parse(readFileSync(out, 'utf8')).states.map((s) => s.bodies);
}
