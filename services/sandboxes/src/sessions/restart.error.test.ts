// The service as a real process (the built dist/, as the stack runs it), killed mid-run with its
// whole process group (as the stack's kill does), then started again: the run ends failed
// `sandbox_lost`, no event is published twice, and the harness did not outlive the service.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { assertStandInsBuilt } from '../harness/testing.js';
import { freePort } from '@ars/testenv';
import { fastSession, isAlive, reportedHostPid, startSandboxesKit, type SandboxesKit } from '../testing/sandboxesKit.js';

const distEntry = fileURLToPath(new URL('../../dist/sandboxes.js', import.meta.url));
const SECRET = `s3cr3t-${Date.now()}`;

let kit: SandboxesKit;
let child: ChildProcess | undefined;
beforeAll(async () => {
  assertStandInsBuilt();
  if (!existsSync(distEntry)) throw new Error(`build first (npx tsc -b tsconfig.build.json): ${distEntry} is missing`);
  kit = await startSandboxesKit();
});
afterAll(async () => {
  if (child?.pid && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGKILL');
  await kit?.stop();
});

/** The built service in a process group of its own (as the stack starts it), with a secret in its environment. */
async function startChild(): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const script = `import { startSandboxes } from ${JSON.stringify(distEntry)}; await startSandboxes({ consumerSession: ${JSON.stringify(fastSession)} });`;
  const proc = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, ...kit.serviceEnv({ PORT: String(port), LOG_LEVEL: 'info' }), SERVICE_ONLY_SECRET: SECRET, OPENAI_API_KEY: SECRET },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const lines: string[] = [];
  createInterface({ input: proc.stdout! }).on('line', (line) => lines.push(line));
  createInterface({ input: proc.stderr! }).on('line', (line) => lines.push(line));
  await kit.waitFor('the service to be ready', () => lines.some((l) => l.includes('"msg":"ready"')) || proc.exitCode !== null, 30_000);
  if (proc.exitCode !== null) throw new Error(`the service exited: ${lines.join('\n')}`);
  return { child: proc, url: `http://127.0.0.1:${port}` };
}

describe('the harness gets a scrubbed environment: nothing of the service’s own', () => {
  test('@shell env shows PATH, HOME inside the sandbox, LANG, TZ — not the service’s secrets', async () => {
    ({ child } = await startChild());
    const repo = await kit.newRepo();
    const request = await kit.requestRun(repo, '@shell env', { harness: 'codex' });
    expect(await kit.waitFinished(request.runId)).toMatchObject({ status: 'success' });
    const shell = kit.messages(request.runId).events.find((e) => e.eventType === 'tool_call');
    const env = String(shell?.payload.output);
    expect(env).toMatch(/^PATH=/m);
    expect(env).toMatch(new RegExp(`^HOME=${kit.sandboxRoot.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*/home$`, 'm'));
    expect(env).toMatch(/^TZ=UTC$/m);
    expect(env).not.toContain(SECRET);
    expect(env).not.toContain(kit.token);
    expect(env).not.toMatch(/^(MONGO_URL|KAFKA_BROKERS|INTERNAL_TOKEN|CATALOG_URL|SERVICE_ONLY_SECRET)=/m);
  });
});

describe('a session whose service stopped (killed) is ended after restart: failed sandbox_lost, nothing duplicated', () => {
  test('kill -9 of the service’s process group mid-run; the harness dies with it; the restarted service sweeps the session, its finish carrying the allocation', async () => {
    if (!child) ({ child } = await startChild());
    const repo = await kit.newRepo();
    const request = await kit.requestRun(repo, '@say working\n@shell echo $PPID $PWD\n@sleep 30000', { harness: 'codex' });
    const shell = await kit.waitFor('the @shell event', () => kit.messages(request.runId).events.find((e) => e.eventType === 'tool_call'));
    const harnessPid = reportedHostPid(shell.payload.output);
    expect(isAlive(harnessPid)).toBe(true);

    const exited = new Promise((resolve) => child!.once('exit', resolve));
    process.kill(-child!.pid!, 'SIGKILL');
    await exited;
    await kit.waitFor('the harness to be gone with the service', () => !isAlive(harnessPid), 5_000);
    const seenBefore = kit.messages(request.runId).events.length;

    const started = kit.startService(); // the sweep runs while the consumer joins
    const finished = await kit.waitFinished(request.runId, 60_000);
    await started;
    expect(finished).toMatchObject({
      status: 'failed',
      failure: 'sandbox_lost',
      error: 'the sandbox was lost: the sandboxes service stopped during the run',
      eventCount: seenBefore,
    });
    const { events, eventIds, allocated, finished: all } = kit.messages(request.runId);
    expect(new Set(eventIds).size).toBe(eventIds.length);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(allocated).toHaveLength(1);
    expect(all).toHaveLength(1);
    const { runId: _runId, ...allocation } = allocated[0]!;
    expect(finished).toMatchObject(allocation);
    const record = await kit.service!.deps.sandboxRecords.get(repo.userId, allocated[0]!.sandboxRecordId);
    expect(record).toMatchObject({ status: 'failed', error: finished.error });
    // The lost sandbox's working directory is removed too.
    expect(readdirSync(kit.sandboxRoot).filter((name) => name === allocated[0]!.sandboxId)).toEqual([]);
  }, 120_000);
});

describe('graceful shutdown aborts live sessions and reports them failed sandbox_lost', () => {
  test('stopping the service during @sleep 30000; the finish carries the allocation', async () => {
    if (!kit.service) await kit.startService();
    const repo = await kit.newRepo();
    const request = await kit.requestRun(repo, '@shell echo $PPID $PWD\n@sleep 30000', { harness: 'claude-code' });
    const shell = await kit.waitFor('the @shell event', () => kit.messages(request.runId).events.find((e) => e.eventType === 'tool_call'));
    const harnessPid = reportedHostPid(shell.payload.output);
    await kit.stopService();
    const finished = await kit.waitFinished(request.runId);
    expect(finished).toMatchObject({ status: 'failed', failure: 'sandbox_lost', error: 'the sandbox was lost: the sandboxes service stopped during the run' });
    const { runId: _runId, ...allocation } = kit.messages(request.runId).allocated[0]!;
    expect(finished).toMatchObject(allocation);
    expect(isAlive(harnessPid)).toBe(false);
  }, 90_000);
});
