// Which JSON-RPC error a parsed POST /mcp body earns before the SDK sees it (CONTRACT.md, the
// JSON-RPC error table): -32600 (HTTP 400) for valid JSON that is not a JSON-RPC 2.0 request, -32602
// (HTTP 200) for a known method whose params do not fit the MCP schema. The SDK would answer the
// first with -32700 and the second with -32603 carrying zod's raw issue list, telling a client its
// request failed on our side. The params are checked with the SDK's own request schemas.
import { MAX_JSON_DEPTH, jsonDepth } from '@ars/http-app';
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

export interface JsonRpcRefusal {
  status: 400 | 200;
  code: -32600 | -32602;
  /** The request's id when it has a valid one (a -32602 answers it), else null. */
  id: string | number | null;
  message: string;
}

interface ParamsIssue {
  path: PropertyKey[];
  message: string;
}
interface ParamsSchema {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: ParamsIssue[] } };
}

// A Map: a method named `__proto__` or `toString` must find nothing, not Object.prototype's member.
const REQUEST_SCHEMAS = new Map<string, ParamsSchema>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
]);

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
// MCP narrows JSON-RPC's id: "Requests MUST include a string or integer ID … the ID MUST NOT be null"
// (specification 2025-11-25, Messages). The SDK reads any other id as a parse error.
const isRequestId = (value: unknown): value is string | number => typeof value === 'string' || Number.isSafeInteger(value);

function invalidRequest(message: string): JsonRpcRefusal {
  return { status: 400, code: -32600, id: null, message: `Invalid Request: ${message}` };
}

/** Null when the message may go to the SDK; else the refusal to answer with. */
export function jsonRpcRefusal(message: unknown): JsonRpcRefusal | null {
  if (!isPlainObject(message)) return invalidRequest('expected a JSON-RPC 2.0 object');
  if (jsonDepth(message, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) return invalidRequest(`the message nests deeper than ${MAX_JSON_DEPTH} levels`);
  if (message.jsonrpc !== '2.0' || typeof message.method !== 'string') return invalidRequest('jsonrpc must be "2.0" and method a string');
  const isRequest = Object.hasOwn(message, 'id');
  if (isRequest && !isRequestId(message.id)) return invalidRequest('id must be a string or an integer (MCP requests never carry null)');
  if (Object.hasOwn(message, 'params') && !isPlainObject(message.params)) return invalidRequest('params must be an object');
  // Whatever else the SDK's own envelope schema refuses (an extra member such as `result`): it would answer -32700.
  const envelope = (isRequest ? JSONRPCRequestSchema : JSONRPCNotificationSchema) as ParamsSchema;
  const enveloped = envelope.safeParse(message);
  if (!enveloped.success) return invalidRequest(issueText('the message', enveloped.error.issues[0]));
  if (!isRequest) return null;
  const id = message.id as string | number;
  const pollutingKey = pollutingKeyPath(message.params);
  if (pollutingKey) return { status: 200, code: -32602, id, message: `Invalid params: ${pollutingKey} is not an allowed key` };
  const schema = REQUEST_SCHEMAS.get(message.method);
  if (!schema) return null;
  const parsed = schema.safeParse({ method: message.method, params: message.params });
  if (parsed.success) return null;
  const [first] = parsed.error.issues;
  const where = ['params', ...(first?.path ?? []).slice(1).map(String)].join('.');
  return { status: 200, code: -32602, id, message: `Invalid params: ${where} ${lowerFirst(first?.message ?? 'is invalid')}` };
}

function issueText(subject: string, issue: ParamsIssue | undefined): string {
  if (!issue) return `${subject} is invalid`;
  const where = issue.path.length > 0 ? issue.path.map(String).join('.') : subject;
  return `${where}: ${lowerFirst(issue.message)}`;
}

/**
 * `params.__proto__` or `params.arguments.__proto__`, if present. JSON.parse keeps such a key as an
 * own property, but the SDK's zod copy of the params and of the arguments record assigns it, which
 * sets the copy's prototype: the tool's argument check would then never see the key, and inherited
 * values could stand in for required arguments. Deeper values are not copied, so a `__proto__`
 * inside a free-form argument (an automation's `input`) stays an own key, as it does over REST.
 */
function pollutingKeyPath(params: unknown): string | null {
  if (!isPlainObject(params)) return null;
  if (Object.hasOwn(params, '__proto__')) return 'params.__proto__';
  if (isPlainObject(params.arguments) && Object.hasOwn(params.arguments, '__proto__')) return 'params.arguments.__proto__';
  return null;
}

/** zod's messages start with a capital ("Invalid input: expected string, received number"). */
function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
