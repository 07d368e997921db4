import type { Collection, Db } from '@ars/mongo';
import { COLLECTIONS, type AttemptDoc, type AttemptStatus } from './collections.js';

const LIVE: AttemptStatus[] = ['queued', 'running'];

/** Review attempts: written by the rerun and review routes, the automations.dispatch consumer and the report loop. */
export class AttemptStore {
  private readonly attempts: Collection<AttemptDoc>;

  constructor(db: Db) {
    this.attempts = db.collection<AttemptDoc>(COLLECTIONS.attempts);
  }

  async insert(attempt: AttemptDoc): Promise<void> {
    await this.attempts.insertOne(attempt);
  }

  async find(id: string): Promise<AttemptDoc | null> {
    return this.attempts.findOne({ _id: id });
  }

  /** The user's attempt by id (a check run's `external_id`), or null. */
  async findOwned(userId: string, id: string): Promise<AttemptDoc | null> {
    return this.attempts.findOne({ _id: id, userId });
  }

  async findByAutomationRun(automationRunId: string): Promise<AttemptDoc | null> {
    return this.attempts.findOne({ automationRunId });
  }

  async update(id: string, fields: Partial<Omit<AttemptDoc, '_id'>>): Promise<void> {
    await this.attempts.updateOne({ _id: id }, { $set: { ...fields, updatedAt: new Date() } });
  }

  async remove(id: string): Promise<void> {
    await this.attempts.deleteOne({ _id: id });
  }

  /** The oldest queued or running attempt on that head, other than `exceptId`. */
  async liveOnHead(repoId: string, prNumber: number, headSha: string, exceptId?: string): Promise<AttemptDoc | null> {
    return this.attempts.findOne(
      { repoId, prNumber, headSha, status: { $in: LIVE }, ...(exceptId ? { _id: { $ne: exceptId } } : {}) },
      { sort: { createdAt: 1 } },
    );
  }

  /**
   * The live attempt on the same head created before `attempt` (ties broken by id), which it must
   * wait for; null when it may run now. Of two racing attempts each sees the other, and only the
   * newer one waits.
   */
  async liveBefore(attempt: Pick<AttemptDoc, '_id' | 'repoId' | 'prNumber' | 'headSha' | 'createdAt'>): Promise<AttemptDoc | null> {
    return this.attempts.findOne(
      {
        repoId: attempt.repoId,
        prNumber: attempt.prNumber,
        headSha: attempt.headSha,
        status: { $in: LIVE },
        $or: [{ createdAt: { $lt: attempt.createdAt } }, { createdAt: attempt.createdAt, _id: { $lt: attempt._id } }],
      },
      { sort: { createdAt: 1 } },
    );
  }

  /** The attempt whose findings are the pull request's now: the one that ended last with a report. */
  async lastReported(repoId: string, prNumber: number, exceptId: string): Promise<AttemptDoc | null> {
    return this.attempts.findOne({ repoId, prNumber, status: 'completed', _id: { $ne: exceptId } }, { sort: { endedAt: -1 } });
  }

  /** Held attempts (deferred, not yet released), the oldest first. */
  async held(limit: number): Promise<AttemptDoc[]> {
    return this.attempts.find({ status: 'queued', deferred: true, released: false }).sort({ createdAt: 1 }).limit(limit).toArray();
  }

  /** Running attempts whose automation run has not been seen ending and that nothing changed since `before`. */
  async quietRunning(before: Date, limit: number): Promise<AttemptDoc[]> {
    return this.attempts
      .find({ status: 'running', runEnded: null, updatedAt: { $lt: before } })
      .sort({ updatedAt: 1 })
      .limit(limit)
      .toArray();
  }

  /** Attempts whose queueing was cut short (no automation run) and that are older than `before`. */
  async stuckQueued(before: Date, limit: number): Promise<AttemptDoc[]> {
    return this.attempts
      .find({ status: 'queued', automationRunId: null, createdAt: { $lt: before } })
      .limit(limit)
      .toArray();
  }

  /** Attempts whose report is due at `now`, the earliest first. */
  async reportsDue(now: Date, limit: number): Promise<AttemptDoc[]> {
    return this.attempts
      .find({ reportDueAt: { $lte: now } })
      .sort({ reportDueAt: 1 })
      .limit(limit)
      .toArray();
  }

  /**
   * Takes the due report for `leaseMs` (its due time moves past the lease): one instance makes it at
   * a time, and a crash mid-report is picked up again once the lease ends. Null when not due.
   */
  async claimReport(id: string, now: Date, leaseMs: number): Promise<AttemptDoc | null> {
    return this.attempts.findOneAndUpdate(
      { _id: id, reportDueAt: { $lte: now } },
      { $set: { reportDueAt: new Date(now.getTime() + leaseMs), updatedAt: now }, $inc: { reportTries: 1 } },
      { returnDocument: 'after' },
    );
  }
}
