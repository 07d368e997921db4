// Stacks and suites side by side on one machine never answer for each other: ports are reserved
// machine-wide outside the ephemeral range, and a service is ready only when the process the stack
// started answers (its instance id), never a stranger on its port.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer, type Server } from 'node:net';
import { claimPort, ephemeralRange, fromRoot, reservableRange, reservePort, serviceProcess, type ServiceProcess } from '@ars/stack';
import { testInfrastructure, waitFor } from '@ars/testenv';

const stopAfter: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const stop of stopAfter.splice(0).reverse()) await stop();
});

function listening(server: Server | ReturnType<typeof createHttpServer>, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
}

/** mcp-registry (the smallest service) on `port`, against the suite's MongoDB and Kafka. */
function registryOn(port: number, log: string[] = []): ServiceProcess {
  const infra = testInfrastructure();
  const service = serviceProcess({
    name: 'mcp-registry',
    port,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      MONGO_URL: infra.mongoUrl,
      MONGO_DB: `ports_test_${randomBytes(4).toString('hex')}`,
      KAFKA_BROKERS: infra.kafkaBrokers.join(','),
      LOG_LEVEL: 'warn',
      ARS_ENV: 'development',
      // Its routes are internal: it refuses to start without the shared token.
      INTERNAL_TOKEN: randomBytes(24).toString('base64url'),
    },
    readyTimeoutMs: 90_000,
    output: () => undefined,
    log: (line) => void log.push(line),
  });
  stopAfter.push(() => service.stop());
  return service;
}

/** Tries to reserve `port` from another process: true when it got it. */
async function otherProcessClaims(port: number): Promise<boolean> {
  const script = `const { claimPort } = await import(${JSON.stringify(fromRoot('deploy/local/stack/dist/ports.js'))});
const reservation = await claimPort(${port});
process.stdout.write(reservation ? 'claimed' : 'refused');
await reservation?.release();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await new Promise((resolve) => child.once('exit', resolve));
  return out === 'claimed';
}

describe('a reserved port is never handed to another process on this machine, and lies outside the ephemeral range', () => {
  test('held here: refused to another process; released: that process gets it', async () => {
    const reservation = await reservePort();
    expect(await otherProcessClaims(reservation.port)).toBe(false);
    expect(await claimPort(reservation.port)).toBeUndefined();
    await reservation.release();
    expect(await otherProcessClaims(reservation.port)).toBe(true);
  });

  test('a holder that dies without releasing leaves nothing behind: the port can be reserved again', async () => {
    const script = `const { claimPort } = await import(${JSON.stringify(fromRoot('deploy/local/stack/dist/ports.js'))});
const reservation = await claimPort(Number(process.argv[1]));
process.stdout.write(reservation ? 'held' : 'refused');
setInterval(() => undefined, 1000);`;
    const probe = await reservePort();
    const port = probe.port;
    await probe.release();
    const holder = spawn(process.execPath, ['--input-type=module', '-e', script, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const said = await new Promise<string>((resolve) => holder.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString())));
    expect(said).toBe('held');
    expect(await claimPort(port)).toBeUndefined();
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    holder.kill('SIGKILL');
    await exited;
    const again = await claimPort(port);
    expect(again?.port).toBe(port);
    await again?.release();
  });

  test('a port something else listens on is never reserved', async () => {
    const probe = await reservePort();
    await probe.release();
    const foreign = createNetServer();
    await listening(foreign, probe.port);
    stopAfter.push(() => new Promise((resolve) => foreign.close(resolve)));
    expect(await claimPort(probe.port)).toBeUndefined();
  });

  test('reserved ports come from outside the kernel ephemeral range', async () => {
    const ephemeral = ephemeralRange();
    const range = reservableRange(ephemeral);
    expect(range.high < ephemeral.low || range.low > ephemeral.high).toBe(true);
    const reservations = await Promise.all(Array.from({ length: 20 }, () => reservePort()));
    for (const { port } of reservations) {
      expect(port).toBeGreaterThanOrEqual(range.low);
      expect(port).toBeLessThanOrEqual(range.high);
    }
    expect(new Set(reservations.map((r) => r.port)).size).toBe(20);
    await Promise.all(reservations.map((r) => r.release()));
  });
});

describe('a service is ready only when its own process answers: a stranger on its port is detected, never taken for it', () => {
  test('a foreign server answering /readyz 200 on the port: start fails naming the taken port; our process is gone', async () => {
    const reservation = await reservePort();
    stopAfter.push(() => reservation.release());
    const foreign = createHttpServer((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ ok: true, data: { status: 'ready' } }));
    });
    await listening(foreign, reservation.port);
    stopAfter.push(() => new Promise((resolve) => foreign.close(resolve)));
    const service = registryOn(reservation.port);
    await expect(service.start()).rejects.toThrow(
      /is answered by another process, not this mcp-registry .*its port is taken|cannot listen on 127\.0\.0\.1:\d+: the port is in use/,
    );
    expect(service.child()?.isRunning()).toBe(false);
  }, 120_000);

  test('a port held by a process that does not speak HTTP: the service exits at start and the stack reports its one line', async () => {
    const reservation = await reservePort();
    stopAfter.push(() => reservation.release());
    const holder = createNetServer((socket) => socket.destroy());
    await listening(holder, reservation.port);
    stopAfter.push(() => new Promise((resolve) => holder.close(resolve)));
    const service = registryOn(reservation.port);
    await expect(service.start()).rejects.toThrow(
      `mcp-registry exited (code 1) before it was ready: mcp-registry: cannot listen on 127.0.0.1:${reservation.port}: the port is in use by another process (EADDRINUSE)`,
    );
  }, 120_000);
});

describe('a service that exits unasked is restarted on its port; one stopped or killed on purpose stays down', () => {
  test('kill -9 from outside: the restart line, then the new process (a new instance id) answers on the same URL', async () => {
    const reservation = await reservePort();
    stopAfter.push(() => reservation.release());
    const log: string[] = [];
    const service = registryOn(reservation.port, log);
    await service.start();
    const first = { pid: service.child()?.pid, instance: service.instanceId() };
    process.kill(first.pid!, 'SIGKILL');
    await waitFor('the stack to restart mcp-registry', () => log.some((line) => line.startsWith('[stack] mcp-registry restarted (attempt 1)')), {
      timeoutMs: 120_000,
      intervalMs: 100,
    });
    expect(log[0]).toBe('[stack] mcp-registry exited (signal SIGKILL); restarting in 1 s (attempt 1)');
    expect(log[1]).toBe(`[stack] mcp-registry restarted (attempt 1): pid ${service.child()?.pid}, ready at ${service.url}`);
    expect(service.restarts()).toBe(1);
    expect(service.child()?.pid).not.toBe(first.pid);
    expect(service.instanceId()).not.toBe(first.instance);
    const answer = await fetch(`${service.url}/readyz`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-ars-instance')).toBe(service.instanceId());
  }, 240_000);

  test('kill() and stop() (tests of recovery) suspend the automatic restart until start()', async () => {
    const reservation = await reservePort();
    stopAfter.push(() => reservation.release());
    const log: string[] = [];
    const service = registryOn(reservation.port, log);
    await service.start();
    // kill() resolves after the exit was handled (the handler was attached first): had it scheduled a
    // restart, the line would be there now.
    await service.kill();
    expect(log).toEqual([]);
    await service.start();
    await service.stop();
    expect(log).toEqual([]);
    expect(service.restarts()).toBe(0);
    await service.start();
    expect((await fetch(`${service.url}/readyz`)).headers.get('x-ars-instance')).toBe(service.instanceId());
  }, 240_000);
});
