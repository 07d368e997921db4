// Server CPU per query, by query shape: what one request of each shape costs mongo-dev itself
// (the client's work is excluded), read from /proc/<pid>/stat of the server process (@ars/stack's processCpuSeconds).
//   npm run bench:cost -w @ars/mongo-dev -- [--iterations 2000] [--rounds 3] [--only <shape>] [--prof-dir DIR] [--server path/to/main.js]
// The shapes are the ones the services send most: the catalog's `GET /repos` aggregation
// ($match, $sort, $limit, $lookup by `_id`), point reads by `_id` and by an index, an insertMany
// and an updateOne. `--prof-dir` starts the server with `--cpu-prof` (summarize the profile with
// `node scripts/cpuProfile.mjs <file>`); `--only` runs a single shape, so the profile is of it;
// `--server` runs another build (e.g. a copy of dist/ from before a change) for a before/after.
import { spawn, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { MongoClient, type Db, type Document } from 'mongodb';
import { clockTicksPerSecond, processCpuSeconds } from '@ars/stack';

const { values } = parseArgs({
  options: {
    iterations: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '3' },
    only: { type: 'string' },
    'prof-dir': { type: 'string' },
    server: { type: 'string' },
  },
});
const ITERATIONS = Number(values.iterations);
const ROUNDS = Number(values.rounds);
const USERS = 50;
const REPOS_PER_USER = 40;
const REPOS = 500;
function fail(reason: string): never {
  throw new Error(reason);
}

/** Clock ticks per second of /proc/<pid>/stat's times (`getconf CLK_TCK`). */
const TICKS_PER_SECOND = clockTicksPerSecond() ?? fail('the server process is measured from /proc: Linux only');

async function startServer(): Promise<{ url: string; child: ChildProcess }> {
  const main = values.server ?? new URL('../../dist/main.js', import.meta.url).pathname;
  const profDir = values['prof-dir'];
  const nodeArgs = profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [];
  const child = spawn(process.execPath, [...nodeArgs, main, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await new Promise<string>((resolve) => lines.once('line', (line) => resolve((JSON.parse(line) as { url: string }).url)));
  return { url, child };
}

/** CPU seconds (user + system) the process has used so far. */
function cpuSeconds(pid: number): number {
  return processCpuSeconds(pid, TICKS_PER_SECOND) ?? fail(`the server process ${pid} is gone`);
}

async function seed(db: Db): Promise<void> {
  const access = db.collection('repo_access');
  await access.createIndex({ userId: 1, full_name: 1, repoId: 1 }, { name: 'user_full_name' });
  await access.createIndex({ repoId: 1, grantedAt: 1 }, { name: 'repo_granted' });
  await access.createIndex({ installationId: 1 }, { name: 'installation' });
  const repos = Array.from({ length: REPOS }, (_, i) => ({
    _id: `repo-${i}` as never,
    full_name: `org-${i % 20}/project-${i}`,
    installationId: i % 20,
    private: i % 3 === 0,
    defaultBranch: 'main',
  }));
  await db.collection('repos').insertMany(repos);
  const grants = [];
  for (let user = 0; user < USERS; user++) {
    for (let j = 0; j < REPOS_PER_USER; j++) {
      const repo = repos[(user * 7 + j * 13) % REPOS] as (typeof repos)[number];
      grants.push({
        _id: `user-${user}:${String(repo._id)}` as never,
        userId: `user-${user}`,
        repoId: repo._id,
        full_name: repo.full_name,
        installationId: repo.installationId,
        grantedAt: new Date(1_700_000_000_000 + j),
      });
    }
  }
  await access.insertMany(grants);
  await db.collection('items').insertMany(Array.from({ length: 1000 }, (_, i) => ({ _id: `item-${i}` as never, n: 0, tag: 'x' })));
}

function catalogPipeline(i: number, q?: string): Document[] {
  const userId = `user-${i % USERS}`;
  return [
    { $match: q ? { userId, full_name: { $regex: q } } : { userId } },
    { $sort: { full_name: 1, repoId: 1 } },
    { $limit: 50 },
    { $lookup: { from: 'repos', localField: 'repoId', foreignField: '_id', as: 'repo' } },
  ];
}

type Shape = (db: Db, i: number) => Promise<unknown>;

const SHAPES: Record<string, Shape> = {
  'aggregate catalog {userId}': (db, i) => db.collection('repo_access').aggregate(catalogPipeline(i)).toArray(),
  'aggregate catalog +$regex': (db, i) => db.collection('repo_access').aggregate(catalogPipeline(i, 'project-1')).toArray(),
  'find by _id': (db, i) => db.collection('repos').findOne({ _id: `repo-${i % REPOS}` as never }),
  'find by _id $in (5)': (db, i) =>
    db
      .collection('repos')
      .find({ _id: { $in: [0, 1, 2, 3, 4].map((k) => `repo-${(i + k * 97) % REPOS}`) as never[] } })
      .toArray(),
  'find by indexed field': (db, i) =>
    db
      .collection('repo_access')
      .find({ installationId: i % 20 })
      .limit(10)
      .toArray(),
  'find {userId} (index prefix)': (db, i) =>
    db
      .collection('repo_access')
      .find({ userId: `user-${i % USERS}` })
      .toArray(),
  'insertMany 200': (db, i) => db.collection(`inserts`).insertMany(Array.from({ length: 200 }, (_, k) => ({ _id: `${i}-${k}` as never, n: k, tag: 'small' }))),
  'updateOne by _id': (db, i) => db.collection('items').updateOne({ _id: `item-${i % 1000}` as never }, { $set: { n: i } }),
};

/** Server CPU µs and wall µs per operation of one shape, over `iterations` sequential calls. */
async function measure(db: Db, pid: number, shape: Shape, iterations: number): Promise<{ cpu: number; wall: number }> {
  const cpuBefore = cpuSeconds(pid);
  const started = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) await shape(db, i);
  const wall = Number(process.hrtime.bigint() - started) / 1e3 / iterations;
  return { cpu: ((cpuSeconds(pid) - cpuBefore) * 1e6) / iterations, wall };
}

function median(numbers: number[]): number {
  const sorted = [...numbers].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function main(): Promise<void> {
  const server = await startServer();
  const client = await new MongoClient(server.url, { maxPoolSize: 1 }).connect();
  const db = client.db(`cost_${Date.now()}`);
  await seed(db);
  const pid = server.child.pid as number;
  const shapes = Object.entries(SHAPES).filter(([name]) => !values.only || name.includes(values.only));
  console.log(
    `mongo-dev server CPU per operation (median of ${ROUNDS} rounds × ${ITERATIONS}), load ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  for (const [name, shape] of shapes) {
    await measure(db, pid, shape, Math.min(ITERATIONS, 500)); // warm up the JIT for this shape
    const runs = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (name.startsWith('insertMany')) await db.collection('inserts').deleteMany({});
      runs.push(await measure(db, pid, shape, name.startsWith('insertMany') ? Math.ceil(ITERATIONS / 20) : ITERATIONS));
    }
    const cpu = median(runs.map((run) => run.cpu));
    const wall = median(runs.map((run) => run.wall));
    console.log(
      `${name.padEnd(30)} ${cpu.toFixed(0).padStart(7)} µs CPU  ${wall.toFixed(0).padStart(7)} µs wall   rounds: ${runs.map((run) => run.cpu.toFixed(0)).join(' ')}`,
    );
  }
  console.log(
    `load after: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  await db.dropDatabase();
  await client.close();
  server.child.kill('SIGTERM');
  await new Promise((resolve) => server.child.once('exit', resolve));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
