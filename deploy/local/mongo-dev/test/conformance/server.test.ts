import { MongoClient } from 'mongodb';
import { openConformance, type Conformance } from './harness.js';

let env: Conformance;

beforeAll(async () => {
  env = await openConformance('server');
});

afterAll(async () => {
  await env.close();
});

describe('the handshake and server commands answer like a writable MongoDB', () => {
  test('hello reports a writable primary with the limits the driver needs', async () => {
    const reply = await env.db.admin().command({ hello: 1 });
    expect(reply.isWritablePrimary).toBe(true);
    expect(reply.maxBsonObjectSize).toBe(16 * 1024 * 1024);
    expect(reply.maxMessageSizeBytes).toBeGreaterThanOrEqual(48_000_000);
    expect(reply.maxWriteBatchSize).toBeGreaterThanOrEqual(1000);
    expect(reply.maxWireVersion).toBeGreaterThanOrEqual(9);
    expect(typeof reply.logicalSessionTimeoutMinutes).toBe('number');
    expect(reply.connectionId).toBeDefined();
  });

  test('isMaster answers with ismaster: true', async () => {
    expect((await env.db.admin().command({ isMaster: 1 })).ismaster).toBe(true);
  });

  test('ping and buildInfo', async () => {
    expect(await env.db.admin().ping()).toMatchObject({ ok: 1 });
    const info = await env.db.admin().buildInfo();
    expect(info.version).toMatch(/^\d+\.\d+/);
    expect(Array.isArray(info.versionArray)).toBe(true);
  });

  test('an unknown command fails with CommandNotFound (59) naming it', async () => {
    await expect(env.db.command({ frobnicate: 1 })).rejects.toMatchObject({ code: 59, message: expect.stringContaining("no such command: 'frobnicate'") });
  });

  test('sessions: commands carry an lsid and endSessions is accepted', async () => {
    const session = env.client.startSession();
    await env.db.collection('sessions').insertOne({ a: 1 }, { session });
    expect(await env.db.collection('sessions').countDocuments({}, { session })).toBe(1);
    await session.endSession();
    expect(await env.db.admin().command({ endSessions: [session.id] })).toMatchObject({ ok: 1 });
  });
});

describe('create, drop, dropDatabase, listCollections and listDatabases', () => {
  test('createCollection, then creating it again is NamespaceExists (48)', async () => {
    await env.db.createCollection('made');
    await expect(env.db.createCollection('made')).rejects.toMatchObject({ code: 48 });
  });

  test('listCollections lists collections by name, with a filter', async () => {
    await env.db.collection('listed_a').insertOne({});
    await env.db.collection('listed_b').insertOne({});
    const names = (await env.db.listCollections({ name: { $regex: '^listed_' } }).toArray()).map((c) => c.name).sort();
    expect(names).toEqual(['listed_a', 'listed_b']);
    const [info] = await env.db.listCollections({ name: 'listed_a' }).toArray();
    expect(info).toMatchObject({ name: 'listed_a', type: 'collection' });
  });

  test('drop removes the collection and its documents; dropping a missing one is harmless', async () => {
    const doomed = env.db.collection('doomed');
    await doomed.insertOne({ x: 1 });
    expect(await doomed.drop()).toBe(true);
    expect(await doomed.countDocuments()).toBe(0);
    expect((await env.db.listCollections({ name: 'doomed' }).toArray()).length).toBe(0);
    // Dropping a collection that does not exist: MongoDB 7.0 and later (wire version 21+, and the
    // development server, which speaks 7.0) answer ok; earlier versions NamespaceNotFound (26).
    const { maxWireVersion } = await env.db.admin().command({ hello: 1 });
    if (maxWireVersion >= 21) await expect(env.db.collection('never_there').drop()).resolves.toBe(true);
    else await expect(env.db.collection('never_there').drop()).rejects.toMatchObject({ code: 26 });
  });

  test('listDatabases shows a database once it holds data; dropDatabase removes it', async () => {
    const other = env.client.db(`${env.db.databaseName}_x`);
    await other.collection('c').insertOne({ a: 1 });
    const listed = await env.client.db('admin').admin().listDatabases();
    expect(listed.databases.map((d) => d.name)).toContain(other.databaseName);
    expect(await other.dropDatabase()).toBe(true);
    const after = await env.client.db('admin').admin().listDatabases({ nameOnly: true });
    expect(after.databases.map((d) => d.name)).not.toContain(other.databaseName);
  });
});

describe('concurrent increments from many clients lose no update', () => {
  test('10 clients x 40 $inc each end at exactly 400', async () => {
    const counters = env.db.collection('counters');
    await counters.insertOne({ _id: 'c' as never, n: 0 });
    const clients: MongoClient[] = await Promise.all(Array.from({ length: 10 }, () => env.newClient()));
    await Promise.all(
      clients.map(async (client) => {
        const collection = client.db(env.db.databaseName).collection('counters');
        for (let i = 0; i < 40; i++) await collection.updateOne({ _id: 'c' as never }, { $inc: { n: 1 } });
      }),
    );
    expect((await counters.findOne({ _id: 'c' as never }))?.n).toBe(400);
  });

  test('concurrent findOneAndUpdate upserts on one key create exactly one document', async () => {
    const claims = env.db.collection('claims');
    await claims.createIndex({ key: 1 }, { unique: true });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        claims.findOneAndUpdate({ key: 'k' }, { $inc: { hits: 1 }, $setOnInsert: { first: i } }, { upsert: true, returnDocument: 'after' }),
      ),
    );
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    expect(await claims.countDocuments({ key: 'k' })).toBe(1);
    expect((await claims.findOne({ key: 'k' }))?.hits).toBe(ok);
  });
});

describe('bulkWrite applies mixed operations and reports each kind', () => {
  test('insertOne, updateOne, updateMany, replaceOne, deleteOne, deleteMany in one call', async () => {
    const bulk = env.db.collection('bulk');
    await bulk.insertMany([{ k: 1 }, { k: 2 }, { k: 2 }, { k: 3 }]);
    const result = await bulk.bulkWrite([
      { insertOne: { document: { k: 9 } } },
      { updateOne: { filter: { k: 1 }, update: { $set: { one: true } } } },
      { updateMany: { filter: { k: 2 }, update: { $set: { two: true } } } },
      { updateOne: { filter: { k: 7 }, update: { $set: { seven: true } }, upsert: true } },
      { replaceOne: { filter: { k: 3 }, replacement: { k: 3, replaced: true } } },
      { deleteOne: { filter: { k: 9 } } },
      { deleteMany: { filter: { k: 2 } } },
    ]);
    expect(result).toMatchObject({ insertedCount: 1, matchedCount: 4, modifiedCount: 4, upsertedCount: 1, deletedCount: 3 });
    expect(
      await bulk
        .find({}, { projection: { _id: 0 } })
        .sort({ k: 1 })
        .toArray(),
    ).toEqual([
      { k: 1, one: true },
      { k: 3, replaced: true },
      { k: 7, seven: true },
    ]);
  });
});
