import { AppError } from '@ars/errors';
import { isDuplicateKey, type Collection, type Db } from '@ars/mongo';
import { resealStale, type ResealReport, type SealedSecret, type SecretBox } from '@ars/secret-box';
import { MCP_SERVER_LIMITS, sealContext, type McpServerConfig, type McpServerSettingsItem } from '../domain/mcpServers.js';
import { COLLECTIONS, type McpServerDoc } from './collections.js';

/** Each user's tool servers, their configs sealed at rest; answers are decrypted for the owner only. */
export class McpServerStore {
  private readonly servers: Collection<McpServerDoc>;

  constructor(
    db: Db,
    private readonly secrets: SecretBox,
  ) {
    this.servers = db.collection<McpServerDoc>(COLLECTIONS.mcpServers);
  }

  /** The user's servers by name, configs decrypted. */
  async list(userId: string): Promise<McpServerSettingsItem[]> {
    const docs = await this.servers.find({ userId }).sort({ name: 1 }).toArray();
    return docs.map((doc) => this.itemOf(doc));
  }

  /**
   * Creates the user's server `name`, or replaces its `enabled` and `config`: `created` says which.
   * A new one beyond the per-user limit is 409 `CONFLICT`.
   */
  async put(userId: string, name: string, input: { enabled: boolean; config: McpServerConfig }): Promise<{ item: McpServerSettingsItem; created: boolean }> {
    const now = new Date();
    const sealedConfig = this.secrets.seal(JSON.stringify(input.config), sealContext(userId, name));
    const replaced = await this.servers.findOneAndUpdate(
      { userId, name },
      { $set: { enabled: input.enabled, sealedConfig, updatedAt: now } },
      { returnDocument: 'after' },
    );
    if (replaced) return { item: this.itemOf(replaced), created: false };
    if ((await this.servers.countDocuments({ userId })) >= MCP_SERVER_LIMITS.serversPerUser) {
      throw AppError.conflict(`At most ${MCP_SERVER_LIMITS.serversPerUser} tool servers per user; delete one first`);
    }
    const doc: McpServerDoc = { userId, name, enabled: input.enabled, sealedConfig, createdAt: now, updatedAt: now };
    try {
      await this.servers.insertOne({ ...doc });
    } catch (error) {
      // Created by a concurrent request meanwhile: this one replaces it.
      if (!isDuplicateKey(error)) throw error;
      return this.put(userId, name, input);
    }
    return { item: this.itemOf(doc), created: true };
  }

  /** True when the user had a server of that name. */
  async delete(userId: string, name: string): Promise<boolean> {
    return (await this.servers.deleteOne({ userId, name })).deletedCount > 0;
  }

  /**
   * Re-seals every config sealed under another key than the current one (after a rotation),
   * leaving `updatedAt` alone: the config did not change, only its envelope.
   */
  async resealConfigs(signal?: AbortSignal): Promise<ResealReport> {
    const stale = this.servers.find({ 'sealedConfig.keyId': { $ne: this.secrets.currentKeyId } });
    const stored = (async function* () {
      for await (const doc of stale)
        yield { ref: { userId: doc.userId, name: doc.name }, sealed: doc.sealedConfig, context: sealContext(doc.userId, doc.name) };
    })();
    const replace = async (ref: { userId: string; name: string }, from: SealedSecret, to: SealedSecret): Promise<boolean> =>
      (await this.servers.updateOne({ ...ref, 'sealedConfig.iv': from.iv }, { $set: { sealedConfig: to } })).matchedCount === 1;
    return resealStale(this.secrets, stored, replace, signal);
  }

  private itemOf(doc: McpServerDoc): McpServerSettingsItem {
    let config: McpServerConfig;
    try {
      config = JSON.parse(this.secrets.open(doc.sealedConfig, sealContext(doc.userId, doc.name))) as McpServerConfig;
    } catch {
      // Never the error's text: it may say nothing secret today, but the config is not ours to risk.
      throw AppError.internal(`The stored config of tool server ${doc.name} cannot be opened (key id ${doc.sealedConfig.keyId ?? 'none'})`);
    }
    return { name: doc.name, enabled: doc.enabled, config, createdAt: doc.createdAt.toISOString(), updatedAt: doc.updatedAt.toISOString() };
  }
}
