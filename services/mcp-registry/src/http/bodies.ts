// The settings body `{enabled?, config}` as JSON Schema, checked with the repository's validateBody.
// Which config shape applies is decided by its key (`command` or `url`), so a message names the
// field of that shape. No message quotes a value: a config is secret (keys are named, never values).
import { AppError } from '@ars/errors';
import { validateBody } from '@ars/http-app';
import { MCP_SERVER_LIMITS as LIMITS, urlProblem, type McpServerConfig } from '../domain/mcpServers.js';

export interface PutMcpServerBody {
  enabled: boolean;
  config: McpServerConfig;
}

/** A map of names to strings: `env` (names as a shell has them) or `http_headers` (HTTP header names). */
function stringMap(namePattern: string, valuePattern?: string) {
  return {
    type: 'object',
    maxProperties: LIMITS.entries,
    propertyNames: { minLength: 1, maxLength: LIMITS.keyLength, pattern: namePattern },
    additionalProperties: { type: 'string', maxLength: LIMITS.valueLength, ...(valuePattern ? { pattern: valuePattern } : {}) },
  };
}

export const COMMAND_CONFIG_SCHEMA = {
  type: 'object',
  required: ['command'],
  additionalProperties: false,
  properties: {
    command: { type: 'string', minLength: 1, maxLength: LIMITS.commandLength },
    args: { type: 'array', maxItems: LIMITS.args, items: { type: 'string', maxLength: LIMITS.argLength } },
    env: stringMap('^[A-Za-z_][A-Za-z0-9_]*$'),
  },
};

export const URL_CONFIG_SCHEMA = {
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  properties: {
    url: { type: 'string', minLength: 1, maxLength: LIMITS.urlLength },
    // Header names are RFC 9110 tokens; values carry no line breaks.
    http_headers: stringMap("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$", '^[^\\r\\n\\u0000]*$'),
  },
};

function bodySchema(config: object) {
  return {
    type: 'object',
    required: ['config'],
    additionalProperties: false,
    properties: { enabled: { type: 'boolean', default: true }, config },
  };
}

/** The whole settings body's JSON Schema (either shape), for callers that describe it (web app, docs). */
export const PUT_MCP_SERVER_BODY_SCHEMA = bodySchema({ oneOf: [COMMAND_CONFIG_SCHEMA, URL_CONFIG_SCHEMA] });

const parseCommandShape = validateBody<PutMcpServerBody>(bodySchema(COMMAND_CONFIG_SCHEMA));
const parseUrlShape = validateBody<PutMcpServerBody>(bodySchema(URL_CONFIG_SCHEMA));
const parseEnvelope = validateBody<{ enabled: boolean; config: Record<string, unknown> }>(bodySchema({ type: 'object' }));

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `PUT …/mcp-servers/:name` `{enabled?: boolean (default true), config}`: `config` is exactly one of
 * the command shape `{command, args?, env?}` or the URL shape `{url (http or https), http_headers?}`.
 * 400 `VALIDATION_ERROR` naming the first bad field.
 */
export function parsePutMcpServer(body: unknown): PutMcpServerBody {
  const config = isObject(body) ? body.config : undefined;
  if (isObject(config) && 'command' in config) return parseCommandShape(body);
  if (isObject(config) && 'url' in config) {
    const parsed = parseUrlShape(body);
    const problem = urlProblem((parsed.config as { url: string }).url);
    if (problem) throw AppError.badRequest(problem);
    return parsed;
  }
  parseEnvelope(body);
  throw AppError.badRequest('config must be the command shape {command, args?, env?} or the URL shape {url, http_headers?}');
}
