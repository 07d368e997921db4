// What each public route takes and answers, as JSON Schemas: its path parameters, its query, its
// body and the `data` of its success. Each schema is its owner's (the contract's, the engine's,
// sandboxes', pr-review's, mcp-registry's, through their client entry points); this map only puts
// them beside the routes of routeTable.ts. The OpenAPI document (openApi.ts) and the MCP tools'
// input schemas (mcp/tools.ts) both read it, so nothing is written twice. No I/O.
import {
  AUTOMATION_EVENT_BODY_SCHEMA,
  AUTOMATION_EVENT_RESULT_SCHEMA,
  AUTOMATION_RUN_DETAIL_SCHEMA,
  AUTOMATION_RUN_SUMMARY_SCHEMA,
  AUTOMATION_SCHEMA,
  AUTOMATION_SUMMARY_SCHEMA,
  CREATE_AUTOMATION_BODY_SCHEMA,
  SET_NODE_MODEL_BODY_SCHEMA,
  TRIGGER_BODY_SCHEMA,
  TRIGGER_RESULT_SCHEMA,
  UPDATE_AUTOMATION_BODY_SCHEMA,
  VALIDATE_GRAPH_BODY_SCHEMA,
  VALIDATION_RESULT_SCHEMA,
} from '@ars/automations-engine/client';
import {
  AGENT_SCHEMA,
  CANCEL_RUN_ANSWER_SCHEMA,
  MODEL_SCHEMA,
  REPO_SCHEMA,
  RERUN_PR_REVIEW_DATA_SCHEMA,
  RUN_EVENT_SCHEMA,
  RUN_SCHEMA,
  SANDBOX_LOGS_SCHEMA,
  SANDBOX_SCHEMA,
  START_RUN_ANSWER_SCHEMA,
  START_RUN_BODY_SCHEMA,
} from '@ars/contract';
import type { LimitRange } from '@ars/http-app';
import { MCP_SERVER_ITEM_SCHEMA } from '@ars/mcp-registry/client';
import { RERUN_PR_REVIEW_BODY_SCHEMA } from '@ars/pr-review/client';
import { CREATE_SANDBOX_BODY_SCHEMA } from '@ars/sandboxes/client';
import { PUBLIC_ROUTES, type PublicRoute } from './routeTable.js';

export type JsonSchema = Readonly<Record<string, unknown>>;

export interface RouteSchemas {
  /** Each path parameter (`:name` in the route's path), in the order of the path. */
  params: Readonly<Record<string, JsonSchema>>;
  /** Each query parameter the route reads. */
  query: Readonly<Record<string, JsonSchema>>;
  /** The JSON body's schema; absent when the route takes none. */
  body?: JsonSchema;
  /** The success envelope's `data`; null for the routes that answer outside the envelope (/mcp, the document itself). */
  data: JsonSchema | null;
}

/** `Idempotency-Key` (CONTRACT.md, Request conventions): free format, case-sensitive, at most 200 characters. */
export const IDEMPOTENCY_KEY_SCHEMA = { type: 'string', minLength: 1, maxLength: 200 } as const;

const id = (description: string): JsonSchema => ({ type: 'string', minLength: 1, maxLength: 200, description });
const SANDBOX_ID = id('The sandbox record id (`id` of a Sandbox, not its provider `sandbox_id`).');
const AUTOMATION_ID = id('The automation id.');
const AUTOMATION_RUN_ID = id('The automation run id (jobRunId).');
const RUN_ID = id('The run id.');

/** The `limit` query parameter of a route with a range (out-of-range values are clamped into it; not an integer: 400). */
export function limitSchema(range: LimitRange): JsonSchema {
  return {
    type: 'integer',
    minimum: range.min,
    maximum: range.max,
    description: `How many to return (${range.min}–${range.max}, default ${range.default}).`,
  };
}

const object = (properties: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  required: Object.keys(properties),
  additionalProperties: false,
  properties,
});
const arrayOf = (items: JsonSchema): JsonSchema => ({ type: 'array', items });
const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [{ type: 'null' }, schema] });

const AUTOMATION = object({ automation: AUTOMATION_SCHEMA });
const AUTOMATION_RUN_DETAIL = object({ run: AUTOMATION_RUN_DETAIL_SCHEMA });
const RUN = object({ run: RUN_SCHEMA });

/** A route's schemas but for its `limit`, which comes from the route table's range. */
type Written = Omit<RouteSchemas, 'params' | 'query'> & { params?: Record<string, JsonSchema>; query?: Record<string, JsonSchema> };

