// POST /sandboxes: create or reuse. A live sandbox of the same caller, repository, base branch,
// working branch and root directory is reused; otherwise a new one is provisioned (or restored from
// one of the caller's snapshots). Answers at once; provisioning goes on in the background.
import { access } from 'node:fs/promises';
import { AppError, isAppError } from '@ars/errors';
import type { CatalogRepo } from '@ars/contract';
import {
  checkSandboxBody,
  normalizedRoot,
  planSandbox,
  reuseKey,
  snapshotSelector,
  type CreateSandboxBody,
  type SandboxPlan,
  type SnapshotSelector,
} from '../domain/sandboxRequest.js';
import type { SandboxDoc, SnapshotDoc } from '../store/collections.js';
import { newSandboxRecordId } from '../store/sandboxRecords.js';
import type { LifecycleDeps } from './deps.js';
import { startProvisioning } from './provisionSandbox.js';

export interface CreateOutcome {
  sandbox: SandboxDoc;
  reused: boolean;
}

export async function createSandbox(deps: LifecycleDeps, userId: string, body: CreateSandboxBody): Promise<CreateOutcome> {
  checkSandboxBody(body);
  const repo = await repositoryOf(deps, userId, body.repoId);
  const selector = snapshotSelector(body);
  if (selector) return restoreSandbox(deps, userId, body, selector);
  const plan = planSandbox(body, { userId, repoDefaultBranch: repo.default_branch, repoRootDirectory: repo.root_directory });
  const key = reuseKey(userId, plan);
  // A racing identical create may win the key between our look and our insert: look again.
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const live = await deps.sandboxRecords.liveByReuseKey(key);
    if (live) {
      const reused = await deps.sandboxRecords.transition(
        live._id,
        {},
        {
          eventType: 'reused',
          decisionCode: 'same_repo_and_branches',
          payload: { repo_id: plan.repoId, base_branch: plan.baseBranch, working_branch: plan.workingBranch, root_directory: plan.rootDirectory },
        },
        ['provisioning', 'ready'],
      );
      const current = reused ? await deps.sandboxRecords.byId(live._id) : null;
      if (current) return { sandbox: current, reused: true };
      continue;
    }
    const created = await deps.sandboxRecords.create(newSandboxRecordId(), newSandbox(deps, userId, plan, key, null), requested(plan, 'new_sandbox'));
    if (created.kind === 'user_full') throw overLiveLimit(created.limit);
    if (created.kind === 'created') {
      startProvisioning(deps, created.doc);
      return { sandbox: created.doc, reused: false };
    }
  }
  throw AppError.conflict('the sandbox is being created by another request; retry');
}

async function restoreSandbox(deps: LifecycleDeps, userId: string, body: CreateSandboxBody, selector: SnapshotSelector): Promise<CreateOutcome> {
  const snapshot = await deps.snapshots.get(userId, selector.snapshotId);
  const inScope =
    snapshot !== null &&
    (selector.projectId === null || selector.projectId === snapshot.repo_id) &&
    (selector.teamId === null || selector.teamId === snapshot.userId);
  if (!snapshot || !inScope) throw AppError.notFound(`snapshot "${selector.snapshotId}" not found`);
  if (snapshot.repo_id !== body.repoId) {
    throw AppError.badRequest(`restoreSnapshotId names a snapshot of another repository (${snapshot.repo_id}), not of repoId ${body.repoId}`);
  }
  if (snapshot.provider !== deps.provider.name) {
    throw AppError.badRequest(
      `restoreSnapshotId names a snapshot taken by the ${snapshot.provider} provider; this service runs the ${deps.provider.name} provider`,
    );
  }
  if (!(await exists(snapshot.file))) throw AppError.conflict(`snapshot "${snapshot._id}" is no longer available (its archive is gone)`);
  const plan = restorePlan(body, snapshot);
  // A restore always makes a new sandbox: it never takes the reuse key of a fresh checkout.
  const created = await deps.sandboxRecords.create(
    newSandboxRecordId(),
    newSandbox(deps, userId, plan, undefined, snapshot._id),
    requested(plan, 'restore_snapshot', snapshot._id),
  );
  if (created.kind === 'user_full') throw overLiveLimit(created.limit);
  if (created.kind !== 'created') throw AppError.internal('the sandbox could not be created');
  startProvisioning(deps, created.doc, { snapshotId: snapshot._id, file: snapshot.file });
  return { sandbox: created.doc, reused: false };
}

/** 409: the caller holds SANDBOX_MAX_LIVE_PER_USER live sandboxes (a reuse would still have been answered). */
function overLiveLimit(limit: number): AppError {
  return AppError.conflict(
    `you already have ${limit} live sandboxes (provisioning or ready, runs' included), the most one user may have: wait until one stops, then retry`,
  );
}

/** The snapshot's branches and root directory; a request naming others is a mistake (400 naming the field). */
function restorePlan(body: CreateSandboxBody, snapshot: SnapshotDoc): SandboxPlan {
  const differs = (field: string, asked: string | null | undefined, had: string | null): void => {
    if (asked !== undefined && asked !== null && asked !== had) throw AppError.badRequest(`${field} "${asked}" differs from the snapshot's (${had ?? 'none'})`);
  };
  differs('baseBranch', body.baseBranch, snapshot.base_branch);
  differs('workingBranch', body.workingBranch, snapshot.working_branch);
  differs('rootDirectory', body.rootDirectory === undefined ? undefined : normalizedRoot(body.rootDirectory), snapshot.root_directory);
  return {
    repoId: snapshot.repo_id,
    baseBranch: snapshot.base_branch,
    workingBranch: snapshot.working_branch,
    createBranch: false,
    rootDirectory: snapshot.root_directory,
  };
}

function newSandbox(deps: LifecycleDeps, userId: string, plan: SandboxPlan, key: string | undefined, restoredFrom: string | null) {
  return {
    userId,
    repoId: plan.repoId,
    baseBranch: plan.baseBranch,
    workingBranch: plan.workingBranch,
    rootDirectory: plan.rootDirectory,
    runId: null,
    provider: deps.provider.name,
    ...(key !== undefined ? { reuseKey: key } : {}),
    instanceId: deps.instanceId,
    restoredFrom,
  };
}

function requested(plan: SandboxPlan, decisionCode: 'new_sandbox' | 'restore_snapshot', snapshotId?: string) {
  return {
    eventType: 'requested',
    decisionCode,
    payload: {
      base_branch: plan.baseBranch,
      working_branch: plan.workingBranch,
      create_branch: plan.createBranch,
      root_directory: plan.rootDirectory,
      ...(snapshotId ? { snapshot_id: snapshotId } : {}),
    },
  };
}

async function repositoryOf(deps: LifecycleDeps, userId: string, repoId: string): Promise<CatalogRepo> {
  try {
    return await deps.catalog.repo(userId, repoId);
  } catch (error) {
    if (isAppError(error) && error.code === 'NOT_FOUND') throw AppError.notFound(`repository "${repoId}" not found`);
    throw error;
  }
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
