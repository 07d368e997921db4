// The MCP tools: one per public route of the contract (svc_<verb>_<noun>) plus svc_wait_for_run and
// svc_validate_automation. Each names the route it runs (the same handler as REST: routeCall.ts), the
// input schema built from the route's own schemas (domain/routeSchemas.ts: path parameters, query,
// the owner's body schema; never written twice), what it may do (annotations) and a description
// written for a model.
import { IDEMPOTENCY_KEY_SCHEMA, routeSchemasOf } from '../domain/routeSchemas.js';
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

const IDEMPOTENCY_KEY: JsonSchema = {
  ...IDEMPOTENCY_KEY_SCHEMA,
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

/**
 * What a tool takes from its route: the route's path parameters (a description a model needs may
 * replace the route's), the query parameters it offers (default: all the route reads) and the body.
 */
function fromRoute(key: string, options: { query?: readonly string[]; describe?: Readonly<Record<string, string>> } = {}) {
  const schemas = routeSchemasOf(key);
  const described = (name: string, schema: JsonSchema): JsonSchema => {
    const description = options.describe?.[name];
    return description === undefined ? schema : { ...schema, description };
  };
  const params = Object.fromEntries(Object.entries(schemas.params).map(([name, schema]) => [name, described(name, schema)]));
  const query = Object.fromEntries((options.query ?? Object.keys(schemas.query)).map((name) => [name, schemas.query[name] as JsonSchema]));
  return { route: key, params, query, ...(schemas.body ? { body: schemas.body } : {}) };
}

const SPECS: readonly ToolSpec[] = [
  {
    name: 'svc_list_repos',
    title: 'List repositories',
    description:
      'Lists the repositories you can run agents on (id, full name, default branch). Use it first to find the repoId other tools need; `q` filters by a part of owner/name.',
    ...fromRoute('GET /repos'),
    annotations: READ,
    successKeys: ['repos'],
  },
  {
    name: 'svc_list_agents',
    title: 'List agents',
    description:
      'Lists the agents you can use in automations (your own, then the presets), each with its model. Use it to pick an agentId for an automation’s agent node.',
    ...fromRoute('GET /agents'),
    annotations: READ,
    successKeys: ['agents'],
  },
  {
    name: 'svc_list_models',
    title: 'List models',
    description: 'Lists the models available to you, with provider, context length, capabilities and prices per million tokens.',
    ...fromRoute('GET /models'),
    annotations: READ,
    successKeys: ['models'],
  },
  {
    name: 'svc_list_sandboxes',
    title: 'List sandboxes',
    description: 'Lists your sandboxes (the isolated machines agents work in) with their status and repository.',
    ...fromRoute('GET /sandboxes', { query: ['limit'] }),
    annotations: READ,
    successKeys: ['sandboxes'],
  },
  {
    name: 'svc_create_sandbox',
    title: 'Create or reuse a sandbox',
    description: 'Creates a sandbox with a repository checked out (or reuses a matching one). Runs create their own; use this to prepare one ahead.',
    ...fromRoute('POST /sandboxes'),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    successKeys: ['sandbox'],
  },
  {
    name: 'svc_get_sandbox_logs',
    title: 'Read a sandbox’s logs',
    description: 'Returns a sandbox’s recent log text and lifecycle events (secrets redacted). Use it when a sandbox or run failed to start.',
    ...fromRoute('GET /sandboxes/:sandboxId/logs', { describe: { sandboxId: 'The sandbox id (from svc_list_sandboxes).' } }),
    annotations: READ,
    successKeys: ['sandbox', 'lifecycle_events'],
  },
  {
    name: 'svc_list_automations',
    title: 'List automations',
    description: 'Lists your automations (graphs of agent steps) with their status and published version. `cursor` continues a previous page.',
    ...fromRoute('GET /automations', { query: ['limit', 'cursor'] }),
    annotations: READ,
    successKeys: ['automations'],
  },
  {
    name: 'svc_create_automation',
    title: 'Create an automation',
    description:
      'Creates an automation on an installation: a graph of nodes (start, agent, condition, parallel, join, delay, await_event, set_variable, end). Without `graph` a default draft is made; `publish: true` also publishes it (it must then pass every publish check).',
    ...fromRoute('POST /automations'),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    successKeys: ['automation'],
  },
  {
    name: 'svc_get_automation',
    title: 'Get an automation',
    description: 'Returns an automation with its draft graph and published version.',
    ...fromRoute('GET /automations/:automationId'),
    annotations: READ,
    successKeys: ['automation'],
  },
  {
    name: 'svc_update_automation',
    title: 'Update an automation',
    description:
      'Replaces fields of an automation’s draft (name, description, notes, graph) or its status (active/inactive). The published version is unchanged until svc_publish_automation.',
    ...fromRoute('PUT /automations/:automationId'),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    successKeys: ['automation'],
  },
  {
    name: 'svc_publish_automation',
    title: 'Publish an automation',
    description:
      'Publishes the draft as a new version, after every publish check (one start, one end, bound agents, valid connections and node data). Triggers then run this version.',
    ...fromRoute('POST /automations/:automationId/publish'),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    successKeys: ['automation'],
  },
  {
    name: 'svc_set_automation_model',
    title: 'Set an agent node’s model',
    description: 'Sets (or with modelId null clears) the model an agent node uses instead of its agent’s; `publish: true` publishes right after.',
    ...fromRoute('PUT /automations/:automationId/model'),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    successKeys: ['automation'],
  },
  {
    name: 'svc_validate_automation',
    title: 'Validate an automation',
    description:
      'Runs every publish check on the draft (or on the `graph` given) without publishing, and lists each problem with its code and node. Use it before svc_publish_automation.',
    ...fromRoute('POST /automations/:automationId/validate'),
    annotations: READ,
    successKeys: ['valid'],
  },
  {
    name: 'svc_trigger_automation',
    title: 'Trigger an automation',
    description:
      'Starts a run of an automation’s published version on a repository of its installation, with `input` for its start node. Returns the automation run id (jobRunId); follow it with svc_get_automation_run.',
    ...fromRoute('POST /automations/:automationId/trigger'),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    idempotencyKey: true,
    successKeys: ['run'],
  },
  {
    name: 'svc_list_automation_runs',
    title: 'List an automation’s runs',
    description: 'Lists the latest runs of an automation with their status, node statuses and usage.',
    ...fromRoute('GET /automations/:automationId/runs'),
    annotations: READ,
    successKeys: ['runs'],
  },
  {
    name: 'svc_get_automation_run',
    title: 'Get an automation run',
    description:
      'Returns one automation run in detail: each node’s input, output and status, its agent runs, usage and cost, events, errors, and a PR review’s findings.',
    ...fromRoute('GET /automations/:automationId/runs/:runId'),
    annotations: READ,
    successKeys: ['run'],
  },
  {
    name: 'svc_rerun_pr_review',
    title: 'Rerun a pull request review',
    description:
      'Queues a fresh review of a pull request (like re-running its review check). Findings are compared with the last review: new, persisting or fixed. A rerun while another runs on the same commit is deferred until it ends.',
    ...fromRoute('POST /pr-reviews/rerun'),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    successKeys: ['queued'],
  },
  {
    name: 'svc_start_run',
    title: 'Start an agent run',
    description:
      'Starts a coding agent (codex or claude-code) on a repository in a sandbox with your prompt; it may change files and push a branch. Returns at once with the run (status pending); wait with svc_wait_for_run and read what it did with svc_list_run_events.',
    ...fromRoute('POST /runs'),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    idempotencyKey: true,
    successKeys: ['runId', 'status', 'replayed'],
  },
  {
    name: 'svc_get_run',
    title: 'Get an agent run',
    description: 'Returns an agent run: status (pending, streaming, success, failed, cancelled), branch, error.',
    ...fromRoute('GET /runs/:runId'),
    annotations: READ,
    successKeys: ['run'],
  },
  {
    name: 'svc_list_run_events',
    title: 'List a run’s events',
    description: 'Returns what an agent run did, oldest first: messages, tool calls, commands, file changes, errors (secrets redacted).',
    ...fromRoute('GET /runs/:runId/events', { query: ['limit'] }),
    annotations: READ,
    successKeys: ['events'],
  },
  {
    name: 'svc_cancel_run',
    title: 'Cancel an agent run',
    description: 'Stops a running agent run (it ends cancelled shortly after). A run that already ended is returned unchanged.',
    ...fromRoute('POST /runs/:runId/cancel'),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    successKeys: ['run'],
  },
  {
    name: 'svc_wait_for_run',
    title: 'Wait for an agent run',
    description:
      'Waits until an agent run ends or `timeoutSeconds` pass (at most 60), then returns the run and whether it ended. Call it again to keep waiting.',
    route: null,
    annotations: READ,
    params: routeSchemasOf('GET /runs/:runId').params,
    query: { timeoutSeconds: { type: 'integer', minimum: 1, maximum: 60, description: 'How long to wait at most (1–60, default 30).' } },
    successKeys: ['run', 'ended'],
  },
  {
    name: 'svc_list_mcp_servers',
    title: 'List external tool servers',
    description:
      'Lists the external tool servers (MCP servers) configured for you: name, whether enabled, and their configuration with secret values masked (environment values, header values, and secrets in the command line: the value of a sensitive flag, NAME=value, token shapes).',
    ...fromRoute('GET /mcp/servers'),
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
