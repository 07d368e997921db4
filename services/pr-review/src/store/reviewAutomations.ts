import type { Collection, Db } from '@ars/mongo';
import { COLLECTIONS, type ReviewAutomationDoc } from './collections.js';

const DUPLICATE_KEY = 11000;

/** Which automation is an installation's review automation (per user and installation). */
export class ReviewAutomationStore {
  private readonly links: Collection<ReviewAutomationDoc>;

  constructor(db: Db) {
    this.links = db.collection<ReviewAutomationDoc>(COLLECTIONS.reviewAutomations);
  }

  async find(userId: string, installationId: number): Promise<ReviewAutomationDoc | null> {
    return this.links.findOne({ _id: `${userId}:${installationId}` });
  }

  /**
   * Claims the right to create it: true for exactly one caller while no automation is linked, or
   * when the previous claim is older than `staleBefore` (its claimer died before linking one).
   */
  async claim(userId: string, installationId: number, now: Date, staleBefore: Date): Promise<boolean> {
    const _id = `${userId}:${installationId}`;
    try {
      const taken = await this.links.findOneAndUpdate(
        { _id, automationId: null, claimedAt: { $lt: staleBefore } },
        { $set: { claimedAt: now } },
        { upsert: true, returnDocument: 'after' },
      );
      return taken !== null;
    } catch (error) {
      if ((error as { code?: number }).code === DUPLICATE_KEY) return false;
      throw error;
    }
  }

  async link(userId: string, installationId: number, automationId: string): Promise<void> {
    await this.links.updateOne({ _id: `${userId}:${installationId}` }, { $set: { automationId, userId, installationId } });
  }

  /** Forgets a link whose automation is gone (deleted by its user): the next attempt creates another. */
  async unlink(userId: string, installationId: number, automationId: string): Promise<void> {
    await this.links.deleteOne({ _id: `${userId}:${installationId}`, automationId });
  }
}
