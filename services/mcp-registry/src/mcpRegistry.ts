import { exitOnConfigError, type EnvSource } from '@ars/config';
import type { Logger } from '@ars/logger';
import { SecretBox, resealInBackground } from '@ars/secret-box';
import { runService, type RunningService } from '@ars/service';
import { MCP_REGISTRY_PORT, mcpRegistryConfigSchema, mcpRegistryConfiguration, loadMcpRegistrySettings, type McpRegistrySettings } from './config.js';
import type { McpRegistryDeps } from './http/deps.js';
import { mcpRegistryRoutes } from './http/routes.js';
import { MCP_REGISTRY_INDEXES } from './store/collections.js';
import { McpServerStore } from './store/mcpServers.js';

export { MCP_REGISTRY_PORT };

export interface McpRegistryRuntime {
  env?: EnvSource;
  handleSignals?: boolean;
  exit?: (code: number) => void;
  logger?: Logger;
}

export type RunningMcpRegistry = RunningService<typeof mcpRegistryConfigSchema, McpRegistryDeps>;

/** Starts mcp-registry: `main.ts` with process defaults; tests in-process with `handleSignals: false`. */
export async function startMcpRegistry(runtime: McpRegistryRuntime = {}): Promise<RunningMcpRegistry> {
  const source = runtime.env ?? process.env;
  let settings: McpRegistrySettings;
  try {
    settings = loadMcpRegistrySettings(source);
  } catch (error) {
    if (runtime.handleSignals === false) throw error;
    return exitOnConfigError(error);
  }

  return runService({
    ...mcpRegistryConfiguration,
    indexes: MCP_REGISTRY_INDEXES,
    runtime,
    compose: (ctx) => {
      const db = ctx.mongo?.db;
      if (!db) throw new Error('mcp-registry needs MongoDB');
      if (settings.developmentKey) {
        ctx.logger.warn('MCP_REGISTRY_SECRETS_KEY is not set: tool server configs are encrypted with the fixed development key (never use this in production)');
      }
      const box = new SecretBox(settings.keyring);
      ctx.logger.info({ environment: settings.environment, secrets_key_id: box.currentKeyId }, 'mcp-registry configured');
      return { servers: new McpServerStore(db, box), production: settings.environment === 'production', logger: ctx.logger };
    },
    routes: (ctx, deps) => [mcpRegistryRoutes(deps, ctx.config.INTERNAL_TOKEN)],
    start: (ctx, deps) => {
      // After a key rotation, configs sealed under the previous key move to the current one.
      const reseal = resealInBackground('tool server configs', (signal) => deps.servers.resealConfigs(signal), ctx.logger);
      ctx.onShutdown(() => reseal.stop(), 're-seal pass');
    },
  });
}
