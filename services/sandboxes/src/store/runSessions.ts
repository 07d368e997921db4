import { randomBytes } from 'node:crypto';
import { outboxInsert, withOutbox, type OutboxMessage, type RunAllocation, type RunFinishedData, type RunSandboxQueuedData } from '@ars/bus';
import { isDuplicateKey, type Collection, type Db } from '@ars/mongo';
import { COLLECTIONS, type QueuedRequest, type QueueReason, type SessionDoc, type SessionResult, type SessionState } from './collections.js';

/** States in which a session is alive (claimed by an instance that heartbeats it). */
export const LIVE_STATES: readonly SessionState[] = ['allocating', 'running'];

export function newSessionId(): string {
  return `ses_${randomBytes(12).toString('hex')}`;
}

/**
 * The `run.finished` message of a result (with its token totals when it has some, and the run's
 * allocation when its session had a sandbox): id `<runId>:finished`, so a resend is the same message.
 */
export function finishedMessage(runId: string, result: SessionResult, allocation: RunAllocation | null): OutboxMessage<RunFinishedData> {
  return {
    topic: 'runs.finished',
    key: runId,
    type: 'run.finished',
    id: `${runId}:finished`,
    data: {
      runId,
      status: result.status,
      error: result.error,
      failure: result.failure,
      eventCount: result.eventCount,
      ...(result.usage ? { usage: result.usage } : {}),
      ...(allocation ?? {}),
    },
  };
}

/**
 * The allocation `run.sandbox-allocated` reports for this session, or null while it has no sandbox.
 * Runs may read the finish first (another topic): then the finish is what names the run's sandbox.
 */
export function sessionAllocation(session: Pick<SessionDoc, 'sessionId' | 'sandboxRecordId' | 'sandboxId' | 'runtimeProvider'>): RunAllocation | null {
  if (session.sandboxRecordId === null || session.sandboxId === null || session.runtimeProvider === undefined) return null;
  return { sandboxRecordId: session.sandboxRecordId, sandboxId: session.sandboxId, runtime: { provider: session.runtimeProvider, runId: session.sessionId } };
}

/** A `run.sandbox-queued` notice: runs restarts the run's start deadline when it reads one. */
export function queuedMessage(runId: string, queue: QueuedRequest, state: RunSandboxQueuedData['state'], id: string): OutboxMessage<RunSandboxQueuedData> {
  return {
    topic: 'runs.sandbox-queued',
    key: runId,
    type: 'run.sandbox-queued',
    id,
    data: { runId, state, reason: queue.reason, queuedAt: queue.queuedAt.toISOString() },
  };
}

export type ClaimOutcome = { claimed: true; session: SessionDoc } | { claimed: false; existing: SessionDoc };

/**
 * Sessions: one document per run (`_id` = runId), so a redelivered request, a cancel and the sweeper
 * meet on one document and every state change is one conditional single-document write. The
 * terminal change carries its `run.finished` in the document's outbox (the relay publishes it).
 */
export class RunSessionStore {
  readonly collection: Collection<SessionDoc>;

  constructor(db: Db) {
    this.collection = db.collection<SessionDoc>(COLLECTIONS.sessions);
  }

  async get(runId: string): Promise<SessionDoc | null> {
    return this.collection.findOne({ _id: runId });
  }

  /** Claims the run for `instanceId` (state `allocating`), or answers the document already there. */
  async claim(runId: string, userId: string, instanceId: string, sandboxRecordId: string): Promise<ClaimOutcome> {
    const now = new Date();
    const session: SessionDoc = {
      _id: runId,
      sessionId: newSessionId(),
      userId,
      state: 'allocating',
      instanceId,
      heartbeatAt: now,
      sandboxRecordId,
      sandboxId: null,
      sandboxDir: null,
      eventCount: 0,
      cancelRequested: false,
      result: null,
      createdAt: now,
      updatedAt: now,
      finishedAt: null,
    };
    const inserted = await this.insertOrExisting(session);
    return inserted === true ? { claimed: true, session } : { claimed: false, existing: inserted };
  }

