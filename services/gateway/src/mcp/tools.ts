// The MCP tools: one per public route of the contract (svc_<verb>_<noun>) plus svc_wait_for_run and
// svc_validate_automation. Each names the route it runs (the same handler as REST: routeCall.ts), the
// input schema built from the route's own body schema (the owner's, through its client entry point;
// never written twice), what it may do (annotations) and a description written for a model.
import {
  CREATE_AUTOMATION_BODY_SCHEMA,
  SET_NODE_MODEL_BODY_SCHEMA,
  TRIGGER_BODY_SCHEMA,
  UPDATE_AUTOMATION_BODY_SCHEMA,
  VALIDATE_GRAPH_BODY_SCHEMA,
} from '@ars/automations-engine/client';
import { START_RUN_BODY_SCHEMA } from '@ars/contract';
import { RERUN_PR_REVIEW_BODY_SCHEMA } from '@ars/pr-review/client';
import { CREATE_SANDBOX_BODY_SCHEMA } from '@ars/sandboxes/client';
import { PUBLIC_ROUTES, type PublicRoute } from '../domain/routeTable.js';
import { maskMcpServerSecrets } from './maskSecrets.js';
import type { Scope } from '../domain/scopes.js';

type JsonSchema = Record<string, unknown>;

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint: boolean;
}

export interface McpTool {
  name: string;
  title: string;
  description: string;
  /** `METHOD /path` of the public route it runs, or null for the gateway's own (svc_wait_for_run). */
  route: string | null;
  scope: Scope;
  annotations: ToolAnnotations;
  /** Argument names that fill the route's path parameters. */
  params: readonly string[];
  /** Argument names sent as the route's query. */
  query: readonly string[];
  /** The route takes a body: every other argument is a field of it. */
  body: boolean;
  /** `idempotencyKey` is a required argument, sent as `Idempotency-Key`. */
  idempotencyKey: boolean;
  inputSchema: JsonSchema;
  /** The keys a success answer always has (its `structuredContent`). */
  successKeys: readonly string[];
  /** What the model is shown of a success (e.g. secrets masked); default the route's data as it is. */
  present?: (data: unknown) => unknown;
}

const id = (what: string): JsonSchema => ({ type: 'string', minLength: 1, maxLength: 200, description: what });
const limit = (max: number, fallback: number): JsonSchema => ({
  type: 'integer',
  minimum: 1,
  maximum: max,
  description: `How many to return (1–${max}, default ${fallback}).`,
});
const IDEMPOTENCY_KEY: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 200,
  description:
    'A key you choose for this request (e.g. a UUID). Calling again with the same key and arguments returns the first result instead of doing it twice.',
};

const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

interface ToolSpec {
  name: string;
  title: string;
  description: string;
  route: string | null;
  annotations: ToolAnnotations;
  params?: Record<string, JsonSchema>;
  query?: Record<string, JsonSchema>;
  body?: JsonSchema;
  idempotencyKey?: boolean;
  successKeys: string[];
  present?: (data: unknown) => unknown;
}

