import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@ars/testenv';
import { ORPHANED_SHUTDOWN_TIMEOUT_MS } from './processSignals.js';

// These tests run a service as a child process on the built packages: `npx tsc -b tsconfig.build.json` first.
const serviceDist = new URL('../dist/index.js', import.meta.url).href;
const httpAppDist = new URL('../../http-app/dist/index.js', import.meta.url).href;

const FIXTURE = `
import { runService } from ${JSON.stringify(serviceDist)};
import { Router, ok } from ${JSON.stringify(httpAppDist)};
await runService({
  name: 'fixture',
  routes: (ctx) => {
    const router = new Router();
    router.get('/slow', async (c) => {
      ctx.logger.info('slow started');
      await new Promise((resolve) => setTimeout(resolve, 400));
      ok(c, { done: true });
    });
    router.get('/hang', async () => {
      ctx.logger.info('hang started');
      await new Promise(() => undefined);
    });
    router.get('/quick', (c) => ok(c, 'quick'));
    return [router];
  },
  start: (ctx) => {
    ctx.onShutdown(() => ctx.logger.info('hook registered first'), 'first');
    ctx.onShutdown(async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      ctx.logger.info('hook registered second');
    }, 'second');
  },
});
`;

interface Child {
  process: ChildProcessWithoutNullStreams;
  url: string;
  records: Record<string, unknown>[];
  stderr: () => string;
  waitFor(msg: string): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

let dir: string;
const children: ChildProcessWithoutNullStreams[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ars-service-'));
  writeFileSync(join(dir, 'fixture.mjs'), FIXTURE);
});
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function startFixture(env: Record<string, string> = {}): Promise<Child> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(dir, 'fixture.mjs')], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port), LOG_LEVEL: 'info', ...env },
  });
  children.push(child);
  const records: Record<string, unknown>[] = [];
  const waiters: { msg: string; resolve: (record: Record<string, unknown>) => void }[] = [];
  let buffered = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf('\n');
      if (!line.trim()) continue;
      const record = JSON.parse(line) as Record<string, unknown>;
      records.push(record);
      for (const waiter of waiters.filter((w) => w.msg === record.msg)) waiter.resolve(record);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitFor = (msg: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const seen = records.find((r) => r.msg === msg);
      if (seen) return resolve(seen);
      waiters.push({ msg, resolve });
      void exited.then((code) => reject(new Error(`exited (${code}) before "${msg}"; stderr: ${stderr}`)));
    });
  const ready = await waitFor('ready');
  return { process: child, url: String(ready.address), records, stderr: () => stderr, waitFor, exited };
}

