// The tool-server registry's secrets on the whole stack: the settings routes take a browser session
// only (a PAT is 403 there, as on the PAT routes); each user sees their own servers only; MongoDB
// holds no config in plaintext; and no config value reaches any log — the stack's log (every
// service's output, ARS_TEST_STACK_LOG) is grepped after listing over REST and over MCP.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { bearer, call, dataOf, errorOf, tenant, type Account, type CreatedToken } from '../support/accounts.js';
import { mcpClient, publicServers, toolServerSettings } from '../support/mcpServers.js';
import { ownSystem } from '@ars/testenv';

// Every service's output goes to this file (startSystem of @ars/testenv reads it when the stack starts).
const logDir = mkdtempSync(join(tmpdir(), 'ars-mcp-registry-log-'));
const logFile = join(logDir, 'stack.log');
process.env.ARS_TEST_STACK_LOG = logFile;
const system = ownSystem('it reads every service’s output, at info level (ARS_TEST_STACK_LOG)');
afterAll(() => {
  rmSync(logDir, { recursive: true, force: true });
});

/** Distinctive values: any of them in a log, an answer it should not be in, or MongoDB is a leak. */
const SECRETS = {
  env: 'zq-env-secret-7Hk2Lw9Pq',
  arg: 'zq-arg-value-3Nd8Rt5Vx',
  header: 'zq-header-secret-5Mb1Xc4Jy',
  url: 'zq-url-token-8Gf6Sa2Kw',
  rejected: 'zq-rejected-secret-2Wp9Qe7Ln',
};
const COMMAND = { command: 'node', args: ['server.js', `--key=${SECRETS.arg}`], env: { SECRET_TOKEN: SECRETS.env } };
const URL_SHAPE = { url: `https://tools.example.test/mcp?token=${SECRETS.url}`, http_headers: { Authorization: `Bearer ${SECRETS.header}` } };

let owner: { account: Account; token: CreatedToken };
let other: { account: Account; token: CreatedToken };
beforeAll(async () => {
  owner = await tenant(system().baseUrl);
  other = await tenant(system().baseUrl);
  const settings = toolServerSettings(system().baseUrl, owner.account);
  expect((await settings.put('secret-command', { config: COMMAND })).status).toBe(201);
  expect((await settings.put('secret-remote', { config: URL_SHAPE })).status).toBe(201);
}, 60_000);

describe('the settings routes need a browser session: a PAT is 403 there, as on the PAT routes', () => {
  test.each([
    ['GET', '/api/settings/mcp-servers', undefined],
    ['PUT', '/api/settings/mcp-servers/by-token', { config: { command: 'x' } }],
    ['DELETE', '/api/settings/mcp-servers/secret-command', undefined],
  ])('%s %s with a bearer PAT → 403 FORBIDDEN', async (method, path, json) => {
    const answer = await call(`${system().baseUrl}${path}`, { method, headers: bearer(owner.token.token), ...(json ? { json } : {}) });
    expect(answer.status).toBe(403);
    expect(errorOf(answer)).toEqual({
      code: 'FORBIDDEN',
      message: 'Personal access tokens cannot manage tool server settings; sign in with a browser session',
    });
  });

  test('no session is 401; a write from a foreign browser origin is 403', async () => {
    expect((await call(`${system().baseUrl}/api/settings/mcp-servers`)).status).toBe(401);
    const foreign = await call(`${system().baseUrl}/api/settings/mcp-servers/x`, {
      method: 'PUT',
      headers: { cookie: owner.account.sessionCookie, origin: 'https://evil.example' },
      json: { config: { command: 'x' } },
    });
    expect(foreign.status).toBe(403);
    expect(errorOf(foreign).code).toBe('FORBIDDEN');
  });
});

describe('GET /mcp/servers answers the configs decrypted to their owner only', () => {
  test('the owner sees its values; another tenant sees its own examples, never the owner’s', async () => {
    const mine = dataOf(await publicServers(system().baseUrl, owner.token.token)).servers;
    expect(mine.find((server) => server.name === 'secret-command')?.config).toEqual(COMMAND);
    expect(mine.find((server) => server.name === 'secret-remote')?.config).toEqual(URL_SHAPE);
    const theirs = await publicServers(system().baseUrl, other.token.token);
    expect(dataOf(theirs).servers.map((server) => server.name)).toEqual(['docs-search', 'github']);
    expect(theirs.text).not.toContain('zq-');
    // Another user's server by name through the settings routes: not theirs to delete.
    expect((await toolServerSettings(system().baseUrl, other.account).delete('secret-command')).status).toBe(404);
    expect(dataOf(await publicServers(system().baseUrl, owner.token.token)).servers.map((server) => server.name)).toContain('secret-command');
  });
});

