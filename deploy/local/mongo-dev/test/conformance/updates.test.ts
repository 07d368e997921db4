import type { Collection, Document } from 'mongodb';
import { openConformance, type Conformance } from './harness.js';

let env: Conformance;
let counter = 0;

beforeAll(async () => {
  env = await openConformance('updates');
});

afterAll(async () => {
  await env.close();
});

/** A fresh collection holding one document with `_id: 1`; returns it after `update`. */
async function afterUpdate(doc: Document, update: Document, options: Document = {}): Promise<Document | null> {
  const collection = env.db.collection(`u${counter++}`);
  await collection.insertOne({ _id: 1 as never, ...doc });
  await collection.updateOne({ _id: 1 as never }, update, options);
  return collection.findOne({ _id: 1 as never });
}

describe('update operators change documents as MongoDB does', () => {
  test('$set and $unset, including dotted paths that create sub-documents', async () => {
    expect(await afterUpdate({ a: 1, b: 2 }, { $set: { a: 5, 'c.d': 1 }, $unset: { b: '' } })).toEqual({ _id: 1, a: 5, c: { d: 1 } });
  });

  test('$inc, $mul, $min, $max', async () => {
    expect(await afterUpdate({ n: 1, m: 3, lo: 5, hi: 5 }, { $inc: { n: 2, fresh: 4 }, $mul: { m: 2 }, $min: { lo: 2 }, $max: { hi: 9 } })).toEqual({
      _id: 1,
      n: 3,
      m: 6,
      lo: 2,
      hi: 9,
      fresh: 4,
    });
  });

  test('$push with $each and $slice keeps the last elements', async () => {
    expect(await afterUpdate({ l: [1, 2] }, { $push: { l: { $each: [3, 4, 5], $slice: -3 } } })).toEqual({ _id: 1, l: [3, 4, 5] });
    expect(await afterUpdate({}, { $push: { l: 'x' } })).toEqual({ _id: 1, l: ['x'] });
  });

  test('$addToSet with $each adds only absent values', async () => {
    expect(await afterUpdate({ s: ['a'] }, { $addToSet: { s: { $each: ['a', 'b', 'b'] } } })).toEqual({ _id: 1, s: ['a', 'b'] });
  });

  test('$pull by value and by condition, $pullAll, $pop', async () => {
    expect(await afterUpdate({ l: [1, 2, 3, 2] }, { $pull: { l: 2 } })).toEqual({ _id: 1, l: [1, 3] });
    expect(await afterUpdate({ l: [{ k: 1 }, { k: 5 }] }, { $pull: { l: { k: { $gt: 2 } } } })).toEqual({ _id: 1, l: [{ k: 1 }] });
    expect(await afterUpdate({ l: [1, 2, 3] }, { $pullAll: { l: [1, 3] } })).toEqual({ _id: 1, l: [2] });
    expect(await afterUpdate({ l: [1, 2, 3] }, { $pop: { l: -1 } })).toEqual({ _id: 1, l: [2, 3] });
  });

  test('$rename and $currentDate', async () => {
    const doc = await afterUpdate({ old: 1 }, { $rename: { old: 'renamed' }, $currentDate: { at: true } });
    expect(doc?.renamed).toBe(1);
    expect(doc?.old).toBeUndefined();
    expect(doc?.at).toBeInstanceOf(Date);
  });

  test('positional $ updates the first matched array element; arrayFilters the selected ones', async () => {
    const collection = env.db.collection(`u${counter++}`);
    await collection.insertOne({
      _id: 1 as never,
      items: [
        { k: 'a', n: 1 },
        { k: 'b', n: 1 },
        { k: 'b', n: 1 },
      ],
    });
    await collection.updateOne({ _id: 1 as never, 'items.k': 'b' }, { $inc: { 'items.$.n': 10 } });
    expect((await collection.findOne({}))?.items).toEqual([
      { k: 'a', n: 1 },
      { k: 'b', n: 11 },
      { k: 'b', n: 1 },
    ]);
    await collection.updateOne({ _id: 1 as never }, { $set: { 'items.$[e].n': 0 } }, { arrayFilters: [{ 'e.k': 'b' }] });
    expect((await collection.findOne({}))?.items).toEqual([
      { k: 'a', n: 1 },
      { k: 'b', n: 0 },
      { k: 'b', n: 0 },
    ]);
    await collection.updateOne({ _id: 1 as never }, { $inc: { 'items.$[].n': 1 } });
    expect((await collection.findOne({}))?.items.map((item: Document) => item.n)).toEqual([2, 1, 1]);
  });

  test('an update that changes nothing reports matched 1, modified 0', async () => {
    const collection = env.db.collection(`u${counter++}`);
    await collection.insertOne({ _id: 1 as never, a: 1 });
    const result = await collection.updateOne({ _id: 1 as never }, { $set: { a: 1 } });
    expect(result).toMatchObject({ matchedCount: 1, modifiedCount: 0, upsertedCount: 0 });
  });
});

