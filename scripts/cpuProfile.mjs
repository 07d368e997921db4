// CPU profiles of the processes a command starts, without touching how they are started (Node
// refuses --cpu-prof in NODE_OPTIONS; an --import preload is allowed):
//
//   PROF_DIR=/tmp/prof PROF_MATCH='gateway/dist/main|catalog/dist/main' \
//     NODE_OPTIONS="--import $PWD/scripts/cpuProfile.mjs" npm run --silent bench -w services/gateway
//   node scripts/cpuProfile.mjs /tmp/prof/<file>.cpuprofile [rows]
//
// As a preload it profiles each Node process whose script path matches PROF_MATCH (500 µs sampling)
// and writes PROF_DIR/<script>-<pid>.cpuprofile when the process exits (a graceful stop: a process
// killed outright writes nothing). Run with a file, it prints the busy time by package and by
// function, and which code made the costliest native calls (socket writes, mostly).
import { Session } from 'node:inspector';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const runDirectly = process.argv[1] === fileURLToPath(import.meta.url);
if (runDirectly) summarize(process.argv[2], Number(process.argv[3] ?? 20));
else profileIfMatching(process.argv[1] ?? '');

function profileIfMatching(script) {
  if (!new RegExp(process.env.PROF_MATCH ?? '.').test(script)) return;
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 500 });
  session.post('Profiler.start');
  const name = script
    .split('/')
    .slice(-4)
    .join('_')
    .replace(/[^a-zA-Z0-9_.-]/g, '_');
  // An in-process inspector session answers synchronously, so the profile is written inside 'exit'.
  process.on('exit', () => {
    session.post('Profiler.stop', (error, result) => {
      if (!error) writeFileSync(`${process.env.PROF_DIR ?? '.'}/${name}-${process.pid}.cpuprofile`, JSON.stringify(result.profile));
    });
  });
}

function summarize(file, rows) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const selfTime = new Map();
  profile.samples.forEach((id, i) => selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byPackage = new Map();
  const byFunction = new Map();
  const nativeCallers = new Map();
  let busy = 0;
  for (const [id, micros] of selfTime) {
    const frame = nodes.get(id).callFrame;
    if (frame.functionName === '(idle)') continue;
    busy += micros;
    add(byPackage, packageOf(frame.url), micros);
    add(byFunction, `${frame.functionName || '(anonymous)'} ${packageOf(frame.url)}:${frame.lineNumber}`, micros);
    if (!frame.url) add(nativeCallers, `${frame.functionName} < ${callerOf(id, nodes, parents)}`, micros);
  }
  console.log(`${file}: busy ${(busy / 1e6).toFixed(2)} s`);
  for (const [title, table] of [
    ['by package', byPackage],
    ['by function', byFunction],
    ['native calls by caller', nativeCallers],
  ]) {
    console.log(`-- ${title}`);
    for (const [key, micros] of [...table].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
      console.log(`${((100 * micros) / busy).toFixed(1).padStart(5)} %  ${(micros / 1e6).toFixed(2).padStart(6)} s  ${key}`);
    }
  }
}

function add(table, key, micros) {
  table.set(key, (table.get(key) ?? 0) + micros);
}

function packageOf(url) {
  if (!url) return '(native)';
  if (url.startsWith('node:')) return url;
  const inModules = url.split('node_modules/').at(-1);
  if (inModules !== url)
    return inModules
      .split('/')
      .slice(0, inModules.startsWith('@') ? 2 : 1)
      .join('/');
  return url.replace(/^.*\/(services|shared|deploy|clients)\//, '$1/');
}

/** The nearest caller outside Node's own modules (the code that asked for the native call). */
function callerOf(id, nodes, parents) {
  for (let at = parents.get(id); at !== undefined; at = parents.get(at)) {
    const frame = nodes.get(at).callFrame;
    if (frame.url && !frame.url.startsWith('node:')) return `${frame.functionName || '(anonymous)'} ${packageOf(frame.url)}:${frame.lineNumber}`;
  }
  return '(none)';
}