describe('configs are encrypted at rest: MongoDB holds the name and enabled in the clear, the config sealed (AES-256-GCM with a key id)', () => {
  test('the stored documents contain none of the values', async () => {
    const mongo = await MongoClient.connect(system().mongoUrl);
    try {
      const docs = await mongo.db('ars_mcp-registry').collection('mcp_servers').find({ userId: owner.account.userId }).toArray();
      expect(docs.map((doc) => doc.name).sort()).toEqual(['docs-search', 'github', 'secret-command', 'secret-remote']);
      for (const doc of docs) {
        expect(Object.keys(doc).sort()).toEqual(['_id', 'createdAt', 'enabled', 'name', 'sealedConfig', 'updatedAt', 'userId']);
        expect(doc.sealedConfig).toMatchObject({ alg: 'aes-256-gcm', keyId: expect.any(String) });
      }
      const stored = JSON.stringify(docs);
      for (const value of Object.values(SECRETS)) expect(stored).not.toContain(value);
      for (const plain of ['server.js', 'SECRET_TOKEN', 'tools.example.test', 'Authorization', 'example-github-token']) expect(stored).not.toContain(plain);
    } finally {
      await mongo.close();
    }
  });
});

describe('no config value reaches a log: REST list, svc_list_mcp_servers, settings and refused bodies leave none in any service’s output', () => {
  test('after every way of reading and writing configs, the stack log has lines of every service and none of the values', async () => {
    const base = system().baseUrl;
    const settings = toolServerSettings(base, owner.account);
    // Read them every way: REST (unmasked), the settings list, MCP (masked).
    expect(dataOf(await publicServers(base, owner.token.token)).servers).toHaveLength(4);
    expect(dataOf(await settings.list()).servers).toHaveLength(4);
    const client = await mcpClient(base, owner.token.token);
    try {
      const result = (await client.callTool({ name: 'svc_list_mcp_servers', arguments: {} })) as { isError?: boolean; content: { text?: string }[] };
      expect(result.isError).toBe(false);
      const shown = JSON.stringify(result);
      for (const value of [SECRETS.env, SECRETS.header, SECRETS.url]) expect(shown).not.toContain(value);
    } finally {
      await client.close();
    }
    // Write and refuse with secrets in the body: replaced, invalid (a header with a line break, a bad URL), not JSON.
    expect((await settings.put('secret-command', { enabled: false, config: COMMAND })).status).toBe(200);
    expect(
      (await settings.put('refused', { config: { url: 'https://a.example', http_headers: { Authorization: `${SECRETS.rejected}\r\nX: y` } } })).status,
    ).toBe(400);
    expect((await settings.put('refused', { config: { url: `ftp://${SECRETS.rejected}@a.example` } })).status).toBe(400);
    expect((await settings.put('refused', { config: { command: 'x', env: { [SECRETS.rejected]: 1 } } })).status).toBe(400);
    const notJson = await call(`${base}/api/settings/mcp-servers/refused`, {
      method: 'PUT',
      headers: { cookie: owner.account.sessionCookie, 'content-type': 'application/json' },
      body: `{"config": {"command": "${SECRETS.rejected}"`,
    });
    expect(notJson.status).toBe(400);

    // Let the last lines reach the file.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const log = readFileSync(logFile, 'utf8');
    for (const service of ['gateway', 'mcp-registry', 'catalog']) expect(log).toMatch(new RegExp(`^${service}\\s*\\|`, 'm'));
    expect(log).toMatch(/"path":"\/internal\/users\/[^/]+\/mcp\/servers"/);
    expect(log).toMatch(/"path":"\/api\/settings\/mcp-servers\/secret-command"/);
    const leaked = Object.entries(SECRETS).filter(([, value]) => log.includes(value));
    expect(leaked).toEqual([]);
    for (const plain of ['example-github-token', 'example-docs-token']) expect(log).not.toContain(plain);
  });
});
