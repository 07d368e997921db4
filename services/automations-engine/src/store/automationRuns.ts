import type { Collection, Db } from '@ars/mongo';
import type { RunSummary } from '../domain/automationView.js';
import { COLLECTIONS, type AutomationRunDoc } from './collections.js';

const DAY_MS = 24 * 3600 * 1000;

/** Automation runs as the automation's `runSummary` reads them (the engine writes them). */
export class AutomationRunStore {
  private readonly runs: Collection<AutomationRunDoc>;

  constructor(db: Db) {
    this.runs = db.collection<AutomationRunDoc>(COLLECTIONS.automationRuns);
  }

  /**
   * Computed on every read, so it is true at all times: the latest run, the live runs (`running`
   * and `waiting` count as running), the pending ones, and the runs that failed in the last 24 h.
   */
  async summary(automationId: string, now: Date): Promise<RunSummary> {
    const [latest, runningCount, pendingCount, failed24h] = await Promise.all([
      this.runs.find({ automationId }).sort({ createdAt: -1, _id: -1 }).limit(1).toArray(),
      this.runs.countDocuments({ automationId, status: { $in: ['running', 'waiting'] } }),
      this.runs.countDocuments({ automationId, status: 'pending' }),
      this.runs.countDocuments({ automationId, status: 'failed', finishedAt: { $gte: new Date(now.getTime() - DAY_MS) } }),
    ]);
    const [last] = latest;
    return { lastRunId: last?._id ?? null, lastRunStatus: last?.status ?? null, runningCount, pendingCount, failed24h };
  }
}
