// mcp-registry in-process on the suite's MongoDB and Kafka (its own database), through its internal
// HTTP API: the internal token guards every route; the key rotates (configs sealed under the old key
// open once it is a previous key, new writes name the new key id, and a start re-seals the rest
// under the new key, so the old one can go); the dev route is absent in
// production; and at log level debug, nothing of a config is in the service's log lines.
import { randomBytes, randomUUID } from 'node:crypto';
import { createLogger } from '@ars/logger';
import { freePort, internalCaller, testInfrastructure, type InternalCall } from '@ars/testenv';
import { connectMongo } from '@ars/mongo';
import { startMcpRegistry, type RunningMcpRegistry } from '../mcpRegistry.js';

const infra = testInfrastructure();
const token = randomBytes(24).toString('base64url');
const dbName = `mcp_registry_test_${randomBytes(6).toString('hex')}`;
const logLines: string[] = [];
const running: RunningMcpRegistry[] = [];

async function start(env: Record<string, string>): Promise<{ service: RunningMcpRegistry; call: InternalCall }> {
  const service = await startMcpRegistry({
    handleSignals: false,
    exit: () => undefined,
    logger: createLogger({ service: 'mcp-registry', level: 'debug', destination: { write: (line: string) => void logLines.push(line) } }),
    env: {
      PORT: String(await freePort()),
      MONGO_URL: infra.mongoUrl,
      MONGO_DB: dbName,
      KAFKA_BROKERS: infra.kafkaBrokers.join(','),
      INTERNAL_TOKEN: token,
      ...env,
    },
  });
  running.push(service);
  return { service, call: internalCaller({ url: service.url, token, caller: 'mcp-registry-test' }) };
}

const openDb = () => connectMongo({ url: infra.mongoUrl, dbName, logger: createLogger({ service: 'test', level: 'silent' }), appName: 'test' });

afterAll(async () => {
  await Promise.allSettled(running.map((service) => service.shutdown('test over')));
  const mongo = await openDb();
  await mongo.db.dropDatabase();
  await mongo.close();
}, 60_000);

const oldKey = `2025:${randomBytes(32).toString('base64')}`;
const newKey = `2026:${randomBytes(32).toString('base64')}`;
const SECRET = `rotation-secret-${randomUUID()}`;

describe('every internal route needs the internal token', () => {
  test('no token or a wrong one is 401 UNAUTHORIZED', async () => {
    const { service } = await start({ MCP_REGISTRY_SECRETS_KEY: oldKey });
    const bare = await fetch(`${service.url}/internal/users/u/mcp/servers`);
    expect(bare.status).toBe(401);
    const wrong = await fetch(`${service.url}/internal/users/u/settings/mcp-servers/x`, { method: 'PUT', headers: { 'x-internal-token': 'x'.repeat(32) } });
    expect(wrong.status).toBe(401);
    await service.shutdown('next');
  }, 60_000);
});

describe('the key rotates: what the old key sealed opens once it is a previous key; new writes name the new key id', () => {
  test('sealed under 2025, read after the restart with 2026 current and 2025 previous, rewritten under 2026', async () => {
    const user = `user-${randomUUID()}`;
    const first = await start({ MCP_REGISTRY_SECRETS_KEY: oldKey });
    const put = await first.call('PUT', `/internal/users/${user}/settings/mcp-servers/srv`, { config: { command: 'x', env: { TOKEN: SECRET } } });
    expect(put.status).toBe(201);
    await first.service.shutdown('rotate');

    const keyIds = async () => {
      const mongo = await openDb();
      try {
        return (await mongo.db.collection('mcp_servers').find({ userId: user }).toArray()).map((doc) => (doc.sealedConfig as { keyId: string }).keyId);
      } finally {
        await mongo.close();
      }
    };
    expect(await keyIds()).toEqual(['2025']);

    // Without the old key the config cannot be opened: 500, naming the server and key id, not the value.
    const lost = await start({ MCP_REGISTRY_SECRETS_KEY: newKey });
    const refused = await lost.call('GET', `/internal/users/${user}/mcp/servers`);
    expect(refused.status).toBe(500);
    expect(refused.text).not.toContain(SECRET);
    await lost.service.shutdown('add the previous key');

    const rotated = await start({ MCP_REGISTRY_SECRETS_KEY: newKey, MCP_REGISTRY_SECRETS_PREVIOUS_KEYS: oldKey });
    const listed = await rotated.call<{ servers: { config: { env: Record<string, string> } }[] }>('GET', `/internal/users/${user}/mcp/servers`);
    expect(listed.status).toBe(200);
    expect(listed.data.servers[0]?.config.env.TOKEN).toBe(SECRET);
    const replaced = await rotated.call('PUT', `/internal/users/${user}/settings/mcp-servers/srv`, { config: { command: 'x', env: { TOKEN: SECRET } } });
    expect(replaced.status).toBe(200);
    expect(await keyIds()).toEqual(['2026']);
    await rotated.service.shutdown('next');
  }, 90_000);
});

