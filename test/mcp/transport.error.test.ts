// The MCP transport's HTTP edge on the whole stack, by raw HTTP: the contract's JSON-RPC error table
// (authentication first, then the origin, then the body), notifications, ping, and X-Request-Id on
// every answer.
import { bearer, tenant } from '../support/accounts.js';
import { sharedSystem } from '@ars/testenv';

const system = sharedSystem();
let token: string;
beforeAll(async () => {
  token = (await tenant(system().baseUrl)).token.token;
}, 60_000);

const ACCEPT = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${system().baseUrl}/api/v1/svc/mcp`, { method: 'POST', headers: { ...ACCEPT, ...bearer(token), ...headers }, body });
const rpc = (method: string, params?: unknown, id: number | null = 1) =>
  JSON.stringify({ jsonrpc: '2.0', ...(id === null ? {} : { id }), method, ...(params ? { params } : {}) });

describe('the JSON-RPC error table: codes and HTTP statuses, each answer with X-Request-Id', () => {
  test('authentication comes first: no or a bad token is 401 -32001, whatever the body', async () => {
    for (const headers of [{ authorization: '' }, { authorization: 'Bearer tok_nope' }]) {
      const answer = await post('{not json', headers);
      expect(answer.status).toBe(401);
      expect(answer.headers.get('x-request-id')).toBeTruthy();
      expect(((await answer.json()) as { error: { code: number } }).error.code).toBe(-32001);
    }
  });

  test('a browser Origin that is not allowed is 403 -32003; the gateway’s own origin and no Origin pass', async () => {
    const foreign = await post(rpc('ping'), { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { error: { code: number } }).error.code).toBe(-32003);
    const own = await post(rpc('ping'), { origin: new URL(system().baseUrl).origin });
    expect(own.status).toBe(200);
  });

  test('-32700 400 for a body that is not JSON, -32600 400 for one that is not JSON-RPC', async () => {
    const malformed = await post('{');
    expect([malformed.status, ((await malformed.json()) as { error: { code: number } }).error.code]).toEqual([400, -32700]);
    for (const body of ['[1]', '{"jsonrpc":"1.0","id":1,"method":"ping"}', '{"jsonrpc":"2.0","id":1}']) {
      const invalid = await post(body);
      expect([invalid.status, ((await invalid.json()) as { error: { code: number } }).error.code]).toEqual([400, -32600]);
    }
  });

  test('an unknown method is -32601 with HTTP 200; ping answers {}; a notification is 202 with no body', async () => {
    const unknown = await post(rpc('resources/list'));
    expect(unknown.status).toBe(200);
    expect(((await unknown.json()) as { error: { code: number } }).error.code).toBe(-32601);
    const ping = await post(rpc('ping', undefined, 7));
    expect(await ping.json()).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    const notification = await post(rpc('notifications/initialized', undefined, null));
    expect([notification.status, await notification.text()]).toEqual([202, '']);
    expect(notification.headers.get('x-request-id')).toBeTruthy();
  });

  test('initialize negotiates 2025-11-25 with tools.listChanged false, also for a client accepting only JSON', async () => {
    const init = await post(rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'curl', version: '1' } }), {
      accept: 'application/json',
    });
    expect(init.status).toBe(200);
    const { result } = (await init.json()) as { result: { protocolVersion: string; capabilities: { tools: unknown }; serverInfo: { name: string } } };
    expect(result.protocolVersion).toBe('2025-11-25');
    expect(result.capabilities.tools).toEqual({ listChanged: false });
    expect(result.serverInfo.name).toBe('agent-run-service');
  });
});
