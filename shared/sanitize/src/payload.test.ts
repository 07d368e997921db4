import { EVENT_LIMITS, REDACTED, isSensitiveKey, jsonBytes, knownSecrets, redactSecrets, sanitizePayload, sanitizeText } from '@ars/sanitize';

const everyString = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(everyString) : [];
const depthOf = (value: unknown): number => (value && typeof value === 'object' ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0);

describe('sensitive keys are redacted: environment variables, source-host tokens, API keys, authorization headers, AI billing source', () => {
  test.each([
    'env',
    'environment',
    'GITHUB_TOKEN',
    'accessToken',
    'OPENAI_API_KEY',
    'api-key',
    'apiKeySource',
    'authorization',
    'Authorization',
    'http_headers',
    'password',
    'client_secret',
    'AWS_SECRET_ACCESS_KEY',
    'cookie',
    'billing_source',
  ])('%s is sensitive', (key) => {
    expect(isSensitiveKey(key)).toBe(true);
    expect(sanitizePayload({ [key]: 'value-that-must-go', keep: 'visible' })).toEqual({ [key]: REDACTED, keep: 'visible' });
  });

  test.each(['input_tokens', 'output_tokens', 'command', 'toolName', 'exit_code', 'session_id'])('%s is not', (key) => {
    expect(isSensitiveKey(key)).toBe(false);
  });

  test('a nested env map is redacted whole, wherever it is', () => {
    const result = sanitizePayload({ tool: { config: { env: { OPENAI_API_KEY: 'sk-abc', HOME: '/root' } } } });
    expect(result).toEqual({ tool: { config: { env: REDACTED } } });
  });
});

describe('secret values are redacted inside strings, so none is findable in what GET /events returns', () => {
  test.each([
    ['an env dump', 'HOME=/root\nOPENAI_API_KEY=sk-proj-abcdefghijklmnop1234\nPATH=/bin', 'sk-proj-abcdefghijklmnop1234'],
    ['a GitHub token', 'git clone https://x-access-token:ghs_abcdefghijklmnopqrstuvwx12@github.com/a/b', 'ghs_abcdefghijklmnopqrstuvwx12'],
    ['a bearer header', 'curl -H "Authorization: Bearer abcdef123456789xyz" https://api', 'abcdef123456789xyz'],
    ['an Anthropic key', 'key is sk-ant-api03-abcdefghijklmnopqrstuv', 'sk-ant-api03-abcdefghijklmnopqrstuv'],
    ['a PAT of this service', `token tok_${'a'.repeat(32)}`, `tok_${'a'.repeat(32)}`],
    ['a quoted assignment', 'export ANTHROPIC_AUTH_TOKEN="s3cr3t value"', 's3cr3t value'],
  ])('%s', (_name, text, secret) => {
    const result = sanitizePayload({ output: text, list: [text], nested: { deeper: text } });
    for (const s of everyString(result)) expect(s).not.toContain(secret);
    // A URL's credentials become `***@` (one convention with sandbox logs and git errors).
    expect(JSON.stringify(result)).toMatch(/\[REDACTED\]|:\/\/\*\*\*@/);
  });

  test('known secret values given by the caller are redacted anywhere', () => {
    expect(redactSecrets('the key plain-looking-value-9 leaked', { knownSecrets: knownSecrets(['plain-looking-value-9']) })).toBe(`the key ${REDACTED} leaked`);
  });

  test('ordinary text is untouched', () => {
    expect(redactSecrets('ls -la && npm test')).toBe('ls -la && npm test');
    expect(sanitizeText('There is a README.md.')).toBe('There is a README.md.');
  });
});

describe('strings over 2,000 characters are truncated', () => {
  test('a 5,000-character string is cut to at most 2,000 and says so', () => {
    const result = sanitizePayload({ output: 'x'.repeat(5_000) });
    const output = result.output as string;
    expect(output.length).toBeLessThanOrEqual(EVENT_LIMITS.maxStringLength);
    expect(output).toMatch(/truncated 3000 chars\]$/);
  });
  test('exactly 2,000 characters stay whole', () => {
    expect(sanitizePayload({ output: 'y'.repeat(2_000) }).output).toBe('y'.repeat(2_000));
  });
  test('messages are truncated the same way', () => {
    expect(sanitizeText('z'.repeat(3_000))!.length).toBeLessThanOrEqual(2_000);
  });
});

describe('arrays and objects are capped at 25 items', () => {
  test('an array of 100 keeps 24 and says how many more', () => {
    const items = sanitizePayload({ items: Array.from({ length: 100 }, (_, i) => i) }).items as unknown[];
    expect(items).toHaveLength(25);
    expect(items[24]).toBe('[76 more items]');
  });
  test('an object of 40 keys keeps 24 and says how many more', () => {
    const wide = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]));
    const result = sanitizePayload({ wide }).wide as Record<string, unknown>;
    expect(Object.keys(result)).toHaveLength(25);
    expect(result['…']).toBe('[16 more keys]');
  });
  test('the payload object itself is capped', () => {
    const wide = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i]));
    expect(Object.keys(sanitizePayload(wide))).toHaveLength(25);
  });
});

describe('depth is capped at 3', () => {
  test('deeper containers become a summary string', () => {
    const result = sanitizePayload({ a: { b: { c: { d: { e: 1 } } } } });
    expect(result).toEqual({ a: { b: { c: '[object with 1 keys]' } } });
    expect(depthOf(result)).toBeLessThanOrEqual(EVENT_LIMITS.maxDepth);
  });
});

describe('payloads are capped at 20 KB of JSON', () => {
  test('25 strings of 2,000 characters (50 KB) are cut until the JSON fits', () => {
    const big = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`s${i}`, 'q'.repeat(2_000)]));
    const result = sanitizePayload({ big, more: big });
    expect(jsonBytes(result)).toBeLessThanOrEqual(EVENT_LIMITS.maxJsonBytes);
  });
  test('a payload within every limit is unchanged', () => {
    const small = { command: 'ls', exit_code: 0, output: 'README.md\n', usage: { input_tokens: 10, output_tokens: 2 } };
    expect(sanitizePayload(small)).toEqual(small);
  });
  test('a non-object payload is wrapped, never dropped', () => {
    expect(sanitizePayload('text')).toEqual({ value: 'text' });
  });
});

describe('a key that is itself a secret is redacted too (the key replaced)', () => {
  test('a token used as an object key', () => {
    const token = `ghp_${'k'.repeat(36)}`;
    const result = sanitizePayload({ [token]: 'x', [`tok_${'a'.repeat(32)}`]: 'y', plain: 'z' });
    expect(JSON.stringify(result)).not.toMatch(/ghp_k|tok_a/);
    expect(result).toEqual({ [REDACTED]: 'x', [`${REDACTED} (2)`]: 'y', plain: 'z' });
  });
});