describe('update errors name what is wrong, with MongoDB codes', () => {
  let collection: Collection;
  beforeAll(async () => {
    collection = env.db.collection('errors');
    await collection.insertOne({ _id: 1 as never, s: 'text', n: 1 });
  });

  test('an unknown update operator fails with code 9 naming it', async () => {
    await expect(collection.updateOne({ _id: 1 as never }, { $frob: { a: 1 } } as never)).rejects.toMatchObject({
      code: 9,
      message: expect.stringContaining('$frob'),
    });
  });

  test('$inc on a string fails with TypeMismatch (14) and leaves the document alone', async () => {
    await expect(collection.updateOne({ _id: 1 as never }, { $inc: { s: 1 } })).rejects.toMatchObject({ code: 14 });
    expect(await collection.findOne({ _id: 1 as never })).toEqual({ _id: 1, s: 'text', n: 1 });
  });

  test('$push onto a non-array fails (code 2)', async () => {
    await expect(collection.updateOne({ _id: 1 as never }, { $push: { n: 1 } } as never)).rejects.toMatchObject({ code: 2 });
  });

  test('changing _id fails with ImmutableField (66)', async () => {
    await expect(collection.updateOne({ _id: 1 as never }, { $set: { _id: 2 } })).rejects.toMatchObject({ code: 66 });
    await expect(collection.replaceOne({ _id: 1 as never }, { _id: 3, x: 1 })).rejects.toMatchObject({ code: 66 });
  });

  test('creating a field inside a scalar fails with PathNotViable (28)', async () => {
    await expect(collection.updateOne({ _id: 1 as never }, { $set: { 'n.deeper': 1 } })).rejects.toMatchObject({ code: 28 });
    await expect(collection.updateOne({ _id: 1 as never }, { $inc: { 's.count': 1 } })).rejects.toMatchObject({ code: 28 });
    expect(await collection.findOne({ _id: 1 as never })).toEqual({ _id: 1, s: 'text', n: 1 });
  });

  test('two operators on the same path conflict (code 40)', async () => {
    await expect(collection.updateOne({ _id: 1 as never }, { $set: { n: 1 }, $inc: { n: 1 } })).rejects.toMatchObject({ code: 40 });
  });
});

describe('replacement, multi and upsert', () => {
  test('replaceOne keeps _id and replaces every other field', async () => {
    const collection = env.db.collection(`u${counter++}`);
    await collection.insertOne({ _id: 1 as never, a: 1, b: 2 });
    const result = await collection.replaceOne({ a: 1 }, { c: 3 });
    expect(result.modifiedCount).toBe(1);
    expect(await collection.findOne({})).toEqual({ _id: 1, c: 3 });
  });

  test('updateMany updates every match; updateOne only the first', async () => {
    const collection = env.db.collection(`u${counter++}`);
    await collection.insertMany([{ g: 1 }, { g: 1 }, { g: 2 }]);
    expect(await collection.updateOne({ g: 1 }, { $set: { seen: true } })).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
    expect(await collection.updateMany({ g: 1 }, { $set: { seen: true } })).toMatchObject({ matchedCount: 2, modifiedCount: 1 });
    expect(await collection.countDocuments({ seen: true })).toBe(2);
  });

  test('upsert inserts from the filter equalities plus the update, with $setOnInsert only on insert', async () => {
    const collection = env.db.collection(`u${counter++}`);
    const first = await collection.updateOne({ key: 'k', 'meta.kind': 'x' }, { $inc: { n: 1 }, $setOnInsert: { created: 'once' } }, { upsert: true });
    expect(first.upsertedCount).toBe(1);
    expect(first.upsertedId).toBeDefined();
    const second = await collection.updateOne({ key: 'k', 'meta.kind': 'x' }, { $inc: { n: 1 }, $setOnInsert: { created: 'twice' } }, { upsert: true });
    expect(second).toMatchObject({ matchedCount: 1, modifiedCount: 1, upsertedCount: 0 });
    const doc = await collection.findOne({ key: 'k' }, { projection: { _id: 0 } });
    expect(doc).toEqual({ key: 'k', meta: { kind: 'x' }, n: 2, created: 'once' });
  });

  test('upsert with a replacement document and an _id in the filter', async () => {
    const collection = env.db.collection(`u${counter++}`);
    const result = await collection.replaceOne({ _id: 'fixed' as never }, { v: 1 }, { upsert: true });
    expect(result.upsertedId).toBe('fixed');
    expect(await collection.findOne({})).toEqual({ _id: 'fixed', v: 1 });
  });

  test('updateMany with upsert and no match inserts one document', async () => {
    const collection = env.db.collection(`u${counter++}`);
    const result = await collection.updateMany({ tag: 'none' }, { $set: { found: false } }, { upsert: true });
    expect(result.upsertedCount).toBe(1);
    expect(await collection.countDocuments({ tag: 'none', found: false })).toBe(1);
  });

  test('pipeline-style update computes from the document', async () => {
    const collection = env.db.collection(`u${counter++}`);
    await collection.insertOne({ _id: 1 as never, a: 2, b: 3 });
    await collection.updateOne({ _id: 1 as never }, [{ $set: { sum: { $add: ['$a', '$b'] } } }, { $unset: 'b' }]);
    expect(await collection.findOne({})).toEqual({ _id: 1, a: 2, sum: 5 });
  });
});

