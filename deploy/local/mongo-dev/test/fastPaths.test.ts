// The server's shortcuts past mingo and past the scan (`_id` `$in` looked up directly and matched
// natively, a compound index used by its leading fields, mingo's operators set up once) only change
// the cost: each answer here is compared with the same filter wrapped in `$and`, which takes no
// shortcut (mingo tests every document in natural order). Development-server specific: the order of
// an unsorted answer is natural order here, index order on a real MongoDB.
import { MongoClient, type Collection, type Document } from 'mongodb';
import { startMongoDevServer, type MongoDevServer } from '../src/index.js';

let server: MongoDevServer;
let client: MongoClient;
let dbIndex = 0;

beforeAll(async () => {
  server = await startMongoDevServer();
  client = new MongoClient(server.url, { serverSelectionTimeoutMS: 3000 });
  await client.connect();
});

afterAll(async () => {
  await client.close();
  await server.close();
});

function freshCollection(name: string): Collection<Document> {
  return client.db(`fast_${dbIndex++}`).collection(name);
}

/** The answer to `filter`, and to the same filter without any shortcut. */
async function withAndWithoutShortcut(collection: Collection<Document>, filter: Document): Promise<[Document[], Document[]]> {
  return [await collection.find(filter).toArray(), await collection.find({ $and: [filter] }).toArray()];
}

const ids = (docs: Document[]): unknown[] => docs.map((doc) => doc._id as unknown);

describe('`_id` with `$in` looks the ids up directly and matches exactly what mingo matches', () => {
  let items: Collection<Document>;

  beforeAll(async () => {
    items = freshCollection('items');
    await items.insertMany([
      { _id: 1 as never, v: 'one' },
      { _id: '1' as never, v: 'string one' },
      { _id: 2.5 as never, v: 'two and a half' },
      { _id: new Date(5) as never, v: 'date' },
      { _id: true as never, v: 'true' },
      { _id: 'b' as never, tags: ['x', 'y'] },
      { _id: 'c' as never, tags: 'x' },
      { _id: 'd' as never, tags: [['x']] },
      { _id: 'e' as never, tags: null },
      { _id: 'f' as never },
    ]);
  });

  test('duplicates in the list return each document once, missing ids return nothing', async () => {
    const docs = await items.find({ _id: { $in: ['b', 'b', 'zzz', 'c'] as never[] } }).toArray();
    expect(ids(docs).sort()).toEqual(['b', 'c']);
  });

  test('values of another type never match (a string is not a number, a number not a date or boolean)', async () => {
    const [fast, scan] = await withAndWithoutShortcut(items, { _id: { $in: ['1', 5, 1, 2.5, 'true'] } });
    expect(fast).toHaveLength(scan.length);
    expect(fast).toEqual(expect.arrayContaining(scan));
    expect(fast.map((doc) => doc.v as string).sort()).toEqual(['one', 'string one', 'two and a half']);
  });

  test('an empty list matches nothing', async () => {
    expect(await items.find({ _id: { $in: [] } }).toArray()).toEqual([]);
  });

  test('on another top-level field it matches the value or an array element, never a nested array, as the scan does', async () => {
    const [fast, scan] = await withAndWithoutShortcut(items, { tags: { $in: ['x', 'nope'] } });
    expect(ids(fast)).toEqual(['b', 'c']);
    expect(fast).toEqual(scan);
  });

  test('null in the list still matches a missing field and null', async () => {
    const [fast, scan] = await withAndWithoutShortcut(items, { tags: { $in: [null, 'y'] } });
    expect(ids(fast)).toEqual([1, '1', 2.5, new Date(5), true, 'b', 'e', 'f']);
    expect(fast).toEqual(scan);
  });

  test('a $lookup on _id joins each local value (array, duplicate, missing, other type) as the scan would', async () => {
    const orders = freshCollection('orders');
    await orders.db.collection('items').insertMany([{ _id: 1 as never }, { _id: '1' as never }, { _id: 'b' as never }]);
    await orders.insertMany([{ _id: 'o1', item: 1 }, { _id: 'o2', item: ['b', 'b', 'nope'] }, { _id: 'o3', item: '1' }, { _id: 'o4' }] as never[]);
    const joined = await orders
      .aggregate([{ $sort: { _id: 1 } }, { $lookup: { from: 'items', localField: 'item', foreignField: '_id', as: 'found' } }])
      .toArray();
    expect(joined.map((doc) => ids(doc.found as Document[]))).toEqual([[1], ['b'], ['1'], []]);
  });
});

