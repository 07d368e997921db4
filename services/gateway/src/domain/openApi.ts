// The public API as an OpenAPI 3.1 document, built from the route table (routeTable.ts) and the
// route schemas (routeSchemas.ts): every route with its scope, parameters, body, success envelope
// and error envelopes. Served at GET /api/v1/svc/openapi.json and checked in at clients/openapi.json
// (`npm run openapi`). No I/O: the caller passes the gateway's version.
import {
  AGENT_SCHEMA,
  CANCEL_RUN_ANSWER_SCHEMA,
  LIFECYCLE_EVENT_SCHEMA,
  MODEL_SCHEMA,
  REPO_SCHEMA,
  RERUN_PR_REVIEW_DATA_SCHEMA,
  REVIEW_FINDING_SCHEMA,
  RUN_EVENT_SCHEMA,
  RUN_SCHEMA,
  RUN_USAGE_SCHEMA,
  RUNTIME_SCHEMA,
  SANDBOX_LOGS_SCHEMA,
  SANDBOX_SCHEMA,
  START_RUN_ANSWER_SCHEMA,
} from '@ars/contract';
import {
  AUTOMATION_EVENT_RESULT_SCHEMA,
  AUTOMATION_RUN_DETAIL_SCHEMA,
  AUTOMATION_RUN_SUMMARY_SCHEMA,
  AUTOMATION_SCHEMA,
  AUTOMATION_SUMMARY_SCHEMA,
  FLOW_GRAPH_SCHEMA,
  TRIGGER_RESULT_SCHEMA,
  VALIDATION_RESULT_SCHEMA,
} from '@ars/automations-engine/client';
import { ERROR_CODES, FAILURE_ENVELOPE_SCHEMA, type ErrorCode } from '@ars/errors';
import { MCP_SERVER_ITEM_SCHEMA } from '@ars/mcp-registry/client';
import { RETRY_AFTER_SECONDS } from './limits.js';
import { IDEMPOTENCY_KEY_SCHEMA, ROUTE_SCHEMAS, routeKeyOf, type JsonSchema, type RouteSchemas } from './routeSchemas.js';
import { PUBLIC_PREFIX, PUBLIC_ROUTES, type PublicRoute } from './routeTable.js';

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, OpenApiOperation>> };
export type OpenApiOperation = Record<string, unknown> & { responses: Record<string, unknown> };

/** The shapes shown once under components.schemas and referenced wherever they appear (by identity). */
const NAMED_SCHEMAS: ReadonlyMap<JsonSchema, string> = new Map<JsonSchema, string>([
  [REPO_SCHEMA, 'Repo'],
  [AGENT_SCHEMA, 'Agent'],
  [MODEL_SCHEMA, 'Model'],
  [SANDBOX_SCHEMA, 'Sandbox'],
  [SANDBOX_LOGS_SCHEMA, 'SandboxLogs'],
  [LIFECYCLE_EVENT_SCHEMA, 'LifecycleEvent'],
  [RUN_SCHEMA, 'Run'],
  [START_RUN_ANSWER_SCHEMA, 'StartRunAnswer'],
  [RUN_EVENT_SCHEMA, 'RunEvent'],
  [RUN_USAGE_SCHEMA, 'RunUsage'],
  [RUNTIME_SCHEMA, 'Runtime'],
  [CANCEL_RUN_ANSWER_SCHEMA, 'CancelRunAnswer'],
  [AUTOMATION_SUMMARY_SCHEMA, 'AutomationSummary'],
  [AUTOMATION_SCHEMA, 'Automation'],
  [FLOW_GRAPH_SCHEMA, 'FlowGraph'],
  [AUTOMATION_RUN_SUMMARY_SCHEMA, 'AutomationRunSummary'],
  [AUTOMATION_RUN_DETAIL_SCHEMA, 'AutomationRunDetail'],
  [TRIGGER_RESULT_SCHEMA, 'TriggerAutomationData'],
  [VALIDATION_RESULT_SCHEMA, 'ValidationResult'],
  [AUTOMATION_EVENT_RESULT_SCHEMA, 'AutomationEventResult'],
  [REVIEW_FINDING_SCHEMA, 'ReviewFinding'],
  [RERUN_PR_REVIEW_DATA_SCHEMA, 'RerunPrReviewData'],
  [MCP_SERVER_ITEM_SCHEMA, 'McpServerItem'],
  [FAILURE_ENVELOPE_SCHEMA, 'FailureEnvelope'],
]);

