// Throughput through the official driver with several concurrent clients: inserts/s, point
// finds/s (by _id and by a unique key), updates/s. A script that prints figures, not a test.
//   npm run bench -w @ars/mongo-dev -- [--clients 8] [--seconds 3] [--warmup 5] [--url mongodb://...] [--dbpath DIR]
// Without --url it starts the built server (dist/main.js) as its own process, so client and
// server do not share one event loop.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpus } from 'node:os';
import { availableParallelism } from 'node:os';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { MongoClient, type Collection, type Document } from 'mongodb';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '5' },
    url: { type: 'string' },
    dbpath: { type: 'string' },
  },
});
const clientCount = Number(values.clients);
const seconds = Number(values.seconds);

async function startServer(): Promise<{ url: string; child: ChildProcess }> {
  const main = new URL('../../dist/main.js', import.meta.url).pathname;
  const args = [main, '--port', '0', ...(values.dbpath ? ['--dbpath', values.dbpath] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await new Promise<string>((resolve) => lines.once('line', (line) => resolve((JSON.parse(line) as { url: string }).url)));
  return { url, child };
}

/** Runs `op` on every client for a few seconds without reporting. */
async function warm(
  collections: Array<Collection<Document>>,
  op: (collection: Collection<Document>, worker: number, i: number) => Promise<unknown>,
): Promise<void> {
  const deadline = Date.now() + Number(values.warmup) * 1000;
  await Promise.all(
    collections.map(async (collection, worker) => {
      for (let i = 0; Date.now() < deadline; i++) await op(collection, worker, i);
    }),
  );
}

/** Runs `op` in a loop on every client for the phase's duration; returns operations per second. */
async function phase(
  name: string,
  collections: Array<Collection<Document>>,
  op: (collection: Collection<Document>, worker: number, i: number) => Promise<unknown>,
): Promise<number> {
  const deadline = Date.now() + seconds * 1000;
  const started = process.hrtime.bigint();
  const counts = await Promise.all(
    collections.map(async (collection, worker) => {
      let i = 0;
      while (Date.now() < deadline) await op(collection, worker, i++);
      return i;
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  const total = counts.reduce((sum, n) => sum + n, 0);
  const rate = total / elapsed;
  console.log(`${name.padEnd(22)} ${Math.round(rate).toString().padStart(8)} ops/s  (${total} ops, ${clientCount} clients, ${elapsed.toFixed(1)} s)`);
  return rate;
}

async function main(): Promise<void> {
  const server = values.url ? undefined : await startServer();
  const url = values.url ?? (server as { url: string }).url;
  const clients = await Promise.all(Array.from({ length: clientCount }, () => new MongoClient(url, { maxPoolSize: 4 }).connect()));
  const dbName = `bench_${Date.now()}`;
  const collections = clients.map((client) => client.db(dbName).collection('items'));
  const first = collections[0] as Collection<Document>;
  await first.createIndex({ key: 1 }, { unique: true });

  console.log(`mongo-dev throughput: ${url}${values.dbpath ? ` (dbpath ${values.dbpath})` : server ? ' (memory only)' : ''}`);
  console.log(`machine: ${availableParallelism()} CPUs, ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}`);
  // Both processes JIT-compile their hot paths during the first seconds; measure after that.
  const warmup = warm(collections, async (collection, worker, i) => {
    await collection.insertOne({ _id: `warm-${worker}-${i}` as never, key: `warm-${worker}-${i}`, n: 0, payload: 'x'.repeat(200) });
    await collection.findOne({ _id: `warm-${worker}-${i}` as never });
    await collection.findOne({ key: `warm-${worker}-${i}` });
    await collection.updateOne({ _id: `warm-${worker}-${i}` as never }, { $inc: { n: 1 } });
    await collection.findOneAndUpdate({ _id: `warm-${worker}-${i}` as never }, { $set: { touched: true }, $inc: { n: 1 } }, { returnDocument: 'after' });
  });
  await warmup;
  await first.deleteMany({});
  const inserted: number[] = Array.from({ length: clientCount }, () => 0);
  await phase('insertOne', collections, async (collection, worker, i) => {
    await collection.insertOne({ _id: `${worker}-${i}` as never, key: `k-${worker}-${i}`, n: 0, payload: 'x'.repeat(200) });
    inserted[worker] = i + 1;
  });
  const randomId = (worker: number): string => `${worker}-${Math.floor(Math.random() * (inserted[worker] ?? 1))}`;
  await phase('findOne by _id', collections, (collection, worker) => collection.findOne({ _id: randomId(worker) as never }));
  await phase('findOne by unique key', collections, (collection, worker) => collection.findOne({ key: `k-${randomId(worker)}` }));
  await phase('updateOne $inc by _id', collections, (collection, worker) => collection.updateOne({ _id: randomId(worker) as never }, { $inc: { n: 1 } }));
  await phase('findOneAndUpdate', collections, (collection, worker) =>
    collection.findOneAndUpdate({ _id: randomId(worker) as never }, { $set: { touched: true }, $inc: { n: 1 } }, { returnDocument: 'after' }),
  );
  const total = await first.estimatedDocumentCount();
  console.log(`documents at the end: ${total}`);

  await first.db.dropDatabase();
  await Promise.all(clients.map((client) => client.close()));
  if (server) {
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
