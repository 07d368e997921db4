import { randomBytes } from 'node:crypto';
import type { RunRequestedData } from '@ars/bus';
import { isDuplicateKey, type Collection, type Db, type Filter } from '@ars/mongo';
import { NO_KNOWN_SECRETS, sanitizePayload, type KnownSecrets } from '@ars/sanitize';
import type { AllocatedSandbox, ProviderName } from '../providers/provider.js';
import { COLLECTIONS, type LifecycleEventDoc, type SandboxDoc, type SandboxStatus } from './collections.js';

/** Statuses in which a sandbox holds compute (and a public one can be reused). */
export const LIVE_STATUSES: readonly SandboxStatus[] = ['provisioning', 'ready'];

export interface NewSandbox {
  userId: string;
  repoId: string;
  baseBranch: string;
  workingBranch: string;
  rootDirectory: string | null;
  runId: string | null;
  provider: ProviderName;
  /** Public sandboxes: the reuse key while live, and the instance that keeps them. */
  reuseKey?: string;
  instanceId?: string;
  restoredFrom?: string | null;
  /** A workspace session's sandbox (its reuse key is the session's: `workspaceReuseKey`). */
  workspaceSessionId?: string | null;
}

export interface LifecycleEntry {
  eventType: string;
  decisionCode?: string | null;
  runId?: string | null;
  payload?: Record<string, unknown>;
}

export interface SandboxChange {
  status?: SandboxStatus;
  error?: string | null;
  sandboxId?: string;
  /** The local directory it occupies (AllocatedSandbox.dir). */
  dir?: string | null;
  previewUrl?: string | null;
}

export interface SandboxListQuery {
  repoId?: string;
  status?: string;
  limit: number;
}

/** What a create made: the record, or why not (a live sandbox holds the reuse key; the user holds every live slot). */
export type CreateResult = { kind: 'created'; doc: SandboxDoc } | { kind: 'reuse_key_taken' } | { kind: 'user_full'; limit: number };

export interface SandboxStoreLimits {
  /** Live sandboxes one user may hold (SANDBOX_MAX_LIVE_PER_USER). */
  maxLivePerUser: number;
  /** Lifecycle events kept per sandbox, the newest (SANDBOX_LIFECYCLE_EVENTS_MAX). */
  lifecycleEventsKept: number;
}

/** The record of a run's sandbox: the run's repository, branches and root directory. */
export function runSandbox(request: RunRequestedData, provider: ProviderName): NewSandbox {
  return {
    userId: request.userId,
    repoId: request.repoId,
    baseBranch: request.branch.base,
    workingBranch: request.branch.working,
    rootDirectory: request.rootDirectory ?? null,
    runId: request.runId,
    provider,
  };
}

export function newSandboxRecordId(): string {
  return `sbx_${randomBytes(12).toString('hex')}`;
}

let eventSeq = 0;

/** Ids that sort in the order this process recorded them (events of one sandbox come from one keeper at a time). */
function lifecycleEventId(): string {
  eventSeq = (eventSeq + 1) % 36 ** 4;
  return `sle_${Date.now().toString(36).padStart(9, '0')}${eventSeq.toString(36).padStart(4, '0')}_${randomBytes(6).toString('hex')}`;
}

/** The field whose unique index a duplicate-key error names; null when it is another error. */
function duplicateKeyField(error: unknown): string | null {
  if (!isDuplicateKey(error)) return null;
  const pattern = (error as { keyPattern?: Record<string, unknown> }).keyPattern;
  return pattern ? (Object.keys(pattern)[0] ?? '') : '';
}

function liveSlot(userId: string, n: number): string {
  return `${userId}#${n}`;
}

/** Sandbox records and their lifecycle events. */
export class SandboxRecordStore {
  private readonly sandboxes: Collection<SandboxDoc>;
  private readonly lifecycle: Collection<LifecycleEventDoc>;

  constructor(
    db: Db,
    readonly limits: SandboxStoreLimits,
    /** Redacted from every lifecycle payload (a configured install command may hold one). */
    private readonly secrets: KnownSecrets = NO_KNOWN_SECRETS,
  ) {
    this.sandboxes = db.collection<SandboxDoc>(COLLECTIONS.sandboxes);
    this.lifecycle = db.collection<LifecycleEventDoc>(COLLECTIONS.lifecycleEvents);
  }

