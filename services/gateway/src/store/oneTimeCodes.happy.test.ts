// The one-time code store on a real MongoDB: what the CLI login's exchange and the development
// sign-in link rely on (one use, the expiry enforced on read, one winner of a race).
import { randomUUID } from 'node:crypto';
import { createLogger } from '@ars/logger';
import { connectMongo, type Mongo } from '@ars/mongo';
import { testInfrastructure } from '@ars/testenv';
import { generateOneTimeCode, hashOneTimeCode } from '../domain/oneTimeCodes.js';
import { DEV_SIGN_IN_CODES, oneTimeCodeStore, type OneTimeCodeStore } from './oneTimeCodes.js';

let mongo: Mongo;
let store: OneTimeCodeStore<{ userId: string }>;
beforeAll(async () => {
  mongo = await connectMongo({
    url: testInfrastructure().mongoUrl,
    dbName: `gateway-codes-${randomUUID()}`,
    logger: createLogger({ service: 'test', level: 'silent' }),
    appName: 'test',
  });
  store = oneTimeCodeStore(mongo.db, DEV_SIGN_IN_CODES);
});
afterAll(async () => {
  await mongo?.db.dropDatabase();
  await mongo?.close();
});

async function stored(grant = { userId: `usr_${randomUUID()}` }, ttlSeconds = 60): Promise<{ hash: string; grant: { userId: string } }> {
  const hash = hashOneTimeCode(generateOneTimeCode());
  await store.create(hash, grant, ttlSeconds);
  return { hash, grant };
}

describe('a one-time code is stored as its hash and gives its grant once', () => {
  test('taken: the grant; taken again: nothing; the document holds the hash, never the code', async () => {
    const code = generateOneTimeCode();
    const grant = { userId: `usr_${randomUUID()}` };
    await store.create(hashOneTimeCode(code), grant, 60);
    const raw = await mongo.db.collection(DEV_SIGN_IN_CODES).findOne({ _id: hashOneTimeCode(code) as never });
    expect(JSON.stringify(raw)).not.toContain(code);
    expect(await store.take(hashOneTimeCode(code))).toEqual(grant);
    expect(await store.take(hashOneTimeCode(code))).toBeUndefined();
  });

  test('an unknown hash gives nothing', async () => {
    expect(await store.take(hashOneTimeCode(generateOneTimeCode()))).toBeUndefined();
  });
});

describe('a one-time code past its expiry gives nothing, even before the TTL index removes it', () => {
  test('60 s code taken at +61 s: nothing, and it is gone (a second try within its life gives nothing either)', async () => {
    const { hash } = await stored(undefined, 60);
    expect(await store.take(hash, new Date(Date.now() + 61_000))).toBeUndefined();
    expect(await store.take(hash)).toBeUndefined();
  });

  test('taken at +59 s: the grant', async () => {
    const { hash, grant } = await stored(undefined, 60);
    expect(await store.take(hash, new Date(Date.now() + 59_000))).toEqual(grant);
  });
});

describe('of uses racing for one code, exactly one gets its grant', () => {
  test('10 concurrent takes: one grant, nine nothing', async () => {
    const { hash, grant } = await stored();
    const answers = await Promise.all(Array.from({ length: 10 }, () => store.take(hash)));
    expect(answers.filter((answer) => answer !== undefined)).toEqual([grant]);
  });
});
