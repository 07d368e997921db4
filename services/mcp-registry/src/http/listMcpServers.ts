import { ok, pathParam, type Router } from '@ars/http-app';
import type { McpServerItem } from '../domain/mcpServers.js';
import type { McpRegistryDeps } from './deps.js';

/**
 * `GET /internal/users/:userId/mcp/servers` → `{servers: McpServerItem[]}`, by name, configs
 * decrypted: the public `GET /mcp/servers` (the gateway forwards it with the PAT's user). The answer
 * carries secrets: nothing of it is logged (the access log has method, path, status and timing only).
 */
export function listMcpServers(router: Router, deps: McpRegistryDeps): void {
  router.get('/users/:userId/mcp/servers', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const servers: McpServerItem[] = (await deps.servers.list(userId)).map(({ name, enabled, config }) => ({ name, enabled, config }));
    ok(ctx, { servers });
  });
}