  /** Claims the run for `instanceId` as `queued` (it waits for a session slot), or answers the document already there. */
  async enqueue(runId: string, userId: string, instanceId: string, queue: QueuedRequest): Promise<true | SessionDoc> {
    const now = new Date();
    return this.insertOrExisting({
      _id: runId,
      sessionId: newSessionId(),
      userId,
      state: 'queued',
      instanceId,
      heartbeatAt: now,
      sandboxRecordId: null,
      sandboxId: null,
      sandboxDir: null,
      eventCount: 0,
      cancelRequested: false,
      result: null,
      createdAt: now,
      updatedAt: now,
      finishedAt: null,
      queue,
    });
  }

  /**
   * Sends (through the outbox) a `queued` notice for the instance's queued run, and schedules the
   * next one; false when the run is no longer queued there. Each notice has its own id.
   */
  async notice(runId: string, instanceId: string, reason: QueueReason, now: Date = new Date()): Promise<boolean> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const doc = await this.collection.findOne({ _id: runId, instanceId, state: 'queued' });
      if (!doc?.queue) return false;
      const queue: QueuedRequest = {
        ...doc.queue,
        reason,
        notices: doc.queue.notices + 1,
        renewAt: new Date(now.getTime() + doc.queue.renewEveryMs),
        holdUntil: new Date(now.getTime() + 3 * doc.queue.renewEveryMs),
      };
      const update = await this.collection.updateOne(
        { _id: runId, instanceId, state: 'queued', 'queue.notices': doc.queue.notices },
        withOutbox<SessionDoc>({ $set: { queue, updatedAt: now } }, [queuedMessage(runId, queue, 'queued', `${runId}:queued:${doc.queue.notices}`)]),
      );
      if (update.modifiedCount === 1) return true;
    }
    return false;
  }

  /** The instance's queued runs whose next notice is due before `dueBefore`. */
  async noticesDue(instanceId: string, dueBefore: Date): Promise<SessionDoc[]> {
    return this.collection
      .find({ instanceId, state: 'queued', 'queue.renewAt': { $lte: dueBefore } }, { projection: { _outbox: 0 } })
      .limit(500)
      .toArray();
  }

  /**
   * Takes the instance's queued run out of the queue: `allocating`, with its sandbox record (a
   * `dequeued` notice in the same write when runs was told it waits). Null when it is no longer
   * queued there (cancelled meanwhile); else the session as it was queued.
   */
  async admit(runId: string, instanceId: string, sandboxRecordId: string): Promise<SessionDoc | null> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const doc = await this.collection.findOne({ _id: runId, instanceId, state: 'queued' }, { projection: { _outbox: 0 } });
      if (!doc?.queue) return null;
      const now = new Date();
      const set = { $set: { state: 'allocating' as const, sandboxRecordId, heartbeatAt: now, updatedAt: now }, $unset: { queue: '' as const } };
      const update = await this.collection.updateOne(
        { _id: runId, instanceId, state: 'queued', 'queue.notices': doc.queue.notices },
        doc.queue.notices > 0 ? withOutbox<SessionDoc>(set, [queuedMessage(runId, doc.queue, 'dequeued', `${runId}:dequeued`)]) : set,
      );
      if (update.modifiedCount === 1) return doc;
    }
    return null;
  }

  /** Ends a queued run (cancelled, or too late to start) with `run.finished` in its outbox; false when it was no longer queued. */
  async finishQueued(runId: string, result: SessionResult): Promise<boolean> {
    const now = new Date();
    const update = await this.collection.updateOne(
      { _id: runId, state: 'queued' },
      withOutbox<SessionDoc>({ $set: { state: 'finished', result, finishedAt: now, updatedAt: now }, $unset: { queue: '' } }, [
        finishedMessage(runId, result, null),
      ]),
    );
    return update.modifiedCount === 1;
  }

  /** Graceful shutdown: the instance's queued runs are left to whichever instance adopts them first. */
  async handBack(instanceId: string): Promise<number> {
    const update = await this.collection.updateMany({ instanceId, state: 'queued' }, { $set: { instanceId: null, heartbeatAt: null, updatedAt: new Date() } });
    return update.modifiedCount;
  }

  /** Queued runs nobody keeps: handed back at a shutdown, or their instance stopped heartbeating before `staleBefore`. Oldest first. */
  async adoptable(staleBefore: Date): Promise<SessionDoc[]> {
    return this.collection
      .find({ state: 'queued', $or: [{ instanceId: null }, { heartbeatAt: { $lt: staleBefore } }] }, { projection: { _outbox: 0 } })
      .sort({ 'queue.queuedAt': 1 })
      .limit(200)
      .toArray();
  }

  /** Takes an adoptable queued run into `instanceId`'s queue (unless another instance was first). */
  async adopt(doc: SessionDoc, instanceId: string): Promise<boolean> {
    const update = await this.collection.updateOne(
      { _id: doc._id, state: 'queued', instanceId: doc.instanceId, heartbeatAt: doc.heartbeatAt },
      { $set: { instanceId, heartbeatAt: new Date(), updatedAt: new Date() } },
    );
    return update.modifiedCount === 1;
  }

  /** A run ended before it was claimed (its start deadline passed): one finished document, `run.finished` in its outbox. */
  async insertFinished(runId: string, userId: string, result: SessionResult): Promise<true | SessionDoc> {
    const now = new Date();
    const doc: SessionDoc = {
      _id: runId,
      sessionId: newSessionId(),
      userId,
      state: 'finished',
      instanceId: null,
      heartbeatAt: null,
      sandboxRecordId: null,
      sandboxId: null,
      sandboxDir: null,
      eventCount: 0,
      cancelRequested: false,
      result,
      createdAt: now,
      updatedAt: now,
      finishedAt: now,
    };
    return this.insertOrExisting(outboxInsert(doc, [finishedMessage(runId, result, null)]));
  }

  /** Records a cancel for a run whose request has not arrived (a placeholder), or answers the document there. */
  async placeCancel(runId: string, userId: string): Promise<true | SessionDoc> {
    const now = new Date();
    return this.insertOrExisting({
      _id: runId,
      sessionId: newSessionId(),
      userId,
      state: 'cancel_requested',
      instanceId: null,
      heartbeatAt: null,
      sandboxRecordId: null,
      sandboxId: null,
      sandboxDir: null,
      eventCount: 0,
      cancelRequested: true,
      result: null,
      createdAt: now,
      updatedAt: now,
      finishedAt: null,
    });
  }

  /** Marks a live session's cancel for the instance that runs it (it aborts at its next heartbeat). */
  async requestCancel(runId: string): Promise<SessionDoc | null> {
    return this.collection.findOneAndUpdate(
      { _id: runId, state: { $in: [...LIVE_STATES] } },
      { $set: { cancelRequested: true, updatedAt: new Date() } },
      { returnDocument: 'after' },
    );
  }

  async markRunning(runId: string, instanceId: string, sandbox: { sandboxId: string; sandboxDir: string | null; runtimeProvider: string }): Promise<void> {
    await this.collection.updateOne(
      { _id: runId, instanceId, state: 'allocating' },
      {
        $set: {
          state: 'running',
          sandboxId: sandbox.sandboxId,
          sandboxDir: sandbox.sandboxDir,
          runtimeProvider: sandbox.runtimeProvider,
          heartbeatAt: new Date(),
          updatedAt: new Date(),
        },
      },
    );
  }

  async noteSandboxDir(runId: string, sandboxDir: string): Promise<void> {
    await this.collection.updateOne({ _id: runId }, { $set: { sandboxDir } });
  }

  async recordEventCount(runId: string, count: number): Promise<void> {
    await this.collection.updateOne({ _id: runId }, { $max: { eventCount: count } });
  }

  /**
   * Ends a live session of `instanceId` with `result`, its `run.finished` in the outbox. False when
   * the session was no longer live there (already finished, or swept as lost): nothing is written.
   * The write holds the state it was read in, so the allocation the message names is the one the
   * session has (only `allocating` → `running` sets it).
   */
  async finish(runId: string, instanceId: string, result: SessionResult): Promise<boolean> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const doc = await this.collection.findOne({ _id: runId, instanceId, state: { $in: [...LIVE_STATES] } }, { projection: { _outbox: 0 } });
      if (!doc) return false;
      const now = new Date();
      const update = await this.collection.updateOne(
        { _id: runId, instanceId, state: doc.state },
        withOutbox<SessionDoc>({ $set: { state: 'finished', result, finishedAt: now, updatedAt: now } }, [
          finishedMessage(runId, result, sessionAllocation(doc)),
        ]),
      );
      if (update.modifiedCount === 1) return true;
    }
    return false;
  }

  /** Ends a cancel placeholder when its request arrives: `run.finished` cancelled, no sandbox. */
  async finishPlaceholder(runId: string, result: SessionResult): Promise<boolean> {
    const now = new Date();
    const update = await this.collection.updateOne(
      { _id: runId, state: 'cancel_requested' },
      withOutbox<SessionDoc>({ $set: { state: 'finished', result, finishedAt: now, updatedAt: now } }, [finishedMessage(runId, result, null)]),
    );
    return update.modifiedCount === 1;
  }

  /** Marks the instance's live and queued sessions (those it still runs or keeps) alive now. */
  async heartbeat(instanceId: string, runIds: string[]): Promise<void> {
    if (runIds.length === 0) return;
    await this.collection.updateMany({ _id: { $in: runIds }, instanceId, state: { $in: [...LIVE_STATES, 'queued'] } }, { $set: { heartbeatAt: new Date() } });
  }

  /** Run ids of the instance's live sessions someone asked (through another instance) to cancel. */
  async cancelRequestedOn(instanceId: string): Promise<string[]> {
    const docs = await this.collection.find({ instanceId, state: { $in: [...LIVE_STATES] }, cancelRequested: true }, { projection: { _id: 1 } }).toArray();
    return docs.map((doc) => doc._id);
  }

  /** Live sessions whose heartbeat is older than `before`: their instance stopped. */
  async stale(before: Date): Promise<SessionDoc[]> {
    return this.collection
      .find({ state: { $in: [...LIVE_STATES] }, heartbeatAt: { $lt: before } })
      .limit(200)
      .toArray();
  }

  /**
   * Ends a stale session as lost (cancelled when a cancel was recorded for it), unless it changed since it was read (its heartbeat moved, an event
   * was counted, it finished): then nothing is written and false is answered.
   */
  async finishLost(session: SessionDoc, error: string): Promise<SessionResult | null> {
    const now = new Date();
    // A cancel asked for while its instance was already gone still ends the run as cancelled.
    const result: SessionResult = session.cancelRequested
      ? { status: 'cancelled', error: null, failure: null, eventCount: session.eventCount }
      : { status: 'failed', error, failure: 'sandbox_lost', eventCount: session.eventCount };
    const update = await this.collection.updateOne(
      { _id: session._id, state: session.state, heartbeatAt: session.heartbeatAt, eventCount: session.eventCount },
      withOutbox<SessionDoc>({ $set: { state: 'finished', result, finishedAt: now, updatedAt: now } }, [
        finishedMessage(session._id, result, sessionAllocation(session)),
      ]),
    );
    return update.modifiedCount === 1 ? result : null;
  }

  private async insertOrExisting(doc: SessionDoc): Promise<true | SessionDoc> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        await this.collection.insertOne(doc);
        return true;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        const existing = await this.get(doc._id);
        if (existing) return existing;
      }
    }
    throw new Error(`session ${doc._id}: insert conflicted but no document was found`);
  }
}
