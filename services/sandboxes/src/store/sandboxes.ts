import { randomBytes } from 'node:crypto';
import type { Collection, Db, Filter } from '@ars/mongo';
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
  previewUrl?: string | null;
}

export interface SandboxListQuery {
  repoId?: string;
  status?: string;
  limit: number;
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

function isDuplicateKey(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}

/** Sandbox records and their lifecycle events. */
export class SandboxStore {
  private readonly sandboxes: Collection<SandboxDoc>;
  private readonly lifecycle: Collection<LifecycleEventDoc>;

  constructor(db: Db) {
    this.sandboxes = db.collection<SandboxDoc>(COLLECTIONS.sandboxes);
    this.lifecycle = db.collection<LifecycleEventDoc>(COLLECTIONS.lifecycleEvents);
  }

  /**
   * Writes the record (`provisioning`, no provider id yet) and its first lifecycle event. Answers
   * null when a live sandbox already holds the same reuse key (a racing identical create won).
   */
  async create(id: string, input: NewSandbox, first: LifecycleEntry = { eventType: 'provisioning' }): Promise<SandboxDoc | null> {
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
    };
    try {
      await this.sandboxes.insertOne(doc);
    } catch (error) {
      if (input.reuseKey !== undefined && isDuplicateKey(error)) return null;
      throw error;
    }
    await this.record(doc, { runId: input.runId, ...first });
    return doc;
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
   * Applies a change (touching `last_active_at`) and records the lifecycle event. Leaving the live
   * statuses frees the reuse key and the keeping instance. `onlyIf` makes it conditional on the
   * current status (answers false when it did not hold).
   */
  async transition(id: string, change: SandboxChange, entry: LifecycleEntry, onlyIf?: readonly SandboxStatus[]): Promise<boolean> {
    const now = new Date();
    const set: Partial<SandboxDoc> = { last_active_at: now };
    const unset: Record<string, ''> = {};
    if (change.status !== undefined) {
      set.status = change.status;
      if (!LIVE_STATUSES.includes(change.status)) {
        unset.reuse_key = '';
        set.instanceId = null;
        set.heartbeat_at = null;
      }
    }
    if (change.error !== undefined) set.error = change.error;
    if (change.sandboxId !== undefined) set.sandbox_id = change.sandboxId;
    if (change.previewUrl !== undefined) set.preview_url = change.previewUrl;
    const filter: Filter<SandboxDoc> = onlyIf ? { _id: id, status: { $in: [...onlyIf] } } : { _id: id };
    const update = Object.keys(unset).length > 0 ? { $set: set, $unset: unset } : { $set: set };
    const doc = await this.sandboxes.findOneAndUpdate(filter, update, { returnDocument: 'after' });
    if (doc) await this.record(doc, entry);
    return doc !== null;
  }

  /** Records where the provider made the sandbox (its id, and a local directory to release after a restart). */
  async noteProvider(id: string, allocated: AllocatedSandbox): Promise<void> {
    await this.sandboxes.updateOne({ _id: id }, { $set: { sandbox_id: allocated.sandboxId, dir: allocated.dir } });
  }

  /** Records a lifecycle event without changing the record. */
  async event(id: string, entry: LifecycleEntry): Promise<void> {
    const doc = await this.sandboxes.findOne({ _id: id });
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

  async lifecycleOf(sandboxRecordId: string): Promise<LifecycleEventDoc[]> {
    return this.lifecycle.find({ sandboxRecordId }).sort({ created_at: 1, _id: 1 }).toArray();
  }

  private async record(sandbox: SandboxDoc, entry: LifecycleEntry): Promise<void> {
    await this.lifecycle.insertOne({
      _id: lifecycleEventId(),
      sandboxRecordId: sandbox._id,
      userId: sandbox.userId,
      event_type: entry.eventType,
      decision_code: entry.decisionCode ?? null,
      worker_run_id: entry.runId ?? sandbox.runId,
      payload: entry.payload ?? {},
      created_at: new Date(),
    });
  }
}
