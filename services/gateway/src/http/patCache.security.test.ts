// The public routes keep the PATs they looked up (auth/patCache.ts). CONTRACT.md, Authentication:
// a revoked or expired PAT is refused at its very next request — here, by a gateway that keeps it
// while another gateway of the same deployment revokes it, and after Redis lost the revocation marks.
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { MongoClient } from 'mongodb';
import { freePort } from '@ars/testenv';
import {
  bearer,
  call,
  errorOf,
  gatewaySuite,
  startGatewayUnderTest,
  startRedis,
  stopRedis,
  tenant,
  storeExpiringToken,
  type GatewayUnderTest,
} from '../testing/index.js';

const suite = gatewaySuite();
/**
 * A stored PAT's life in the expiry tests: its first request must be answered before it ends, on a
 * loaded CI host too (two seconds were too few beside a whole CI run).
 */
const EXPIRES_IN_MS = 6_000;
let redis: ChildProcess;
let redisUrl: string;
/** Two gateways of one deployment: one MongoDB database, one Redis. */
let first: GatewayUnderTest;
let second: GatewayUnderTest;

beforeAll(async () => {
  const port = await freePort();
  redis = await startRedis(port);
  redisUrl = `redis://127.0.0.1:${port}`;
  first = await startGatewayUnderTest({ system: suite.system, redisUrl });
  second = await startGatewayUnderTest({ system: suite.system, redisUrl, mongoDb: first.mongoDb });
}, 90_000);
afterAll(async () => {
  await second?.stop();
  await first?.stop();
  if (redis) await stopRedis(redis);
}, 60_000);

function repos(gateway: GatewayUnderTest, token: string): ReturnType<typeof call> {
  return call(`${gateway.baseUrl}/api/v1/svc/repos`, { headers: bearer(token) });
}

async function tokens<T>(use: (tokens: ReturnType<ReturnType<MongoClient['db']>['collection']>) => Promise<T>): Promise<T> {
  const client = await MongoClient.connect(first.mongoUrl);
  try {
    return await use(client.db(first.mongoDb).collection('personal_access_tokens'));
  } finally {
    await client.close();
  }
}

describe('a PAT revoked through one gateway is refused at its very next request by another that keeps it', () => {
  test('used twice through the second gateway, revoked through the first: the next request to the second is 401 revoked', async () => {
    const { account, token } = await tenant(first.baseUrl);
    expect((await repos(second, token.token)).status).toBe(200);
    expect((await repos(second, token.token)).status).toBe(200);

    const revoked = await call(`${first.baseUrl}/api/settings/api-keys/${token.id}`, { method: 'DELETE', headers: { cookie: account.sessionCookie } });
    expect(revoked.status).toBe(200);

    const next = await repos(second, token.token);
    expect(next.status).toBe(401);
    expect(errorOf(next)).toEqual({ code: 'UNAUTHORIZED', message: 'Access token has been revoked' });
  });

  test("another user's token id revokes nothing: that token stays usable where it is kept", async () => {
    const owner = await tenant(first.baseUrl);
    const stranger = await tenant(first.baseUrl);
    expect((await repos(second, owner.token.token)).status).toBe(200);
    const refused = await call(`${first.baseUrl}/api/settings/api-keys/${owner.token.id}`, {
      method: 'DELETE',
      headers: { cookie: stranger.account.sessionCookie },
    });
    expect(refused.status).toBe(404);
    expect((await repos(second, owner.token.token)).status).toBe(200);
    expect((await repos(first, owner.token.token)).status).toBe(200);
  });
});

describe('a kept PAT past its expiry is refused at its very next request', () => {
  test('a PAT expiring in seconds: 200 while valid, 401 expired right after, from the gateway that keeps it', async () => {
    const { account } = await tenant(first.baseUrl);
    const { plaintext, expiresAt } = await storeExpiringToken(first, account.userId, EXPIRES_IN_MS);
    expect((await repos(second, plaintext)).status).toBe(200);
    expect((await repos(second, plaintext)).status).toBe(200);
    await sleep(Math.max(0, expiresAt.getTime() - Date.now()) + 50);
    const next = await repos(second, plaintext);
    expect(next.status).toBe(401);
    expect(errorOf(next)).toEqual({ code: 'UNAUTHORIZED', message: 'Access token has expired' });
  });
});

describe('Redis lost its data, revocation marks included: every kept PAT is read again from MongoDB', () => {
  test('a revocation written to MongoDB alone is not seen while the PAT is kept; once Redis lost its data, the next request is 401 revoked', async () => {
    const { token } = await tenant(first.baseUrl);
    // Twice: the second gateway's first answer from Redis may be its first look at the marks' epoch, which empties its cache.
    expect((await repos(second, token.token)).status).toBe(200);
    expect((await repos(second, token.token)).status).toBe(200);
    // A revocation whose mark is gone, as a Redis that lost its data leaves it.
    await tokens((collection) => collection.updateOne({ _id: token.id as never }, { $set: { revokedAt: new Date() } }));
    expect((await repos(second, token.token)).status).toBe(200);

    const client = new Redis(redisUrl);
    try {
      await client.flushall();
    } finally {
      client.disconnect();
    }
    const next = await repos(second, token.token);
    expect(next.status).toBe(401);
    expect(errorOf(next)).toEqual({ code: 'UNAUTHORIZED', message: 'Access token has been revoked' });
  });
});
