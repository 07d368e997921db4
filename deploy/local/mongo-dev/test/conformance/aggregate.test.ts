import type { Collection } from 'mongodb';
import { openConformance, type Conformance } from './harness.js';

let env: Conformance;
let orders: Collection;

beforeAll(async () => {
  env = await openConformance('aggregate');
  orders = env.db.collection('orders');
  await orders.insertMany([
    { _id: 1 as never, customer: 'c1', total: 10, items: ['pen', 'ink'] },
    { _id: 2 as never, customer: 'c2', total: 25, items: ['pad'] },
    { _id: 3 as never, customer: 'c1', total: 5, items: [] },
    { _id: 4 as never, customer: 'c3', total: 40, items: ['pen'] },
  ]);
  await env.db.collection('customers').insertMany([
    { _id: 'c1' as never, name: 'Ada' },
    { _id: 'c2' as never, name: 'Grace' },
  ]);
});

afterAll(async () => {
  await env.close();
});

describe('aggregate runs the pipeline stages the services use', () => {
  test('$match, $sort, $skip, $limit', async () => {
    const docs = await orders.aggregate([{ $match: { total: { $gte: 5 } } }, { $sort: { total: -1 } }, { $skip: 1 }, { $limit: 2 }]).toArray();
    expect(docs.map((doc) => doc._id)).toEqual([2, 1]);
  });

  test('$group with $sum, $avg, $max, $push and $count', async () => {
    const groups = await orders
      .aggregate([
        { $group: { _id: '$customer', spent: { $sum: '$total' }, n: { $sum: 1 }, top: { $max: '$total' }, ids: { $push: '$_id' } } },
        { $sort: { _id: 1 } },
      ])
      .toArray();
    expect(groups).toEqual([
      { _id: 'c1', spent: 15, n: 2, top: 10, ids: [1, 3] },
      { _id: 'c2', spent: 25, n: 1, top: 25, ids: [2] },
      { _id: 'c3', spent: 40, n: 1, top: 40, ids: [4] },
    ]);
    expect(await orders.aggregate([{ $match: { customer: 'c1' } }, { $count: 'orders' }]).toArray()).toEqual([{ orders: 2 }]);
    expect(await orders.aggregate([{ $group: { _id: null, avg: { $avg: '$total' } } }]).toArray()).toEqual([{ _id: null, avg: 20 }]);
  });

  test('$project and $addFields compute fields', async () => {
    const docs = await orders
      .aggregate([
        { $match: { _id: 1 } },
        { $addFields: { double: { $multiply: ['$total', 2] } } },
        { $project: { _id: 0, customer: 1, double: 1, n: { $size: '$items' } } },
      ])
      .toArray();
    expect(docs).toEqual([{ customer: 'c1', double: 20, n: 2 }]);
  });

  test('$unwind produces one document per array element', async () => {
    const docs = await orders.aggregate([{ $unwind: '$items' }, { $group: { _id: '$items', n: { $sum: 1 } } }, { $sort: { _id: 1 } }]).toArray();
    expect(docs).toEqual([
      { _id: 'ink', n: 1 },
      { _id: 'pad', n: 1 },
      { _id: 'pen', n: 2 },
    ]);
  });

  test('$lookup joins another collection of the same database', async () => {
    const docs = await orders
      .aggregate([
        { $match: { _id: { $in: [2, 4] } } },
        { $lookup: { from: 'customers', localField: 'customer', foreignField: '_id', as: 'who' } },
        { $sort: { _id: 1 } },
      ])
      .toArray();
    expect(docs.map((doc) => doc.who)).toEqual([[{ _id: 'c2', name: 'Grace' }], []]);
  });

  test('$lookup after $sort and $limit, then more stages: an array local field matches any element, a missing one matches null or missing', async () => {
    const grants = env.db.collection('grants');
    const people = env.db.collection('people');
    await people.insertMany([
      { _id: 'p1' as never, name: 'Ada', team: 't1' },
      { _id: 'p2' as never, name: 'Grace', team: null },
      { _id: 'p3' as never, name: 'Linus' },
    ]);
    await grants.insertMany([
      { _id: 'g1' as never, rank: 3, who: 'p1' },
      { _id: 'g2' as never, rank: 1, who: ['p2', 'p3', 'nobody'] },
      { _id: 'g3' as never, rank: 2 },
      { _id: 'g4' as never, rank: 4, who: 'p1' },
    ]);
    const joined = await grants
      .aggregate([
        { $match: { rank: { $lte: 3 } } },
        { $sort: { rank: 1 } },
        { $limit: 3 },
        { $lookup: { from: 'people', localField: 'who', foreignField: '_id', as: 'people' } },
        { $lookup: { from: 'people', localField: 'missing', foreignField: 'team', as: 'teamless' } },
        { $project: { _id: 1, names: '$people.name', teamless: '$teamless.name' } },
      ])
      .toArray();
    expect(joined.map((doc) => ({ ...doc, names: [...doc.names].sort(), teamless: [...doc.teamless].sort() }))).toEqual([
      { _id: 'g2', names: ['Grace', 'Linus'], teamless: ['Grace', 'Linus'] },
      { _id: 'g3', names: [], teamless: ['Grace', 'Linus'] },
      { _id: 'g1', names: ['Ada'], teamless: ['Grace', 'Linus'] },
    ]);
    expect(await people.countDocuments()).toBe(3);
  });

  test('$unionWith appends another collection, $facet runs sub-pipelines', async () => {
    const union = await orders.aggregate([{ $project: { _id: 1 } }, { $unionWith: { coll: 'customers', pipeline: [{ $project: { _id: 1 } }] } }]).toArray();
    expect(union.map((doc) => doc._id)).toEqual([1, 2, 3, 4, 'c1', 'c2']);
    const [facets] = await orders.aggregate([{ $facet: { big: [{ $match: { total: { $gte: 25 } } }, { $count: 'n' }], all: [{ $count: 'n' }] } }]).toArray();
    expect(facets).toEqual({ big: [{ n: 2 }], all: [{ n: 4 }] });
  });

  test('aggregate does not change stored documents', async () => {
    await orders.aggregate([{ $addFields: { total: 0 } }, { $unset: 'items' }]).toArray();
    expect(await orders.findOne({ _id: 1 as never })).toEqual({ _id: 1, customer: 'c1', total: 10, items: ['pen', 'ink'] });
  });

  test('a result larger than one batch arrives through getMore', async () => {
    const big = env.db.collection('big');
    await big.insertMany(Array.from({ length: 250 }, (_, i) => ({ i })));
    const docs = await big.aggregate([{ $sort: { i: -1 } }], { batchSize: 20 }).toArray();
    expect(docs).toHaveLength(250);
    expect(docs[0]?.i).toBe(249);
  });

  test('on a missing collection the result is empty', async () => {
    expect(
      await env.db
        .collection('absent')
        .aggregate([{ $match: {} }])
        .toArray(),
    ).toEqual([]);
  });

  test('an unknown stage is an error naming it', async () => {
    await expect(orders.aggregate([{ $frobnicate: {} }]).toArray()).rejects.toMatchObject({ message: expect.stringContaining('$frobnicate') });
  });
});