const WRITTEN: Readonly<Record<string, Written>> = {
  'GET /repos': {
    query: { q: { type: 'string', maxLength: 200, description: 'Part of owner/name to filter by.' } },
    data: object({ repos: arrayOf(REPO_SCHEMA) }),
  },
  'GET /agents': { data: object({ agents: arrayOf(AGENT_SCHEMA) }) },
  'GET /models': { data: object({ models: arrayOf(MODEL_SCHEMA) }) },
  'GET /sandboxes': {
    query: {
      repo_id: { type: 'string', description: 'Only the sandboxes of this repository.' },
      status: { type: 'string', description: 'Only the sandboxes with this status.' },
    },
    data: object({ sandboxes: arrayOf(SANDBOX_SCHEMA) }),
  },
  'POST /sandboxes': { body: CREATE_SANDBOX_BODY_SCHEMA, data: object({ sandbox: SANDBOX_SCHEMA }) },
  'GET /sandboxes/:sandboxId/logs': { params: { sandboxId: SANDBOX_ID }, data: SANDBOX_LOGS_SCHEMA },
  'GET /automations': {
    query: { cursor: { type: 'string', maxLength: 500, description: 'nextCursor of the previous page.' } },
    data: object({ automations: arrayOf(AUTOMATION_SUMMARY_SCHEMA), nextCursor: { type: ['string', 'null'] } }),
  },
  'POST /automations': { body: CREATE_AUTOMATION_BODY_SCHEMA, data: AUTOMATION },
  'GET /automations/:automationId': { params: { automationId: AUTOMATION_ID }, data: AUTOMATION },
  'PUT /automations/:automationId': { params: { automationId: AUTOMATION_ID }, body: UPDATE_AUTOMATION_BODY_SCHEMA, data: AUTOMATION },
  'POST /automations/:automationId/publish': { params: { automationId: AUTOMATION_ID }, data: AUTOMATION },
  'PUT /automations/:automationId/model': { params: { automationId: AUTOMATION_ID }, body: SET_NODE_MODEL_BODY_SCHEMA, data: AUTOMATION },
  'POST /automations/:automationId/validate': {
    params: { automationId: AUTOMATION_ID },
    body: VALIDATE_GRAPH_BODY_SCHEMA,
    data: VALIDATION_RESULT_SCHEMA,
  },
  'POST /automations/:automationId/trigger': { params: { automationId: AUTOMATION_ID }, body: TRIGGER_BODY_SCHEMA, data: TRIGGER_RESULT_SCHEMA },
  'GET /automations/:automationId/runs': { params: { automationId: AUTOMATION_ID }, data: object({ runs: arrayOf(AUTOMATION_RUN_SUMMARY_SCHEMA) }) },
  'GET /automations/:automationId/runs/:runId': {
    params: { automationId: AUTOMATION_ID, runId: AUTOMATION_RUN_ID },
    data: object({ run: nullable(AUTOMATION_RUN_DETAIL_SCHEMA) }),
  },
  'POST /automations/:automationId/runs/:runId/cancel': { params: { automationId: AUTOMATION_ID, runId: AUTOMATION_RUN_ID }, data: AUTOMATION_RUN_DETAIL },
  'POST /automations/events': { body: AUTOMATION_EVENT_BODY_SCHEMA, data: AUTOMATION_EVENT_RESULT_SCHEMA },
  'POST /pr-reviews/rerun': { body: RERUN_PR_REVIEW_BODY_SCHEMA, data: RERUN_PR_REVIEW_DATA_SCHEMA },
  'POST /runs': { body: START_RUN_BODY_SCHEMA, data: START_RUN_ANSWER_SCHEMA },
  'GET /runs/:runId': { params: { runId: RUN_ID }, data: RUN },
  'GET /runs/:runId/events': {
    params: { runId: RUN_ID },
    query: { after: { type: 'string', maxLength: 200, description: 'An event id: only the events after it (paging; resuming a stream).' } },
    data: object({ run: RUN_SCHEMA, events: arrayOf(RUN_EVENT_SCHEMA) }),
  },
  'POST /runs/:runId/cancel': { params: { runId: RUN_ID }, data: CANCEL_RUN_ANSWER_SCHEMA },
  'GET /mcp/servers': { data: object({ servers: arrayOf(MCP_SERVER_ITEM_SCHEMA) }) },
  'POST /mcp': { data: null },
  'OPTIONS /mcp': { data: null },
  'GET /mcp': { data: null },
  'GET /openapi.json': { data: null },
};

export const routeKeyOf = (route: Pick<PublicRoute, 'method' | 'path'>): string => `${route.method} ${route.path}`;

/** The path's parameter names, in order (`/a/:x/b/:y` → x, y). */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z]+)/g)].map((match) => match[1] as string);
}

function schemasOf(route: PublicRoute): RouteSchemas {
  const key = routeKeyOf(route);
  const written = WRITTEN[key];
  if (!written) throw new Error(`no schemas for the public route ${key}`);
  const params = written.params ?? {};
  const named = pathParamNames(route.path);
  if (named.join() !== Object.keys(params).join()) throw new Error(`${key}: path parameters ${named.join()} but schemas for ${Object.keys(params).join()}`);
  const query = { ...written.query, ...(route.limit ? { limit: limitSchema(route.limit) } : {}) };
  return { ...written, params, query };
}

/** Every public route's schemas, by `METHOD /path` (the route table's form). */
export const ROUTE_SCHEMAS: ReadonlyMap<string, RouteSchemas> = new Map(PUBLIC_ROUTES.map((route) => [routeKeyOf(route), schemasOf(route)]));

export function routeSchemasOf(key: string): RouteSchemas {
  const schemas = ROUTE_SCHEMAS.get(key);
  if (!schemas) throw new Error(`no public route ${key}`);
  return schemas;
}