const ref = (where: string, name: string) => ({ $ref: `#/components/${where}/${name}` });

/** A copy of `schema` with every named shape inside it (and itself) replaced by a $ref, each named shape added to `named`. */
function referenced(schema: unknown, named: Map<string, unknown>): unknown {
  const name = NAMED_SCHEMAS.get(schema as JsonSchema);
  if (name !== undefined) {
    if (!named.has(name)) {
      named.set(name, null); // reserved first: a shape never contains itself, but the order stays the walk's
      named.set(name, inlined(schema, named));
    }
    return ref('schemas', name);
  }
  return inlined(schema, named);
}

function inlined(schema: unknown, named: Map<string, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => referenced(item, named));
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, key === 'enum' || key === 'const' ? value : referenced(value, named)]));
}

/** `/runs/:runId` → `/runs/{runId}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z]+)/g, '{$1}');
}

/** `GET /automations/:automationId/runs` → `getAutomationsByAutomationIdRuns`. */
function operationId(route: PublicRoute): string {
  const words = route.path
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? `by-${segment.slice(1)}` : segment))
    .flatMap((segment) => segment.split(/[-.]/));
  return [route.method.toLowerCase(), ...words.map((word) => word.charAt(0).toUpperCase() + word.slice(1))].join('');
}

const TAGS: Record<string, string> = {
  catalog: 'Catalog',
  sandboxes: 'Sandboxes',
  'automations-engine': 'Automations',
  'pr-review': 'PR reviews',
  runs: 'Runs',
  'mcp-registry': 'External tool servers',
  gateway: 'MCP transport',
};

/** Each error status the REST routes answer, the codes it carries and why (CONTRACT.md, Errors). */
const ERROR_RESPONSES: Record<string, { name: string; codes: ErrorCode[]; description: string; retryAfter?: boolean }> = {
  '400': {
    name: 'BadRequest',
    codes: ['BAD_REQUEST'],
    description: 'Malformed JSON, a missing or invalid field, a `limit` that is not an integer, a missing or over-long `Idempotency-Key`. Fix the request.',
  },
  '401': { name: 'Unauthorized', codes: ['UNAUTHORIZED'], description: 'The token is missing, malformed, invalid, expired or revoked.' },
  '403': { name: 'Forbidden', codes: ['FORBIDDEN'], description: 'The token lacks the scope the route needs; the message names it.' },
  '404': { name: 'NotFound', codes: ['NOT_FOUND'], description: 'The resource does not exist or is not the caller’s.' },
  '409': {
    name: 'Conflict',
    codes: ['CONFLICT', 'IDEMPOTENCY_CONFLICT'],
    description:
      'The resource’s state prevents the operation (`CONFLICT`: re-read it first), or the `Idempotency-Key` was used with another body (`IDEMPOTENCY_CONFLICT`).',
  },
  '429': {
    name: 'RateLimited',
    codes: ['RATE_LIMITED'],
    description: `The per-token limit (60 requests per 60 s) or, on POST /runs, the per-user run-start budget is spent. Retry after \`Retry-After\` (${RETRY_AFTER_SECONDS}) seconds.`,
    retryAfter: true,
  },
  '500': {
    name: 'InternalError',
    codes: ['INTERNAL_ERROR'],
    description: 'Unexpected; report it with the `X-Request-Id` of the answer. Retry once with backoff.',
  },
  '503': {
    name: 'ServiceUnavailable',
    codes: ['SERVICE_UNAVAILABLE'],
    description: 'A backend the route needs (the runtime, the rate-limit store) is unavailable. Retry with backoff, honouring `Retry-After`.',
    retryAfter: true,
  },
};

const X_REQUEST_ID = { 'X-Request-Id': ref('headers', 'X-Request-Id') };

