import { byName, isMcpServerName, sealContext, urlProblem } from './mcpServers.js';
import { devExampleServers } from './devExamples.js';

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
