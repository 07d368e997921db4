import { createLogger } from '@ars/logger';
import { createHttpApp, mountRouters, ok, requireInternalCaller, Router, startHttpServer, type RunningServer } from '@ars/http-app';

const TOKEN = 'internal-token-0123456789';

describe('internal routes reject calls without the right X-Internal-Token with 401', () => {
  let server: RunningServer | undefined;
  let url = '';
  beforeEach(async () => {
    const router = new Router({ prefix: '/internal' });
    router.use(requireInternalCaller(TOKEN));
    router.get('/whoami', (ctx) => ok(ctx, { caller: ctx.state.caller }));
    server = await startHttpServer(mountRouters(createHttpApp({ service: 't', logger: createLogger({ service: 't', level: 'silent' }) }), router));
    url = server.url;
  });
  afterEach(async () => {
    await server?.close();
  });

  test.each([
    ['no token', {}],
    ['a wrong token', { 'X-Internal-Token': 'internal-token-wrong-value' }],
    ['a token of another length', { 'X-Internal-Token': 'x' }],
  ])('%s is 401 UNAUTHORIZED', async (_what, headers) => {
    const response = await fetch(`${url}/internal/whoami`, { headers });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ ok: false, error: { code: 'UNAUTHORIZED', message: 'Missing or invalid internal token' } });
  });
  test('the right token passes and the caller service is recorded', async () => {
    const response = await fetch(`${url}/internal/whoami`, { headers: { 'X-Internal-Token': TOKEN, 'X-Caller-Service': 'gateway' } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, data: { caller: 'gateway' } });
  });
});
