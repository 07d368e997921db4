import type { CollectionIndexes } from '@ars/mongo';
import type { SealedSecret } from '@ars/secret-box';

/** mcp-registry's collections (its own database only) and their documents. */
export const COLLECTIONS = {
  mcpServers: 'mcp_servers',
} as const;

/**
 * One tool server of one user. The whole `config` is sealed (AES-256-GCM, `@ars/secret-box`, bound
 * to user and name); only the name and `enabled` are in the clear.
 */
export interface McpServerDoc {
  userId: string;
  name: string;
  enabled: boolean;
  /** `JSON.stringify(config)`, sealed. */
  sealedConfig: SealedSecret;
  createdAt: Date;
  updatedAt: Date;
}

export const MCP_REGISTRY_INDEXES: readonly CollectionIndexes[] = [
  { collection: COLLECTIONS.mcpServers, indexes: [{ key: { userId: 1, name: 1 }, name: 'user_name', unique: true }] },
];
