import { randomUUID } from 'node:crypto';
import type { OutboxMessage, RunRequestedData } from '@ars/bus';
import {
  IDEMPOTENCY_KEY_HEADER,
  INTERNAL_START_RUN_BODY_SCHEMA,
  REPLAY_ONLY_HEADER,
  REQUEST_HASH_HEADER,
  type CatalogRepo,
  type InternalStartRunBody,
} from '@ars/contract';
import { AppError, isAppError } from '@ars/errors';
import { ok, validateBody, type Router } from '@ars/http-app';
import { idempotencyKeyProblem, requestHash } from '@ars/idempotency';
import { conversationMismatch, liveRunHeldMessage, workspaceSessionMismatch } from '../domain/followUps.js';
import { toRun } from '../domain/runView.js';
import { planRun, type RunPlan } from '../domain/startRunRequest.js';
import type { RunDoc } from '../store/collections.js';
import type { RunsDeps } from './deps.js';
import { pathParam, requestBody } from './params.js';

/** CONTRACT.md, POST /runs, Body, plus the internal `model` (the types; the rules beyond types are `planRun`'s). */
const parseStartRun = validateBody<InternalStartRunBody>(INTERNAL_START_RUN_BODY_SCHEMA);

/**
 * `POST /internal/users/:userId/runs` (headers `Idempotency-Key`, `X-Request-Hash`; the public body,
 * plus `model` from the system's own callers: the gateway's public schema refuses it)
 * → 202 `{...Run, replayed}`. The (user, key) record decides: same hash replays the run it made,
 * another hash is 409 IDEMPOTENCY_CONFLICT. A new run is written `pending` with its `runs.requested`
 * message in one document write. Racing requests of one key share the record's run id, and the
 * run's `_id` lets exactly one of them write it; the others answer it as a replay. With
 * `X-Replay-Only: true` nothing is made: a key that made no run answers 204.
 * Follow-ups (issue 16): a conversation bound to another repository or harness, or a workspace
 * session bound to another repository, is 409 CONFLICT before the key is claimed; a conversation or
 * workspace session with a live run is 409 CONFLICT naming that run (the unique live-slot indexes
 * decide it at the insert). A replay of the live run itself is answered before either check.
 */
export function startRun(router: Router, deps: RunsDeps): void {
  router.post('/users/:userId/runs', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const key = ctx.get(IDEMPOTENCY_KEY_HEADER);
    const keyProblem = idempotencyKeyProblem(key || undefined);
    if (keyProblem) throw AppError.badRequest(keyProblem);
    const raw = requestBody(ctx);
    const hash = ctx.get(REQUEST_HASH_HEADER);
    if (!hash) throw AppError.badRequest(`${REQUEST_HASH_HEADER} is required (SHA-256 of the canonical request body)`);
    if (hash !== requestHash(raw ?? {})) throw AppError.badRequest(`${REQUEST_HASH_HEADER} does not match the request body`);
    const body = parseStartRun(raw);

    const answer = (doc: RunDoc, replayed: boolean) => ok(ctx, { ...toRun(doc), replayed }, 202);
    const conflict = () => AppError.idempotencyConflict();

    const known = await deps.idempotency.find(userId, key);
    if (known && known.bodyHash !== hash) throw conflict();
    if (known) {
      const stored = await deps.runs.findOwned(userId, known.runId);
      if (stored) return answer(stored, true);
    }
    if (ctx.get(REPLAY_ONLY_HEADER) === 'true') {
      ctx.status = 204;
      return;
    }

    const repo = await ownedRepo(deps, userId, body.repoId);
    const plan = planRun(body, { repoDefaultBranch: repo.default_branch, idempotencyKey: key, bodyHash: hash });
    // Before the key is claimed, so a start refused for its binding does not use up its key.
    await checkBindings(deps, userId, plan);
    const record = known ?? (await deps.idempotency.claim({ userId, key, bodyHash: hash, runId: randomUUID(), createdAt: new Date() }));
    if (record.bodyHash !== hash) throw conflict();

    const now = new Date();
    const { settings } = deps;
    const doc: RunDoc = {
      _id: record.runId,
      userId,
      aiCallId: randomUUID(),
      repoId: plan.repoId,
      harness: plan.harness,
      prompt: plan.prompt,
      status: 'pending',
      branch: plan.branch,
      // An omitted rootDirectory is the repository's; an explicit null is the repository root.
      rootDirectory: body.rootDirectory === undefined ? (plan.rootDirectory ?? repo.root_directory) : plan.rootDirectory,
      conversationId: plan.conversationId,
      workspaceSessionId: plan.workspaceSessionId,
      mode: plan.mode,
      model: plan.model,
      sandboxRecordId: null,
      sandboxId: null,
      runtime: { provider: null, runId: null },
      error: null,
      failure: null,
      idempotencyKey: key,
      bodyHash: hash,
      timeoutMs: settings.timeoutMs,
      startBy: new Date(now.getTime() + settings.startTimeoutMs),
      lostBy: new Date(now.getTime() + settings.timeoutMs + settings.lostGraceMs),
      nextSeq: 0,
      finishedBy: null,
      finishedEventCount: null,
      heldFinish: null,
      cancelRequestedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    const inserted = await deps.runs.insert(doc, [runRequested(doc)]);
    if (inserted.outcome === 'inserted') {
      deps.kickOutbox();
      deps.logger.info({ run_id: doc._id, repo_id: doc.repoId, harness: doc.harness }, 'run created');
      return answer(doc, false);
    }
    if (inserted.outcome === 'slot_held') {
      // The key stays claimed with no run: the same request, retried once the holder ended, makes
      // the run under the record's run id (the replay lookup above finds no run and falls through).
      throw AppError.conflict(liveRunHeldMessage(inserted.slot, inserted.id, inserted.holderRunId));
    }
    const stored = await deps.runs.findOwned(userId, record.runId);
    if (!stored) throw AppError.internal('the run of this Idempotency-Key could not be read');
    return answer(stored, true);
  });
}

