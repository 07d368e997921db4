import { Binary, Decimal128, ObjectId, type Collection } from 'mongodb';
import { openConformance, type Conformance } from './harness.js';

let env: Conformance;
let people: Collection;

beforeAll(async () => {
  env = await openConformance('queries');
  people = env.db.collection('people');
  await people.insertMany([
    {
      _id: 1 as never,
      name: 'ada',
      age: 36,
      tags: ['math', 'code'],
      address: { city: 'London', zip: 'N1' },
      scores: [
        { s: 90, k: 'a' },
        { s: 70, k: 'b' },
      ],
    },
    { _id: 2 as never, name: 'grace', age: 85, tags: ['navy', 'code'], address: { city: 'New York' }, scores: [{ s: 50, k: 'a' }] },
    { _id: 3 as never, name: 'alan', age: 41, tags: ['math'], address: { city: 'London' }, nick: null },
    { _id: 4 as never, name: 'edsger', age: 72, tags: [], scores: [] },
    { _id: 5 as never, name: 'barbara', age: 41, tags: ['code'], address: { city: 'Boston' } },
  ]);
});

afterAll(async () => {
  await env.close();
});

const ids = async (filter: object, sort: object = { _id: 1 }): Promise<unknown[]> =>
  (
    await people
      .find(filter)
      .sort(sort as never)
      .toArray()
  ).map((doc) => doc._id);

describe('insert gives documents an ObjectId _id when they have none', () => {
  test('insertOne without _id stores an ObjectId _id, first in the document', async () => {
    const others = env.db.collection('ids');
    const result = await others.insertOne({ x: 1 }, { forceServerObjectId: true });
    const stored = await others.findOne({ x: 1 });
    expect(stored?._id).toBeInstanceOf(ObjectId);
    expect(Object.keys(stored ?? {})[0]).toBe('_id');
    expect(result.acknowledged).toBe(true);
  });

  test('insertMany reports every inserted id', async () => {
    const result = await env.db.collection('ids').insertMany([{ y: 1 }, { y: 2 }, { y: 3 }]);
    expect(result.insertedCount).toBe(3);
    expect(Object.values(result.insertedIds).every((id) => id instanceof ObjectId)).toBe(true);
  });
});