describe('after a rotation every config is re-sealed under the current key at start, so the previous key can be dropped', () => {
  test('sealed under 2025; a start with 2026 current and 2025 previous re-seals it unasked and says so; a start with 2026 alone then opens it', async () => {
    const user = `user-${randomUUID()}`;
    const first = await start({ MCP_REGISTRY_SECRETS_KEY: oldKey });
    expect((await first.call('PUT', `/internal/users/${user}/settings/mcp-servers/srv`, { config: { command: 'x', env: { TOKEN: SECRET } } })).status).toBe(
      201,
    );
    await first.service.shutdown('rotate');
    const sealedDocs = async () => {
      const mongo = await openDb();
      try {
        return await mongo.db.collection('mcp_servers').find({ userId: user }).toArray();
      } finally {
        await mongo.close();
      }
    };
    const updatedAt = (await sealedDocs())[0]?.updatedAt;

    const linesBefore = logLines.length;
    const rotated = await start({ MCP_REGISTRY_SECRETS_KEY: newKey, MCP_REGISTRY_SECRETS_PREVIOUS_KEYS: oldKey });
    const done = 're-seal pass over tool server configs done: all under the current key';
    const deadline = Date.now() + 30_000;
    while (!logLines.slice(linesBefore).some((line) => line.includes(done)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const report = logLines.slice(linesBefore).find((line) => line.includes(done));
    expect(JSON.parse(report ?? '{}')).toMatchObject({ sealed: 'tool server configs', key_id: '2026', unopenable: 0, stopped: false });
    expect(JSON.parse(report ?? '{}').resealed).toBeGreaterThanOrEqual(1);
    const [doc] = await sealedDocs();
    expect((doc?.sealedConfig as { keyId: string }).keyId).toBe('2026');
    expect(doc?.updatedAt).toEqual(updatedAt);
    await rotated.service.shutdown('drop the previous key');

    const newOnly = await start({ MCP_REGISTRY_SECRETS_KEY: newKey });
    const listed = await newOnly.call<{ servers: { config: { env: Record<string, string> } }[] }>('GET', `/internal/users/${user}/mcp/servers`);
    expect(listed.status).toBe(200);
    expect(listed.data.servers[0]?.config.env.TOKEN).toBe(SECRET);
    await newOnly.service.shutdown('next');
  }, 90_000);
});

describe('the development examples route is absent in production', () => {
  test('ARS_ENV=production: 404 NOT_FOUND', async () => {
    const production = await start({ MCP_REGISTRY_SECRETS_KEY: newKey, ARS_ENV: 'production' });
    const answer = await production.call('POST', `/internal/dev/users/u-${randomUUID()}/mcp-servers/examples`, {});
    expect(answer.status).toBe(404);
    await production.service.shutdown('next');
  }, 60_000);
});

describe('no config value is in the service’s log, even at debug level and on refusals and failures', () => {
  test('the log lines of everything above hold requests and never the secret', () => {
    expect(logLines.some((line) => line.includes('/settings/mcp-servers/srv'))).toBe(true);
    expect(logLines.filter((line) => line.includes(SECRET))).toEqual([]);
  });
});
