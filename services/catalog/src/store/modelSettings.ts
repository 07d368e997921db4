import type { Collection, Db } from '@ars/mongo';
import { COLLECTIONS, type ModelPolicyDoc, type ModelVisibilityDoc, type ProviderKeyDoc, type UserPlanDoc } from './collections.js';
import { resealStale, type ResealReport, type SealedSecret, type SecretBox } from '@ars/secret-box';

/** What decides which models a user may use: plan, model policy, provider keys (presence only), visibility overrides. */
export class ModelSettingsStore {
  private readonly plans: Collection<UserPlanDoc>;
  private readonly policy: Collection<ModelPolicyDoc>;
  private readonly keys: Collection<ProviderKeyDoc>;
  private readonly visibility: Collection<ModelVisibilityDoc>;

  constructor(
    db: Db,
    private readonly secrets: SecretBox,
  ) {
    this.plans = db.collection<UserPlanDoc>(COLLECTIONS.userPlans);
    this.policy = db.collection<ModelPolicyDoc>(COLLECTIONS.modelPolicy);
    this.keys = db.collection<ProviderKeyDoc>(COLLECTIONS.providerKeys);
    this.visibility = db.collection<ModelVisibilityDoc>(COLLECTIONS.modelVisibility);
  }

  async plan(userId: string): Promise<string | null> {
    return (await this.plans.findOne({ _id: userId }))?.plan ?? null;
  }

  async setPlan(userId: string, plan: string): Promise<void> {
    await this.plans.updateOne({ _id: userId }, { $set: { plan, updatedAt: new Date() } }, { upsert: true });
  }

  async enabledByModelId(userId: string): Promise<Map<string, boolean>> {
    const docs = await this.policy.find({ userId }).toArray();
    return new Map(docs.map((doc) => [doc.modelId, doc.enabled]));
  }

  async setModelEnabled(userId: string, modelId: string, enabled: boolean): Promise<void> {
    await this.policy.updateOne({ userId, modelId }, { $set: { enabled, updatedAt: new Date() } }, { upsert: true });
  }

  /** The providers the user has a key for (never the keys). */
  async providersWithKeys(userId: string): Promise<Set<string>> {
    const docs = await this.keys.find({ userId }, { projection: { provider: 1 } }).toArray();
    return new Set(docs.map((doc) => doc.provider));
  }

  /** Seals the key (AES-256-GCM, bound to user and provider) and stores only the sealed form. */
  async setProviderKey(userId: string, provider: string, apiKey: string): Promise<Date> {
    const updatedAt = new Date();
    const sealed = this.secrets.seal(apiKey, providerKeyContext(userId, provider));
    await this.keys.updateOne({ userId, provider }, { $set: { sealed, updatedAt } }, { upsert: true });
    return updatedAt;
  }

  /** The decrypted key, for the code that will call the provider on the user's behalf. */
  async revealProviderKey(userId: string, provider: string): Promise<string | null> {
    const doc = await this.keys.findOne({ userId, provider });
    return doc ? this.secrets.open(doc.sealed, providerKeyContext(userId, provider)) : null;
  }

  /**
   * Re-seals every provider key sealed under another key than the current one (after a rotation),
   * leaving `updatedAt` alone: the key did not change, only its envelope.
   */
  async resealProviderKeys(signal?: AbortSignal): Promise<ResealReport> {
    const stale = this.keys.find({ 'sealed.keyId': { $ne: this.secrets.currentKeyId } });
    const stored = (async function* () {
      for await (const doc of stale)
        yield { ref: { userId: doc.userId, provider: doc.provider }, sealed: doc.sealed, context: providerKeyContext(doc.userId, doc.provider) };
    })();
    const replace = async (ref: { userId: string; provider: string }, from: SealedSecret, to: SealedSecret): Promise<boolean> =>
      (await this.keys.updateOne({ ...ref, 'sealed.iv': from.iv }, { $set: { sealed: to } })).matchedCount === 1;
    return resealStale(this.secrets, stored, replace, signal);
  }

  /** True when a key was removed. */
  async deleteProviderKey(userId: string, provider: string): Promise<boolean> {
    return (await this.keys.deleteOne({ userId, provider })).deletedCount > 0;
  }

  /** Visibility overrides by model id (models without one keep the catalog default). */
  async visibilityOverrides(): Promise<Map<string, boolean>> {
    const docs = await this.visibility.find({}).toArray();
    return new Map(docs.map((doc) => [doc._id, doc.visible]));
  }

  async setVisibility(modelId: string, visible: boolean): Promise<void> {
    await this.visibility.updateOne({ _id: modelId }, { $set: { visible, updatedAt: new Date() } }, { upsert: true });
  }
}

function providerKeyContext(userId: string, provider: string): string {
  return `provider-key:${userId}:${provider}`;
}
