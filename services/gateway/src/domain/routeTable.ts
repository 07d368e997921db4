import type { LimitRange } from '@ars/http-app';
import type { Peer } from '../peers.js';

/**
 * What a public route needs before it runs: `read`/`write` (a PAT with that scope), `token` (a PAT
 * with any scope: the MCP transport) or `none` (CORS preflight, the 405 of `GET /mcp`, and the
 * OpenAPI document, which is public documentation).
 */
export type RouteAuth = 'read' | 'write' | 'token' | 'none';

export interface PublicRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'OPTIONS';
  /** Relative to `/api/v1/svc`, with `:param` placeholders. */
  path: string;
  auth: RouteAuth;
  /** Who answers: the gateway itself, or the service whose internal API it is forwarded to. */
  owner: Peer | 'gateway';
  /** The HTTP status of a success answer (CONTRACT.md, Endpoints). */
  successStatus: 200 | 201 | 202;
  /** The route's `limit` query parameter: clamped into the range, 400 when not an integer. */
  limit?: LimitRange;
  /** `Idempotency-Key` required (CONTRACT.md, Request conventions). */
  idempotencyKey?: boolean;
  /** Not in the contract's index: a compatible addition, documented in its owner's README. */
  addition?: true;
}

const LIST_200: LimitRange = { min: 1, max: 200, default: 100 };
const AUTOMATIONS: LimitRange = { min: 1, max: 100, default: 50 };
const AUTOMATION_RUNS: LimitRange = { min: 1, max: 50, default: 20 };

/** CONTRACT.md, Endpoints, Index: every public route, in the contract's order, with the documented additions beside their kin. */
export const PUBLIC_ROUTES: readonly PublicRoute[] = [
  { method: 'GET', path: '/repos', auth: 'read', owner: 'catalog', successStatus: 200, limit: LIST_200 },
  { method: 'GET', path: '/agents', auth: 'read', owner: 'catalog', successStatus: 200 },
  { method: 'GET', path: '/models', auth: 'read', owner: 'catalog', successStatus: 200 },
  { method: 'GET', path: '/sandboxes', auth: 'read', owner: 'sandboxes', successStatus: 200, limit: LIST_200 },
  { method: 'POST', path: '/sandboxes', auth: 'write', owner: 'sandboxes', successStatus: 202 },
  { method: 'GET', path: '/sandboxes/:sandboxId/logs', auth: 'read', owner: 'sandboxes', successStatus: 200 },
  { method: 'GET', path: '/automations', auth: 'read', owner: 'automations-engine', successStatus: 200, limit: AUTOMATIONS },
  { method: 'POST', path: '/automations', auth: 'write', owner: 'automations-engine', successStatus: 201 },
  { method: 'GET', path: '/automations/:automationId', auth: 'read', owner: 'automations-engine', successStatus: 200 },
  { method: 'PUT', path: '/automations/:automationId', auth: 'write', owner: 'automations-engine', successStatus: 200 },
  { method: 'POST', path: '/automations/:automationId/publish', auth: 'write', owner: 'automations-engine', successStatus: 200 },
  { method: 'PUT', path: '/automations/:automationId/model', auth: 'write', owner: 'automations-engine', successStatus: 200 },
  // Changes nothing, but it is part of authoring a graph (and can carry one): write, like PUT and publish.
  { method: 'POST', path: '/automations/:automationId/validate', auth: 'write', owner: 'automations-engine', successStatus: 200, addition: true },
  { method: 'POST', path: '/automations/:automationId/trigger', auth: 'write', owner: 'automations-engine', successStatus: 202, idempotencyKey: true },
  { method: 'GET', path: '/automations/:automationId/runs', auth: 'read', owner: 'automations-engine', successStatus: 200, limit: AUTOMATION_RUNS },
  { method: 'GET', path: '/automations/:automationId/runs/:runId', auth: 'read', owner: 'automations-engine', successStatus: 200 },
  { method: 'POST', path: '/automations/:automationId/runs/:runId/cancel', auth: 'write', owner: 'automations-engine', successStatus: 200, addition: true },
  // Delivered to the caller's await_event nodes (DESIGN.md, Automations); registered before nothing it could shadow (no POST /automations/:id).
  { method: 'POST', path: '/automations/events', auth: 'write', owner: 'automations-engine', successStatus: 202, addition: true },
  { method: 'POST', path: '/pr-reviews/rerun', auth: 'write', owner: 'pr-review', successStatus: 200 },
  { method: 'POST', path: '/runs', auth: 'write', owner: 'runs', successStatus: 202, idempotencyKey: true },
  { method: 'GET', path: '/runs/:runId', auth: 'read', owner: 'runs', successStatus: 200 },
  { method: 'GET', path: '/runs/:runId/events', auth: 'read', owner: 'runs', successStatus: 200, limit: LIST_200 },
  { method: 'POST', path: '/runs/:runId/cancel', auth: 'write', owner: 'runs', successStatus: 200 },
  { method: 'GET', path: '/mcp/servers', auth: 'read', owner: 'mcp-registry', successStatus: 200 },
  { method: 'POST', path: '/mcp', auth: 'token', owner: 'gateway', successStatus: 200 },
  { method: 'OPTIONS', path: '/mcp', auth: 'none', owner: 'gateway', successStatus: 200 },
  { method: 'GET', path: '/mcp', auth: 'none', owner: 'gateway', successStatus: 200 },
  // This API described as OpenAPI 3.1 (openApi.ts): public documentation, answered without a token.
  { method: 'GET', path: '/openapi.json', auth: 'none', owner: 'gateway', successStatus: 200, addition: true },
];

export const PUBLIC_PREFIX = '/api/v1/svc';
