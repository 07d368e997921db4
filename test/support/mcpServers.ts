// The tool server settings (`/api/settings/mcp-servers`, browser session) and the MCP SDK Client of
// the whole-stack tests: HTTP only, as the web app and an MCP client use them.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bearer, call, type Account, type Answer } from './accounts.js';

export interface McpServerView {
  name: string;
  enabled: boolean;
  config: Record<string, unknown>;
}

/** The session routes of one account's tool server settings. */
export function toolServerSettings(baseUrl: string, account: Account) {
  const url = (name?: string) => `${baseUrl}/api/settings/mcp-servers${name === undefined ? '' : `/${encodeURIComponent(name)}`}`;
  const headers = { cookie: account.sessionCookie };
  return {
    list: (): Promise<Answer<{ servers: (McpServerView & { createdAt: string; updatedAt: string })[] }>> => call(url(), { headers }),
    put: (name: string, body: unknown): Promise<Answer<{ server: McpServerView; created: boolean }>> => call(url(name), { method: 'PUT', headers, json: body }),
    delete: (name: string): Promise<Answer<{ server: { name: string }; deleted: boolean }>> => call(url(name), { method: 'DELETE', headers }),
  };
}

/** `GET /api/v1/svc/mcp/servers` with a PAT. */
export function publicServers(baseUrl: string, token: string): Promise<Answer<{ servers: McpServerView[] }>> {
  return call(`${baseUrl}/api/v1/svc/mcp/servers`, { headers: bearer(token) });
}

/** The official SDK Client on the gateway's MCP transport, authenticated with a PAT. */
export async function mcpClient(baseUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: 'system-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/v1/svc/mcp`), { requestInit: { headers: bearer(token) } }));
  return client;
}