/** The input schema: path parameters, query, `idempotencyKey` and the body's fields side by side; nothing else. */
function inputSchemaOf(spec: ToolSpec): JsonSchema {
  const body = (spec.body ?? {}) as { properties?: Record<string, unknown>; required?: readonly string[] };
  // A property the body forbids (`false`, e.g. POST /runs' model) is left out: additionalProperties refuses it anyway.
  const allowed = Object.fromEntries(Object.entries(body.properties ?? {}).filter(([, schema]) => schema !== false));
  const properties = { ...spec.params, ...spec.query, ...(spec.idempotencyKey ? { idempotencyKey: IDEMPOTENCY_KEY } : {}), ...allowed };
  const required = [...Object.keys(spec.params ?? {}), ...(spec.idempotencyKey ? ['idempotencyKey'] : []), ...(body.required ?? [])];
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

const SPECS: readonly ToolSpec[] = [
  {
    name: 'svc_list_repos',
    title: 'List repositories',
    description:
      'Lists the repositories you can run agents on (id, full name, default branch). Use it first to find the repoId other tools need; `q` filters by a part of owner/name.',
    route: 'GET /repos',
    annotations: READ,
    query: { q: { type: 'string', maxLength: 200, description: 'Part of owner/name to filter by.' }, limit: limit(200, 100) },
    successKeys: ['repos'],
  },
  {
    name: 'svc_list_agents',
    title: 'List agents',
    description:
      'Lists the agents you can use in automations (your own, then the presets), each with its model. Use it to pick an agentId for an automation’s agent node.',
    route: 'GET /agents',
    annotations: READ,
    successKeys: ['agents'],
  },
  {
    name: 'svc_list_models',
    title: 'List models',
    description: 'Lists the models available to you, with provider, context length, capabilities and prices per million tokens.',
    route: 'GET /models',
    annotations: READ,
    successKeys: ['models'],
  },
  {
    name: 'svc_list_sandboxes',
    title: 'List sandboxes',
    description: 'Lists your sandboxes (the isolated machines agents work in) with their status and repository.',
    route: 'GET /sandboxes',
    annotations: READ,
    query: { limit: limit(200, 100) },
    successKeys: ['sandboxes'],
  },
  {
    name: 'svc_create_sandbox',
    title: 'Create or reuse a sandbox',
    description: 'Creates a sandbox with a repository checked out (or reuses a matching one). Runs create their own; use this to prepare one ahead.',
    route: 'POST /sandboxes',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    body: CREATE_SANDBOX_BODY_SCHEMA,
    successKeys: ['sandbox'],
  },
  {
    name: 'svc_get_sandbox_logs',
    title: 'Read a sandbox’s logs',
    description: 'Returns a sandbox’s recent log text and lifecycle events (secrets redacted). Use it when a sandbox or run failed to start.',
    route: 'GET /sandboxes/:sandboxId/logs',
    annotations: READ,
    params: { sandboxId: id('The sandbox id (from svc_list_sandboxes).') },
    successKeys: ['sandbox', 'lifecycle_events'],
  },
  {
    name: 'svc_list_automations',
    title: 'List automations',
    description: 'Lists your automations (graphs of agent steps) with their status and published version. `cursor` continues a previous page.',
    route: 'GET /automations',
    annotations: READ,
    query: { limit: limit(100, 50), cursor: { type: 'string', maxLength: 500, description: 'nextCursor of the previous page.' } },
    successKeys: ['automations'],
  },
  {
    name: 'svc_create_automation',
    title: 'Create an automation',
    description:
      'Creates an automation on an installation: a graph of nodes (start, agent, condition, parallel, join, delay, await_event, set_variable, end). Without `graph` a default draft is made; `publish: true` also publishes it (it must then pass every publish check).',
    route: 'POST /automations',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    body: CREATE_AUTOMATION_BODY_SCHEMA,
    successKeys: ['automation'],
  },
  {
    name: 'svc_get_automation',
    title: 'Get an automation',
    description: 'Returns an automation with its draft graph and published version.',
    route: 'GET /automations/:automationId',
    annotations: READ,
    params: { automationId: id('The automation id.') },
    successKeys: ['automation'],
  },
  {
    name: 'svc_update_automation',
    title: 'Update an automation',
    description:
      'Replaces fields of an automation’s draft (name, description, notes, graph) or its status (active/inactive). The published version is unchanged until svc_publish_automation.',
    route: 'PUT /automations/:automationId',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    params: { automationId: id('The automation id.') },
    body: UPDATE_AUTOMATION_BODY_SCHEMA,
    successKeys: ['automation'],
  },
  {
    name: 'svc_publish_automation',
    title: 'Publish an automation',
    description:
      'Publishes the draft as a new version, after every publish check (one start, one end, bound agents, valid connections and node data). Triggers then run this version.',
    route: 'POST /automations/:automationId/publish',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    params: { automationId: id('The automation id.') },
    successKeys: ['automation'],
  },
  {
    name: 'svc_set_automation_model',
    title: 'Set an agent node’s model',
    description: 'Sets (or with modelId null clears) the model an agent node uses instead of its agent’s; `publish: true` publishes right after.',
    route: 'PUT /automations/:automationId/model',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    params: { automationId: id('The automation id.') },
    body: SET_NODE_MODEL_BODY_SCHEMA,
    successKeys: ['automation'],
  },
  {
    name: 'svc_validate_automation',
    title: 'Validate an automation',
    description:
      'Runs every publish check on the draft (or on the `graph` given) without publishing, and lists each problem with its code and node. Use it before svc_publish_automation.',
    route: 'POST /automations/:automationId/validate',
    annotations: READ,
    params: { automationId: id('The automation id.') },
    body: VALIDATE_GRAPH_BODY_SCHEMA,
    successKeys: ['valid'],
  },
  {
    name: 'svc_trigger_automation',
    title: 'Trigger an automation',
    description:
      'Starts a run of an automation’s published version on a repository of its installation, with `input` for its start node. Returns the automation run id (jobRunId); follow it with svc_get_automation_run.',
    route: 'POST /automations/:automationId/trigger',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    params: { automationId: id('The automation id.') },
    body: TRIGGER_BODY_SCHEMA,
    idempotencyKey: true,
    successKeys: ['run'],
  },
  {
    name: 'svc_list_automation_runs',
    title: 'List an automation’s runs',
    description: 'Lists the latest runs of an automation with their status, node statuses and usage.',
    route: 'GET /automations/:automationId/runs',
    annotations: READ,
    params: { automationId: id('The automation id.') },
    query: { limit: limit(50, 20) },
    successKeys: ['runs'],
  },
  {
    name: 'svc_get_automation_run',
    title: 'Get an automation run',
    description:
      'Returns one automation run in detail: each node’s input, output and status, its agent runs, usage and cost, events, errors, and a PR review’s findings.',
    route: 'GET /automations/:automationId/runs/:runId',
    annotations: READ,
    params: { automationId: id('The automation id.'), runId: id('The automation run id (jobRunId).') },
    successKeys: ['run'],
  },
  {
    name: 'svc_rerun_pr_review',
    title: 'Rerun a pull request review',
    description:
      'Queues a fresh review of a pull request (like re-running its review check). Findings are compared with the last review: new, persisting or fixed. A rerun while another runs on the same commit is deferred until it ends.',
    route: 'POST /pr-reviews/rerun',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    body: RERUN_PR_REVIEW_BODY_SCHEMA,
    successKeys: ['queued'],
  },
  {
    name: 'svc_start_run',
    title: 'Start an agent run',
    description:
      'Starts a coding agent (codex or claude-code) on a repository in a sandbox with your prompt; it may change files and push a branch. Returns at once with the run (status pending); wait with svc_wait_for_run and read what it did with svc_list_run_events.',
    route: 'POST /runs',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    body: START_RUN_BODY_SCHEMA,
    idempotencyKey: true,
    successKeys: ['runId', 'status', 'replayed'],
  },
  {
    name: 'svc_get_run',
    title: 'Get an agent run',
    description: 'Returns an agent run: status (pending, streaming, success, failed, cancelled), branch, error.',
    route: 'GET /runs/:runId',
    annotations: READ,
    params: { runId: id('The run id.') },
    successKeys: ['run'],
  },
  {
    name: 'svc_list_run_events',
    title: 'List a run’s events',
    description: 'Returns what an agent run did, oldest first: messages, tool calls, commands, file changes, errors (secrets redacted).',
    route: 'GET /runs/:runId/events',
    annotations: READ,
    params: { runId: id('The run id.') },
    query: { limit: limit(200, 100) },
    successKeys: ['events'],
  },
  {
    name: 'svc_cancel_run',
    title: 'Cancel an agent run',
    description: 'Stops a running agent run (it ends cancelled shortly after). A run that already ended is returned unchanged.',
    route: 'POST /runs/:runId/cancel',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    params: { runId: id('The run id.') },
    successKeys: ['run'],
  },
  {
    name: 'svc_wait_for_run',
    title: 'Wait for an agent run',
    description:
      'Waits until an agent run ends or `timeoutSeconds` pass (at most 60), then returns the run and whether it ended. Call it again to keep waiting.',
    route: null,
    annotations: READ,
    params: { runId: id('The run id.') },
    query: { timeoutSeconds: { type: 'integer', minimum: 1, maximum: 60, description: 'How long to wait at most (1–60, default 30).' } },
    successKeys: ['run', 'ended'],
  },
  {
    name: 'svc_list_mcp_servers',
    title: 'List external tool servers',
    description:
      'Lists the external tool servers (MCP servers) configured for you: name, whether enabled, and their configuration with secret values (environment values, header values) masked.',
    route: 'GET /mcp/servers',
    annotations: READ,
    successKeys: ['servers'],
    // Tool output enters the model's context: env and header values masked (README, MCP).
    present: maskMcpServerSecrets,
  },
];

/** The route a tool runs, as the REST table has it: the tool needs the route's scope (svc_wait_for_run: read). */
export function publicRouteOf(key: string): PublicRoute {
  const route = PUBLIC_ROUTES.find((candidate) => `${candidate.method} ${candidate.path}` === key);
  if (!route) throw new Error(`no public route ${key}`);
  return route;
}

function toolOf(spec: ToolSpec): McpTool {
  const auth = spec.route === null ? 'read' : publicRouteOf(spec.route).auth;
  if (auth !== 'read' && auth !== 'write') throw new Error(`tool ${spec.name} names a route without a scope`);
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    route: spec.route,
    scope: auth,
    annotations: spec.annotations,
    params: Object.keys(spec.params ?? {}),
    query: Object.keys(spec.query ?? {}),
    body: spec.body !== undefined,
    idempotencyKey: spec.idempotencyKey === true,
    inputSchema: inputSchemaOf(spec),
    successKeys: spec.successKeys,
    ...(spec.present ? { present: spec.present } : {}),
  };
}

export const MCP_TOOLS: readonly McpTool[] = SPECS.map(toolOf);

/** The tools a token with these scopes may call: a read-only token sees the read tools only. */
export function toolsFor(scopes: readonly Scope[]): McpTool[] {
  return MCP_TOOLS.filter((tool) => scopes.includes(tool.scope));
}
