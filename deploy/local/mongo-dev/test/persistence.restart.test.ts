// `--dbpath` persistence and the CLI. Development-server specific: a real MongoDB is not
// restarted by tests. Child processes run the built CLI (build first: `npx tsc -b deploy/local/mongo-dev`).
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { MongoClient } from 'mongodb';
import { startMongoDevServer } from '../src/index.js';

const MAIN = new URL('../dist/main.js', import.meta.url).pathname;
const dirs: string[] = [];
const children: ChildProcess[] = [];

function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mongo-dev-test-'));
  dirs.push(dir);
  return dir;
}

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function withServer<T>(dbpath: string, use: (client: MongoClient) => Promise<T>, log?: (line: string) => void): Promise<T> {
  const server = await startMongoDevServer({ dbpath, ...(log ? { log } : {}) });
  const client = new MongoClient(server.url, { serverSelectionTimeoutMS: 3000 });
  try {
    await client.connect();
    return await use(client);
  } finally {
    await client.close();
    await server.close();
  }
}

interface Child {
  process: ChildProcess;
  stdoutLines: string[];
  listening: { mongoDev: string; url: string; port: number };
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startChild(args: string[]): Promise<Child> {
  const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const stdoutLines: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  child.stderr?.resume();
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const listening = await new Promise<Child['listening']>((resolve, reject) => {
    lines.on('line', (line) => {
      stdoutLines.push(line);
      if (stdoutLines.length === 1) resolve(JSON.parse(line) as Child['listening']);
    });
    void exited.then(({ code }) => reject(new Error(`mongo-dev exited with ${code} before listening`)));
  });
  return { process: child, stdoutLines, listening, exited };
}

describe('with --dbpath, data survives a clean restart', () => {
  test('documents, updates, deletes and indexes are all there after close and re-open', async () => {
    const dbpath = freshDir();
    await withServer(dbpath, async (client) => {
      const users = client.db('app').collection('users');
      await users.createIndex({ email: 1 }, { unique: true });
      await users.insertMany([
        { _id: 1 as never, email: 'a', n: 0 },
        { _id: 2 as never, email: 'b', n: 0 },
        { _id: 3 as never, email: 'c' },
      ]);
      await users.updateOne({ _id: 1 as never }, { $inc: { n: 5 } });
      await users.deleteOne({ _id: 3 as never });
      await client.db('gone').collection('x').insertOne({});
      await client.db('gone').dropDatabase();
      await client.db('app').collection('tmp').insertOne({ moved: true });
      await client.db('app').collection('tmp').rename('moved');
      await client.db('app').collection('sessions').createIndex({ at: 1 }, { expireAfterSeconds: 3600 });
      await client.db('app').command({ collMod: 'sessions', index: { keyPattern: { at: 1 }, expireAfterSeconds: 7 } });
    });
    await withServer(dbpath, async (client) => {
      const users = client.db('app').collection('users');
      expect(await users.find({}).sort({ _id: 1 }).toArray()).toEqual([
        { _id: 1, email: 'a', n: 5 },
        { _id: 2, email: 'b', n: 0 },
      ]);
      expect((await users.indexes()).map((index) => [index.name, index.unique ?? false])).toEqual([
        ['_id_', false],
        ['email_1', true],
      ]);
      await expect(users.insertOne({ email: 'a' })).rejects.toMatchObject({ code: 11000 });
      expect(
        await client
          .db('app')
          .collection('moved')
          .findOne({}, { projection: { _id: 0 } }),
      ).toEqual({ moved: true });
      expect((await client.db('app').collection('sessions').indexes())[1]).toMatchObject({ expireAfterSeconds: 7 });
      const databases = (await client.db('admin').admin().listDatabases({ nameOnly: true })).databases.map((d) => d.name);
      expect(databases).toEqual(['app']);
    });
  });

  test('a torn last record (an unclean kill mid-write) is ignored with a log line, never fatal', async () => {
    const dbpath = freshDir();
    await withServer(dbpath, async (client) => {
      await client
        .db('app')
        .collection('c')
        .insertMany([{ _id: 1 as never }, { _id: 2 as never }]);
    });
    appendFileSync(join(dbpath, 'journal.bson'), Buffer.from([200, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7]));
    const logs: string[] = [];
    await withServer(
      dbpath,
      async (client) => {
        expect(await client.db('app').collection('c').countDocuments()).toBe(2);
        await client
          .db('app')
          .collection('c')
          .insertOne({ _id: 3 as never });
      },
      (line) => logs.push(line),
    );
    expect(logs.some((line) => line.includes('torn'))).toBe(true);
    await withServer(dbpath, async (client) => {
      expect(await client.db('app').collection('c').countDocuments()).toBe(3);
    });
  });

  test('the journal is compacted as it grows, and the compacted state restarts the same', async () => {
    const dbpath = freshDir();
    const padding = 'x'.repeat(8 * 1024);
    await withServer(dbpath, async (client) => {
      const c = client.db('app').collection('c');
      await c.insertOne({ _id: 'big' as never, padding, n: 0 });
      for (let i = 0; i < 1100; i++) await c.updateOne({ _id: 'big' as never }, { $inc: { n: 1 } });
    });
    expect(statSync(join(dbpath, 'journal.bson')).size).toBeLessThan(1100 * padding.length);
    await withServer(dbpath, async (client) => {
      expect(
        await client
          .db('app')
          .collection('c')
          .findOne({}, { projection: { padding: 0 } }),
      ).toEqual({ _id: 'big', n: 1100 });
    });
  });

  test('a second server on the same dbpath is refused while the first runs', async () => {
    const dbpath = freshDir();
    const first = await startMongoDevServer({ dbpath });
    try {
      await expect(startMongoDevServer({ dbpath })).rejects.toThrow(/in use/);
    } finally {
      await first.close();
    }
  });

  test('a server that cannot listen releases its dbpath', async () => {
    const blocker = await startMongoDevServer({});
    const dbpath = freshDir();
    try {
      await expect(startMongoDevServer({ dbpath, port: blocker.port })).rejects.toThrow(/EADDRINUSE/);
      const retry = await startMongoDevServer({ dbpath });
      await retry.close();
    } finally {
      await blocker.close();
    }
  });
});

describe('the CLI prints one listening line, and a kill -9 mid-writes loses no acknowledged write', () => {
  test('stdout carries exactly the listening JSON line; SIGTERM exits 0', async () => {
    const child = await startChild(['--port', '0']);
    expect(child.listening).toEqual({ mongoDev: 'listening', url: `mongodb://127.0.0.1:${child.listening.port}/`, port: child.listening.port });
    const client = new MongoClient(child.listening.url, { serverSelectionTimeoutMS: 3000 });
    await client.connect();
    expect(await client.db('admin').admin().ping()).toMatchObject({ ok: 1 });
    await client.close();
    child.process.kill('SIGTERM');
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(child.stdoutLines).toHaveLength(1);
  });

  test('every acknowledged insert is there after kill -9 and a restart', async () => {
    const dbpath = freshDir();
    const child = await startChild(['--port', '0', '--dbpath', dbpath]);
    const client = new MongoClient(child.listening.url, { serverSelectionTimeoutMS: 3000, retryWrites: false });
    await client.connect();
    const events = client.db('app').collection('events');
    await events.createIndex({ seq: 1 }, { unique: true });
    let acknowledged = 0;
    const writer = (async () => {
      for (let seq = 0; ; seq++) {
        await events.insertOne({ seq, payload: 'p'.repeat(200) });
        acknowledged = seq + 1;
      }
    })().catch(() => undefined);
    while (acknowledged < 300) await new Promise((resolve) => setTimeout(resolve, 5));
    child.process.kill('SIGKILL');
    await child.exited;
    await writer;
    await client.close(true).catch(() => undefined);

    const restarted = await startChild(['--port', '0', '--dbpath', dbpath]);
    const again = new MongoClient(restarted.listening.url, { serverSelectionTimeoutMS: 3000 });
    await again.connect();
    const stored = await again.db('app').collection('events').countDocuments();
    expect(stored).toBeGreaterThanOrEqual(acknowledged);
    expect(stored).toBeLessThanOrEqual(acknowledged + 1);
    await expect(again.db('app').collection('events').insertOne({ seq: 0 })).rejects.toMatchObject({ code: 11000 });
    await again.close();
    restarted.process.kill('SIGTERM');
    expect((await restarted.exited).code).toBe(0);
  });
});
