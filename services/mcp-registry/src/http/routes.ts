import { Router, requireInternalCaller } from '@ars/http-app';
import { createDevExamples } from './createDevExamples.js';
import type { McpRegistryDeps } from './deps.js';
import { listMcpServers } from './listMcpServers.js';
import { mcpServerSettings } from './mcpServerSettings.js';

/** mcp-registry's internal API: everything under `/internal`, behind the internal token. */
export function mcpRegistryRoutes(deps: McpRegistryDeps, internalToken: string): Router {
  const router = new Router({ prefix: '/internal' });
  router.use(requireInternalCaller(internalToken));
  listMcpServers(router, deps);
  mcpServerSettings(router, deps);
  createDevExamples(router, deps);
  return router;
}
