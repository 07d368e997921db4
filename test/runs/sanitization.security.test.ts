// CONTRACT.md, Events 4: every rule of the sanitization, each broken on purpose by a directive, and
// checked in what GET /runs/{runId}/events returns.
import { dataOf } from '../support/accounts.js';
import { newRunsUser, type RunEvent } from '../support/runs.js';
import { sharedSystem } from '@ars/testenv';

const system = sharedSystem();

/** Runs the prompt to its end with each harness and returns what GET /events answers, as sent. */
async function eventsOf(prompt: string, harness: 'codex' | 'claude-code'): Promise<{ events: RunEvent[]; raw: string }> {
  const { runs, repoId } = await newRunsUser(system().baseUrl);
  const run = await runs.started({ repoId, prompt, harness });
  await runs.waitFor(run.runId);
  const answer = await fetch(`${runs.api}/runs/${run.runId}/events?limit=200`, { headers: { authorization: `Bearer ${runs.token}` } });
  const raw = await answer.text();
  return { events: (JSON.parse(raw) as { data: { events: RunEvent[] } }).data.events, raw };
}

function toolCall(events: RunEvent[], name: string): RunEvent {
  const found = events.find((e) => e.type === 'tool_call' && e.toolName === name);
  if (!found) throw new Error(`no tool_call ${name} in ${events.map((e) => `${e.type}:${e.toolName ?? ''}`).join(', ')}`);
  return found;
}

function depth(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...children.map(depth));
}

function everyContainer(value: unknown, visit: (size: number) => void): void {
  if (value === null || typeof value !== 'object') return;
  const children = Array.isArray(value) ? value : Object.values(value);
  visit(children.length);
  for (const child of children) everyContainer(child, visit);
}

function everyString(value: unknown, visit: (text: string) => void): void {
  if (typeof value === 'string') visit(value);
  else if (value !== null && typeof value === 'object') for (const child of Array.isArray(value) ? value : Object.values(value)) everyString(child, visit);
}

const SECRETS = {
  env: 'env-secret-value-91d3',
  token: 'ghp_0123456789abcdefghijABCDEFGHIJ012345',
  apiKey: 'sk-ant-api03-0123456789abcdefXYZ',
  authorization: 'Bearer bearer-secret-7f2a9c41d0',
  billing: 'billing-source-secret-55e1',
  shell: 'shell-secret-6b07c9e3aa12',
};

describe.each(['codex', 'claude-code'] as const)('%s: sensitive keys are redacted and a secret value is nowhere in GET /events', (harness) => {
  test('environment variables, source-host tokens, API keys, authorization headers, the AI billing source', async () => {
    const input = {
      env: { DEPLOY_KEY: SECRETS.env },
      GITHUB_TOKEN: SECRETS.token,
      apiKey: SECRETS.apiKey,
      headers: { Authorization: SECRETS.authorization },
      apiKeySource: SECRETS.billing,
      visible: 'kept',
    };
    const prompt = [
      `@tool deploy ${JSON.stringify(input)}`,
      `@shell echo GITHUB_TOKEN=${SECRETS.token} API_KEY=${SECRETS.shell}`,
      `@say the token is ${SECRETS.token}`,
    ].join('\n');
    const { events, raw } = await eventsOf(prompt, harness);
    const deploy = toolCall(events, 'deploy');
    expect(deploy.payload.input).toMatchObject({
      env: '[REDACTED]',
      GITHUB_TOKEN: '[REDACTED]',
      apiKey: '[REDACTED]',
      headers: '[REDACTED]',
      apiKeySource: '[REDACTED]',
      visible: 'kept',
    });
    for (const secret of Object.values(SECRETS)) expect(raw).not.toContain(secret.replace(/^Bearer /, ''));
    expect(raw).toContain('GITHUB_TOKEN');
  });
});

describe.each(['codex', 'claude-code'] as const)('%s: size limits hold for every event', (harness) => {
  test('strings over 2,000 characters are truncated', async () => {
    const { events } = await eventsOf(`@tool big ${JSON.stringify({ text: 'x'.repeat(5_000) })}\n@say ${'y'.repeat(3_000)}`, harness);
    const text = (toolCall(events, 'big').payload.input as { text: string }).text;
    expect(text.length).toBeLessThanOrEqual(2_000);
    expect(text.startsWith('xxxx')).toBe(true);
    for (const event of events) {
      everyString(event.payload, (s) => expect(s.length).toBeLessThanOrEqual(2_000));
      expect((event.message ?? '').length).toBeLessThanOrEqual(2_000);
    }
  });

  test('arrays and objects are capped at 25 items', async () => {
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]));
    const { events } = await eventsOf(`@tool wide ${JSON.stringify({ list: Array.from({ length: 60 }, (_, i) => i), many })}`, harness);
    const input = toolCall(events, 'wide').payload.input as { list: unknown[]; many: Record<string, unknown> };
    expect(input.list.length).toBeLessThanOrEqual(25);
    expect(input.list[0]).toBe(0);
    expect(Object.keys(input.many).length).toBeLessThanOrEqual(25);
    for (const event of events) everyContainer(event.payload, (size) => expect(size).toBeLessThanOrEqual(25));
  });

  test('depth is capped at 3', async () => {
    const deep = { a: { b: { c: { d: { e: 'bottom' } } } } };
    const { events } = await eventsOf(`@tool deep ${JSON.stringify(deep)}`, harness);
    const payload = toolCall(events, 'deep').payload;
    expect(JSON.stringify(payload)).not.toContain('bottom');
    for (const event of events) expect(depth(event.payload)).toBeLessThanOrEqual(3);
  });

  test('a payload is at most 20 KB of JSON', async () => {
    const heavy = Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`field${i}`, 'z'.repeat(1_990)]));
    const { events } = await eventsOf(`@tool heavy ${JSON.stringify(heavy)}`, harness);
    toolCall(events, 'heavy');
    for (const event of events) expect(Buffer.byteLength(JSON.stringify(event.payload))).toBeLessThanOrEqual(20 * 1024);
  });
});

describe('the sanitized events are what is stored: the run stays readable', () => {
  test('GET /runs/{runId} after sanitized events answers normally', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const run = await runs.started({ repoId, prompt: `@tool t ${JSON.stringify({ password: 'hunter2-secret' })}` });
    const { run: done } = await runs.waitFor(run.runId);
    expect(done).toMatchObject({ status: 'success' });
    expect(JSON.stringify(dataOf(await runs.events(run.runId)))).not.toContain('hunter2-secret');
  });
});
