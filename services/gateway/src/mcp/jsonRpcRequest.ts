// Which JSON-RPC error a parsed POST /mcp body earns before the SDK sees it (CONTRACT.md, the
// JSON-RPC error table): -32600 (HTTP 400) for valid JSON that is not a JSON-RPC 2.0 request, -32602
// (HTTP 200) for a known method whose params do not fit the MCP schema. The SDK would answer the
// first with -32700 and the second with -32603 carrying zod's raw issue list, telling a client its
// request failed on our side. The params are checked with the SDK's own request schemas.
import { MAX_JSON_DEPTH, jsonDepth } from '@ars/http-app';
import { CallToolRequestSchema, InitializeRequestSchema, ListToolsRequestSchema, PingRequestSchema } from '@modelcontextprotocol/sdk/types.js';

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

const REQUEST_SCHEMAS: Record<string, ParamsSchema> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
};

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isRequestId = (value: unknown): value is string | number | null => typeof value === 'string' || typeof value === 'number' || value === null;

function invalidRequest(message: string): JsonRpcRefusal {
  return { status: 400, code: -32600, id: null, message: `Invalid Request: ${message}` };
}

/** Null when the message may go to the SDK; else the refusal to answer with. */
export function jsonRpcRefusal(message: unknown): JsonRpcRefusal | null {
  if (!isPlainObject(message)) return invalidRequest('expected a JSON-RPC 2.0 object');
  if (jsonDepth(message, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) return invalidRequest(`the message nests deeper than ${MAX_JSON_DEPTH} levels`);
  if (message.jsonrpc !== '2.0' || typeof message.method !== 'string') return invalidRequest('jsonrpc must be "2.0" and method a string');
  if ('id' in message && !isRequestId(message.id)) return invalidRequest('id must be a string, a number or null');
  if ('params' in message && !isPlainObject(message.params)) return invalidRequest('params must be an object');
  const schema = REQUEST_SCHEMAS[message.method];
  if (!schema || !('id' in message)) return null;
  const parsed = schema.safeParse({ method: message.method, params: message.params });
  if (parsed.success) return null;
  const [first] = parsed.error.issues;
  const where = ['params', ...(first?.path ?? []).slice(1).map(String)].join('.');
  return {
    status: 200,
    code: -32602,
    id: message.id as string | number | null,
    message: `Invalid params: ${where} ${lowerFirst(first?.message ?? 'is invalid')}`,
  };
}

/** zod's messages start with a capital ("Invalid input: expected string, received number"). */
function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