describe('findAndModify returns the document before or after', () => {
  test('findOneAndUpdate returns the old document by default and the new one with returnDocument after', async () => {
    const collection = env.db.collection(`u${counter++}`);
    await collection.insertOne({ _id: 1 as never, n: 1 });
    expect(await collection.findOneAndUpdate({ _id: 1 as never }, { $inc: { n: 1 } })).toEqual({ _id: 1, n: 1 });
    expect(await collection.findOneAndUpdate({ _id: 1 as never }, { $inc: { n: 1 } }, { returnDocument: 'after' })).toEqual({ _id: 1, n: 3 });
  });

  test('findOneAndUpdate with upsert: null before, the inserted document after', async () => {
    const collection = env.db.collection(`u${counter++}`);
    expect(await collection.findOneAndUpdate({ k: 'a' }, { $set: { v: 1 } }, { upsert: true })).toBeNull();
    const after = await collection.findOneAndUpdate({ k: 'b' }, { $set: { v: 2 } }, { upsert: true, returnDocument: 'after', projection: { _id: 0 } });
    expect(after).toEqual({ k: 'b', v: 2 });
    expect(await collection.countDocuments()).toBe(2);
  });

  test('findOneAndUpdate picks the first document in sort order', async () => {
    const collection = env.db.collection(`u${counter++}`);
    await collection.insertMany([
      { p: 2, q: 'mid' },
      { p: 9, q: 'high' },
      { p: 1, q: 'low' },
    ]);
    const doc = await collection.findOneAndUpdate({}, { $set: { taken: true } }, { sort: { p: -1 }, returnDocument: 'after' });
    expect(doc).toMatchObject({ q: 'high', taken: true });
  });

  test('findOneAndUpdate with includeResultMetadata reports lastErrorObject', async () => {
    const collection = env.db.collection(`u${counter++}`);
    const result = await collection.findOneAndUpdate({ k: 1 }, { $set: { v: 1 } }, { upsert: true, includeResultMetadata: true });
    expect(result.lastErrorObject).toMatchObject({ n: 1, updatedExisting: false });
    expect(result.lastErrorObject?.upserted).toBeDefined();
    expect(result.value).toBeNull();
  });

  test('findOneAndDelete removes and returns the document; findOneAndReplace replaces it', async () => {
    const collection = env.db.collection(`u${counter++}`);
    await collection.insertMany([
      { _id: 1 as never, v: 'one' },
      { _id: 2 as never, v: 'two' },
    ]);
    expect(await collection.findOneAndDelete({ v: 'one' })).toEqual({ _id: 1, v: 'one' });
    expect(await collection.findOneAndReplace({ _id: 2 as never }, { w: 2 }, { returnDocument: 'after' })).toEqual({ _id: 2, w: 2 });
    expect(await collection.findOneAndDelete({ v: 'absent' })).toBeNull();
    expect(await collection.countDocuments()).toBe(1);
  });
});
