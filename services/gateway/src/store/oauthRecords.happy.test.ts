// The OAuth records adapter on a real MongoDB: how long a dynamically registered client is kept.
// Registration is open, so a client record expires after a time unused; what is issued to it
// (codes, grants, tokens) keeps it, and it never expires before a refresh token of its own.
import { randomUUID } from 'node:crypto';
import { createLogger } from '@ars/logger';
import { connectMongo, type Mongo } from '@ars/mongo';
import { testInfrastructure } from '@ars/testenv';
import { OAUTH_RECORDS, oauthAdapterClass, recordIdOf, type OAuthAdapterClass, type OAuthRecordDocument } from './oauthRecords.js';

const UNUSED_CLIENT_TTL_SECONDS = 3_600;
const DAY_SECONDS = 86_400;

let mongo: Mongo;
let Adapter: OAuthAdapterClass;
beforeAll(async () => {
  mongo = await connectMongo({
    url: testInfrastructure().mongoUrl,
    dbName: `gateway-oauth-${randomUUID()}`,
    logger: createLogger({ service: 'test', level: 'silent' }),
    appName: 'test',
  });
  Adapter = oauthAdapterClass(mongo.db, { unusedClientTtlSeconds: UNUSED_CLIENT_TTL_SECONDS });
});
afterAll(async () => {
  await mongo?.db.dropDatabase();
  await mongo?.close();
});

/** Seconds from now to the client record's expiry, rounded. */
async function clientExpiresInSeconds(clientId: string): Promise<number | undefined> {
  const record = await mongo.db.collection<OAuthRecordDocument>(OAUTH_RECORDS).findOne({ _id: recordIdOf('Client', clientId) });
  return record?.expiresAt === undefined ? undefined : Math.round((record.expiresAt.getTime() - Date.now()) / 1000);
}

/** The expiry is set when a record is written and read a moment later: within two minutes of `seconds`, never past it. */
async function expectClientKeptFor(clientId: string, seconds: number): Promise<void> {
  const left = await clientExpiresInSeconds(clientId);
  expect(left).toBeGreaterThan(seconds - 120);
  expect(left).toBeLessThanOrEqual(seconds + 1);
}

async function registered(): Promise<string> {
  const clientId = randomUUID();
  await new Adapter('Client').upsert(clientId, { client_id: clientId, redirect_uris: ['http://127.0.0.1/callback'] });
  return clientId;
}

describe('a registered client expires OAUTH_UNUSED_CLIENT_TTL_SECONDS after its last use, never before its refresh tokens', () => {
  test('registered: kept for the unused-client time; the payload is the client metadata as registered', async () => {
    const clientId = await registered();
    await expectClientKeptFor(clientId, UNUSED_CLIENT_TTL_SECONDS);
    expect(await new Adapter('Client').find(clientId)).toEqual({ client_id: clientId, redirect_uris: ['http://127.0.0.1/callback'] });
  });

  test('a refresh token living longer than that keeps the client until the token expires', async () => {
    const clientId = await registered();
    await new Adapter('RefreshToken').upsert(randomUUID(), { jti: 'x', clientId, grantId: randomUUID() }, 30 * DAY_SECONDS);
    await expectClientKeptFor(clientId, 30 * DAY_SECONDS);
  });

  test('a shorter-lived record issued later (an authorization code) never brings the expiry in', async () => {
    const clientId = await registered();
    await new Adapter('Grant').upsert(randomUUID(), { jti: 'g', clientId }, 30 * DAY_SECONDS);
    await new Adapter('AuthorizationCode').upsert(randomUUID(), { jti: 'c', clientId, grantId: randomUUID() }, 60);
    await expectClientKeptFor(clientId, 30 * DAY_SECONDS);
  });

  test('a record of another client, or of none, leaves the client as it is', async () => {
    const clientId = await registered();
    await new Adapter('RefreshToken').upsert(randomUUID(), { jti: 'y', clientId: randomUUID() }, 30 * DAY_SECONDS);
    await new Adapter('Session').upsert(randomUUID(), { jti: 's', uid: randomUUID() }, DAY_SECONDS);
    await expectClientKeptFor(clientId, UNUSED_CLIENT_TTL_SECONDS);
  });

  test('once its time has passed the client is absent at once (before the TTL monitor deletes it)', async () => {
    const clientId = await registered();
    await mongo.db
      .collection<OAuthRecordDocument>(OAUTH_RECORDS)
      .updateOne({ _id: recordIdOf('Client', clientId) }, { $set: { expiresAt: new Date(Date.now() - 1_000) } });
    expect(await new Adapter('Client').find(clientId)).toBeUndefined();
  });
});
