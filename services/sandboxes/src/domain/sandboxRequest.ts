// CONTRACT.md, POST /sandboxes: the rules of a create-or-reuse request beyond its JSON types.
import { createHash } from 'node:crypto';
import { AppError } from '@ars/errors';
import { branchNameProblem, relativePathProblem } from '@ars/git-refs';

/** The public body, as typed by the route's JSON Schema. */
export interface CreateSandboxBody {
  repoId: string;
  baseBranch?: string | null;
  workingBranch?: string | null;
  createBranch?: boolean;
  rootDirectory?: string | null;
  restoreSnapshotId?: string | null;
  restoreSnapshotProjectId?: string | null;
  restoreSnapshotTeamId?: string | null;
}

/** What is asked of a new or reused sandbox once the defaults are applied. */
export interface SandboxPlan {
  repoId: string;
  baseBranch: string;
  workingBranch: string;
  createBranch: boolean;
  rootDirectory: string | null;
}

export interface SnapshotSelector {
  snapshotId: string;
  projectId: string | null;
  teamId: string | null;
}

/** Field problems first, before anything is looked up: 400 naming the field. */
export function checkSandboxBody(body: CreateSandboxBody): void {
  for (const field of ['baseBranch', 'workingBranch'] as const) {
    const name = body[field];
    if (name === undefined || name === null) continue;
    const problem = branchNameProblem(name);
    if (problem) throw AppError.badRequest(`${field} is not a valid branch name: it ${problem}`);
  }
  const root = body.rootDirectory;
  if (root !== undefined && root !== null) {
    const problem = relativePathProblem(root);
    if (problem) throw AppError.badRequest(`rootDirectory ${problem}`);
  }
  if (body.restoreSnapshotId === undefined || body.restoreSnapshotId === null) {
    if (body.restoreSnapshotProjectId != null || body.restoreSnapshotTeamId != null) {
      throw AppError.badRequest('restoreSnapshotProjectId and restoreSnapshotTeamId need restoreSnapshotId');
    }
  }
}

/**
 * Defaults: `baseBranch` the repository's default branch, else `main`; `workingBranch` the base
 * branch, or with `createBranch` and no name a name derived from the user, repository, base branch
 * and root directory (so the same request names the same branch and finds the same sandbox);
 * `rootDirectory` the repository's own when the request has none.
 */
export function planSandbox(
  body: CreateSandboxBody,
  context: { userId: string; repoDefaultBranch: string | null; repoRootDirectory: string | null },
): SandboxPlan {
  checkSandboxBody(body);
  const baseBranch = body.baseBranch ?? context.repoDefaultBranch ?? 'main';
  const createBranch = body.createBranch ?? false;
  const rootDirectory = normalizedRoot(body.rootDirectory === undefined ? context.repoRootDirectory : body.rootDirectory);
  let workingBranch = body.workingBranch ?? baseBranch;
  if ((body.workingBranch === undefined || body.workingBranch === null) && createBranch) {
    workingBranch = generatedSandboxBranch(context.userId, body.repoId, baseBranch, rootDirectory);
  }
  return { repoId: body.repoId, baseBranch, workingBranch, createBranch, rootDirectory };
}

export function normalizedRoot(root: string | null | undefined): string | null {
  if (root === undefined || root === null) return null;
  const trimmed = root.replace(/\/+$/, '').replace(/^\.\/+/, '');
  return trimmed === '' || trimmed === '.' ? null : trimmed;
}

export function generatedSandboxBranch(userId: string, repoId: string, baseBranch: string, rootDirectory: string | null): string {
  const digest = createHash('sha256')
    .update([userId, repoId, baseBranch, rootDirectory ?? ''].join('\n'), 'utf8')
    .digest('hex');
  return `agent/sandbox-${digest.slice(0, 12)}`;
}

/**
 * What makes a live sandbox reusable for a request: the same caller, repository, base branch,
 * working branch and root directory (docs: services/sandboxes/README.md, "Create or reuse").
 */
export function reuseKey(userId: string, plan: SandboxPlan): string {
  const parts = [userId, plan.repoId, plan.baseBranch, plan.workingBranch, plan.rootDirectory ?? ''];
  return createHash('sha256').update(JSON.stringify(parts), 'utf8').digest('hex');
}

export function snapshotSelector(body: CreateSandboxBody): SnapshotSelector | null {
  if (body.restoreSnapshotId === undefined || body.restoreSnapshotId === null) return null;
  return { snapshotId: body.restoreSnapshotId, projectId: body.restoreSnapshotProjectId ?? null, teamId: body.restoreSnapshotTeamId ?? null };
}
