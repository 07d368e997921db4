import { outboxInsert, withOutbox, type OutboxMessage } from '@ars/bus';
import type { ReviewFinding } from '@ars/contract';
import { isDuplicateKey, type Collection, type Db, type Filter } from '@ars/mongo';
import type { RunSummary } from '../domain/automationView.js';
import type { AiCall, DispatchEvent, StoredAutomationRun } from '../domain/automationRunView.js';
import { DISPATCH_KEPT } from '../domain/dispatchEvents.js';
import type { RunRecords } from '../domain/run/index.js';
import { recordAutomationRunCreated } from '../metrics.js';
import { COLLECTIONS, type AutomationRunDoc } from './collections.js';

const DAY_MS = 24 * 3600 * 1000;
const LIVE = ['pending', 'running', 'waiting'] as const;

/** Whether the agent run's AI call is among these (an agent run is counted once). */
export function hasAiCall(calls: readonly AiCall[], agentRunId: string): boolean {
  return calls.some((call) => call.agentRunId === agentRunId);
}

/** A stored run with what the engine needs beside the views' fields. */
export type AutomationRunRecord = StoredAutomationRun &
  Pick<AutomationRunDoc, 'userId' | 'installationId' | 'catalog' | 'trigger' | 'revision' | 'trace'> & { held: boolean };

export function toRunRecord(doc: AutomationRunDoc): AutomationRunRecord {
  return {
    id: doc._id,
    automationId: doc.automationId,
    userId: doc.userId,
    installationId: doc.installationId,
    versionId: doc.versionId,
    versionNumber: doc.versionNumber,
    repoId: doc.repoId,
    baseBranch: doc.baseBranch ?? null,
    records: JSON.parse(doc.recordsJson) as RunRecords,
    revision: doc.revision,
    catalog: doc.catalog,
    trigger: doc.trigger,
    aiCalls: doc.aiCalls,
    reviewFindings: doc.reviewFindings ?? [],
    dispatch: doc.dispatch,
    dispatchCount: doc.dispatchCount,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    finishedAt: doc.finishedAt,
    held: doc.held === true,
    ...(doc.trace ? { trace: doc.trace } : {}),
  };
}

/** A transition as the store writes it: the new records, what it adds beside them, its messages. */
export interface RunWrite {
  records: RunRecords;
  dispatch: DispatchEvent[];
  aiCall?: AiCall;
  /** When the sweeper should look at the run next (null once it is finished). */
  checkAt: Date | null;
  now: Date;
  messages: OutboxMessage[];
}

/** Automation runs: created by the trigger, changed only by compare-and-set on `revision`. */
export class AutomationRunStore {
  private readonly runs: Collection<AutomationRunDoc>;

  constructor(db: Db) {
    this.runs = db.collection<AutomationRunDoc>(COLLECTIONS.automationRuns);
  }

