import { MongoBulkWriteError, MongoServerError } from 'mongodb';
import { eventually, openConformance, type Conformance } from './harness.js';

let env: Conformance;

beforeAll(async () => {
  env = await openConformance('indexes');
});

afterAll(async () => {
  await env.close();
});

describe('a unique index rejects a second document with the same key (E11000)', () => {
  test('insertOne of a duplicate raises MongoServerError code 11000 with keyPattern and keyValue', async () => {
    const users = env.db.collection('users');
    await users.createIndex({ email: 1 }, { unique: true });
    await users.insertOne({ email: 'a@x' });
    const error = await users.insertOne({ email: 'a@x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MongoServerError);
    expect(error).toMatchObject({ code: 11000, keyPattern: { email: 1 }, keyValue: { email: 'a@x' } });
    expect((error as Error).message).toContain('E11000');
    expect(await users.countDocuments({ email: 'a@x' })).toBe(1);
  });

  test('a duplicate _id is E11000 too', async () => {
    const plain = env.db.collection('plain');
    await plain.insertOne({ _id: 'same' as never });
    await expect(plain.insertOne({ _id: 'same' as never })).rejects.toMatchObject({ code: 11000, keyPattern: { _id: 1 }, keyValue: { _id: 'same' } });
  });

  test('an update that would create a duplicate fails and leaves the document unchanged', async () => {
    const users = env.db.collection('users');
    await users.insertOne({ email: 'b@x', n: 1 });
    await expect(users.updateOne({ email: 'b@x' }, { $set: { email: 'a@x', n: 2 } })).rejects.toMatchObject({ code: 11000 });
    expect(await users.findOne({ email: 'b@x' }, { projection: { _id: 0 } })).toEqual({ email: 'b@x', n: 1 });
  });

  test('an upsert that would create a duplicate fails with 11000', async () => {
    const users = env.db.collection('users');
    await expect(users.updateOne({ email: 'c@x', other: 1 }, { $set: { email: 'a@x' } }, { upsert: true })).rejects.toMatchObject({ code: 11000 });
    await expect(users.findOneAndUpdate({ email: 'zzz' }, { $set: { email: 'a@x' } }, { upsert: true })).rejects.toMatchObject({ code: 11000 });
  });

  test('a compound unique index rejects only the same combination', async () => {
    const members = env.db.collection('members');
    await members.createIndex({ org: 1, user: 1 }, { unique: true });
    await members.insertMany([
      { org: 'o1', user: 'u1' },
      { org: 'o1', user: 'u2' },
      { org: 'o2', user: 'u1' },
    ]);
    await expect(members.insertOne({ org: 'o1', user: 'u2' })).rejects.toMatchObject({ code: 11000, keyValue: { org: 'o1', user: 'u2' } });
  });

  test('a unique index over an array field rejects a document sharing any element', async () => {
    const tagged = env.db.collection('tagged');
    await tagged.createIndex({ tags: 1 }, { unique: true });
    await tagged.insertOne({ tags: ['a', 'b'] });
    await expect(tagged.insertOne({ tags: ['c', 'b'] })).rejects.toMatchObject({ code: 11000 });
  });

  test('a partial unique index only constrains documents matching its filter', async () => {
    const keys = env.db.collection('keys');
    await keys.createIndex({ key: 1 }, { unique: true, partialFilterExpression: { active: true } });
    await keys.insertMany([
      { key: 'k', active: false },
      { key: 'k', active: false },
      { key: 'k', active: true },
    ]);
    await expect(keys.insertOne({ key: 'k', active: true })).rejects.toMatchObject({ code: 11000 });
    expect(await keys.countDocuments({ key: 'k' })).toBe(3);
  });

  test('insertMany ordered stops at the first duplicate; unordered inserts the rest', async () => {
    const orderedColl = env.db.collection('ordered');
    await orderedColl.createIndex({ k: 1 }, { unique: true });
    const ordered = await orderedColl.insertMany([{ k: 1 }, { k: 1 }, { k: 2 }]).catch((e: unknown) => e);
    expect(ordered).toBeInstanceOf(MongoBulkWriteError);
    expect((ordered as MongoBulkWriteError).writeErrors).toMatchObject([{ index: 1, code: 11000 }]);
    expect(await orderedColl.countDocuments()).toBe(1);

    const unorderedColl = env.db.collection('unordered');
    await unorderedColl.createIndex({ k: 1 }, { unique: true });
    const unordered = await unorderedColl.insertMany([{ k: 1 }, { k: 1 }, { k: 2 }, { k: 2 }], { ordered: false }).catch((e: unknown) => e);
    expect((unordered as MongoBulkWriteError).writeErrors).toMatchObject([
      { index: 1, code: 11000 },
      { index: 3, code: 11000 },
    ]);
    expect(await unorderedColl.countDocuments()).toBe(2);
  });

  test('creating a unique index over existing duplicates fails with 11000 and creates nothing', async () => {
    const dups = env.db.collection('dups');
    await dups.insertMany([{ v: 1 }, { v: 1 }]);
    await expect(dups.createIndex({ v: 1 }, { unique: true })).rejects.toMatchObject({ code: 11000 });
    expect((await dups.indexes()).map((index) => index.name)).toEqual(['_id_']);
  });
});

describe('createIndexes, listIndexes and dropIndexes manage the index catalog', () => {
  test('listIndexes reports _id_ and each created index with its options', async () => {
    const catalog = env.db.collection('catalog');
    expect(await catalog.createIndex({ a: 1, b: -1 })).toBe('a_1_b_-1');
    expect(await catalog.createIndex({ c: 1 }, { name: 'by_c', unique: true, partialFilterExpression: { c: { $exists: true } } })).toBe('by_c');
    expect(await catalog.createIndex({ at: 1 }, { expireAfterSeconds: 3600 })).toBe('at_1');
    const indexes = await catalog.indexes();
    expect(indexes.map((index) => index.name)).toEqual(['_id_', 'a_1_b_-1', 'by_c', 'at_1']);
    expect(indexes[2]).toMatchObject({ key: { c: 1 }, unique: true, partialFilterExpression: { c: { $exists: true } } });
    expect(indexes[3]).toMatchObject({ key: { at: 1 }, expireAfterSeconds: 3600 });
  });

  test('creating the same index again is a no-op; the same name with other options is an error', async () => {
    const catalog = env.db.collection('catalog');
    expect(await catalog.createIndex({ a: 1, b: -1 })).toBe('a_1_b_-1');
    await expect(catalog.createIndex({ c: 1 }, { name: 'by_c' })).rejects.toMatchObject({ code: 85 });
    await expect(catalog.createIndex({ z: 1 }, { name: 'by_c' })).rejects.toMatchObject({ code: 86 });
  });

  test('dropIndex removes one index; dropping an unknown one is IndexNotFound (27)', async () => {
    const catalog = env.db.collection('catalog');
    await catalog.dropIndex('by_c');
    expect((await catalog.indexes()).map((index) => index.name)).toEqual(['_id_', 'a_1_b_-1', 'at_1']);
    await expect(catalog.dropIndex('nope')).rejects.toMatchObject({ code: 27 });
    await catalog.dropIndexes();
    expect((await catalog.indexes()).map((index) => index.name)).toEqual(['_id_']);
  });

  test('after dropping a unique index duplicates are accepted', async () => {
    const loose = env.db.collection('loose');
    await loose.createIndex({ k: 1 }, { unique: true });
    await loose.insertOne({ k: 1 });
    await loose.dropIndex('k_1');
    await loose.insertOne({ k: 1 });
    expect(await loose.countDocuments({ k: 1 })).toBe(2);
  });

  test('a hint must name an existing index (BadValue 2 otherwise)', async () => {
    const hinted = env.db.collection('hinted');
    await hinted.createIndex({ h: 1 }, { name: 'by_h' });
    await hinted.insertMany([{ h: 1 }, { h: 2 }]);
    expect(await hinted.find({ h: 2 }).hint('by_h').toArray()).toHaveLength(1);
    expect(await hinted.find({ h: 2 }).hint({ h: 1 }).toArray()).toHaveLength(1);
    await expect(hinted.find({ h: 2 }).hint('nope').toArray()).rejects.toMatchObject({ code: 2 });
    await expect(hinted.updateOne({ h: 2 }, { $set: { x: 1 } }, { hint: { zz: 1 } })).rejects.toMatchObject({ code: 2 });
  });

  test('listIndexes on a missing collection is NamespaceNotFound (26)', async () => {
    await expect(env.db.collection('never_created').indexes()).rejects.toMatchObject({ code: 26 });
  });

  test('createIndexes creates the collection when needed', async () => {
    await env.db.collection('made_by_index').createIndex({ x: 1 });
    const names = (await env.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    expect(names).toContain('made_by_index');
  });
});

describe('a TTL index expires documents whose date is older than expireAfterSeconds', () => {
  // A real MongoDB's TTL monitor runs every 60 s; the development server sweeps every second.
  test('an expired document disappears, a fresh one stays', async () => {
    const sessions = env.db.collection('sessions');
    await sessions.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 });
    await sessions.insertMany([
      { name: 'old', expiresAt: new Date(Date.now() - 60_000) },
      { name: 'fresh', expiresAt: new Date(Date.now() + 3_600_000) },
      { name: 'no-date', expiresAt: 'not a date' },
    ]);
    const gone = await eventually(async () => (await sessions.countDocuments({ name: 'old' })) === 0, 130_000, 250);
    expect(gone).toBe(true);
    expect((await sessions.find({}, { projection: { _id: 0, name: 1 } }).toArray()).map((d) => d.name).sort()).toEqual(['fresh', 'no-date']);
  }, 140_000);
});

describe('a sparse index leaves out documents without the field, and $exists queries stay exact', () => {
  test('two documents without the field do not collide on a sparse unique index', async () => {
    const sparse = env.db.collection('sparse');
    await sparse.createIndex({ 'pending.id': 1 }, { sparse: true, unique: true, name: 'pending_sparse' });
    await sparse.insertMany([{ n: 1 }, { n: 2 }, { n: 3, pending: [{ id: 'a' }] }, { n: 4, pending: [] }]);
    await expect(sparse.insertOne({ n: 5, pending: [{ id: 'a' }] })).rejects.toMatchObject({ code: 11000 });
    const found = await sparse.find({ 'pending.id': { $exists: true } }, { projection: { _id: 0, n: 1 } }).toArray();
    expect(found).toEqual([{ n: 3 }]);
    await sparse.updateOne({ n: 3 }, { $pull: { pending: { id: { $in: ['a'] } } } } as never);
    expect(await sparse.countDocuments({ 'pending.id': { $exists: true } })).toBe(0);
    expect(await sparse.countDocuments({ 'pending.id': { $exists: false } })).toBe(4);
  });
});

describe('collMod changes a TTL index; renameCollection moves a collection with its indexes', () => {
  test('collMod sets a new expireAfterSeconds and listIndexes shows it', async () => {
    const expiring = env.db.collection('expiring');
    await expiring.createIndex({ at: 1 }, { expireAfterSeconds: 3600, name: 'at_ttl' });
    await expiring.createIndex({ other: 1 });
    const reply = await env.db.command({ collMod: 'expiring', index: { name: 'at_ttl', expireAfterSeconds: 60 } });
    expect(reply).toMatchObject({ ok: 1, expireAfterSeconds_old: 3600, expireAfterSeconds_new: 60 });
    const indexes = await expiring.indexes();
    expect(indexes.map((index) => index.name)).toEqual(['_id_', 'at_ttl', 'other_1']);
    expect(indexes[1]).toMatchObject({ expireAfterSeconds: 60 });
    await expect(env.db.command({ collMod: 'absent_coll', index: { name: 'x', expireAfterSeconds: 1 } })).rejects.toMatchObject({ code: 26 });
  });

  test('rename keeps documents and unique indexes; an existing target needs dropTarget', async () => {
    const before = env.db.collection('before_rename');
    await before.createIndex({ u: 1 }, { unique: true });
    await before.insertMany([{ u: 1 }, { u: 2 }]);
    const after = await before.rename('after_rename');
    expect(await after.countDocuments()).toBe(2);
    await expect(after.insertOne({ u: 1 })).rejects.toMatchObject({ code: 11000 });
    expect((await env.db.listCollections({ name: 'before_rename' }).toArray()).length).toBe(0);
    await env.db.collection('occupied').insertOne({ x: 1 });
    await expect(after.rename('occupied')).rejects.toMatchObject({ code: 48 });
    const moved = await after.rename('occupied', { dropTarget: true });
    expect(await moved.countDocuments({ x: 1 })).toBe(0);
    expect(await moved.countDocuments()).toBe(2);
  });
});
