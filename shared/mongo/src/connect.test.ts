import { createLogger } from '@ars/logger';
import { connectMongo, ensureIndexes, redactMongoUrl, type Mongo } from '@ars/mongo';
import { startMongoDevServer } from '@ars/mongo-dev';

const logger = createLogger({ service: 'mongo-test', level: 'silent' });

/** A real server: the suite's MongoDB (`ARS_TEST_MONGO_URL`/`MONGO_URL`) when given, else the development server in-process. */
async function mongoServer(): Promise<{ url: string; close(): Promise<void> }> {
  const given = process.env.ARS_TEST_MONGO_URL || process.env.MONGO_URL;
  if (given) return { url: given, close: async () => undefined };
  const server = await startMongoDevServer({ port: 0 });
  return { url: server.url, close: () => server.close() };
}

let server: Awaited<ReturnType<typeof mongoServer>>;
const opened: Mongo[] = [];
beforeAll(async () => {
  server = await mongoServer();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((m) => m.close()));
});
afterAll(async () => server.close());

const uniqueDb = () => `ars_mongo_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;

async function open(dbName = uniqueDb()): Promise<Mongo> {
  const mongo = await connectMongo({ url: server.url, dbName, logger, appName: 'mongo-test' });
  opened.push(mongo);
  return mongo;
}

describe('connectMongo gives a client, the service database, ping and close', () => {
  test('ping answers and documents round-trip', async () => {
    const mongo = await open();
    await expect(mongo.ping()).resolves.toBeUndefined();
    await mongo.db.collection('things').insertOne({ _id: 'a' as never, n: 1 });
    expect(await mongo.db.collection('things').findOne({ n: 1 })).toEqual({ _id: 'a', n: 1 });
    await mongo.db.dropDatabase();
  });
  test('close is safe to call twice', async () => {
    const mongo = await connectMongo({ url: server.url, dbName: uniqueDb(), logger, appName: 'mongo-test' });
    await mongo.close();
    await expect(mongo.close()).resolves.toBeUndefined();
  });
});

describe('an unreachable server is reported quickly, naming the address without credentials', () => {
  test('connect rejects', async () => {
    await expect(connectMongo({ url: 'mongodb://user:pw@127.0.0.1:1/', dbName: 'x', logger, appName: 't', serverSelectionTimeoutMS: 300 })).rejects.toThrow(
      /^MongoDB unreachable at mongodb:\/\/\*\*\*@127\.0\.0\.1:1\//,
    );
  });
  test('redactMongoUrl hides the user and password', () => {
    expect(redactMongoUrl('mongodb+srv://u:p@cluster.example/db')).toBe('mongodb+srv://***@cluster.example/db');
    expect(redactMongoUrl('mongodb://127.0.0.1:27017')).toBe('mongodb://127.0.0.1:27017');
  });
});

describe('ensureIndexes creates the indexes at start-up and is idempotent', () => {
  const specs = [
    { collection: 'idempotency', indexes: [{ key: { userId: 1, key: 1 }, name: 'user_key', unique: true }] },
    { collection: 'runs', indexes: [{ key: { userId: 1, createdAt: -1 }, name: 'user_created' }] },
  ];
  test('twice in a row, and the unique index holds', async () => {
    const mongo = await open();
    await ensureIndexes(mongo.db, specs, logger);
    await ensureIndexes(mongo.db, specs, logger);
    const names = (await mongo.db.collection('idempotency').listIndexes().toArray()).map((index) => index.name as string);
    expect(names).toEqual(expect.arrayContaining(['_id_', 'user_key']));
    await mongo.db.collection('idempotency').insertOne({ userId: 'u', key: 'k' });
    await expect(mongo.db.collection('idempotency').insertOne({ userId: 'u', key: 'k' })).rejects.toMatchObject({ code: 11000 });
    await mongo.db.dropDatabase();
  });
});
