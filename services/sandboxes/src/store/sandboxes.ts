import { randomBytes } from 'node:crypto';
import type { Collection, Db } from '@ars/mongo';
import { COLLECTIONS, type LifecycleEventDoc, type SandboxDoc, type SandboxStatus } from './collections.js';

export interface NewSandbox {
  userId: string;
  repoId: string;
  baseBranch: string;
  workingBranch: string;
  rootDirectory: string | null;
  runId: string | null;
}

export interface LifecycleEntry {
  eventType: string;
  decisionCode?: string | null;
  runId?: string | null;
  payload?: Record<string, unknown>;
}

export function newSandboxRecordId(): string {
  return `sbx_${randomBytes(12).toString('hex')}`;
}

/** Sandbox records and their lifecycle events. */
export class SandboxStore {
  private readonly sandboxes: Collection<SandboxDoc>;
  private readonly lifecycle: Collection<LifecycleEventDoc>;

  constructor(db: Db) {
    this.sandboxes = db.collection<SandboxDoc>(COLLECTIONS.sandboxes);
    this.lifecycle = db.collection<LifecycleEventDoc>(COLLECTIONS.lifecycleEvents);
  }

  /** Writes the record (`provisioning`, no provider id yet) and its first lifecycle event. */
  async create(id: string, input: NewSandbox): Promise<SandboxDoc> {
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
      provider: 'local',
      runId: input.runId,
    };
    await this.sandboxes.insertOne(doc);
    await this.record(doc, { eventType: 'provisioning', runId: input.runId });
    return doc;
  }

  async get(userId: string, id: string): Promise<SandboxDoc | null> {
    return this.sandboxes.findOne({ _id: id, userId });
  }

  /** Moves the record to `status` (with `error` when failed), touches `last_active_at`, records the event. */
  async transition(
    id: string,
    change: { status: SandboxStatus; error?: string | null; sandboxId?: string },
    entry: LifecycleEntry,
  ): Promise<void> {
    const now = new Date();
    const set: Partial<SandboxDoc> = { status: change.status, last_active_at: now };
    if (change.error !== undefined) set.error = change.error;
    if (change.sandboxId !== undefined) set.sandbox_id = change.sandboxId;
    const doc = await this.sandboxes.findOneAndUpdate({ _id: id }, { $set: set }, { returnDocument: 'after' });
    if (doc) await this.record(doc, entry);
  }

  /** Marks the sandbox active now (while its session runs). */
  async touch(id: string): Promise<void> {
    await this.sandboxes.updateOne({ _id: id }, { $set: { last_active_at: new Date() } });
  }

  /** Marks the sandboxes of live sessions active now (with each heartbeat). */
  async touchMany(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.sandboxes.updateMany({ _id: { $in: ids } }, { $set: { last_active_at: new Date() } });
  }

  async lifecycleOf(sandboxRecordId: string): Promise<LifecycleEventDoc[]> {
    return this.lifecycle.find({ sandboxRecordId }).sort({ created_at: 1, _id: 1 }).toArray();
  }

  private async record(sandbox: SandboxDoc, entry: LifecycleEntry): Promise<void> {
    await this.lifecycle.insertOne({
      _id: `sle_${randomBytes(12).toString('hex')}`,
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
