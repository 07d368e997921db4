import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { gatewayVersion } from '../version.js';
import { openApiDocument, openApiPath, openApiText, type OpenApiDocument } from './openApi.js';
import { PUBLIC_PREFIX, PUBLIC_ROUTES, type PublicRoute } from './routeTable.js';

const CHECKED_IN = new URL('../../../../clients/openapi.json', import.meta.url);

/** What the two edge routes of the MCP transport answer (CONTRACT.md): the preflight 204, `GET /mcp` always 405. */
const ANSWERED_STATUS: Readonly<Record<string, number>> = { 'OPTIONS /mcp': 204, 'GET /mcp': 405 };

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: { minimum?: number; maximum?: number; default?: number; maxLength?: number };
}

/**
 * Every way the document and the route table disagree, one sentence each: a route missing or extra,
 * its success status, scope, Idempotency-Key, limit range or addition mark. Empty when they agree.
 */
function disagreements(document: OpenApiDocument, routes: readonly PublicRoute[]): string[] {
  const problems: string[] = [];
  const documented = Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`));
  const expected = routes.map((route) => `${route.method} ${openApiPath(route.path)}`);
  for (const key of documented) if (!expected.includes(key)) problems.push(`${key} is documented but not in the route table`);
  for (const route of routes) {
    const key = `${route.method} ${route.path}`;
    const operation = document.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
    if (!operation) {
      problems.push(`${key} is missing`);
      continue;
    }
    const status = String(ANSWERED_STATUS[key] ?? route.successStatus);
    if (!(status in operation.responses)) problems.push(`${key}: no ${status} response`);
    // POST /mcp also answers 202 to a notification (a message without an id).
    const allowed = key === 'POST /mcp' ? [status, '202'] : [status];
    const others = Object.keys(operation.responses).filter((code) => code.startsWith('2') && !allowed.includes(code));
    if (others.length > 0) problems.push(`${key}: other success statuses ${others.join()}`);
    const scope = operation['x-required-scope'];
    const security = JSON.stringify(operation.security);
    if (route.auth === 'read' || route.auth === 'write') {
      if (scope !== route.auth || security !== JSON.stringify([{ pat: [route.auth] }]))
        problems.push(`${key}: scope ${String(scope)} ${security} instead of ${route.auth}`);
    } else if (route.auth === 'token') {
      if (scope !== 'any' || security === '[]') problems.push(`${key}: needs a token of any scope`);
    } else if (scope !== undefined || security !== '[]') problems.push(`${key}: needs no token, but the document asks for one`);
    const parameters = (operation.parameters ?? []) as Parameter[];
    const idempotencyKey = parameters.find((parameter) => parameter.in === 'header' && parameter.name === 'Idempotency-Key');
    if (Boolean(route.idempotencyKey) !== Boolean(idempotencyKey?.required) || (route.idempotencyKey && idempotencyKey?.schema?.maxLength !== 200))
      problems.push(`${key}: Idempotency-Key ${idempotencyKey ? (idempotencyKey.required ? 'required' : 'optional') : 'absent'}`);
    const limit = parameters.find((parameter) => parameter.in === 'query' && parameter.name === 'limit');
    const range = limit?.schema ? `${limit.schema.minimum}-${limit.schema.maximum}/${limit.schema.default}` : 'none';
    const wanted = route.limit ? `${route.limit.min}-${route.limit.max}/${route.limit.default}` : 'none';
    if (range !== wanted) problems.push(`${key}: limit ${range} instead of ${wanted}`);
    if (Boolean(route.addition) !== Boolean(operation['x-ars-addition'])) problems.push(`${key}: addition mark ${String(operation['x-ars-addition'])}`);
  }
  return problems;
}

/** One operation of a document, as the test edits it. */
function operationOf<T>(document: OpenApiDocument, path: string, method: string): T {
  const operation = document.paths[path]?.[method];
  if (!operation) throw new Error(`no ${method} ${path}`);
  return operation as unknown as T;
}

describe('clients/openapi.json is what the generator makes now', () => {
  test('the checked-in file equals the generated document (if not: run `npm run openapi`)', () => {
    const checkedIn = readFileSync(CHECKED_IN, 'utf8');
    if (checkedIn !== openApiText(gatewayVersion())) throw new Error('clients/openapi.json is stale: run `npm run openapi` and commit it');
    expect(JSON.parse(checkedIn)).toEqual(openApiDocument(gatewayVersion()));
  });
  test('info.version is the gateway’s package version; the server is /api/v1/svc', () => {
    const document = openApiDocument(gatewayVersion());
    expect((document.info as { version: string }).version).toBe('0.1.0');
    expect(document.servers).toEqual([{ url: PUBLIC_PREFIX }]);
  });
});

describe('every route of the table is in the document with its method, path, success status, scope, Idempotency-Key and limit range; nothing else', () => {
  test('the document and the route table agree', () => {
    expect(disagreements(openApiDocument('1.2.3'), PUBLIC_ROUTES)).toEqual([]);
  });

  test('a broken document fails the comparison: a missing path, a wrong status, a lost scope, an optional key, another range, an extra route', () => {
    const broken = structuredClone(openApiDocument('1.2.3'));
    delete broken.paths['/runs/{runId}'];
    const trigger = operationOf<{ responses: Record<string, unknown> }>(broken, '/automations/{automationId}/trigger', 'post');
    trigger.responses['200'] = trigger.responses['202'];
    delete trigger.responses['202'];
    operationOf<Record<string, unknown>>(broken, '/repos', 'get')['x-required-scope'] = 'write';
    const start = operationOf<{ parameters: Parameter[] }>(broken, '/runs', 'post');
    (start.parameters.find((parameter) => parameter.name === 'Idempotency-Key') as Parameter).required = false;
    const events = operationOf<{ parameters: Parameter[] }>(broken, '/runs/{runId}/events', 'get');
    (events.parameters.find((parameter) => parameter.name === 'limit') as Parameter).schema = { minimum: 1, maximum: 100, default: 50 };
    (broken.paths['/agents'] as Record<string, unknown>).post = { responses: { '200': {} } };
    expect(disagreements(broken, PUBLIC_ROUTES)).toEqual([
      'POST /agents is documented but not in the route table',
      'GET /repos: scope write [{"pat":["read"]}] instead of read',
      'POST /automations/:automationId/trigger: no 202 response',
      'POST /automations/:automationId/trigger: other success statuses 200',
      'POST /runs: Idempotency-Key optional',
      'GET /runs/:runId is missing',
      'GET /runs/:runId/events: limit 1-100/50 instead of 1-200/100',
    ]);
  });
});

describe('the document is valid OpenAPI 3.1', () => {
  test('@seriousme/openapi-schema-validator accepts it as 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(openApiDocument(gatewayVersion()));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });
  test('and refuses a document with a parameter in no place OpenAPI knows (the validator can fail)', async () => {
    const broken = structuredClone(openApiDocument(gatewayVersion()));
    const { parameters } = operationOf<{ parameters: Parameter[] }>(broken, '/repos', 'get');
    (parameters[0] as Parameter).in = 'body';
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });
});
