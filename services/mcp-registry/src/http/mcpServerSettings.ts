import { AppError } from '@ars/errors';
import { ok, pathParam, requestBody, type Router, type RouterContext } from '@ars/http-app';
import { MCP_SERVER_NAME_RULE, isMcpServerName } from '../domain/mcpServers.js';
import { parsePutMcpServer } from './bodies.js';
import type { McpRegistryDeps } from './deps.js';

function serverName(ctx: RouterContext): string {
  const name = pathParam(ctx, 'name');
  if (!isMcpServerName(name)) throw AppError.badRequest(MCP_SERVER_NAME_RULE);
  return name;
}

/**
 * The web app's settings routes (the gateway's `/api/settings/mcp-servers`, browser session only):
 * - `GET /users/:userId/settings/mcp-servers` → `{servers: [{name, enabled, config, createdAt, updatedAt}]}` by name;
 * - `PUT /users/:userId/settings/mcp-servers/:name` `{enabled?, config}` → 201 `{server, created: true}` created, 200 `{server, created: false}` replaced;
 * - `DELETE /users/:userId/settings/mcp-servers/:name` → `{server: {name}, deleted: true}`, 404 when there is none.
 */
export function mcpServerSettings(router: Router, deps: McpRegistryDeps): void {
  router.get('/users/:userId/settings/mcp-servers', async (ctx) => {
    ok(ctx, { servers: await deps.servers.list(pathParam(ctx, 'userId')) });
  });

  router.put('/users/:userId/settings/mcp-servers/:name', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const name = serverName(ctx);
    const body = parsePutMcpServer(requestBody(ctx));
    const { item, created } = await deps.servers.put(userId, name, body);
    ok(ctx, { server: item, created }, created ? 201 : 200);
  });

  router.delete('/users/:userId/settings/mcp-servers/:name', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const name = serverName(ctx);
    if (!(await deps.servers.delete(userId, name))) throw AppError.notFound('Tool server not found');
    ok(ctx, { server: { name }, deleted: true });
  });
}
