// A tool call: its arguments checked against the tool's input schema, the scope of its route, then
// the very handler the REST route runs (routeCall.ts). A failing operation is a result with
// `isError: true` and `structuredContent.error` {code, status, message, suggestion} (CONTRACT.md,
// External tool transport), whatever its code; only a failure that is not the service's answer (a
// defect) is a JSON-RPC error (-32603).
import { isTerminalRunStatus } from '@ars/contract';
import { isAppError, type AppError } from '@ars/errors';
import { Ajv, type ValidateFunction } from 'ajv';
import type { Gateway } from '../deps.js';
import { assertScope } from '../auth/authenticateToken.js';
import { routeHandler } from '../handlers/routeHandler.js';
import type { RouteCall } from '../handlers/routeCall.js';
import type { Principal } from '../auth/state.js';
import { publicRouteOf, type McpTool } from './tools.js';

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError: boolean;
}

/** What to do about each error code, for the model reading the result. */
const SUGGESTIONS: Record<string, string> = {
  BAD_REQUEST: 'Fix the arguments as the message says and call again.',
  UNAUTHORIZED: 'The access token is missing, expired or revoked; sign in again.',
  FORBIDDEN: 'This needs a token with the write scope.',
  NOT_FOUND: 'Check the id; the matching svc_list_* tool lists what exists.',
  CONFLICT: 'The resource is not in a state that allows this; read the message, change it, then call again.',
  IDEMPOTENCY_CONFLICT: 'This idempotencyKey was used for a different request; use a new key.',
  RATE_LIMITED: 'Wait for the time the message gives, then call again.',
  SERVICE_UNAVAILABLE: 'A part of the service is briefly unavailable; call again in a little while.',
  INTERNAL_ERROR: 'Call again; if it keeps failing, report it.',
};

export function errorResult(error: AppError): ToolResult {
  const failure = { code: error.code, status: error.status, message: error.message, suggestion: SUGGESTIONS[error.code] ?? SUGGESTIONS.INTERNAL_ERROR ?? '' };
  return {
    content: [{ type: 'text', text: `${failure.code} (${failure.status}): ${failure.message} ${failure.suggestion}` }],
    structuredContent: { error: failure },
    isError: true,
  };
}

function successResult(data: unknown): ToolResult {
  const structured = (data !== null && typeof data === 'object' && !Array.isArray(data) ? data : { value: data }) as Record<string, unknown>;
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured, isError: false };
}

const ajv = new Ajv({ allErrors: false, strict: false });
const validators = new Map<string, ValidateFunction>();

/** Null when the arguments fit the tool's input schema, else why not (a -32602 for the transport). */
export function argumentsProblem(tool: McpTool, args: unknown): string | null {
  let validate = validators.get(tool.name);
  if (!validate) {
    validate = ajv.compile(tool.inputSchema);
    validators.set(tool.name, validate);
  }
  if (validate(args ?? {})) return null;
  const [first] = validate.errors ?? [];
  if (!first) return 'the arguments are invalid';
  const where = first.instancePath ? `arguments${first.instancePath.replace(/\//g, '.')}` : 'arguments';
  if (first.keyword === 'additionalProperties')
    return `${where} has an unknown argument ${String((first.params as { additionalProperty?: string }).additionalProperty)}`;
  return `${where} ${first.message ?? 'is invalid'}`;
}

/** The REST call a tool's arguments make: path parameters, query, idempotency key, and the rest as the body. */
export function routeCallOf(tool: McpTool, principal: Principal, args: Record<string, unknown>): RouteCall {
  const taken = new Set([...tool.params, ...tool.query, 'idempotencyKey']);
  const params = Object.fromEntries(tool.params.map((name) => [name, String(args[name])]));
  const query = Object.fromEntries(tool.query.filter((name) => args[name] !== undefined).map((name) => [name, String(args[name])]));
  const body = tool.body ? Object.fromEntries(Object.entries(args).filter(([name]) => !taken.has(name))) : undefined;
  const idempotencyKey = typeof args.idempotencyKey === 'string' ? args.idempotencyKey : undefined;
  return { principal, params, query, body, idempotencyKey };
}

/** svc_wait_for_run: GET /runs/:runId until the run ends or the time given (at most 60 s) passes. */
async function waitForRun(gateway: Gateway, call: RouteCall): Promise<{ run: unknown; ended: boolean }> {
  const getRun = routeHandler(gateway, publicRouteOf('GET /runs/:runId'));
  const deadline = Date.now() + Number(call.query.timeoutSeconds ?? 30) * 1_000;
  for (;;) {
    const { run } = (await getRun(call)) as { run: { status: string } };
    if (isTerminalRunStatus(run.status)) return { run, ended: true };
    if (Date.now() >= deadline) return { run, ended: false };
    await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, Math.max(0, deadline - Date.now()))));
  }
}

/** Runs a tool whose arguments fit its schema: the route's scope, then its handler. Only unexpected failures throw. */
export async function callTool(gateway: Gateway, principal: Principal, tool: McpTool, args: Record<string, unknown>): Promise<ToolResult> {
  try {
    assertScope(principal, tool.scope);
    const call = routeCallOf(tool, principal, args);
    const data = tool.route === null ? await waitForRun(gateway, call) : await routeHandler(gateway, publicRouteOf(tool.route))(call);
    return successResult(tool.present ? tool.present(data) : data);
  } catch (error) {
    if (isAppError(error)) return errorResult(error);
    throw error;
  }
}
