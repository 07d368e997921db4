// mcp-registry's internal API as its callers use it: one method per route, and the shapes they
// answer, and the settings body's JSON Schema (the one module of runtime it pulls in: http/bodies.ts).
// The gateway forwards its public and settings routes generically (its `peers['mcp-registry']`).
import type { HttpClient } from '@ars/http-client';
import type { CommandConfig, McpServerConfig, McpServerItem, McpServerSettingsItem, UrlConfig } from './domain/mcpServers.js';

export type { CommandConfig, McpServerConfig, McpServerItem, McpServerSettingsItem, UrlConfig };
export { PUT_MCP_SERVER_BODY_SCHEMA } from './http/bodies.js';
export { MCP_SERVER_ITEM_SCHEMA, MCP_SERVER_LIMITS, MCP_SERVER_NAME_PATTERN } from './domain/mcpServers.js';

export interface McpRegistryClient {
  /** `GET /internal/users/:userId/mcp/servers`: the public list, configs decrypted (secrets: never log it). */
  listServers(userId: string): Promise<McpServerItem[]>;
  /** `GET /internal/users/:userId/settings/mcp-servers`: the settings list (with dates). */
  listSettings(userId: string): Promise<McpServerSettingsItem[]>;
  /** `PUT /internal/users/:userId/settings/mcp-servers/:name`: create or replace. */
  putServer(userId: string, name: string, body: { enabled?: boolean; config: McpServerConfig }): Promise<{ server: McpServerSettingsItem; created: boolean }>;
  /** `DELETE /internal/users/:userId/settings/mcp-servers/:name`: NOT_FOUND when there is none. */
  deleteServer(userId: string, name: string): Promise<void>;
  /** `POST /internal/dev/users/:userId/mcp-servers/examples` (development only; NOT_FOUND in production). */
  createDevExamples(userId: string): Promise<{ name: string }[]>;
}

/** `http`'s base URL is mcp-registry's root (`MCP_REGISTRY_URL`); every failure is the AppError the client maps. */
export function createMcpRegistryClient(http: HttpClient): McpRegistryClient {
  const user = (userId: string) => `/internal/users/${encodeURIComponent(userId)}`;
  const settings = (userId: string, name: string) => `${user(userId)}/settings/mcp-servers/${encodeURIComponent(name)}`;
  return {
    async listServers(userId) {
      return (await http.get<{ servers: McpServerItem[] }>(`${user(userId)}/mcp/servers`)).servers;
    },
    async listSettings(userId) {
      return (await http.get<{ servers: McpServerSettingsItem[] }>(`${user(userId)}/settings/mcp-servers`)).servers;
    },
    async putServer(userId, name, body) {
      return http.put<{ server: McpServerSettingsItem; created: boolean }>(settings(userId, name), body);
    },
    async deleteServer(userId, name) {
      await http.delete(settings(userId, name));
    },
    async createDevExamples(userId) {
      return (await http.post<{ servers: { name: string }[] }>(`/internal/dev/users/${encodeURIComponent(userId)}/mcp-servers/examples`, {})).servers;
    },
  };
}
