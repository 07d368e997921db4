import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Runs a service on the built packages with the telemetry preload: `npx tsc -b tsconfig.build.json` first.
const serviceDist = new URL('../dist/index.js', import.meta.url).href;
const httpAppDist = new URL('../../http-app/dist/index.js', import.meta.url).href;
const preload = fileURLToPath(new URL('../../telemetry/dist/register.js', import.meta.url));

const FIXTURE = `
import { runService } from ${JSON.stringify(serviceDist)};
import { Router, ok } from ${JSON.stringify(httpAppDist)};
const service = await runService({
  name: 'traced',
  routes: () => {
    const router = new Router();
    router.get('/things/:id', (ctx) => ok(ctx, { id: ctx.params.id }));
    return [router];
  },
  runtime: { handleSignals: false },
});
await (await fetch(service.url + '/things/7', { headers: { 'X-Request-Id': 'traced-1' } })).arrayBuffer();
await service.shutdown();
`;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe('with OTEL_EXPORTER_OTLP_ENDPOINT and the preload, a request is traced and its log lines carry the trace id', () => {
  let dir: string;
  let collector: Server;
  const bodies: string[] = [];
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
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await new Promise<void>((resolve) => collector.close(() => resolve()));
  });

  test('HTTP and Koa spans are exported; the access-log line has the same trace_id', async () => {
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    const child = spawn(process.execPath, ['--import', preload, join(dir, 'fixture.mjs')], {
      env: { PATH: process.env.PATH ?? '', PORT: String(await freePort()), OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);

    const access = stdout
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
});
