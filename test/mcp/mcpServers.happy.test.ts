// The tool-server registry on the whole stack through HTTP: the web app's settings routes (browser
// session) create, replace, list and delete; validation answers 400 naming the field; the public
// `GET /mcp/servers` answers the configs decrypted to their owner; a development account has two
// example servers; svc_list_mcp_servers (the official SDK Client) shows them with secrets masked.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { dataOf, errorOf, tenant, type Account, type CreatedToken } from '../support/accounts.js';
import { mcpClient, publicServers, toolServerSettings } from '../support/mcpServers.js';
import { sharedSystem } from '@ars/testenv';

const system = sharedSystem();

let account: Account;
let token: CreatedToken;
let settings: ReturnType<typeof toolServerSettings>;
beforeAll(async () => {
  ({ account, token } = await tenant(system().baseUrl));
  settings = toolServerSettings(system().baseUrl, account);
}, 60_000);

const commandServer = {
  config: { command: 'node', args: ['server.js', '--port', '0', '--api-key', 'happy-arg-secret'], env: { API_TOKEN: 'happy-env-secret' } },
};
const urlServer = { enabled: false, config: { url: 'https://tools.example.test/mcp', http_headers: { Authorization: 'Bearer happy-header-secret' } } };

describe('a development account has two example servers: a command shape with an env secret, a URL shape with an Authorization header', () => {
  test('POST /api/dev/accounts: the new user’s list has github (command, env) and docs-search (url, Authorization)', async () => {
    const { account: fresh, token: freshToken } = await tenant(system().baseUrl);
    const { servers } = dataOf(await publicServers(system().baseUrl, freshToken.token));
    expect(servers.map((server) => server.name)).toEqual(['docs-search', 'github']);
    expect(servers[1]).toMatchObject({ enabled: true, config: { command: 'npx', env: { GITHUB_PERSONAL_ACCESS_TOKEN: expect.stringMatching(/^example-/) } } });
    expect(servers[0]).toMatchObject({
      enabled: true,
      config: { url: expect.stringMatching(/^https:/), http_headers: { Authorization: expect.stringMatching(/^Bearer /) } },
    });
    expect(dataOf(await toolServerSettings(system().baseUrl, fresh).list()).servers).toHaveLength(2);
  });
});

