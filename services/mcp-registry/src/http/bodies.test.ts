import { AppError } from '@ars/errors';
import { parsePutMcpServer } from './bodies.js';

/** The 400 a body gets: its message, checked never to contain `secret`. */
function refusal(body: unknown, secret = 'SECRET-VALUE-42'): string {
  try {
    parsePutMcpServer(body);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(400);
    expect((error as AppError).code).toBe('BAD_REQUEST');
    expect((error as AppError).message).not.toContain(secret);
    return (error as AppError).message;
  }
  throw new Error('expected a refusal');
}

describe('the settings body is {enabled?: boolean (default true), config}; config is exactly one of the command shape or the URL shape', () => {
  test('the command shape, enabled defaulting to true', () => {
    expect(parsePutMcpServer({ config: { command: 'npx', args: ['-y', 'server'], env: { TOKEN: 'x' } } })).toEqual({
      enabled: true,
      config: { command: 'npx', args: ['-y', 'server'], env: { TOKEN: 'x' } },
    });
  });
  test('the URL shape, enabled false kept', () => {
    expect(parsePutMcpServer({ enabled: false, config: { url: 'https://mcp.example.com/mcp', http_headers: { Authorization: 'Bearer x' } } })).toEqual({
      enabled: false,
      config: { url: 'https://mcp.example.com/mcp', http_headers: { Authorization: 'Bearer x' } },
    });
  });
  test('no config, a config of neither shape, both shapes mixed, an unknown key: each named', () => {
    expect(refusal({})).toBe('config is required');
    expect(refusal({ config: 'SECRET-VALUE-42' })).toBe('config must be an object');
    expect(refusal({ config: {} })).toBe('config must be the command shape {command, args?, env?} or the URL shape {url, http_headers?}');
    expect(refusal({ config: { command: 'x', url: 'https://a.example' } })).toBe('config.url is not allowed');
    expect(refusal({ config: { url: 'https://a.example', extra: 1 } })).toBe('config.extra is not allowed');
    expect(refusal({ config: { command: 'x' }, name: 'n' })).toBe('name is not allowed');
    expect(refusal({ enabled: 'yes', config: { command: 'x' } })).toBe('enabled must be a boolean');
  });
});

describe('a bad value is named by its field, and never quoted (a config is secret)', () => {
  test('command shape: command, args and env', () => {
    expect(refusal({ config: { command: '' } })).toBe('config.command must not be empty');
    expect(refusal({ config: { command: 'x', args: 'SECRET-VALUE-42' } })).toBe('config.args must be an array');
    expect(refusal({ config: { command: 'x', args: [1] } })).toBe('config.args[0] must be a string');
    expect(refusal({ config: { command: 'x', env: { TOKEN: 42 } } })).toBe('config.env.TOKEN must be a string');
    expect(refusal({ config: { command: 'x', env: { 'BAD NAME': 'SECRET-VALUE-42' } } })).toMatch(/^config\.env /);
  });
  test('URL shape: a non-http(s) URL, a header value with a line break, a bad header name', () => {
    expect(refusal({ config: { url: 'ftp://SECRET-VALUE-42@example.com' } })).toBe('config.url must be an http or https URL');
    expect(refusal({ config: { url: 'SECRET-VALUE-42' } })).toBe('config.url must be an absolute http or https URL');
    expect(refusal({ config: { url: 'https://a.example', http_headers: { Authorization: 'Bearer SECRET-VALUE-42\r\nX: y' } } })).toBe(
      'config.http_headers.Authorization has an invalid format',
    );
    expect(refusal({ config: { url: 'https://a.example', http_headers: { 'a b': 'SECRET-VALUE-42' } } })).toMatch(/^config\.http_headers /);
  });
});

describe('sizes are bounded: 100 args, 100 env or header entries, value lengths', () => {
  test('one over each limit is refused, naming the limit', () => {
    expect(refusal({ config: { command: 'x', args: Array.from({ length: 101 }, () => 'a') } })).toBe('config.args must have at most 100 items');
    const env = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`K${i}`, 'v']));
    expect(refusal({ config: { command: 'x', env } })).toMatch(/^config\.env must/);
    expect(refusal({ config: { command: 'x', env: { K: 'v'.repeat(8193) } } })).toBe('config.env.K must be at most 8192 characters');
    expect(refusal({ config: { url: `https://a.example/${'p'.repeat(2048)}` } })).toBe('config.url must be at most 2048 characters');
  });
});
