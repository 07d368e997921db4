import { outboxInsert, withOutbox, type OutboxMessage, type RunAllocation, type RunFailureKind } from '@ars/bus';
import type { RunUsage } from '@ars/contract';
import { isDuplicateKey, type Collection, type Db, type Filter } from '@ars/mongo';
import type { RunStatus, TerminalStatus } from '../domain/runStatus.js';
import { recordRunFinished, recordRunStarted } from '../metrics.js';
import { COLLECTIONS, type HeldFinish, type QueueNotice, type RunDoc } from './collections.js';

const LIVE: RunStatus[] = ['pending', 'streaming'];

/** The per-user live slots a run holds while live (collections.ts, `liveConversation`/`liveWorkspaceSession`). */
export type LiveSlot = 'conversationId' | 'workspaceSessionId';

const LIVE_SLOT_FIELDS = { conversationId: 'liveConversation', workspaceSessionId: 'liveWorkspaceSession' } as const satisfies Record<LiveSlot, keyof RunDoc>;

/** How many times an insert refused by a live slot is tried again when the slot's holder ended in between. */
const INSERT_ATTEMPTS = 3;

/** What `RunStore.insert` did. */
export type RunInsertOutcome =
  | { outcome: 'inserted' }
  /** A run with this id exists already (another request of the same key wrote it first). */
  | { outcome: 'exists' }
  /** Another live run holds the user's conversation or workspace session named by the run. */
  | { outcome: 'slot_held'; slot: LiveSlot; id: string; holderRunId: string };

/** The live slot whose unique index refused a write; null for another duplicate key (the `_id`). */
function refusedLiveSlot(error: unknown): LiveSlot | null {
  const pattern = (error as { keyPattern?: Record<string, unknown> }).keyPattern ?? {};
  for (const slot of Object.keys(LIVE_SLOT_FIELDS) as LiveSlot[]) {
    if (LIVE_SLOT_FIELDS[slot] in pattern) return slot;
  }
  return null;
}

/** The run as written: a live run holds the live slots of the ids it names. */
function withLiveSlots(doc: RunDoc): RunDoc {
  if (!LIVE.includes(doc.status)) return doc;
  return {
    ...doc,
    ...(doc.conversationId !== null ? { liveConversation: doc.conversationId } : {}),
    ...(doc.workspaceSessionId !== null ? { liveWorkspaceSession: doc.workspaceSessionId } : {}),
  };
}

/** The end of a run as it is written: status, error, who ended it. */
export interface RunEnding {
  status: TerminalStatus;
  error: string | null;
  failure: RunFailureKind | null;
  finishedBy: RunDoc['finishedBy'];
  finishedEventCount: number | null;
  /** The run's token totals, when its sandbox reported them (the watchdog's and cancel's endings have none). */
  usage?: RunUsage | null;
  /**
   * The run's sandbox as its finish names it: written with the end only where the run has none
   * (the finish may be read before `runs.sandbox-allocated`, which a terminal run then ignores).
   */
  allocation?: RunAllocation | null;
}

export class RunStore {
  readonly runs: Collection<RunDoc>;

  constructor(db: Db) {
    this.runs = db.collection<RunDoc>(COLLECTIONS.runs);
  }

  /**
   * Writes a new run and its messages in one document write (transactional outbox). A live run holds
   * the live slots of its conversation and workspace session in the same write, so the unique
   * indexes refuse a second live run of either (`slot_held`, naming the run holding it). `exists`
   * when a run with this id exists already (another request of the same key wrote it first —
   * also when that run is what holds the slot: the indexes may report either duplicate).
   */
  async insert(doc: RunDoc, messages: OutboxMessage[]): Promise<RunInsertOutcome> {
    const written = withLiveSlots(doc);
    for (let attempt = 0; attempt < INSERT_ATTEMPTS; attempt += 1) {
      try {
        await this.runs.insertOne(outboxInsert(written, messages));
        recordRunStarted(doc.harness);
        return { outcome: 'inserted' };
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        const slot = refusedLiveSlot(error);
        if (slot === null) return { outcome: 'exists' };
        const id = slot === 'conversationId' ? doc.conversationId : doc.workspaceSessionId;
        if (id === null) throw error;
        const holder = await this.liveHolder(doc.userId, slot, id);
        if (holder === doc._id) return { outcome: 'exists' };
        if (holder !== null) return { outcome: 'slot_held', slot, id, holderRunId: holder };
        // The holder ended between the refused insert and this read: the slot is free, try again.
      }
    }
    throw new Error(`run ${doc._id}: its live slots kept changing while it was written`);
  }

  /** The id of the user's live run holding the conversation or workspace session `id`, or null. */
  async liveHolder(userId: string, slot: LiveSlot, id: string): Promise<string | null> {
    const holder = await this.runs.findOne({ userId, [LIVE_SLOT_FIELDS[slot]]: id }, { projection: { _id: 1 } });
    return holder?._id ?? null;
  }

  /** The user's run; another user's is not found. */
  async findOwned(userId: string, runId: string): Promise<RunDoc | null> {
    return this.runs.findOne({ _id: runId, userId }, { projection: { _outbox: 0 } });
  }

  async findById(runId: string): Promise<RunDoc | null> {
    return this.runs.findOne({ _id: runId }, { projection: { _outbox: 0 } });
  }

