import { REDACTED, knownSecrets, redactJsonLines, redactJsonValue, redactSecrets } from '@ars/sanitize';

const secrets = knownSecrets(['ars-run-0123456789abcdef']);
const GITHUB_TOKEN = `ghp_${'a'.repeat(36)}`;

// A record as Claude Code 2.1.330 writes it to its transcript: as text, the sensitive-assignment
// rule takes `"needsAuthMcpServers":[],` up to the next quote and the line is no longer JSON.
const CLAUDE_ATTACHMENT = JSON.stringify({
  parentUuid: '19236dfa-ba57-4b9a-b4ce-9b86ba2cd90c',
  attachment: { type: 'deferred_tools_delta', addedNames: ['CronCreate'], pendingMcpServers: [], needsAuthMcpServers: [], failedMcpServers: [] },
  type: 'attachment',
  uuid: 'ba6ec864-0000-4000-8000-000000000000',
});

describe('a JSON document redacted stays the same document: only its values change', () => {
  test('a Claude Code transcript record with an empty sensitive-named list is left byte for byte (as text, it stopped being JSON)', () => {
    expect(() => JSON.parse(redactSecrets(CLAUDE_ATTACHMENT))).toThrow();
    expect(redactJsonLines(CLAUDE_ATTACHMENT)).toBe(CLAUDE_ATTACHMENT);
  });

  test('strings under a sensitive key become [REDACTED] at any depth, arrays, objects and numbers stay where they were', () => {
    const value = { needsAuthMcpServers: ['github'], env: { HOME: '/root', N: 3 }, auth: { user: 'me', scopes: ['a'] }, usage: { input_tokens: 12 } };
    expect(redactJsonValue(value)).toEqual({
      needsAuthMcpServers: [REDACTED],
      env: { HOME: REDACTED, N: 3 },
      auth: { user: REDACTED, scopes: [REDACTED] },
      usage: { input_tokens: 12 },
    });
  });

  test('secrets inside any string are redacted as in text: known values, token shapes, assignments', () => {
    const value = { message: { content: [{ type: 'text', text: `use ars-run-0123456789abcdef and ${GITHUB_TOKEN}` }] }, cmd: 'PASSWORD=hunter22 make' };
    expect(redactJsonValue(value, { knownSecrets: secrets })).toEqual({
      message: { content: [{ type: 'text', text: `use ${REDACTED} and ${REDACTED}` }] },
      cmd: `PASSWORD=${REDACTED} make`,
    });
  });

  test('a key that is itself a secret is redacted too', () => {
    expect(redactJsonValue({ [GITHUB_TOKEN]: 1 })).toEqual({ [REDACTED]: 1 });
  });
});

describe('JSON Lines are redacted line by line: every JSON line stays JSON, every line stays a line', () => {
  test('JSON lines stay JSON, a torn line is redacted as text, blank lines and the final newline are kept', () => {
    const text = [CLAUDE_ATTACHMENT, JSON.stringify({ token: 'abc' }), `{"torn": "${GITHUB_TOKEN}`, '', ''].join('\n');
    const lines = redactJsonLines(text, { knownSecrets: secrets }).split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toBe(CLAUDE_ATTACHMENT);
    expect(JSON.parse(lines[1] ?? '')).toEqual({ token: REDACTED });
    expect(lines[2]).toBe(`{"torn": "${REDACTED}`);
    expect(lines.slice(3)).toEqual(['', '']);
  });

  test('a line with nothing secret is kept as written, its spacing and escapes included', () => {
    const line = '{ "a": "caf\\u00e9",  "n": 1.0 }';
    expect(redactJsonLines(line)).toBe(line);
  });
});