  /** How many sandboxes hold compute now, by provider and status (every instance's: `ars_sandboxes_live`). */
  async liveCounts(): Promise<{ provider: ProviderName; status: SandboxStatus; count: number }[]> {
    const groups = await this.sandboxes
      .aggregate<{ _id: { provider: ProviderName; status: SandboxStatus }; count: number }>([
        { $match: { status: { $in: [...LIVE_STATUSES] } } },
        { $group: { _id: { provider: '$provider', status: '$status' }, count: { $sum: 1 } } },
      ])
      .toArray();
    return groups.map((group) => ({ provider: group._id.provider, status: group._id.status, count: group.count }));
  }

  /**
   * Writes the record (`provisioning`, no provider id yet) holding one of its user's live slots, and
   * its first lifecycle event. Not created when a live sandbox already holds the same reuse key (a
   * racing identical create won) or the user holds every live slot. The slot is a unique key, so
   * racing creates never hold more slots than the limit: a create that lost a slot to another
   * tries a free one again.
   */
  async create(id: string, input: NewSandbox, first: LifecycleEntry = { eventType: 'provisioning' }): Promise<CreateResult> {
    const now = new Date();
    const doc: SandboxDoc = {
      _id: id,
      sandbox_id: null,
      userId: input.userId,
      repo_id: input.repoId,
      status: 'provisioning',
      base_branch: input.baseBranch,
      working_branch: input.workingBranch,
      root_directory: input.rootDirectory,
      preview_url: null,
      created_at: now,
      last_active_at: now,
      error: null,
      provider: input.provider,
      runId: input.runId,
      dir: null,
      ...(input.reuseKey !== undefined ? { reuse_key: input.reuseKey } : {}),
      instanceId: input.instanceId ?? null,
      heartbeat_at: input.instanceId !== undefined ? now : null,
      restored_from: input.restoredFrom ?? null,
      workspace_session_id: input.workspaceSessionId ?? null,
      lifecycle_seq: 1,
    };
    const limit = this.limits.maxLivePerUser;
    // Each lost race means another create took a slot: after `limit` of them every slot is taken.
    for (let attempt = 0; attempt <= limit + 2; attempt += 1) {
      const free = await this.freeSlots(input.userId);
      const slot = free[Math.floor(Math.random() * free.length)];
      if (slot === undefined) return { kind: 'user_full', limit };
      doc.live_slot = slot;
      try {
        await this.sandboxes.insertOne(doc);
      } catch (error) {
        const field = duplicateKeyField(error);
        if (field === 'live_slot') continue;
        if (field === 'reuse_key' && input.reuseKey !== undefined) return { kind: 'reuse_key_taken' };
        throw error;
      }
      await this.record(doc, { runId: input.runId, ...first });
      return { kind: 'created', doc };
    }
    return { kind: 'user_full', limit };
  }

  /** The user's live slots no live sandbox holds. */
  private async freeSlots(userId: string): Promise<string[]> {
    const live = await this.sandboxes.find({ userId, status: { $in: [...LIVE_STATUSES] } }, { projection: { live_slot: 1 } }).toArray();
    const held = new Set(live.map((doc) => doc.live_slot));
    const free: string[] = [];
    for (let n = 0; n < this.limits.maxLivePerUser; n += 1) if (!held.has(liveSlot(userId, n))) free.push(liveSlot(userId, n));
    return free;
  }

  async get(userId: string, id: string): Promise<SandboxDoc | null> {
    return this.sandboxes.findOne({ _id: id, userId });
  }

  async byId(id: string): Promise<SandboxDoc | null> {
    return this.sandboxes.findOne({ _id: id });
  }

  /** The live public sandbox holding a reuse key, if any. */
  async liveByReuseKey(reuseKey: string): Promise<SandboxDoc | null> {
    return this.sandboxes.findOne({ reuse_key: reuseKey, status: { $in: [...LIVE_STATUSES] } });
  }

