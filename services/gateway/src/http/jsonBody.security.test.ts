import { createHttpApp, MAX_JSON_DEPTH, mountRouters, ok, Router, startHttpServer, type RunningServer } from '@ars/http-app';
import { createLogger } from '@ars/logger';
import { parseJsonBody } from './jsonBody.js';

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A public route's chain as the gateway builds it: the body parsed by parseJsonBody, then the handler that would call a peer. */
async function startPublicRoute(): Promise<{ url: string; handled: unknown[] }> {
  const handled: unknown[] = [];
  const app = createHttpApp({ service: 'gateway', logger: createLogger({ service: 'gateway', level: 'silent' }), skipBodyParsing: () => true });
  const router = new Router();
  router.post('/api/v1/svc/sandboxes', parseJsonBody(), (ctx) => {
    handled.push((ctx.request as { body?: unknown }).body);
    ok(ctx, { forwarded: true }, 201);
  });
  mountRouters(app, router);
  server = await startHttpServer(app, { port: 0 });
  return { url: `${server.url}/api/v1/svc/sandboxes`, handled };
}

describe('request bodies are bounded in depth where they enter the gateway: nothing deeper reaches a handler or a service', () => {
  test('a body 10,000 levels deep is 400 BAD_REQUEST and the handler never runs', async () => {
    const route = await startPublicRoute();
    const response = await fetch(route.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"repoId":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      ok: false,
      error: { code: 'BAD_REQUEST', message: `Request body nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays` },
    });
    expect(route.handled).toEqual([]);
  });

  test('a body at the limit is handed on', async () => {
    const route = await startPublicRoute();
    const body = `${'{"a":'.repeat(MAX_JSON_DEPTH - 1)}{}${'}'.repeat(MAX_JSON_DEPTH - 1)}`;
    const response = await fetch(route.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(response.status).toBe(201);
    expect(route.handled).toHaveLength(1);
  });
});