  /**
   * Sets the sandbox of a run once, and only while it is live: a terminal run never changes again,
   * whoever ended it (the allocation message may be read after the finish: topics are consumed
   * independently; it then changes nothing). The status is in the filter, so the check and the
   * write are one atomic step: an end written in between wins. True when the run changed.
   */
  async setAllocation(runId: string, allocation: Pick<RunDoc, 'sandboxRecordId' | 'sandboxId' | 'runtime'>): Promise<boolean> {
    const result = await this.runs.updateOne({ _id: runId, sandboxRecordId: null, status: { $in: LIVE } }, { $set: { ...allocation, updatedAt: new Date() } });
    return result.modifiedCount === 1;
  }

  /**
   * Records a queue notice of a live run and moves its deadlines to at least `deadlines` (never
   * earlier: notices may be read late or twice). The Run's visible fields do not change.
   */
  async noteQueued(runId: string, notice: QueueNotice, deadlines: Pick<RunDoc, 'startBy' | 'lostBy'>): Promise<boolean> {
    const result = await this.runs.updateOne(
      { _id: runId, status: { $in: LIVE } },
      { $set: { queue: notice }, $max: { startBy: deadlines.startBy, lostBy: deadlines.lostBy } },
    );
    return result.matchedCount === 1;
  }

  /**
   * Records that event `seq` is stored, and moves the status when `next` is given (only from `from`);
   * the run as it is after that write (null when it is gone), read by the write itself: what a
   * finish held meanwhile for these events needs to be seen.
   */
  async recordEvent(runId: string, seq: number, move: { from: RunStatus; next: RunStatus } | null): Promise<RunDoc | null> {
    if (move) {
      await this.runs.updateOne({ _id: runId, status: move.from }, { $set: { status: move.next, updatedAt: new Date() } });
    }
    return this.runs.findOneAndUpdate({ _id: runId }, { $max: { nextSeq: seq + 1 } }, { returnDocument: 'after' });
  }

  /**
   * Ends a live run (never a terminal one: the filter holds the status it was read with). With
   * messages, they leave in the same write. True when this call ended it. Every end goes through
   * here (the sandbox's finish, a held finish, the watchdog; a cancel ends as the sandbox's finish):
   * the same write frees the run's conversation and workspace session for the next run.
   */
  async end(runId: string, from: RunStatus, ending: RunEnding, messages: OutboxMessage[] = []): Promise<boolean> {
    if (!LIVE.includes(from)) return false;
    const now = new Date();
    const set = {
      status: ending.status,
      error: ending.error,
      failure: ending.failure,
      finishedBy: ending.finishedBy,
      finishedEventCount: ending.finishedEventCount,
      heldFinish: null,
      ...(ending.usage ? { usage: ending.usage } : {}),
      updatedAt: now,
    };
    const unset = { liveConversation: '', liveWorkspaceSession: '' } as const;
    // The run as it was before this write: null when another write moved it first. Its creation
    // and harness give the duration and labels of the run's one `ars_runs_finished_total`.
    const endOnce = (filter: Filter<RunDoc>, allocation: RunAllocation | null): Promise<Pick<RunDoc, '_id' | 'createdAt' | 'harness'> | null> => {
      const update = { $set: { ...set, ...allocation }, $unset: unset };
      return this.runs.findOneAndUpdate({ ...filter, _id: runId, status: from }, messages.length > 0 ? withOutbox<RunDoc>(update, messages) : update, {
        projection: { createdAt: 1, harness: 1 },
        returnDocument: 'before',
      });
    };
    // "Only where none yet" is part of the filter, so an allocation stored in between is kept: the
    // end is then written without it.
    let before = ending.allocation ? await endOnce({ sandboxRecordId: null }, ending.allocation) : null;
    before ??= await endOnce({}, null);
    if (!before) return false;
    recordRunFinished(ending.status, before.harness, before.createdAt);
    return true;
  }

  /** Keeps a finish until the events it counts are stored (only on a live run without one). */
  async holdFinish(runId: string, held: HeldFinish): Promise<void> {
    await this.runs.updateOne({ _id: runId, status: { $in: LIVE }, heldFinish: null }, { $set: { heldFinish: held } });
  }

  async markCancelRequested(runId: string): Promise<void> {
    await this.runs.updateOne({ _id: runId }, { $set: { cancelRequestedAt: new Date() } });
  }

  /**
   * Live runs past one of their deadlines, or holding a finish received before `heldBefore` (the
   * watchdog decides what each one means).
   */
  async overdue(now: Date, heldBefore: Date, limit: number): Promise<RunDoc[]> {
    const projection = { _outbox: 0, prompt: 0 };
    const found = await Promise.all([
      this.runs.find({ status: 'pending', sandboxRecordId: null, startBy: { $lt: now } }, { projection, limit }).toArray(),
      this.runs.find({ status: { $in: LIVE }, lostBy: { $lt: now } }, { projection, limit }).toArray(),
      this.runs.find({ status: { $in: LIVE }, 'heldFinish.receivedAt': { $lt: heldBefore } }, { projection, limit }).toArray(),
    ]);
    const seen = new Set<string>();
    return found.flat().filter((run) => !seen.has(run._id) && Boolean(seen.add(run._id)));
  }
}
