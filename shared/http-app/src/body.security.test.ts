import { createLogger } from '@ars/logger';
import { createHttpApp, jsonDepth, MAX_JSON_DEPTH, mountRouters, ok, Router, startHttpServer, requestBody, type RunningServer } from '@ars/http-app';

let server: RunningServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function startEcho(): Promise<string> {
  const app = createHttpApp({ service: 'test', logger: createLogger({ service: 'test', destination: { write: () => undefined } }) });
  const router = new Router();
  router.post('/things', (ctx) => ok(ctx, { received: requestBody(ctx) ?? {} }, 201));
  mountRouters(app, router);
  server = await startHttpServer(app, { port: 0 });
  return server.url;
}

const nested = (depth: number): string => `${'{"a":'.repeat(depth - 1)}[]${'}'.repeat(depth - 1)}`;

describe('a JSON body nested deeper than MAX_JSON_DEPTH is 400 BAD_REQUEST before any route sees it', () => {
  test('a body 10,000 levels deep is 400 naming the limit', async () => {
    const url = await startEcho();
    const response = await fetch(`${url}/things`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      ok: false,
      error: { code: 'BAD_REQUEST', message: `Request body nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays` },
    });
  });

  test('a body exactly MAX_JSON_DEPTH deep reaches the route', async () => {
    const url = await startEcho();
    const response = await fetch(`${url}/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: nested(MAX_JSON_DEPTH) });
    expect(response.status).toBe(201);
  });

  test('one level deeper is refused', async () => {
    const url = await startEcho();
    const response = await fetch(`${url}/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: nested(MAX_JSON_DEPTH + 1) });
    expect(response.status).toBe(400);
  });
});

describe('jsonDepth counts objects and arrays without recursion', () => {
  test('scalars are 0, empty containers 1, nesting adds one per level', () => {
    expect(jsonDepth('text')).toBe(0);
    expect(jsonDepth(null)).toBe(0);
    expect(jsonDepth({})).toBe(1);
    expect(jsonDepth([1, { a: [2] }])).toBe(3);
  });

  test('a hundred thousand levels are measured without overflowing the stack', () => {
    const value: unknown = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(jsonDepth(value)).toBe(100_000);
    expect(jsonDepth(value, 10)).toBe(11);
  });
});
