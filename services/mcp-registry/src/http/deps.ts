import type { Logger } from '@ars/logger';
import type { McpServerStore } from '../store/mcpServers.js';

/** What the routes work with. */
export interface McpRegistryDeps {
  servers: McpServerStore;
  production: boolean;
  logger: Logger;
}