describe('query operators select exactly the matching documents', () => {
  test('equality on a field, a dotted path and an array element', async () => {
    expect(await ids({ name: 'ada' })).toEqual([1]);
    expect(await ids({ 'address.city': 'London' })).toEqual([1, 3]);
    expect(await ids({ tags: 'code' })).toEqual([1, 2, 5]);
    expect(await ids({ 'scores.k': 'b' })).toEqual([1]);
  });

  test('comparison: $gt $gte $lt $lte $ne $in $nin', async () => {
    expect(await ids({ age: { $gt: 41 } })).toEqual([2, 4]);
    expect(await ids({ age: { $gte: 41 } })).toEqual([2, 3, 4, 5]);
    expect(await ids({ age: { $lt: 41 } })).toEqual([1]);
    expect(await ids({ age: { $lte: 41 } })).toEqual([1, 3, 5]);
    expect(await ids({ name: { $ne: 'ada' } })).toEqual([2, 3, 4, 5]);
    expect(await ids({ _id: { $in: [2, 4, 99] } })).toEqual([2, 4]);
    expect(await ids({ _id: { $in: [2, 2, 2.0] } })).toEqual([2]);
    expect(await ids({ age: { $nin: [41, 36] } })).toEqual([2, 4]);
  });

  test('logical: $and $or $nor $not', async () => {
    expect(await ids({ $and: [{ age: 41 }, { tags: 'code' }] })).toEqual([5]);
    expect(await ids({ $or: [{ name: 'ada' }, { age: 85 }] })).toEqual([1, 2]);
    expect(await ids({ $nor: [{ tags: 'code' }, { age: 41 }] })).toEqual([4]);
    expect(await ids({ age: { $not: { $gt: 40 } } })).toEqual([1]);
  });

  test('element and array: $exists, null, $size, $all, $elemMatch, $type', async () => {
    expect(await ids({ address: { $exists: false } })).toEqual([4]);
    expect(await ids({ nick: null })).toEqual([1, 2, 3, 4, 5]);
    expect(await ids({ nick: { $exists: true } })).toEqual([3]);
    expect(await ids({ nick: { $gte: null } })).toEqual([1, 2, 3, 4, 5]);
    expect(await ids({ nick: { $gt: null } })).toEqual([]);
    expect(await ids({ tags: { $size: 0 } })).toEqual([4]);
    expect(await ids({ tags: { $all: ['math', 'code'] } })).toEqual([1]);
    expect(await ids({ scores: { $elemMatch: { k: 'a', s: { $gte: 60 } } } })).toEqual([1]);
    expect(await ids({ age: { $type: 'number' } })).toEqual([1, 2, 3, 4, 5]);
    expect(await ids({ name: { $type: 'string' }, nick: { $type: 'null' } })).toEqual([3]);
  });

  test('$type knows every BSON type: objectId, binData, decimal, date, bool, numbers by alias and number', async () => {
    const typed = env.db.collection('typed');
    await typed.insertMany([
      { _id: 'oid' as never, v: new ObjectId() },
      { _id: 'bin' as never, v: new Binary(Buffer.from('hi')) },
      { _id: 'dec' as never, v: Decimal128.fromString('1.5') },
      { _id: 'date' as never, v: new Date() },
      { _id: 'bool' as never, v: true },
      { _id: 'str' as never, v: 's' },
      { _id: 'arr' as never, v: [new ObjectId()] },
      { _id: 'obj' as never, v: { x: 1 } },
    ]);
    const typeIds = async (type: unknown): Promise<unknown[]> =>
      (
        await typed
          .find({ v: { $type: type as never } })
          .sort({ _id: 1 })
          .toArray()
      ).map((doc) => doc._id);
    expect(await typeIds('objectId')).toEqual(['arr', 'oid']);
    expect(await typeIds(7)).toEqual(['arr', 'oid']);
    expect(await typeIds('binData')).toEqual(['bin']);
    expect(await typeIds('decimal')).toEqual(['dec']);
    expect(await typeIds('date')).toEqual(['date']);
    expect(await typeIds(['bool', 'string'])).toEqual(['bool', 'str']);
    expect(await typeIds('array')).toEqual(['arr']);
    expect(await typeIds('object')).toEqual(['obj']);
    expect(await typed.countDocuments({ $and: [{ v: { $not: { $type: 'objectId' } } }, { _id: { $type: 'string' } }] })).toBe(6);
  });

  test('$regex, with options and as a regular expression literal', async () => {
    expect(await ids({ name: { $regex: '^a' } })).toEqual([1, 3]);
    expect(await ids({ name: { $regex: '^A', $options: 'i' } })).toEqual([1, 3]);
    expect(await ids({ name: /RAC/i })).toEqual([2]);
  });

  test('$expr compares fields of the same document', async () => {
    expect(await ids({ $expr: { $gt: ['$age', 80] } })).toEqual([2]);
  });

  test('an unknown query operator is an error naming it (code 2)', async () => {
    await expect(people.find({ age: { $frobnicate: 1 } }).toArray()).rejects.toMatchObject({ code: 2, message: expect.stringContaining('$frobnicate') });
  });
});

describe('sort, skip, limit and projection shape the result', () => {
  test('sort on several keys, ascending and descending', async () => {
    expect(await ids({}, { age: -1, name: 1 })).toEqual([2, 4, 3, 5, 1]);
    expect(await ids({}, { 'address.city': 1, _id: 1 })).toEqual([4, 5, 1, 3, 2]);
  });

  test('skip and limit apply after the sort', async () => {
    const docs = await people.find({}).sort({ age: 1, _id: 1 }).skip(1).limit(2).toArray();
    expect(docs.map((doc) => doc._id)).toEqual([3, 5]);
  });

  test('inclusion projection keeps _id unless excluded, and the stored field order', async () => {
    const doc = await people.findOne({ _id: 1 as never }, { projection: { age: 1, name: 1 } });
    expect(doc).toEqual({ _id: 1, name: 'ada', age: 36 });
    expect(Object.keys(doc ?? {})).toEqual(['_id', 'name', 'age']);
    expect(await people.findOne({ _id: 1 as never }, { projection: { _id: 0, 'address.city': 1 } })).toEqual({ address: { city: 'London' } });
  });

  test('exclusion projection drops only the named fields', async () => {
    const doc = await people.findOne({ _id: 2 as never }, { projection: { scores: 0, tags: 0, address: 0 } });
    expect(doc).toEqual({ _id: 2, name: 'grace', age: 85 });
  });

  test('$slice and $elemMatch projections', async () => {
    expect(await people.findOne({ _id: 1 as never }, { projection: { tags: { $slice: 1 }, _id: 0, name: 1 } })).toEqual({ name: 'ada', tags: ['math'] });
    expect(await people.findOne({ _id: 1 as never }, { projection: { scores: { $elemMatch: { k: 'b' } } } })).toEqual({ _id: 1, scores: [{ s: 70, k: 'b' }] });
  });

  test('mixing inclusion and exclusion is an error (31254/31253), even when nothing matches', async () => {
    await expect(people.find({ _id: -1 as never }, { projection: { name: 1, age: 0 } }).toArray()).rejects.toMatchObject({ code: 31254 });
    await expect(people.find({}, { projection: { name: 1, 'address.city': 0 } }).toArray()).rejects.toMatchObject({ code: 31254 });
    await expect(people.find({}, { projection: { age: 0, name: 1 } }).toArray()).rejects.toMatchObject({ code: 31253 });
  });

  test('a projection does not change the stored document', async () => {
    await people.findOne({ _id: 1 as never }, { projection: { name: 1 } });
    const doc = await people.findOne({ _id: 1 as never });
    expect(doc?.tags).toEqual(['math', 'code']);
  });
});

