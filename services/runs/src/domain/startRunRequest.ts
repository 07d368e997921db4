import { HARNESSES, MAX_PROMPT_LENGTH, type Harness, type InternalStartRunBody } from '@ars/contract';
import { branchNameProblem, relativePathProblem } from '@ars/git-refs';
import { AppError } from '@ars/errors';
import { tooManyCharacters } from '@ars/http-app';
import { followUpIdProblem, type FollowUpField } from './followUps.js';
import { generatedWorkingBranch } from './workingBranch.js';

/** What a new run is made of, every default applied (the body's types already checked by `INTERNAL_START_RUN_BODY_SCHEMA`). */
export interface RunPlan {
  repoId: string;
  prompt: string;
  harness: Harness;
  branch: { base: string; working: string; createBranch: boolean };
  rootDirectory: string | null;
  conversationId: string | null;
  workspaceSessionId: string | null;
  mode: string | null;
  /** The harness's model; null: the harness's default. */
  model: string | null;
}

/**
 * CONTRACT.md, POST /runs, Body: `harness` defaults to codex; `baseBranch` to the repository's
 * default branch, else `main`; `workingBranch` to the base branch, or — with `createBranch` and no
 * name — a name generated from the idempotency key and the request; a given working branch must
 * differ from the base. Branch names are Git refs; `rootDirectory` is relative without traversal.
 * `conversationId` and `workspaceSessionId`, when given (not null), are 1–200 characters, not blank.
 * Throws 400 BAD_REQUEST naming the field.
 */
export function planRun(body: InternalStartRunBody, context: { repoDefaultBranch: string | null; idempotencyKey: string; bodyHash: string }): RunPlan {
  const tooLong = tooManyCharacters('prompt', body.prompt, MAX_PROMPT_LENGTH);
  if (tooLong) throw AppError.badRequest(tooLong);
  if (body.prompt.trim().length === 0) throw AppError.badRequest('prompt must not be empty');
  const harness = body.harness ?? 'codex';
  if (!HARNESSES.includes(harness)) throw AppError.badRequest(`harness must be one of ${HARNESSES.join(', ')}`);

  const base = body.baseBranch ?? context.repoDefaultBranch ?? 'main';
  checkBranch('baseBranch', base);
  const createBranch = body.createBranch ?? false;
  let working: string;
  if (body.workingBranch !== undefined) {
    checkBranch('workingBranch', body.workingBranch);
    if (body.workingBranch === base) throw AppError.badRequest('workingBranch must differ from the base branch');
    working = body.workingBranch;
  } else {
    working = createBranch ? generatedWorkingBranch(context.idempotencyKey, context.bodyHash) : base;
  }

  let rootDirectory: string | null = null;
  if (body.rootDirectory !== undefined && body.rootDirectory !== null) {
    const problem = relativePathProblem(body.rootDirectory);
    if (problem) throw AppError.badRequest(`rootDirectory ${problem}`);
    rootDirectory = body.rootDirectory.replace(/\/+$/, '');
  }

  return {
    repoId: body.repoId,
    prompt: body.prompt,
    harness,
    branch: { base, working, createBranch },
    rootDirectory,
    conversationId: followUpId('conversationId', body.conversationId),
    workspaceSessionId: followUpId('workspaceSessionId', body.workspaceSessionId),
    mode: body.mode ?? null,
    model: body.model ?? null,
  };
}

function followUpId(field: FollowUpField, id: string | null | undefined): string | null {
  if (id === undefined || id === null) return null;
  const problem = followUpIdProblem(field, id);
  if (problem) throw AppError.badRequest(problem);
  return id;
}

function checkBranch(field: string, name: string): void {
  const problem = branchNameProblem(name);
  if (problem) throw AppError.badRequest(`${field} is not a valid branch name: it ${problem}`);
}
