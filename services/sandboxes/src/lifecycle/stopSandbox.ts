// How a public sandbox ends. Stopped (idle, or the service shutting down): the dev server is stopped,
// the working tree snapshotted, the compute released; the record stays readable. Failed: `error`
// set, the compute released. Lost (its keeping instance died): failed by whoever sweeps it.
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { SandboxDoc, SandboxStatus } from '../store/collections.js';
import { LIVE_STATUSES, type LifecycleEntry } from '../store/sandboxRecords.js';
import { newSnapshotId } from '../store/snapshots.js';
import type { LifecycleDeps } from './deps.js';
import type { LiveSandbox } from './liveSandboxes.js';
import { trimUserSnapshots } from './snapshotRetention.js';

/** Why a live sandbox stops: unused, the service stopping, or another instance needing a workspace session's sandbox. */
export type StopReason = 'idle_timeout' | 'service_shutdown' | 'workspace_handover';

export const SANDBOX_LOST_ERROR = 'the sandbox was lost: the sandboxes service instance keeping it stopped';

/**
 * Stops a live sandbox of this instance (the first stop wins); answers false when it was not ours to stop.
 * A public sandbox is `stopped` at once (a new create of the same repository and branches starts
 * afresh from the repository, never from this snapshot). A workspace session's sandbox stays live,
 * holding the session's reuse key, until its snapshot is recorded: a run of the session arriving
 * meanwhile is held, and then restores that snapshot rather than starting from an empty checkout.
 */
export async function stopSandbox(deps: LifecycleDeps, live: LiveSandbox, reason: StopReason): Promise<boolean> {
  if (live.stopping) return false;
  live.stopping = true;
  const stopEvent: LifecycleEntry =
    reason === 'idle_timeout'
      ? { eventType: 'idle_stopped', decisionCode: 'idle_timeout', payload: { idleTimeoutMs: deps.settings.idleTimeoutMs } }
      : { eventType: 'stopped', decisionCode: reason };
  const from: SandboxStatus[] = ['ready', ...(reason === 'service_shutdown' ? (['provisioning'] as const) : [])];
  const stopped = { status: 'stopped', previewUrl: null } as const;
  // The status stays (and the reuse key with it) while the snapshot is taken: only the decision is recorded now.
  const claimed = await deps.sandboxRecords.transition(live.recordId, live.workspaceSession ? {} : stopped, stopEvent, from);
  if (!claimed) {
    live.stopping = false;
    return false;
  }
  live.provisioning.abort();
  await live.provisioned;
  await stopDevServer(live);
  if (live.allocated) await snapshot(deps, live);
  if (live.workspaceSession) await deps.sandboxRecords.transition(live.recordId, stopped, null, from);
  await release(deps, live);
  return true;
}

/** Ends a sandbox of this instance `failed` with `error` and the lifecycle's decision code, and releases it. */
export async function failSandbox(deps: LifecycleDeps, live: LiveSandbox, error: string, decisionCode: string): Promise<void> {
  live.stopping = true;
  live.provisioning.abort();
  await stopDevServer(live);
  await deps.sandboxRecords.transition(
    live.recordId,
    { status: 'failed', error, previewUrl: null },
    { eventType: 'failed', decisionCode, payload: { error } },
    LIVE_STATUSES,
  );
  await release(deps, live);
}

/** Live public sandboxes whose keeper stopped heartbeating before `before` (and that are not ours): failed, released. */
export async function sweepUnkeptSandboxes(deps: LifecycleDeps, before: Date): Promise<number> {
  let ended = 0;
  for (const doc of await deps.sandboxRecords.unkeptSince(before)) {
    if (deps.live.get(doc._id)) continue;
    const claimed = await deps.sandboxRecords.transition(
      doc._id,
      { status: 'failed', error: SANDBOX_LOST_ERROR, previewUrl: null },
      { eventType: 'lost', decisionCode: 'sandbox_lost', payload: { instanceId: doc.instanceId } },
      LIVE_STATUSES,
    );
    if (!claimed) continue;
    ended += 1;
    deps.logger.warn({ sandbox_record_id: doc._id, instance_id: doc.instanceId }, 'sandbox lost (its keeping instance stopped): failed');
    await releaseRecord(deps, doc);
  }
  return ended;
}

async function stopDevServer(live: LiveSandbox): Promise<void> {
  if (!live.dev) return;
  live.dev.controller.abort();
  await live.dev.done;
}

async function snapshot(deps: LifecycleDeps, live: LiveSandbox): Promise<void> {
  const allocated = live.allocated;
  const doc = await deps.sandboxRecords.byId(live.recordId);
  if (!allocated || !doc) return;
  const snapshotId = newSnapshotId();
  const file = join(deps.settings.snapshotRoot, `${snapshotId}.tar.gz`);
  try {
    await mkdir(deps.settings.snapshotRoot, { recursive: true });
    const { bytes } = await deps.provider.snapshot(allocated, file);
    await deps.snapshots.insert({
      _id: snapshotId,
      userId: doc.userId,
      repo_id: doc.repo_id,
      sandbox_record_id: doc._id,
      base_branch: doc.base_branch,
      working_branch: doc.working_branch,
      root_directory: doc.root_directory,
      provider: deps.provider.name,
      workspace_session_id: doc.workspace_session_id ?? null,
      file,
      bytes,
      created_at: new Date(),
    });
    await deps.sandboxRecords.event(doc._id, { eventType: 'snapshot_created', payload: { snapshot_id: snapshotId, bytes } });
    await trimUserSnapshots(deps, doc.userId, deps.settings.lostAfterMs).catch((error: unknown) =>
      deps.logger.warn({ err: error, user_id: doc.userId }, 'snapshots beyond the per-user maximum not deleted (the next snapshot tries again)'),
    );
  } catch (error) {
    await rm(file, { force: true }).catch(() => undefined);
    const message = error instanceof Error ? error.message : String(error);
    deps.logger.warn({ err: error, sandbox_record_id: doc._id }, 'snapshot failed');
    await deps.sandboxRecords.event(doc._id, { eventType: 'snapshot_failed', payload: { error: message } });
  }
}

async function release(deps: LifecycleDeps, live: LiveSandbox): Promise<void> {
  deps.live.remove(live.recordId);
  const doc = await deps.sandboxRecords.byId(live.recordId);
  const ref = live.allocated ? { sandboxId: live.allocated.sandboxId, dir: live.allocated.dir } : doc ? { sandboxId: doc.sandbox_id, dir: doc.dir } : null;
  if (!ref || (!ref.sandboxId && !ref.dir)) return;
  await deps.provider.release(ref);
  await deps.sandboxRecords.event(live.recordId, { eventType: 'destroyed', payload: { sandbox_id: ref.sandboxId } });
}

async function releaseRecord(deps: LifecycleDeps, doc: SandboxDoc): Promise<void> {
  if (!doc.sandbox_id && !doc.dir) return;
  await deps.provider
    .release({ sandboxId: doc.sandbox_id, dir: doc.dir })
    .catch((error: unknown) => deps.logger.warn({ err: error }, 'lost sandbox not released'));
  await deps.sandboxRecords.event(doc._id, { eventType: 'destroyed', payload: { sandbox_id: doc.sandbox_id } });
}