describe('cursors hand out results across several getMore batches', () => {
  test('500 documents read with batchSize 64 arrive complete and in order', async () => {
    const many = env.db.collection('many');
    await many.insertMany(Array.from({ length: 500 }, (_, i) => ({ _id: i as never, i })));
    const seen = await many.find({}).sort({ _id: 1 }).batchSize(64).toArray();
    expect(seen.map((doc) => doc._id)).toEqual(Array.from({ length: 500 }, (_, i) => i));
  });

  test('limit holds across batches', async () => {
    const seen = await env.db
      .collection('many')
      .find({ i: { $gte: 100 } })
      .sort({ i: 1 })
      .batchSize(7)
      .limit(30)
      .toArray();
    expect(seen).toHaveLength(30);
    expect(seen[29]?.i).toBe(129);
  });

  test('closing a cursor early kills it on the server; a later getMore on it fails with CursorNotFound (43)', async () => {
    const cursor = env.db.collection('many').find({}).batchSize(10);
    await cursor.next();
    const id = cursor.id;
    await cursor.close();
    expect(id).toBeDefined();
    await expect(env.db.command({ getMore: id, collection: 'many' })).rejects.toMatchObject({ code: 43 });
  });

  test('killCursors reports the killed cursor', async () => {
    const first = await env.db.command({ find: 'many', batchSize: 5 });
    const reply = await env.db.command({ killCursors: 'many', cursors: [first.cursor.id] });
    expect(reply.cursorsKilled.map(String)).toEqual([String(first.cursor.id)]);
  });
});

describe('count and distinct', () => {
  test('countDocuments counts matches; estimatedDocumentCount counts the collection', async () => {
    expect(await people.countDocuments({ age: 41 })).toBe(2);
    expect(await people.countDocuments({}, { skip: 1, limit: 2 })).toBe(2);
    expect(await people.estimatedDocumentCount()).toBe(5);
    expect(await env.db.collection('absent').countDocuments({})).toBe(0);
  });

  test('the count command honours query, skip and limit', async () => {
    expect((await env.db.command({ count: 'people', query: { age: { $gt: 40 } } })).n).toBe(4);
    expect((await env.db.command({ count: 'people', query: {}, skip: 4 })).n).toBe(1);
    expect((await env.db.command({ count: 'people', limit: 2 })).n).toBe(2);
  });

  test('distinct returns each value once, flattening arrays', async () => {
    expect((await people.distinct('tags')).sort()).toEqual(['code', 'math', 'navy']);
    expect((await people.distinct('address.city', { age: { $lt: 80 } })).sort()).toEqual(['Boston', 'London']);
  });
});

describe('deleteOne and deleteMany remove what the filter selects', () => {
  test('deleteOne removes one document, deleteMany all matches', async () => {
    const scratch = env.db.collection('deletes');
    await scratch.insertMany([{ k: 1 }, { k: 1 }, { k: 1 }, { k: 2 }]);
    expect((await scratch.deleteOne({ k: 1 })).deletedCount).toBe(1);
    expect((await scratch.deleteMany({ k: 1 })).deletedCount).toBe(2);
    expect((await scratch.deleteMany({ k: 99 })).deletedCount).toBe(0);
    expect(await scratch.countDocuments()).toBe(1);
  });
});