async function ownedRepo(deps: RunsDeps, userId: string, repoId: string): Promise<CatalogRepo> {
  try {
    return await deps.catalog.repo(userId, repoId);
  } catch (error) {
    if (isAppError(error) && error.code === 'NOT_FOUND') throw AppError.notFound('Repository not found');
    throw error;
  }
}

/**
 * Binds the conversation and workspace session the run names to its repository (and harness) when
 * this is their first run, else checks the run against their binding: 409 CONFLICT saying so.
 */
async function checkBindings(deps: RunsDeps, userId: string, plan: RunPlan): Promise<void> {
  const createdAt = new Date();
  if (plan.conversationId !== null) {
    const asked = { repoId: plan.repoId, harness: plan.harness };
    const bound = await deps.followUps.bindConversation({ userId, conversationId: plan.conversationId, ...asked, createdAt });
    const mismatch = conversationMismatch(plan.conversationId, bound, asked);
    if (mismatch) throw AppError.conflict(mismatch);
  }
  if (plan.workspaceSessionId !== null) {
    const asked = { repoId: plan.repoId };
    const bound = await deps.followUps.bindWorkspaceSession({ userId, workspaceSessionId: plan.workspaceSessionId, ...asked, createdAt });
    const mismatch = workspaceSessionMismatch(plan.workspaceSessionId, bound, asked);
    if (mismatch) throw AppError.conflict(mismatch);
  }
}

/** The `runs.requested` message of a new run (shared/bus topics; the flow in README). */
export function runRequested(doc: RunDoc): OutboxMessage<RunRequestedData> {
  return {
    topic: 'runs.requested',
    // The runs of one workspace session share one partition, so one sandboxes instance (the one
    // keeping the session's sandbox between runs) takes them all while partitions stay where they are.
    key: doc.workspaceSessionId ? `workspace:${doc.userId}:${doc.workspaceSessionId}` : doc._id,
    type: 'run.requested',
    id: `${doc._id}:requested`,
    data: {
      runId: doc._id,
      userId: doc.userId,
      repoId: doc.repoId,
      harness: doc.harness,
      prompt: doc.prompt,
      branch: doc.branch,
      rootDirectory: doc.rootDirectory,
      model: doc.model ?? null,
      agentId: null,
      mode: doc.mode,
      conversationId: doc.conversationId,
      workspaceSessionId: doc.workspaceSessionId,
      timeoutMs: doc.timeoutMs,
      startBy: doc.startBy.toISOString(),
    },
  };
}