describe('the service logs one ready line with its address and serves HTTP', () => {
  test('ready, healthz and a route', async () => {
    const service = await startFixture();
    expect(service.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(service.records.filter((r) => r.msg === 'ready')).toHaveLength(1);
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${service.url}/quick`)).json()).toEqual({ ok: true, data: 'quick' });
    service.process.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  });
});

describe('on SIGTERM an in-flight request completes, new connections are refused, hooks run in reverse order, then the process exits 0', () => {
  test.each(['SIGTERM', 'SIGINT'] as const)('%s', async (signal) => {
    const service = await startFixture();
    const inFlight = fetch(`${service.url}/slow`);
    await service.waitFor('slow started');
    service.process.kill(signal);
    await service.waitFor('shutting down');
    await expect(fetch(`${service.url}/quick`)).rejects.toThrow();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, data: { done: true } });
    const code = await service.exited;
    expect({ code, problems: service.records.filter((r) => r.level !== 'info'), stderr: service.stderr() }).toEqual({ code: 0, problems: [], stderr: '' });
    const order = service.records
      .map((r) => r.msg)
      .filter((m) => ['http stopped', 'hook registered second', 'hook registered first', 'stopped'].includes(String(m)));
    expect(order).toEqual(['http stopped', 'hook registered second', 'hook registered first', 'stopped']);
    expect(service.stderr()).toBe('');
  });
});

describe('a second signal forces exit 1', () => {
  test('while a request hangs', async () => {
    const service = await startFixture();
    void fetch(`${service.url}/hang`).catch(() => undefined);
    await service.waitFor('hang started');
    service.process.kill('SIGTERM');
    await service.waitFor('shutting down');
    service.process.kill('SIGTERM');
    expect(await service.exited).toBe(1);
    expect(service.records.some((r) => r.msg === 'second signal; forcing exit')).toBe(true);
  });
});

describe('SHUTDOWN_TIMEOUT_MS forces exit 1 when shutdown does not finish', () => {
  test('a hanging request past the deadline', async () => {
    const service = await startFixture({ SHUTDOWN_TIMEOUT_MS: '300' });
    void fetch(`${service.url}/hang`).catch(() => undefined);
    await service.waitFor('hang started');
    service.process.kill('SIGTERM');
    expect(await service.exited).toBe(1);
    expect(service.records.some((r) => r.msg === 'shutdown timed out; forcing exit')).toBe(true);
  });
});

describe('a service whose parent dies (its stdin closes) stops within ORPHANED_SHUTDOWN_TIMEOUT_MS, not SHUTDOWN_TIMEOUT_MS', () => {
  test('stdin closed under ARS_EXIT_WITH_PARENT=stdin with a request hanging: the 3 s deadline, exit 1', async () => {
    const service = await startFixture({ SHUTDOWN_TIMEOUT_MS: '60000', ARS_EXIT_WITH_PARENT: 'stdin' });
    void fetch(`${service.url}/hang`).catch(() => undefined);
    await service.waitFor('hang started');
    service.process.stdin.end();
    const stopping = await service.waitFor('shutting down');
    expect(stopping).toMatchObject({ reason: 'parent exited', timeout_ms: ORPHANED_SHUTDOWN_TIMEOUT_MS });
    expect(await service.exited).toBe(1);
    expect(service.records.some((r) => r.msg === 'shutdown timed out; forcing exit')).toBe(true);
  });

  test('without ARS_EXIT_WITH_PARENT a closed stdin stops nothing', async () => {
    const service = await startFixture();
    service.process.stdin.end();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await fetch(`${service.url}/quick`)).status).toBe(200);
    expect(service.process.exitCode).toBeNull();
  });
});

describe('a bad configuration stops the service with one line on stderr and exit 1', () => {
  test('PORT=abc', async () => {
    const child = spawn(process.execPath, [join(dir, 'fixture.mjs')], { env: { PATH: process.env.PATH ?? '', PORT: 'abc' } });
    children.push(child);
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toBe('Invalid configuration: PORT must be an integer between 1 and 65535 (got "abc")\n');
    expect(stdout).toBe('');
  });
});

describe('an unreachable MongoDB at start-up is logged and the process exits 1', () => {
  test('MONGO_URL pointing at a closed port', async () => {
    const closedPort = await freePort();
    const child = spawn(process.execPath, [join(dir, 'fixture.mjs')], {
      env: { PATH: process.env.PATH ?? '', PORT: String(await freePort()), MONGO_URL: `mongodb://127.0.0.1:${closedPort}` },
    });
    children.push(child);
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    const failure = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { msg: string; level: string; err?: { message: string } })
      .find((record) => record.msg === 'start-up failed');
    expect(failure?.level).toBe('fatal');
    expect(failure?.err?.message).toContain(`MongoDB unreachable at mongodb://127.0.0.1:${closedPort}`);
  });
});

describe('a port another process holds stops the service at start with one line on stderr and exit 1', () => {
  test('EADDRINUSE: the line names the service, the address and the cause', async () => {
    const port = await freePort();
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    try {
      const child = spawn(process.execPath, [join(dir, 'fixture.mjs')], { env: { PATH: process.env.PATH ?? '', PORT: String(port) } });
      children.push(child);
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).toBe(1);
      expect(stderr).toBe(`fixture: cannot listen on 127.0.0.1:${port}: the port is in use by another process (EADDRINUSE)\n`);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});

describe('ARS_INSTANCE_ID, given by whoever started the process, is answered in X-Ars-Instance on /healthz and /readyz', () => {
  test('both health routes carry it', async () => {
    const service = await startFixture({ ARS_INSTANCE_ID: 'stack-child-7' });
    for (const path of ['/healthz', '/readyz']) {
      const response = await fetch(`${service.url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ars-instance')).toBe('stack-child-7');
    }
    service.process.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  });

  test('a malformed one is a configuration error: one line on stderr, exit 1', async () => {
    const child = spawn(process.execPath, [join(dir, 'fixture.mjs')], {
      env: { PATH: process.env.PATH ?? '', PORT: String(await freePort()), ARS_INSTANCE_ID: 'no spaces\r\nX-Injected: 1' },
    });
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await new Promise<number | null>((resolve) => child.on('exit', resolve))).toBe(1);
    expect(stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(stderr).toMatch(/^Invalid configuration: ARS_INSTANCE_ID must be 1 to 128 letters, digits, _ or -/);
  });
});
