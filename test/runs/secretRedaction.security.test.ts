// One sanitizer (@ars/sanitize) for run events, `run.error` and sandbox logs, checked through HTTP
// on the whole stack: the same secret is redacted the same way on every path; the values the
// services know (the internal token, a configured provider key) never come back; `run.error` is
// redacted and capped.
import { redactSecrets } from '@ars/sanitize';
import { MongoClient } from 'mongodb';
import { dataOf } from '../support/accounts.js';
import { newRunsUser, type RunEvent } from '../support/runs.js';
import { commitFiles, newSandboxesUser } from '../support/sandboxes.js';
import { ownSystem } from '@ars/testenv';

/** A provider key configured for the stack: only sandboxes knows it, so only it can redact it. */
const PROVIDER_KEY = 'provider-key-5c1e0a9b7d3f';
const system = ownSystem('the services hold provider keys of its own, which it looks for in what agents print', {
  CODEX_API_KEY: PROVIDER_KEY,
  ANTHROPIC_API_KEY: PROVIDER_KEY,
});

/** One table of secret cases, printed by a run's command and by a sandbox's install step. */
const CASES = [
  `GITHUB_TOKEN=ghp_${'a1'.repeat(18)}`,
  "fatal: unable to access 'https://x-access-token:v1.0123456789abcdef@github.com/acme/api.git/': 403",
  'temporary key ASIAIOSFODNN7EXAMPLE in use',
  `{"ghp_${'k'.repeat(36)}": "a token used as an object key"}`,
  'curl -H "Authorization: Bearer abc.def-ghi" https://api',
  'export DB_PASSWORD="two words" and env: API_KEY=x',
  `jwt eyJhbGciOiJIUzI1NiJ9.${'p'.repeat(30)}.${'s'.repeat(43)} ok`,
  'mysql -u root --password=hunter2 app && deploy --api-key abc123xyz --region eu',
] as const;

function everyString(value: unknown, visit: (text: string) => void): void {
  if (typeof value === 'string') visit(value);
  else if (value !== null && typeof value === 'object') for (const child of Array.isArray(value) ? value : Object.values(value)) everyString(child, visit);
}

function eventStrings(events: RunEvent[]): string[] {
  const found: string[] = [];
  for (const event of events) everyString([event.message, event.payload], (text) => found.push(text));
  return found;
}

describe('the same secret cases are redacted identically in run events and in sandbox logs', () => {
  test('each line as @ars/sanitize redacts it, on both paths', async () => {
    for (const line of CASES) expect(redactSecrets(line)).not.toBe(line);
    const files = { 'cases.txt': `${CASES.join('\n')}\n`, '.ars/sandbox.json': JSON.stringify({ install: 'cat cases.txt' }) };

    const runner = await newRunsUser(system().baseUrl);
    await commitFiles(system(), runner.account, runner.repoId, files);
    const run = await runner.runs.started({ repoId: runner.repoId, prompt: '@shell cat cases.txt' });
    const { run: ended, events } = await runner.runs.waitFor(run.runId);
    expect(ended).toMatchObject({ status: 'success' });
    const output = eventStrings(events).find((text) => text.includes('temporary key'));

    const owner = await newSandboxesUser(system().baseUrl);
    await commitFiles(system(), owner.account, owner.repoId, files);
    const sandbox = await owner.client.created({ repoId: owner.repoId });
    const logs = await owner.client.waitForStatus(sandbox.id, 'ready');
    const installLog = logs.sandbox.install_log ?? '';

    for (const line of CASES) {
      const expected = redactSecrets(line);
      expect({ line, inEvents: output?.includes(expected) }).toEqual({ line, inEvents: true });
      expect({ line, inSandboxLog: installLog.includes(expected) }).toEqual({ line, inSandboxLog: true });
    }
  });
});

describe('run.error is redacted and capped at 2,000 characters, in GET /runs/{runId} and in /events', () => {
  test('@fail with a token and a long text', async () => {
    const token = `ghp_${'Q'.repeat(36)}`;
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const run = await runs.started({ repoId, prompt: `@fail leaked ${token} then ${'w'.repeat(5_000)}` });
    await runs.waitFor(run.runId);
    const fromGet = dataOf(await runs.get(run.runId)).run;
    const fromEvents = dataOf(await runs.events(run.runId)).run;
    for (const { status, error } of [fromGet, fromEvents]) {
      expect(status).toBe('failed');
      expect(error).toContain('leaked [REDACTED]');
      expect(error).not.toContain('ghp_Q');
      expect(error?.length).toBeLessThanOrEqual(2_000);
      expect(error).toMatch(/…\[truncated \d+ chars\]$/);
    }
  });
});