  /** Inserts a new run; false when the user already used its trigger key (a racing or repeated trigger). */
  async insert(doc: AutomationRunDoc, messages: OutboxMessage[]): Promise<boolean> {
    try {
      await this.runs.insertOne(messages.length > 0 ? outboxInsert(doc, messages) : doc);
      recordAutomationRunCreated(doc.status);
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  async find(id: string): Promise<AutomationRunRecord | null> {
    const doc = await this.runs.findOne({ _id: id }, { projection: { _outbox: 0 } });
    return doc ? toRunRecord(doc) : null;
  }

  async findOfAutomation(automationId: string, id: string): Promise<AutomationRunRecord | null> {
    const doc = await this.runs.findOne({ _id: id, automationId }, { projection: { _outbox: 0 } });
    return doc ? toRunRecord(doc) : null;
  }

  async findByTriggerKey(userId: string, idempotencyKey: string): Promise<AutomationRunRecord | null> {
    const doc = await this.runs.findOne({ userId, 'trigger.idempotencyKey': idempotencyKey }, { projection: { _outbox: 0 } });
    return doc ? toRunRecord(doc) : null;
  }

  /** The run one of whose nodes started this agent run, if any. */
  async findByAgentRun(agentRunId: string): Promise<AutomationRunRecord | null> {
    const doc = await this.runs.findOne({ agentRunIds: agentRunId }, { projection: { _outbox: 0 } });
    return doc ? toRunRecord(doc) : null;
  }

  /** The automation's runs, newest first. */
  async listOfAutomation(automationId: string, limit: number): Promise<AutomationRunRecord[]> {
    const docs = await this.runs
      .find({ automationId }, { projection: { _outbox: 0 } })
      .sort({ createdAt: -1, _id: -1 })
      .limit(limit)
      .toArray();
    return docs.map(toRunRecord);
  }

  /** The user's runs still live that existed when `at` came (an event reaches exactly these). */
  async liveOfUserCreatedBy(userId: string, at: Date): Promise<string[]> {
    const docs = await this.runs
      .find({ userId, status: { $in: [...LIVE] }, createdAt: { $lte: at } }, { projection: { _id: 1 } })
      .sort({ createdAt: 1 })
      .toArray();
    return docs.map((doc) => doc._id);
  }

  /** Live runs the sweeper is due to look at. */
  async dueForCheck(now: Date, limit: number): Promise<string[]> {
    const docs = await this.runs
      .find({ status: { $in: [...LIVE] }, checkAt: { $lte: now } }, { projection: { _id: 1 } })
      .sort({ checkAt: 1 })
      .limit(limit)
      .toArray();
    return docs.map((doc) => doc._id);
  }

  /**
   * Lets a held run go: no longer held, and due for the sweeper now (so a crash before its trigger
   * is applied still triggers it). False when it was not held (released already, or never held).
   */
  async release(id: string, now: Date): Promise<boolean> {
    const result = await this.runs.updateOne({ _id: id, held: true }, { $set: { held: false, checkAt: now } });
    return result.modifiedCount === 1;
  }

  async postponeCheck(id: string, checkAt: Date): Promise<void> {
    await this.runs.updateOne({ _id: id, status: { $in: [...LIVE] } }, { $set: { checkAt } });
  }

  /** Replaces the review findings of the run (pr-review's classification of its attempt); false when there is no such run. */
  async setReviewFindings(id: string, findings: ReviewFinding[]): Promise<boolean> {
    const result = await this.runs.updateOne({ _id: id }, { $set: { reviewFindings: findings, updatedAt: new Date() } });
    return result.matchedCount === 1;
  }

  /**
   * Writes a transition if the run is still at `revision` (compare-and-set): its records, status,
   * agent runs, dispatch events (the newest DISPATCH_KEPT kept) and an AI call (unless the run has
   * that agent run's already), with its messages in the same document write. False when another
   * writer got there first (read again and retry).
   */
  async compareAndSet(current: AutomationRunRecord, write: RunWrite): Promise<boolean> {
    const { records } = write;
    const agentRunIds = [...new Set(Object.values(records.nodeRuns).flatMap((nodeRun) => (nodeRun.agentRunId ? [nodeRun.agentRunId] : [])))];
    const terminal = records.run.status === 'success' || records.run.status === 'failed' || records.run.status === 'cancelled';
    const set: Partial<AutomationRunDoc> = {
      recordsJson: JSON.stringify(records),
      revision: records.run.revision,
      status: records.run.status,
      agentRunIds,
      dispatch: [...current.dispatch, ...write.dispatch].slice(-DISPATCH_KEPT),
      dispatchCount: current.dispatchCount + write.dispatch.length,
      updatedAt: write.now,
      checkAt: write.checkAt,
      finishedAt: terminal ? (current.finishedAt ?? write.now) : null,
    };
    // The AI call is pushed, never the list set whole: one added meanwhile by addAiCall (no revision
    // change) is kept, and one already there (a redelivered finish) is not added twice.
    const call = write.aiCall && !hasAiCall(current.aiCalls, write.aiCall.agentRunId) ? write.aiCall : undefined;
    const filter: Filter<AutomationRunDoc> = {
      _id: current.id,
      revision: current.revision,
      ...(call ? { 'aiCalls.agentRunId': { $ne: call.agentRunId } } : {}),
    };
    const changes = call ? { $set: set, $push: { aiCalls: call } } : { $set: set };
    const update = write.messages.length > 0 ? withOutbox<AutomationRunDoc>(changes, write.messages) : changes;
    const result = await this.runs.updateOne(filter, update);
    return result.matchedCount === 1;
  }

  /**
   * Adds the AI call of an agent run that ended without changing the run's records: a join `any`'s
   * loser or an agent run cancelled with its run, whose finish comes after its node was cancelled,
   * often after the run ended. Whatever the run's status, and nothing else of it changes (status,
   * revision, finishedAt, checkAt). Once per agent run: false when it is there already (a redelivered
   * finish) or there is no such run.
   */
  async addAiCall(id: string, call: AiCall, now: Date): Promise<boolean> {
    const result = await this.runs.updateOne(
      { _id: id, 'aiCalls.agentRunId': { $ne: call.agentRunId } },
      { $push: { aiCalls: call }, $set: { updatedAt: now } },
    );
    return result.modifiedCount === 1;
  }

  /**
   * Computed on every read, so it is true at all times: the latest run, the live runs (`running`
   * and `waiting` count as running), the pending ones, and the runs that failed in the last 24 h.
   */
  async summary(automationId: string, now: Date): Promise<RunSummary> {
    const [latest, runningCount, pendingCount, failed24h] = await Promise.all([
      this.runs
        .find({ automationId }, { projection: { _id: 1, status: 1 } })
        .sort({ createdAt: -1, _id: -1 })
        .limit(1)
        .toArray(),
      this.runs.countDocuments({ automationId, status: { $in: ['running', 'waiting'] } }),
      this.runs.countDocuments({ automationId, status: 'pending' }),
      this.runs.countDocuments({ automationId, status: 'failed', finishedAt: { $gte: new Date(now.getTime() - DAY_MS) } }),
    ]);
    const [last] = latest;
    return { lastRunId: last?._id ?? null, lastRunStatus: last?.status ?? null, runningCount, pendingCount, failed24h };
  }
}
