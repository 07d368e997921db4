import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@ars/testenv';

// Runs a service on the built packages with the telemetry preload: `npx tsc -b tsconfig.build.json` first.
const serviceDist = new URL('../dist/index.js', import.meta.url).href;
const httpAppDist = new URL('../../http-app/dist/index.js', import.meta.url).href;
const httpClientDist = new URL('../../http-client/dist/index.js', import.meta.url).href;
const preload = fileURLToPath(new URL('../../telemetry/dist/register.js', import.meta.url));

const FIXTURE = `
import { runService } from ${JSON.stringify(serviceDist)};
import { Router, ok } from ${JSON.stringify(httpAppDist)};
import { createHttpClient } from ${JSON.stringify(httpClientDist)};
let self;
const service = await runService({
  name: 'traced',
  routes: (ctx) => {
    const router = new Router();
    router.get('/things/:id', (c) => ok(c, { id: c.params.id }));
    router.get('/echo', (c) => ok(c, { traceparent: c.get('traceparent'), requestId: c.state.requestId }));
    router.get('/hop', async (c) => ok(c, await self.get('/echo')));
    return [router];
  },
  runtime: { handleSignals: false },
});
self = createHttpClient({ baseUrl: service.url, caller: 'traced', logger: service.context.logger });
await (await fetch(service.url + '/things/7', { headers: { 'X-Request-Id': 'traced-1' } })).arrayBuffer();
const hop = await (await fetch(service.url + '/hop', { headers: { 'X-Request-Id': 'traced-2' } })).json();
service.context.logger.info({ hop: hop.data }, 'hop result');
await self.close();
await service.shutdown();
`;

describe('with OTEL_EXPORTER_OTLP_ENDPOINT and the preload, requests are traced across HTTP hops and log lines carry the trace id', () => {
  let dir: string;
  let collector: Server;
  const bodies: string[] = [];
  const run = { stdout: '', stderr: '', code: null as number | null };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ars-traced-'));
    writeFileSync(join(dir, 'fixture.mjs'), FIXTURE);
    // The preload names the service after the package holding the entry script.
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: '@ars/traced', type: 'module' }));
    collector = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        bodies.push(body);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    const child = spawn(process.execPath, ['--import', preload, join(dir, 'fixture.mjs')], {
      env: { PATH: process.env.PATH ?? '', PORT: String(await freePort()), OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
    });
    child.stdout.on('data', (chunk: Buffer) => (run.stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (run.stderr += chunk.toString()));
    run.code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await new Promise<void>((resolve) => collector.close(() => resolve()));
  });

  test('HTTP and Koa spans are exported; the access-log line has the same trace_id', () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);

    const access = run.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((record) => record.msg === 'request' && record.request_id === 'traced-1');
    expect(access).toMatchObject({ service: 'traced', path: '/things/7', status: 200 });
    expect(access?.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(access?.span_id).toMatch(/^[0-9a-f]{16}$/);

    const exported = bodies.join('');
    expect(exported).toContain('{"key":"service.name","value":{"stringValue":"traced"}}');
    expect(exported).toContain('GET /things/:id');
    expect(exported).toContain('router - /things/:id');
    expect(exported).toContain(String(access?.trace_id));
  });

  test('an http-client call inside a request carries one traceparent of the same trace, and the request id', () => {
    const records = run.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const hop = records.find((record) => record.msg === 'hop result')?.hop as { traceparent: string; requestId: string };
    const outer = records.find((record) => record.msg === 'request' && record.request_id === 'traced-2' && record.path === '/hop');
    expect(hop.requestId).toBe('traced-2');
    expect(hop.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    expect(hop.traceparent.split('-')[1]).toBe(outer?.trace_id);
  });
});
