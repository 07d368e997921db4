import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FromSchema } from 'json-schema-to-ts';
import { byName, isMcpServerName, MCP_SERVER_ITEM_SCHEMA, sealContext, urlProblem, type McpServerItem } from './mcpServers.js';
import { devExampleServers } from './devExamples.js';

// McpServerItem and MCP_SERVER_ITEM_SCHEMA are one shape: this fails `npm run typecheck` when either drifts.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const same = <T extends true>(): T => true as T;
same<Same<McpServerItem, FromSchema<typeof MCP_SERVER_ITEM_SCHEMA>>>();

describe('a tool server name is 1–100 characters of A-Z a-z 0-9 _ . - (not . or ..)', () => {
  test.each(['github', 'docs.search', 'a', 'A_b-c.9', 'x'.repeat(100), '...'])('%s is a name', (name) => {
    expect(isMcpServerName(name)).toBe(true);
  });
  test.each(['', 'x'.repeat(101), 'with space', 'slash/name', '.', '..', 'ünï', 'a:b'])('%p is not', (name) => {
    expect(isMcpServerName(name)).toBe(false);
  });
});

describe('config.url is an absolute http or https URL; the problem never quotes it', () => {
  test('http and https are accepted; other schemes and relative URLs are refused without echoing the value', () => {
    expect(urlProblem('https://mcp.example.com/mcp')).toBeNull();
    expect(urlProblem('http://127.0.0.1:3000/mcp?token=abc')).toBeNull();
    expect(urlProblem('file:///etc/secret-path')).toBe('config.url must be an http or https URL');
    expect(urlProblem('not a url secret-xyz')).toBe('config.url must be an absolute http or https URL');
  });
});

describe('servers are listed by name; a sealed config is bound to its user and name', () => {
  test('byName sorts in code point order without changing its input', () => {
    const input = [{ name: 'b' }, { name: 'B' }, { name: 'a' }];
    expect(byName(input).map((item) => item.name)).toEqual(['B', 'a', 'b']);
    expect(input.map((item) => item.name)).toEqual(['b', 'B', 'a']);
  });
  test('the context names user and name', () => {
    expect(sealContext('user-1', 'github')).toBe('mcp-server:user-1:github');
  });
});

describe('a development account gets two example servers: a command shape with an env secret, a URL shape with an Authorization header', () => {
  test('their secret values are distinct per account', () => {
    const [command, url] = devExampleServers('abc');
    expect(command).toMatchObject({
      name: 'github',
      enabled: true,
      config: { command: 'npx', env: { GITHUB_PERSONAL_ACCESS_TOKEN: expect.stringContaining('abc') } },
    });
    expect(url).toMatchObject({
      name: 'docs-search',
      enabled: true,
      config: { url: expect.stringMatching(/^https:/), http_headers: { Authorization: expect.stringContaining('abc') } },
    });
  });
});

describe('MCP_SERVER_ITEM_SCHEMA describes the items listed: both config shapes, nothing else', () => {
  const validate = new Ajv2020({ strict: true }).compile(MCP_SERVER_ITEM_SCHEMA);
  test('the example servers (a command shape, a URL shape) match it; a config of neither shape does not', () => {
    for (const server of devExampleServers('abc')) expect(validate(server)).toBe(true);
    expect(validate({ name: 'x', enabled: true, config: { command: 'npx', url: 'https://example.com' } })).toBe(false);
  });
});
