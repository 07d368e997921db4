import { PUBLIC_ROUTES } from './routeTable.js';
import { scopeForMethod } from './scopes.js';

describe("the route table is the contract's index: every route, its scope and owner", () => {
  test('24 routes, each once', () => {
    const keys = PUBLIC_ROUTES.filter((r) => !r.addition).map((r) => `${r.method} ${r.path}`);
    expect(keys).toHaveLength(24);
    expect(new Set(keys).size).toBe(24);
  });
  test('REST routes: read for GET, write for the mutating ones (not the MCP transport, nor the public OpenAPI document)', () => {
    const rest = PUBLIC_ROUTES.filter((r) => (!r.path.startsWith('/mcp') || r.path === '/mcp/servers') && r.path !== '/openapi.json');
    expect(rest).toHaveLength(24);
    for (const route of rest) {
      expect([route.path, route.auth]).toEqual([route.path, scopeForMethod(route.method)]);
    }
  });
  test('the documented additions, each once beside them: validate, cancel of an automation run, automation events, the OpenAPI document (no token)', () => {
    const keys = PUBLIC_ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(PUBLIC_ROUTES.filter((r) => r.addition).map((r) => `${r.method} ${r.path} ${r.auth}`)).toEqual([
      'POST /automations/:automationId/validate write',
      'POST /automations/:automationId/runs/:runId/cancel write',
      'POST /automations/events write',
      'GET /openapi.json none',
    ]);
  });
  test('Idempotency-Key on POST /runs and the automation trigger only', () => {
    expect(PUBLIC_ROUTES.filter((r) => r.idempotencyKey).map((r) => r.path)).toEqual(['/automations/:automationId/trigger', '/runs']);
  });
});