describe('an index is used when its leading fields are pinned by equality, and the answer is the scan’s', () => {
  let access: Collection<Document>;

  beforeAll(async () => {
    access = freshCollection('access');
    await access.createIndex({ userId: 1, full_name: 1, repoId: 1 });
    await access.insertMany([
      { _id: 'a', userId: 'u1', full_name: 'o/zeta', repoId: 3 },
      { _id: 'b', userId: 'u2', full_name: 'o/alpha', repoId: 1 },
      { _id: 'c', userId: 'u1', full_name: 'o/alpha', repoId: 2 },
      { _id: 'd', userId: ['u1', 'u3'], full_name: 'o/beta', repoId: 4 },
      { _id: 'e', userId: [['u1']], full_name: 'o/gamma', repoId: 5 },
      { _id: 'f', full_name: 'o/none', repoId: 6 },
      { _id: 'g', userId: null, full_name: 'o/null', repoId: 7 },
      { _id: 'h', userId: { a: 1, b: 2 }, full_name: 'o/object', repoId: 8 },
      { _id: 'i', userId: 'u1', full_name: 'o/alpha', repoId: 9 },
    ] as never[]);
  });

  test('the first field pinned: the same documents in the same (natural) order as the scan', async () => {
    const [fast, scan] = await withAndWithoutShortcut(access, { userId: 'u1' });
    expect(ids(fast)).toEqual(['a', 'c', 'd', 'i']);
    expect(fast).toEqual(scan);
  });

  test('two of three fields pinned, and $in on a leading field', async () => {
    for (const filter of [
      { userId: 'u1', full_name: 'o/alpha' },
      { userId: { $in: ['u2', 'u3'] } },
      { userId: { $eq: 'u1' }, full_name: { $in: ['o/alpha', 'o/beta'] } },
    ]) {
      const [fast, scan] = await withAndWithoutShortcut(access, filter);
      expect(fast.length).toBeGreaterThan(0);
      expect(fast).toEqual(scan);
    }
  });

  test('a leading field pinned to null matches missing and null fields, as the scan does', async () => {
    const [fast, scan] = await withAndWithoutShortcut(access, { userId: null });
    expect(ids(fast)).toEqual(['f', 'g']);
    expect(fast).toEqual(scan);
  });

  test('a leading field pinned to a sub-document answers as the scan does (whatever its field order)', async () => {
    for (const userId of [
      { a: 1, b: 2 },
      { b: 2, a: 1 },
    ]) {
      const [fast, scan] = await withAndWithoutShortcut(access, { userId });
      expect(fast).toEqual(scan);
    }
  });

  test('the catalog shape ($match on the prefix with a $regex on the next field, $sort, $limit) is unchanged', async () => {
    const pipeline = (match: Document): Document[] => [{ $match: match }, { $sort: { full_name: 1, repoId: 1 } }, { $limit: 3 }];
    const fast = await access.aggregate(pipeline({ userId: 'u1', full_name: { $regex: 'a' } })).toArray();
    const scan = await access.aggregate(pipeline({ $and: [{ userId: 'u1', full_name: { $regex: 'a' } }] })).toArray();
    expect(ids(fast)).toEqual(['c', 'i', 'd']);
    expect(fast).toEqual(scan);
  });

  test('updates, deletes and re-inserts keep the prefix lookups and natural order right', async () => {
    await access.updateOne({ _id: 'a' as never }, { $set: { userId: 'u2' } });
    await access.updateOne({ _id: 'c' as never }, { $set: { repoId: 20 } });
    await access.deleteOne({ _id: 'd' as never });
    await access.insertOne({ _id: 'd' as never, userId: ['u1', 'u1'], full_name: 'o/beta', repoId: 4 });
    for (const filter of [{ userId: 'u1' }, { userId: 'u2' }, { userId: 'u3' }]) {
      const [fast, scan] = await withAndWithoutShortcut(access, filter);
      expect(fast).toEqual(scan);
    }
    expect(ids(await access.find({ userId: 'u1' }).toArray())).toEqual(['c', 'i', 'd']);
    expect(ids(await access.find({ userId: 'u3' }).toArray())).toEqual([]);
  });

  test('a document whose entries share a prefix leaves it entirely when removed', async () => {
    const tagged = freshCollection('tagged');
    await tagged.createIndex({ owner: 1, tags: 1 });
    await tagged.insertOne({ _id: 't' as never, owner: 'o', tags: ['x', 'y'] });
    expect(ids(await tagged.find({ owner: 'o' }).toArray())).toEqual(['t']);
    await tagged.updateOne({ _id: 't' as never }, { $set: { owner: 'p' } });
    expect(await tagged.find({ owner: 'o' }).toArray()).toEqual([]);
    await tagged.deleteOne({ _id: 't' as never });
    expect(await tagged.find({ owner: 'p' }).toArray()).toEqual([]);
  });
});

describe('mingo is set up once per process, and one query’s options never reach another', () => {
  test('`let` variables belong to their own query only', async () => {
    const numbers = freshCollection('numbers');
    await numbers.insertMany([{ n: 1 }, { n: 2 }]);
    const withLet = (x: number): Promise<Document[]> => numbers.find({ $expr: { $eq: ['$n', '$$x'] } }, { let: { x } }).toArray();
    expect((await withLet(1)).map((doc) => doc.n as number)).toEqual([1]);
    expect((await withLet(2)).map((doc) => doc.n as number)).toEqual([2]);
    await expect(numbers.find({ $expr: { $eq: ['$n', '$$x'] } }).toArray()).rejects.toThrow();
  });

  test('MongoDB’s $type, pipeline updates and a $lookup with a pipeline work side by side', async () => {
    const things = freshCollection('things');
    await things.insertMany([
      { _id: 1 as never, v: 'a' },
      { _id: 2 as never, v: 5 },
    ]);
    expect(ids(await things.find({ v: { $type: 'string' } }).toArray())).toEqual([1]);
    await things.updateOne({ _id: 2 as never }, [{ $set: { w: { $add: ['$v', 1] } } }]);
    const joined = await things
      .aggregate([
        { $match: { _id: 2 } },
        { $lookup: { from: 'things', let: { w: '$w' }, pipeline: [{ $match: { $expr: { $eq: ['$w', '$$w'] } } }], as: 'same' } },
      ])
      .toArray();
    expect(joined).toEqual([{ _id: 2, v: 5, w: 6, same: [{ _id: 2, v: 5, w: 6 }] }]);
  });
});