describe('the settings routes create or replace by name, list by name and delete, on the browser session', () => {
  test('PUT creates (201, enabled defaults to true), PUT again replaces (200), GET lists by name with dates, DELETE removes (then 404)', async () => {
    const created = await settings.put('zeta-tools', commandServer);
    expect(created.status).toBe(201);
    expect(dataOf(created)).toMatchObject({ created: true, server: { name: 'zeta-tools', enabled: true, config: commandServer.config } });

    const second = await settings.put('alpha.remote', urlServer);
    expect(second.status).toBe(201);

    const replaced = await settings.put('zeta-tools', { enabled: false, config: { command: 'python3', args: ['-m', 'srv'] } });
    expect(replaced.status).toBe(200);
    expect(dataOf(replaced)).toMatchObject({
      created: false,
      server: { name: 'zeta-tools', enabled: false, config: { command: 'python3', args: ['-m', 'srv'] } },
    });

    const { servers } = dataOf(await settings.list());
    expect(servers.map((server) => server.name)).toEqual(['alpha.remote', 'docs-search', 'github', 'zeta-tools']);
    const zeta = servers.find((server) => server.name === 'zeta-tools');
    expect(zeta?.config).toEqual({ command: 'python3', args: ['-m', 'srv'] });
    expect(Date.parse(zeta?.updatedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(zeta?.createdAt ?? ''));

    const deleted = await settings.delete('zeta-tools');
    expect(dataOf(deleted)).toEqual({ server: { name: 'zeta-tools' }, deleted: true });
    const again = await settings.delete('zeta-tools');
    expect(again.status).toBe(404);
    expect(errorOf(again)).toEqual({ code: 'NOT_FOUND', message: 'Tool server not found' });
  });
});

describe('GET /mcp/servers answers the owner’s servers decrypted, by name (CONTRACT.md, McpServerItem)', () => {
  test('exactly {name, enabled, config} with every value as it was stored', async () => {
    await settings.put('alpha.remote', urlServer);
    const { servers } = dataOf(await publicServers(system().baseUrl, token.token));
    const alpha = servers.find((server) => server.name === 'alpha.remote');
    expect(alpha).toEqual({ name: 'alpha.remote', ...urlServer });
    for (const server of servers) expect(Object.keys(server).sort()).toEqual(['config', 'enabled', 'name']);
    expect(servers.map((server) => server.name)).toEqual([...servers.map((server) => server.name)].sort());
  });
});

describe('a bad name or body is 400 BAD_REQUEST naming the field, in the contract envelope', () => {
  test.each([
    ['a config of neither shape', 'ok-name', { config: {} }, 'config must be the command shape {command, args?, env?} or the URL shape {url, http_headers?}'],
    ['no config', 'ok-name', { enabled: true }, 'config is required'],
    ['both shapes', 'ok-name', { config: { command: 'x', url: 'https://a.example' } }, 'config.url is not allowed'],
    ['a non-http URL', 'ok-name', { config: { url: 'file:///etc/passwd' } }, 'config.url must be an http or https URL'],
    ['an env value not a string', 'ok-name', { config: { command: 'x', env: { A: 1 } } }, 'config.env.A must be a string'],
    ['101 args', 'ok-name', { config: { command: 'x', args: Array.from({ length: 101 }, () => 'a') } }, 'config.args must have at most 100 items'],
    ['a name with a space', 'bad name', commandServer, 'name must be 1–100 letters, digits, `_`, `.` or `-` (not `.` or `..`)'],
    ['a name over 100 characters', 'n'.repeat(101), commandServer, 'name must be 1–100 letters, digits, `_`, `.` or `-` (not `.` or `..`)'],
  ])('%s', async (_what, name, body, message) => {
    const answer = await settings.put(name, body);
    expect(answer.status).toBe(400);
    expect(errorOf(answer)).toEqual({ code: 'BAD_REQUEST', message });
  });

  test('the 51st server of one user is 409 CONFLICT; replacing one of the 50 is still fine', async () => {
    const { account: full } = await tenant(system().baseUrl);
    const fullSettings = toolServerSettings(system().baseUrl, full);
    // The two examples, then 48 more.
    for (let i = 0; i < 48; i += 1) expect((await fullSettings.put(`s${i}`, commandServer)).status).toBe(201);
    const refused = await fullSettings.put('one-too-many', commandServer);
    expect(refused.status).toBe(409);
    expect(errorOf(refused)).toEqual({ code: 'CONFLICT', message: 'At most 50 tool servers per user; delete one first' });
    expect((await fullSettings.put('s0', urlServer)).status).toBe(200);
  });
});

describe('svc_list_mcp_servers (the official SDK Client) shows every env value and every header value masked, and a command line with its secrets redacted', () => {
  let client: Client;
  afterAll(async () => {
    await client?.close();
  });

  test('names, commands and URLs as stored; values of env and http_headers are ••••; a sensitive flag’s value in args is [REDACTED]', async () => {
    await settings.put('zeta-tools', commandServer);
    client = await mcpClient(system().baseUrl, token.token);
    const result = (await client.callTool({ name: 'svc_list_mcp_servers', arguments: {} })) as {
      isError?: boolean;
      structuredContent?: { servers: { name: string; config: Record<string, unknown> }[] };
      content: { text?: string }[];
    };
    expect(result.isError).toBe(false);
    const servers = result.structuredContent?.servers ?? [];
    expect(servers.find((server) => server.name === 'zeta-tools')?.config).toEqual({
      ...commandServer.config,
      args: ['server.js', '--port', '0', '--api-key', '[REDACTED]'],
      env: { API_TOKEN: '••••' },
    });
    expect(servers.find((server) => server.name === 'alpha.remote')?.config).toEqual({ url: urlServer.config.url, http_headers: { Authorization: '••••' } });
    expect(servers.find((server) => server.name === 'github')?.config.env).toEqual({ GITHUB_PERSONAL_ACCESS_TOKEN: '••••' });
    const text = JSON.stringify(result);
    for (const secret of ['happy-env-secret', 'happy-arg-secret', 'happy-header-secret', 'example-github-token', 'example-docs-token'])
      expect(text).not.toContain(secret);
  });
});
