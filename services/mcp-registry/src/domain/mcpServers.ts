// A user's external tool servers (CONTRACT.md, External tool server `McpServerItem`): the two config
// shapes, their limits, the name rule, and the order they are listed in. No I/O.

/** The command shape: a local process the client starts (`env` values are secrets). */
export interface CommandConfig {
  command: string;
  args?: string[];
  env?: Record<string, string>;
}

/** The URL shape: a remote server (`http_headers` values, e.g. `Authorization`, are secrets). */
export interface UrlConfig {
  url: string;
  http_headers?: Record<string, string>;
}

export type McpServerConfig = CommandConfig | UrlConfig;

/** The contract's `McpServerItem`. */
export interface McpServerItem {
  name: string;
  enabled: boolean;
  config: McpServerConfig;
}

const STRING_MAP = { type: 'object', additionalProperties: { type: 'string' } } as const;

/**
 * JSON Schema of the contract's `McpServerItem` as answered (the gateway's OpenAPI document shows
 * it; mcpServers.test.ts holds McpServerItem to it). The config is secret: it must not be logged.
 */
export const MCP_SERVER_ITEM_SCHEMA = {
  type: 'object',
  required: ['name', 'enabled', 'config'],
  additionalProperties: false,
  properties: {
    name: { type: 'string' },
    enabled: { type: 'boolean' },
    config: {
      description: 'Secret: may carry vault-resolved environment values and authorization headers.',
      anyOf: [
        {
          type: 'object',
          required: ['command'],
          additionalProperties: false,
          properties: { command: { type: 'string' }, args: { type: 'array', items: { type: 'string' } }, env: STRING_MAP },
        },
        { type: 'object', required: ['url'], additionalProperties: false, properties: { url: { type: 'string' }, http_headers: STRING_MAP } },
      ],
    },
  },
} as const;

/** As the settings routes show it: the item and when it was created and last replaced (ISO 8601). */
export interface McpServerSettingsItem extends McpServerItem {
  createdAt: string;
  updatedAt: string;
}

export const MCP_SERVER_LIMITS = {
  /** Tool servers one user may have. */
  serversPerUser: 50,
  nameLength: 100,
  commandLength: 4096,
  args: 100,
  argLength: 8192,
  urlLength: 2048,
  /** `env` entries, and `http_headers` entries. */
  entries: 100,
  keyLength: 256,
  valueLength: 8192,
} as const;

/** 1–100 of `A-Z a-z 0-9 _ . -`, and not `.` or `..` (a name is a path segment). */
export const MCP_SERVER_NAME_PATTERN = `^(?!\\.{1,2}$)[A-Za-z0-9_.-]{1,${MCP_SERVER_LIMITS.nameLength}}$`;
const NAME = new RegExp(MCP_SERVER_NAME_PATTERN);

export const MCP_SERVER_NAME_RULE = `name must be 1–${MCP_SERVER_LIMITS.nameLength} letters, digits, \`_\`, \`.\` or \`-\` (not \`.\` or \`..\`)`;

export function isMcpServerName(name: string): boolean {
  return NAME.test(name);
}

export function isCommandConfig(config: McpServerConfig): config is CommandConfig {
  return 'command' in config;
}

/** Null when `url` is an absolute http(s) URL, else why not (never quoting it: it may carry a secret). */
export function urlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'config.url must be an absolute http or https URL';
  }
  return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? null : 'config.url must be an http or https URL';
}

/** Listed by name (code point order, as MongoDB's simple collation sorts). */
export function byName<T extends { name: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Bound as additional authenticated data to the sealed config: a config copied to another user or name does not open. */
export function sealContext(userId: string, name: string): string {
  return `mcp-server:${userId}:${name}`;
}