describe('values the services know never appear in events, run.error or sandbox logs', () => {
  test('the internal token and a configured provider key', async () => {
    const known = [system().internalToken, PROVIDER_KEY];
    const said = known.map((value) => `@say the value is ${value}`).join('\n');
    const printed = known.map((value) => `@shell echo value=${value}`).join('\n');
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const run = await runs.started({ repoId, prompt: `${said}\n${printed}\n@fail failing with ${known.join(' and ')}` });
    const { run: ended } = await runs.waitFor(run.runId);
    expect(ended.status).toBe('failed');
    const answer = await fetch(`${runs.api}/runs/${run.runId}/events?limit=200`, { headers: { authorization: `Bearer ${runs.token}` } });
    const raw = await answer.text();
    expect(raw).toContain('the value is [REDACTED]');
    expect(raw).toContain('value=[REDACTED]');

    const owner = await newSandboxesUser(system().baseUrl);
    await commitFiles(system(), owner.account, owner.repoId, {
      '.ars/sandbox.json': JSON.stringify({ install: known.map((value) => `echo value=${value}`).join('; ') }),
    });
    const sandbox = await owner.client.created({ repoId: owner.repoId });
    const ready = await owner.client.waitForStatus(sandbox.id, 'ready');
    const logs = JSON.stringify([ready.sandbox.install_log, ready.sandbox.dev_log, ready.sandbox.error]);
    expect(logs).toContain('value=[REDACTED]');
    // The configured install command itself is in the install lifecycle events' payloads.
    const lifecycle = JSON.stringify(ready.lifecycle_events);
    expect(lifecycle).toContain('value=[REDACTED]');

    for (const value of known) {
      expect(raw).not.toContain(value);
      expect(JSON.stringify(dataOf(await runs.get(run.runId)))).not.toContain(value);
      expect(logs).not.toContain(value);
      expect(lifecycle).not.toContain(value);
    }
  });
});

describe('a run printing 4 × 250 KB of adversarial text ends normally, its events within the limits', () => {
  // How long another tenant's GET /runs/{runId} takes meanwhile is measured by the benchmark
  // (`npm run bench -w @ars/sanitize`); what this asserts is what bounds it: every event string
  // is cut before it is redacted, so the run ends and its events hold at most 2,000 characters.
  test('`yes TOKEN | head -c 250000 | tr -d "\\n"` four times', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const command = "@shell yes TOKEN | head -c 250000 | tr -d '\\n'";
    const run = await runs.started({ repoId, prompt: [command, command, command, command].join('\n') });
    const { run: ended, events } = await runs.waitFor(run.runId, undefined, 120_000);
    expect(ended).toMatchObject({ status: 'success' });
    const outputs = eventStrings(events).filter((text) => text.startsWith('TOKENTOKEN'));
    expect(outputs.length).toBeGreaterThanOrEqual(4);
    for (const text of outputs) {
      expect(text.length).toBeLessThanOrEqual(2_000);
      expect(text).toMatch(/…\[truncated \d+ chars\]$/);
    }
  });
});

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

describe("a conversation's harness thread is kept with every secret redacted", () => {
  test.each(['codex', 'claude-code'])(
    '%s: the stored thread holds neither the token shapes of the prompts nor the provider key; the thread still resumes',
    async (harness) => {
      const { runs, account, repoId } = await newRunsUser(system().baseUrl);
      const conversationId = `secret-thread-${harness}`;
      const prompt = `Remember ${CASES[0]} and ${PROVIDER_KEY}`;
      const first = await runs.started({ repoId, harness, conversationId, prompt });
      expect((await runs.waitFor(first.runId, undefined, 120_000)).run).toMatchObject({ status: 'success' });

      const client = await MongoClient.connect(system().mongoUrl);
      try {
        const kept = await client
          .db('ars_sandboxes')
          .collection<{ _id: string; files: { path: string; content: string }[] }>('conversation_threads')
          .findOne({ _id: `${account.userId}#${conversationId}` });
        expect(kept?.files.length).toBeGreaterThan(0);
        const stored = JSON.stringify(kept);
        expect(stored).not.toContain(`ghp_${'a1'.repeat(18)}`);
        expect(stored).not.toContain(PROVIDER_KEY);
        expect(stored).toContain('Remember GITHUB_TOKEN=');
        // The CLI reads its thread back: the redaction left every line of its JSON Lines JSON.
        const lines = (kept?.files ?? []).flatMap((file) => file.content.split('\n').filter((line) => line.trim() !== ''));
        expect(lines.filter((line) => !isJson(line))).toEqual([]);
      } finally {
        await client.close();
      }

      const recall = await runs.started({ repoId, harness, conversationId, prompt: '@recall' });
      const { run, events } = await runs.waitFor(recall.runId, undefined, 120_000);
      expect(run).toMatchObject({ status: 'success' });
      const recalled = events.filter((e) => e.type === 'assistant_message').map((e) => e.message ?? '');
      expect(recalled.join('\n')).toContain('Remember GITHUB_TOKEN=');
    },
    300_000,
  );
});
