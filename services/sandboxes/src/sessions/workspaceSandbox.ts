// A workspace session's sandbox (`POST /runs` `workspaceSessionId`) in the life of its runs: a run
// takes the live one this instance keeps, or makes a new one (restored from the session's newest
// snapshot when there is one); when the run ends the sandbox stays, kept like a public sandbox, and
// the keeper stops it (snapshotted) once idle. Runs lets one run of a workspace session live at a time.
import { access } from 'node:fs/promises';
import type { RunRequestedData } from '@ars/bus';
import type { AbortReason } from '../domain/outcome.js';
import { workspaceReuseKey } from '../domain/workspaceSession.js';
import { stopSandbox } from '../lifecycle/stopSandbox.js';
import type { AllocatedSandbox } from '../providers/provider.js';
import type { SandboxDoc, SessionResult, SnapshotDoc } from '../store/collections.js';
import { newSandboxRecordId, runSandbox } from '../store/sandboxRecords.js';
import type { SessionDeps } from './deps.js';

/** A workspace session's sandbox, made: it stays after the run. */
export interface KeptWorkspace {
  userId: string;
  allocated: AllocatedSandbox;
  shuttingDown: boolean;
}

/** The workspace session's sandbox that stays after this run; undefined: the run has none (or no sandbox was made). */
export function workspaceOf(request: RunRequestedData, allocated: AllocatedSandbox | null, reason: AbortReason | null): KeptWorkspace | undefined {
  if (!request.workspaceSessionId || !allocated) return undefined;
  return { userId: request.userId, allocated, shuttingDown: reason === 'shutdown' };
}

/** What a run of a workspace session leaves the queue with. */
export type WorkspaceTake =
  /** The live sandbox this instance kept since the session's last run: used as it is. */
  | { kind: 'kept'; recordId: string; allocated: AllocatedSandbox }
  /** A new record: the provider makes the sandbox, from the snapshot when there is one. */
  | { kind: 'new'; recordId: string; restoreFrom: string | null }
  /** Another run or another instance holds the session's sandbox now: the run waits in the queue. */
  | { kind: 'held' }
  | { kind: 'user_full' };

export async function takeWorkspaceSandbox(deps: SessionDeps, request: RunRequestedData, workspaceSessionId: string): Promise<WorkspaceTake> {
  const key = workspaceReuseKey(request.userId, workspaceSessionId);
  const live = await deps.sandboxRecords.liveByReuseKey(key);
  if (live) return takeLive(deps, request, live);
  const snapshot = await restorableSnapshot(deps, request, workspaceSessionId);
  const created = await deps.sandboxRecords.create(
    newSandboxRecordId(),
    {
      ...runSandbox(request, deps.provider.name),
      reuseKey: key,
      workspaceSessionId,
      restoredFrom: snapshot?._id ?? null,
    },
    {
      eventType: 'requested',
      decisionCode: snapshot ? 'workspace_restore' : 'workspace_session',
      payload: { workspace_session_id: workspaceSessionId, ...(snapshot ? { snapshot_id: snapshot._id } : {}) },
    },
  );
  if (created.kind === 'user_full') return { kind: 'user_full' };
  // A racing run of the same session made it first (runs allows one live run: a replayed request).
  if (created.kind === 'reuse_key_taken') return { kind: 'held' };
  return { kind: 'new', recordId: created.doc._id, restoreFrom: snapshot?.file ?? null };
}

async function takeLive(deps: SessionDeps, request: RunRequestedData, live: SandboxDoc): Promise<WorkspaceTake> {
  if (live.runId !== null) return { kind: 'held' };
  const kept = deps.lifecycle.live.take(live._id);
  if (!kept?.allocated) {
    // Kept by another instance (or stopping here): it stops it, snapshotted, and this run restores that.
    if (!deps.lifecycle.live.get(live._id)) await deps.sandboxRecords.requestHandover(live._id);
    return { kind: 'held' };
  }
  const claimed = await deps.sandboxRecords.claimForRun(live._id, request.runId, {
    eventType: 'reused',
    decisionCode: 'workspace_session',
    payload: { workspace_session_id: live.workspace_session_id ?? null },
  });
  if (claimed) return { kind: 'kept', recordId: live._id, allocated: kept.allocated };
  // It left `ready` in between (swept, failed): nothing of it is worth keeping.
  await deps.provider.release({ sandboxId: kept.allocated.sandboxId, dir: kept.allocated.dir }).catch(() => undefined);
  return { kind: 'held' };
}

/** The session's newest snapshot, when this provider can restore it and its archive is still there. */
async function restorableSnapshot(deps: SessionDeps, request: RunRequestedData, workspaceSessionId: string): Promise<SnapshotDoc | null> {
  const snapshot = await deps.lifecycle.snapshots.newestOfWorkspace(request.userId, workspaceSessionId);
  if (!snapshot || snapshot.provider !== deps.provider.name || snapshot.repo_id !== request.repoId) return null;
  const there = await access(snapshot.file).then(
    () => true,
    () => false,
  );
  return there ? snapshot : null;
}

/**
 * The run ended and its workspace sandbox stays: no run holds it, this instance keeps it (idle stop,
 * snapshot). At a shutdown the keeper has already stopped what it kept, so it is stopped here at once
 * (snapshotted, so the session's next run restores it). False when the record was no longer the
 * run's (swept as lost meanwhile): the caller ends it as any run's sandbox.
 */
export async function keepWorkspaceSandbox(
  deps: SessionDeps,
  input: { runId: string; userId: string; sandboxRecordId: string; allocated: AllocatedSandbox; result: SessionResult; shuttingDown: boolean },
): Promise<boolean> {
  const kept = await deps.sandboxRecords.releaseFromRun(input.sandboxRecordId, input.runId, deps.instanceId, {
    eventType: 'run_ended',
    decisionCode: input.result.failure ?? input.result.status,
    payload: { eventCount: input.result.eventCount },
  });
  if (!kept) return false;
  const live = deps.lifecycle.live.keep(input.sandboxRecordId, input.userId, input.allocated);
  if (input.shuttingDown) await stopSandbox(deps.lifecycle, live, 'service_shutdown');
  return true;
}