  /** The caller's sandboxes, newest first. */
  async list(userId: string, query: SandboxListQuery): Promise<SandboxDoc[]> {
    const filter: Filter<SandboxDoc> = { userId };
    if (query.repoId !== undefined) filter.repo_id = query.repoId;
    if (query.status !== undefined) filter.status = query.status as SandboxStatus;
    return this.sandboxes.find(filter).sort({ created_at: -1, _id: -1 }).limit(query.limit).toArray();
  }

  /**
   * Applies a change (touching `last_active_at`) and records the lifecycle event (none when `entry`
   * is null: it was recorded when the change was decided; several, in their order, when a list).
   * Leaving the live statuses frees the reuse key and the keeping instance. `onlyIf` makes it
   * conditional on the current status (answers false when it did not hold).
   */
  async transition(
    id: string,
    change: SandboxChange,
    entry: LifecycleEntry | readonly LifecycleEntry[] | null,
    onlyIf?: readonly SandboxStatus[],
  ): Promise<boolean> {
    const entries = entry === null ? [] : isEntryList(entry) ? entry : [entry];
    const now = new Date();
    const set: Partial<SandboxDoc> = { last_active_at: now };
    const unset: Record<string, ''> = {};
    if (change.status !== undefined) {
      set.status = change.status;
      if (!LIVE_STATUSES.includes(change.status)) {
        unset.reuse_key = '';
        unset.live_slot = '';
        set.instanceId = null;
        set.heartbeat_at = null;
      }
    }
    if (change.error !== undefined) set.error = change.error;
    if (change.sandboxId !== undefined) set.sandbox_id = change.sandboxId;
    if (change.dir !== undefined) set.dir = change.dir;
    if (change.previewUrl !== undefined) set.preview_url = change.previewUrl;
    const filter: Filter<SandboxDoc> = onlyIf ? { _id: id, status: { $in: [...onlyIf] } } : { _id: id };
    const update = { $set: set, $inc: { lifecycle_seq: Math.max(1, entries.length) }, ...(Object.keys(unset).length > 0 ? { $unset: unset } : {}) };
    const doc = await this.sandboxes.findOneAndUpdate(filter, update, { returnDocument: 'after' });
    if (doc && entries.length > 0) await this.record(doc, ...entries);
    return doc !== null;
  }

  /**
   * A run takes the live workspace sandbox its instance keeps between runs: only while it is `ready`
   * and no run holds it (one conditional write, so an idle stop or another run cannot take it too).
   */
  async claimForRun(id: string, runId: string, entry: LifecycleEntry): Promise<boolean> {
    const doc = await this.sandboxes.findOneAndUpdate(
      { _id: id, status: 'ready', runId: null },
      { $set: { runId, last_active_at: new Date(), handover_requested_at: null }, $inc: { lifecycle_seq: 1 } },
      { returnDocument: 'after' },
    );
    if (doc) await this.record(doc, { runId, ...entry });
    return doc !== null;
  }

  /**
   * The run of a workspace sandbox ended and the sandbox stays: no run holds it, `instanceId` keeps it
   * (its keeper heartbeats it from now, so the heartbeat is set at once: a sweep must not take it for lost).
   */
  async releaseFromRun(id: string, runId: string, instanceId: string, entry: LifecycleEntry): Promise<boolean> {
    const now = new Date();
    const doc = await this.sandboxes.findOneAndUpdate(
      { _id: id, runId, status: 'ready' },
      { $set: { runId: null, instanceId, heartbeat_at: now, last_active_at: now }, $inc: { lifecycle_seq: 1 } },
      { returnDocument: 'after' },
    );
    if (doc) await this.record(doc, { runId, ...entry });
    return doc !== null;
  }

  /** Asks the instance keeping this live workspace sandbox to stop it (snapshotted) so that another instance can restore it. */
  async requestHandover(id: string): Promise<void> {
    await this.sandboxes.updateOne(
      { _id: id, status: 'ready', handover_requested_at: { $not: { $type: 'date' } } },
      { $set: { handover_requested_at: new Date() } },
    );
  }