/** The error statuses a REST route can answer, by what it takes. */
function errorStatuses(route: PublicRoute, schemas: RouteSchemas): string[] {
  const statuses = ['401', '403'];
  if (schemas.body || route.idempotencyKey || Object.keys(schemas.query).length > 0) statuses.unshift('400');
  if (Object.keys(schemas.params).length > 0 || schemas.body) statuses.push('404');
  if (route.auth === 'write') statuses.push('409');
  statuses.push('429', '500', '503');
  return statuses;
}

const SSE_DESCRIPTION = [
  'With `Accept: text/event-stream` the events arrive live as Server-Sent Events:',
  '- each run event as one SSE event: `id:` the event id, `event:` its type, `data:` the RunEvent JSON;',
  '- the run at the start and on every status change as `event: run` (`data:` the Run JSON), with no `id:`;',
  '- `: heartbeat` comment lines after 15 s without a write;',
  '- the end of the stream once the run is terminal and its last events are written; reads failing for 30 s end it with `event: error` (`data:` `{code, message}`).',
  '`Last-Event-ID` (or `after`) resumes after that event with no gap or duplicate. Errors before the stream starts answer in the JSON envelope.',
].join('\n');

function parametersOf(route: PublicRoute, schemas: RouteSchemas, named: Map<string, unknown>): unknown[] {
  const path = Object.entries(schemas.params).map(([name, schema]) => {
    const { description, ...rest } = schema as { description?: string };
    return { name, in: 'path', required: true, ...(description ? { description } : {}), schema: referenced(rest, named) };
  });
  const query = Object.entries(schemas.query).map(([name, schema]) => {
    const { description, ...rest } = schema as { description?: string };
    const withDefault = name === 'limit' && route.limit ? { ...rest, default: route.limit.default } : rest;
    return { name, in: 'query', required: false, ...(description ? { description } : {}), schema: referenced(withDefault, named) };
  });
  const headers = route.idempotencyKey
    ? [
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: true,
          description:
            'Your unique key for this request (case-sensitive, at most 200 characters). The same key and body return the first result; the same key with another body is 409 IDEMPOTENCY_CONFLICT.',
          schema: { ...IDEMPOTENCY_KEY_SCHEMA },
        },
      ]
    : [];
  return [...path, ...query, ...headers];
}

