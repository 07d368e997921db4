// What svc_list_mcp_servers shows a model: tool output enters the model's context (and whatever the
// MCP client logs or sends on), so the secret values of a tool server config are masked there. REST
// `GET /mcp/servers` answers them unmasked to their owner, as the contract says. No I/O.

import { redactArgv, redactSecrets } from '@ars/sanitize';

/** What a masked value reads as. */
export const MASKED = '••••';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function maskValues(map: unknown): unknown {
  return isObject(map) ? Object.fromEntries(Object.keys(map).map((key) => [key, MASKED])) : map;
}

/** A URL with its password and query values masked (a token in `?key=` is as secret as a header). */
function maskUrl(url: unknown): unknown {
  if (typeof url !== 'string') return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return MASKED;
  }
  if (parsed.password) parsed.password = MASKED;
  for (const key of new Set(parsed.searchParams.keys())) parsed.searchParams.set(key, MASKED);
  return parsed.toString();
}

function maskConfig(config: unknown): unknown {
  if (!isObject(config)) return config;
  const masked: Record<string, unknown> = { ...config };
  if ('env' in masked) masked.env = maskValues(masked.env);
  if ('http_headers' in masked) masked.http_headers = maskValues(masked.http_headers);
  if ('url' in masked) masked.url = maskUrl(masked.url);
  // A command line carries secrets too (`--api-key x`, `TOKEN=x`, a token shape): the one redactor's rules.
  if (typeof masked.command === 'string') masked.command = redactSecrets(masked.command);
  if (Array.isArray(masked.args) && masked.args.every((arg) => typeof arg === 'string')) masked.args = redactArgv(masked.args);
  return masked;
}

/**
 * `{servers: McpServerItem[]}` with every `env` value and every `http_headers` value replaced by
 * MASKED (names kept, so a model still sees which variables and headers are set), and a URL's
 * password and query values likewise; the command and args with the secrets the sanitizer recognises
 * redacted (a sensitive flag's value, `NAME=value`, token shapes). Names and `enabled` are shown as they are.
 */
export function maskMcpServerSecrets(data: unknown): unknown {
  if (!isObject(data) || !Array.isArray(data.servers)) return data;
  return { ...data, servers: data.servers.map((server: unknown) => (isObject(server) ? { ...server, config: maskConfig(server.config) } : server)) };
}
