// `npm run --silent bench -w services/automations-engine` (after `npm run build`): the engine core's
// overhead per node. A 50-node graph (start, 24 set_variable and 24 condition nodes alternating,
// end; each condition's "false" side goes straight to end) runs to the end in one `triggered`
// happening; ms per node = the run's time / 50. BENCH_ROUNDS (default 9) rounds of BENCH_RUNS
// (default 50) runs each, after a warm-up; prints each round's figure and their median, then the
// cost of one happening that changes nothing on the finished run (the copy and compare each pays).
import type { FlowGraph } from '../src/domain/flowGraph.js';
import { applyHappening, newRunRecords, prepareGraph, type RunProgram, type RunRecords } from '../src/domain/run/index.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const RUNS = Number(process.env.BENCH_RUNS ?? 50);
const PAIRS = 24;
const NODE_COUNT = 2 + 2 * PAIRS;

/** start → (set_variable → condition)×24 → end: every variable feeds the next condition. */
function chainGraph(): FlowGraph {
  const node = (id: string, type: FlowGraph['nodes'][number]['type'], data: Record<string, unknown> = {}): FlowGraph['nodes'][number] => ({
    id,
    type,
    position: { x: 0, y: 0 },
    data,
  });
  const nodes = [node('start', 'start'), node('end', 'end')];
  const edges: FlowGraph['edges'] = [];
  let previous = 'start';
  for (let i = 0; i < PAIRS; i += 1) {
    nodes.push(node(`set${i}`, 'set_variable', { name: `v${i}`, value: `input.base + ${i}` }));
    nodes.push(node(`check${i}`, 'condition', { expression: `vars.v${i} >= input.base` }));
    edges.push({ id: `e${i}a`, source: previous, target: `set${i}`, sourceHandle: i === 0 ? null : 'true' });
    edges.push({ id: `e${i}b`, source: `set${i}`, target: `check${i}` });
    edges.push({ id: `e${i}f`, source: `check${i}`, target: 'end', sourceHandle: 'false' });
    previous = `check${i}`;
  }
  edges.push({ id: 'last', source: previous, target: 'end', sourceHandle: 'true' });
  return { nodes, edges };
}

const TRIGGERED = { type: 'triggered', at: '2026-01-01T00:00:00.000Z' } as const;

function runOnce(program: RunProgram, index: number): RunRecords {
  const records = newRunRecords({ id: `run-${index}`, repoId: 'repo', input: { base: 10 } });
  const { records: after } = applyHappening(program, records, TRIGGERED);
  if (after.run.status !== 'success' || Object.keys(after.nodeRuns).length !== NODE_COUNT)
    throw new Error(`unexpected run: ${after.run.status} ${after.run.error ?? ''}`);
  return after;
}

/** ms for one happening that changes nothing (a replay) on the finished 50-node run: the copy and compare every happening pays. */
function replayMs(program: RunProgram): number {
  const finished = runOnce(program, 0);
  const t0 = performance.now();
  for (let i = 0; i < RUNS; i += 1) applyHappening(program, finished, TRIGGERED);
  return (performance.now() - t0) / RUNS;
}

/** ms per node over RUNS runs. */
function round(program: RunProgram): number {
  const t0 = performance.now();
  for (let i = 0; i < RUNS; i += 1) runOnce(program, i);
  return (performance.now() - t0) / RUNS / NODE_COUNT;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const prepareStart = performance.now();
const program: RunProgram = { graph: prepareGraph(chainGraph()), catalog: { agents: {}, models: {} } };
const prepareMs = performance.now() - prepareStart;
round(program);
const rounds = Array.from({ length: ROUNDS }, () => round(program));
console.log(`graph: ${NODE_COUNT} nodes (set_variable and condition), prepared once in ${prepareMs.toFixed(2)} ms`);
console.log(`rounds (ms per node): ${rounds.map((value) => value.toFixed(3)).join(' ')}`);
console.log(`engine overhead per node: median ${median(rounds).toFixed(3)} ms (${ROUNDS} rounds of ${RUNS} runs)`);
const replays = Array.from({ length: ROUNDS }, () => replayMs(program));
console.log(`a replayed happening on the finished 50-node run: median ${median(replays).toFixed(3)} ms`);