function restOperation(route: PublicRoute, schemas: RouteSchemas, named: Map<string, unknown>): OpenApiOperation {
  const scope = route.auth as 'read' | 'write';
  const data = schemas.data === null ? {} : referenced(schemas.data, named);
  const envelope = { type: 'object', required: ['ok', 'data'], additionalProperties: false, properties: { ok: { const: true }, data } };
  const content: Record<string, unknown> = { 'application/json': { schema: envelope } };
  const streams = routeKeyOf(route) === 'GET /runs/:runId/events';
  if (streams) content['text/event-stream'] = { schema: { type: 'string', description: SSE_DESCRIPTION } };
  const parameters = parametersOf(route, schemas, named);
  const bodyRequired = ((schemas.body as { required?: readonly string[] } | undefined)?.required?.length ?? 0) > 0;
  return {
    operationId: operationId(route),
    tags: [TAGS[route.owner] ?? route.owner],
    ...(streams ? { description: SSE_DESCRIPTION } : {}),
    security: [{ pat: [scope] }],
    'x-required-scope': scope,
    ...(route.addition ? { 'x-ars-addition': true } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(schemas.body ? { requestBody: { required: bodyRequired, content: { 'application/json': { schema: referenced(schemas.body, named) } } } } : {}),
    responses: {
      [String(route.successStatus)]: { description: 'Success: `{ok: true, data}`.', headers: X_REQUEST_ID, content },
      ...Object.fromEntries(errorStatuses(route, schemas).map((status) => [status, ref('responses', (ERROR_RESPONSES[status] as { name: string }).name)])),
    },
  };
}

/** CONTRACT.md, External tool transport: the JSON-RPC error table. */
const JSON_RPC_ERRORS = [
  { code: -32700, http: 400, meaning: 'body not valid JSON' },
  { code: -32600, http: 400, meaning: 'body not a valid JSON-RPC request' },
  { code: -32601, http: 200, meaning: 'method or tool does not exist' },
  { code: -32602, http: 200, meaning: 'tool arguments missing or invalid' },
  { code: -32001, http: 401, meaning: 'OAuth or PAT authorization missing or invalid' },
  { code: -32002, http: 429, meaning: 'authentication rate limit exceeded' },
  { code: -32003, http: 403, meaning: 'browser request from a forbidden origin' },
  { code: -32603, http: 200, meaning: 'unexpected failure handling the message' },
] as const;

const JSON_RPC_TABLE = ['| JSON-RPC code | HTTP | Meaning |', '|---|---|---|', ...JSON_RPC_ERRORS.map((e) => `| ${e.code} | ${e.http} | ${e.meaning} |`)].join(
  '\n',
);

const JSON_RPC_ID = { type: ['string', 'number', 'null'] };
const JSON_RPC_REQUEST = {
  type: 'object',
  required: ['jsonrpc', 'method'],
  properties: {
    jsonrpc: { const: '2.0' },
    id: JSON_RPC_ID,
    method: { type: 'string', description: '`initialize`, `notifications/initialized`, `ping`, `tools/list` or `tools/call`.' },
    params: { type: 'object', description: '`tools/call`: `{name, arguments}`.' },
  },
};
const JSON_RPC_ERROR = {
  type: 'object',
  required: ['jsonrpc', 'error'],
  properties: {
    jsonrpc: { const: '2.0' },
    id: JSON_RPC_ID,
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'integer', enum: JSON_RPC_ERRORS.map((e) => e.code) }, message: { type: 'string' }, data: {} },
    },
  },
};
const JSON_RPC_RESPONSE = {
  description: 'A JSON-RPC 2.0 answer: `{jsonrpc, id, result}` or `{jsonrpc, id?, error}`.',
  oneOf: [{ type: 'object', required: ['jsonrpc', 'id', 'result'], properties: { jsonrpc: { const: '2.0' }, id: JSON_RPC_ID, result: {} } }, JSON_RPC_ERROR],
};
const rpcFailure = (codes: number[], description: string) => ({
  description: `${description} (JSON-RPC ${codes.join(', ')}).`,
  headers: X_REQUEST_ID,
  content: { 'application/json': { schema: JSON_RPC_ERROR } },
});

function mcpOperation(route: PublicRoute): OpenApiOperation {
  const common = { operationId: operationId(route), tags: [TAGS.gateway], ...(route.addition ? { 'x-ars-addition': true } : {}) };
  switch (route.method) {
    case 'POST':
      return {
        ...common,
        summary: 'The MCP tool transport: stateless streamable HTTP carrying JSON-RPC 2.0',
        description: `Send \`Accept: application/json, text/event-stream\`. Methods: \`initialize\`, \`notifications/initialized\`, \`ping\`, \`tools/list\`, \`tools/call\` (23 tools). A message without an \`id\` is a notification: 202 with no body. A valid \`tools/call\` whose operation fails is 200 with \`isError: true\` and \`structuredContent.error\` \`{code, status, message, suggestion}\`. Failures use the JSON-RPC envelope, not the REST one:\n\n${JSON_RPC_TABLE}`,
        security: [{ pat: [] }, { oauth2: [] }],
        'x-required-scope': 'any',
        'x-jsonrpc-errors': JSON_RPC_ERRORS,
        requestBody: { required: true, content: { 'application/json': { schema: JSON_RPC_REQUEST } } },
        responses: {
          '200': {
            description: 'A JSON-RPC answer (a result, or a -32601/-32602/-32603 error).',
            headers: X_REQUEST_ID,
            content: { 'application/json': { schema: JSON_RPC_RESPONSE } },
          },
          '202': { description: 'A notification (no `id`) was accepted; no body.', headers: X_REQUEST_ID },
          '400': rpcFailure([-32700, -32600], 'Not JSON, or not a JSON-RPC request'),
          '401': rpcFailure([-32001], 'OAuth or PAT authorization missing or invalid'),
          '403': rpcFailure([-32003], 'A browser request from a forbidden origin'),
          '429': { ...rpcFailure([-32002], 'Too many requests or refused tokens'), headers: { ...X_REQUEST_ID, 'Retry-After': ref('headers', 'Retry-After') } },
        },
      };
    case 'OPTIONS':
      return {
        ...common,
        summary: 'CORS preflight of the MCP transport',
        security: [],
        responses: { '204': { description: 'The CORS headers; no body.', headers: X_REQUEST_ID } },
      };
    default:
      return {
        ...common,
        summary: 'Always 405: the transport accepts POST only',
        security: [],
        responses: { '405': rpcFailure([-32600], 'Method not allowed; `Allow: POST, OPTIONS`') },
      };
  }
}

