import { withoutCredentials } from './credentials.js';
import { harnessEnvironment } from './environment.js';
import { knownSecrets } from '@ars/sanitize';
import { sanitizedEvent } from './eventPayload.js';
import { harnessOutcome, timeoutMessage } from './outcome.js';

describe('a clone URL’s credentials never stay in the working tree or reach a message', () => {
  test('withoutCredentials drops user and token; plain URLs stay as they are', () => {
    expect(withoutCredentials('https://x-access-token:ghs_abc123@github.com/acme/api.git')).toBe('https://github.com/acme/api.git');
    expect(withoutCredentials('file:///srv/git/acme/api.git')).toBe('file:///srv/git/acme/api.git');
    expect(withoutCredentials('/srv/git/acme/api.git')).toBe('/srv/git/acme/api.git');
  });
});

describe('the harness environment is built from nothing', () => {
  test('only PATH, HOME, LANG, TZ and the no-prompt switch for git', () => {
    expect(harnessEnvironment({ path: '/usr/bin', home: '/sandbox/home' })).toEqual({
      PATH: '/usr/bin',
      HOME: '/sandbox/home',
      LANG: 'C.UTF-8',
      TZ: 'UTC',
      GIT_TERMINAL_PROMPT: '0',
    });
  });
});

describe("events are sanitized before they are published: known secret values, recognised secrets, the contract's limits", () => {
  const secrets = knownSecrets(['provider-key-0123456789', 'internal-token-abcdef0123']);
  test('known values and token shapes are gone from every field; a huge payload is within 20 KB of JSON', () => {
    const huge = {
      kind: 'shell',
      output: `y${'y'.repeat(300_000)} provider-key-0123456789`,
      input: { command: 'curl -H "x-internal-token: internal-token-abcdef0123"' },
    };
    const event = sanitizedEvent(
      { type: 'tool_call', toolName: 'shell', message: `key provider-key-0123456789 ghp_${'a'.repeat(36)}`, payload: huge },
      secrets,
    );
    const text = JSON.stringify(event);
    expect(text).not.toMatch(/provider-key|internal-token-abc|ghp_a/);
    expect(event.message).toBe('key [REDACTED] [REDACTED]');
    expect(event.payload.kind).toBe('shell');
    expect(String(event.payload.output)).toMatch(/^y+…\[truncated \d+ chars\]$/);
    expect(Buffer.byteLength(JSON.stringify(event.payload))).toBeLessThanOrEqual(20 * 1024);
  });
  test('an agent message over 2,000 characters: the event’s message is cut, fullText keeps it whole (sanitized, at most 100,000); a short one has no fullText', () => {
    const long = `${'finding '.repeat(1_000)}provider-key-0123456789 end`;
    const event = sanitizedEvent({ type: 'assistant_message', toolName: null, message: long, payload: {} }, secrets);
    expect(event.message?.length).toBeLessThanOrEqual(2_000);
    expect(event.fullText).toBe(`${'finding '.repeat(1_000)}[REDACTED] end`);
    const huge = sanitizedEvent({ type: 'assistant_message', toolName: null, message: 'x'.repeat(300_000), payload: {} }, secrets);
    expect(huge.fullText?.length).toBe(100_000);
    expect(sanitizedEvent({ type: 'assistant_message', toolName: null, message: 'short', payload: {} }, secrets)).not.toHaveProperty('fullText');
    expect(sanitizedEvent({ type: 'tool_call', toolName: 'shell', message: 'y'.repeat(5_000), payload: {} }, secrets)).not.toHaveProperty('fullText');
  });
  test('an ordinary event passes unchanged', () => {
    const event = { type: 'tool_call' as const, toolName: 'shell', message: null, payload: { input: { command: 'ls -la' } } };
    expect(sanitizedEvent(event, secrets)).toEqual({ eventType: 'tool_call', toolName: 'shell', message: null, payload: { input: { command: 'ls -la' } } });
  });
});

describe('every way a harness turn ends maps to one run result', () => {
  const none = { reason: null, timeoutMs: 1000, publishError: null };
  test('success, agent failure, crash', () => {
    expect(harnessOutcome('codex', { status: 'success' }, none, 3)).toBe('success');
    expect(harnessOutcome('codex', { status: 'failed', error: 'tests are red' }, none, 3)).toEqual({
      status: 'failed',
      error: 'tests are red',
      failure: 'agent',
      eventCount: 3,
    });
    expect(harnessOutcome('claude-code', { status: 'failed', error: 'claude-code harness crashed: exit 1' }, none, 0)).toMatchObject({
      failure: 'harness_crash',
    });
    expect(harnessOutcome('codex', { status: 'failed', error: 'codex harness failed to run: ENOENT' }, none, 0)).toMatchObject({ failure: 'harness_crash' });
  });
  test('aborts by reason: cancel, timeout, shutdown, the bus', () => {
    const cancelled = { status: 'cancelled' as const };
    expect(harnessOutcome('codex', cancelled, { ...none, reason: 'cancel' }, 2)).toEqual({ status: 'cancelled', error: null, failure: null, eventCount: 2 });
    expect(harnessOutcome('codex', cancelled, { ...none, reason: 'timeout', timeoutMs: 1_800_000 }, 2)).toMatchObject({
      failure: 'harness_timeout',
      error: 'time limit: the harness ran longer than 1800 s',
    });
    expect(harnessOutcome('codex', cancelled, { ...none, reason: 'shutdown' }, 2)).toMatchObject({ failure: 'sandbox_lost' });
    expect(harnessOutcome('codex', cancelled, { ...none, reason: 'publish', publishError: 'down' }, 2)).toMatchObject({
      failure: 'sandbox_lost',
      error: "the run's events could not be delivered: down",
    });
    expect(timeoutMessage(1500)).toBe('time limit: the harness ran longer than 1.5 s');
  });
});