  /** Of these live sandboxes, those another instance asked for (`requestHandover`). */
  async handoverRequestedAmong(ids: string[]): Promise<SandboxDoc[]> {
    if (ids.length === 0) return [];
    return this.sandboxes.find({ _id: { $in: ids }, status: 'ready', handover_requested_at: { $type: 'date' } }).toArray();
  }

  /** Records where the provider made the sandbox (its id, and a local directory to release after a restart). */
  async noteProvider(id: string, allocated: AllocatedSandbox): Promise<void> {
    await this.sandboxes.updateOne({ _id: id }, { $set: { sandbox_id: allocated.sandboxId, dir: allocated.dir } });
  }

  /** Records a lifecycle event without changing the record. */
  async event(id: string, entry: LifecycleEntry): Promise<void> {
    const doc = await this.sandboxes.findOneAndUpdate({ _id: id }, { $inc: { lifecycle_seq: 1 } }, { returnDocument: 'after' });
    if (doc) await this.record(doc, entry);
  }

  /** Marks the sandbox used now. */
  async touch(id: string): Promise<void> {
    await this.sandboxes.updateOne({ _id: id }, { $set: { last_active_at: new Date() } });
  }

  /** Marks the sandboxes of live sessions active now (with each heartbeat). */
  async touchMany(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.sandboxes.updateMany({ _id: { $in: ids } }, { $set: { last_active_at: new Date() } });
  }

  /** The keeping instance's heartbeat on its live public sandboxes (not a use: `last_active_at` stays). */
  async heartbeat(instanceId: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.sandboxes.updateMany({ _id: { $in: ids }, instanceId }, { $set: { heartbeat_at: new Date() } });
  }

  /** Of these ready sandboxes, those last used before `before`. */
  async idleAmong(ids: string[], before: Date): Promise<SandboxDoc[]> {
    if (ids.length === 0) return [];
    return this.sandboxes.find({ _id: { $in: ids }, status: 'ready', last_active_at: { $lt: before } }).toArray();
  }

  /** Live public sandboxes whose keeper stopped heartbeating before `before`. */
  async unkeptSince(before: Date): Promise<SandboxDoc[]> {
    return this.sandboxes
      .find({ runId: null, status: { $in: [...LIVE_STATUSES] }, heartbeat_at: { $lt: before } })
      .limit(100)
      .toArray();
  }

  /** The sandbox's newest SANDBOX_LIFECYCLE_EVENTS_MAX lifecycle events, oldest first. */
  async lifecycleOf(sandboxRecordId: string): Promise<LifecycleEventDoc[]> {
    const newest = await this.lifecycle.find({ sandboxRecordId }).sort({ created_at: -1, _id: -1 }).limit(this.limits.lifecycleEventsKept).toArray();
    return newest.reverse();
  }

  /**
   * Inserts the events, in order, with the numbers the record's counter gave them (`lifecycle_seq`,
   * incremented by their count by the write that read `sandbox`: they are its last), then deletes
   * the sandbox's events more than the kept number behind them: a long-lived sandbox keeps its
   * newest events only.
   */
  private async record(sandbox: SandboxDoc, ...entries: LifecycleEntry[]): Promise<void> {
    const seq = sandbox.lifecycle_seq;
    const createdAt = new Date();
    await this.lifecycle.insertMany(
      entries.map((entry, index) => ({
        _id: lifecycleEventId(),
        sandboxRecordId: sandbox._id,
        userId: sandbox.userId,
        event_type: entry.eventType,
        decision_code: entry.decisionCode ?? null,
        worker_run_id: entry.runId ?? sandbox.runId,
        // Payloads carry repository-configured text (the install command): the user reads them back.
        payload: sanitizePayload(entry.payload ?? {}, { knownSecrets: this.secrets }),
        created_at: createdAt,
        ...(seq !== undefined ? { seq: seq - entries.length + 1 + index } : {}),
      })),
    );
    const kept = this.limits.lifecycleEventsKept;
    if (seq !== undefined && seq > kept) await this.lifecycle.deleteMany({ sandboxRecordId: sandbox._id, seq: { $lte: seq - kept } });
  }
}

function isEntryList(entry: LifecycleEntry | readonly LifecycleEntry[]): entry is readonly LifecycleEntry[] {
  return Array.isArray(entry);
}