function documentOperation(route: PublicRoute): OpenApiOperation {
  return {
    operationId: operationId(route),
    tags: ['Documentation'],
    summary: 'This document',
    description: 'The public API as OpenAPI 3.1. Public documentation: no token needed; cacheable.',
    security: [],
    'x-ars-addition': true,
    responses: {
      '200': {
        description: 'The OpenAPI document (not in the envelope).',
        headers: X_REQUEST_ID,
        content: { 'application/json': { schema: { type: 'object', required: ['openapi', 'info', 'paths'] } } },
      },
    },
  };
}

const failureFor = (codes: ErrorCode[]) => ({
  allOf: [ref('schemas', 'FailureEnvelope'), { properties: { error: { properties: { code: { enum: codes } } } } }],
});

/** The document for this version of the gateway. */
export function openApiDocument(version: string): OpenApiDocument {
  const named = new Map<string, unknown>();
  referenced(FAILURE_ENVELOPE_SCHEMA, named);
  const paths: Record<string, Record<string, OpenApiOperation>> = {};
  for (const route of PUBLIC_ROUTES) {
    const schemas = ROUTE_SCHEMAS.get(routeKeyOf(route)) as RouteSchemas;
    const operation =
      route.path === '/mcp' ? mcpOperation(route) : route.path === '/openapi.json' ? documentOperation(route) : restOperation(route, schemas, named);
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation };
  }
  const responses = Object.fromEntries(
    Object.values(ERROR_RESPONSES).map(({ name, codes, description, retryAfter }) => [
      name,
      {
        description: `${codes.map((code) => `\`${code}\` (${ERROR_CODES[code]})`).join(', ')}: ${description}`,
        headers: { ...X_REQUEST_ID, ...(retryAfter ? { 'Retry-After': ref('headers', 'Retry-After') } : {}) },
        content: { 'application/json': { schema: failureFor(codes) } },
      },
    ]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agent Run Service',
      version,
      summary: 'Start AI coding agents in sandboxes against your repositories; automations, PR review reruns, and an MCP tool transport.',
      description:
        'Every REST answer is JSON in one of two envelopes: `{ok: true, data}` or `{ok: false, error: {code, message}}`; branch on `code`, never on `message`. Every answer carries `X-Request-Id`. Limits: 60 requests per 60 s per token; run starts 10 per minute, 30 per hour, 150 per day per user. Operations marked `x-ars-addition` are compatible additions to the contract.',
    },
    servers: [{ url: PUBLIC_PREFIX }],
    security: [{ pat: [] }],
    tags: [...new Set([...Object.values(TAGS), 'Documentation'])].map((name) => ({ name })),
    paths,
    components: {
      schemas: Object.fromEntries(named),
      responses,
      headers: {
        'X-Request-Id': {
          description: 'This request’s id (the request’s own when sane, else generated): quote it when reporting a failure.',
          schema: { type: 'string' },
        },
        'Retry-After': { description: `Seconds to wait before retrying (${RETRY_AFTER_SECONDS}).`, schema: { type: 'integer', minimum: 0 } },
      },
      securitySchemes: {
        pat: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A personal access token: `Authorization: Bearer tok_…`. Its scopes (`read` for GET, `write` for the mutating routes) are listed per operation (`x-required-scope`); a token without it is 403.',
        },
        oauth2: {
          type: 'http',
          scheme: 'bearer',
          description: 'An OAuth 2.1 access token for the MCP transport only, from the authorization server the 401’s `WWW-Authenticate` names (RFC 9728).',
        },
      },
    },
  };
}

/** The document as the checked-in file and the route hold it: stable JSON, two spaces, a final newline. */
export function openApiText(version: string): string {
  return `${JSON.stringify(openApiDocument(version), null, 2)}\n`;
}
