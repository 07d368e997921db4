// `run.requested` → a sandbox and a running session (or a defined end: cancelled, too late, not allocatable).
import type { RunRequestedData } from '@ars/bus';
import { isAppError } from '@ars/errors';
import { urlPassword } from '@ars/sanitize';
import { cancelled, failed, type AbortReason } from '../domain/outcome.js';
import { runtimeProvider } from '../domain/runtimeProvider.js';
import { standInExecutable } from '../harness/index.js';
import { AllocationError, type AllocatedSandbox } from '../providers/provider.js';
import type { SessionDoc, SessionResult } from '../store/collections.js';
import { newSandboxRecordId } from '../store/sandboxes.js';
import type { SessionDeps } from './deps.js';
import { endSession } from './endSession.js';
import { PublishError, publishWithRetry } from './publish.js';
import { runSession } from './runSession.js';

/**
 * Idempotent per run: the session document (`_id` = runId) is claimed once; a redelivered request,
 * or one for a run cancelled before it arrived, starts nothing. Resolves once the harness was
 * started (or the run ended); the session then runs on its own.
 */
export async function startRun(deps: SessionDeps, request: RunRequestedData, now: Date = new Date()): Promise<void> {
  const { runId, userId } = request;
  const log = deps.logger.child({ run_id: runId });

  const existing = await deps.sessions.get(runId);
  if (existing) return alreadyThere(deps, existing, request);

  if (request.startBy !== undefined && Number.isFinite(Date.parse(request.startBy)) && now.getTime() > Date.parse(request.startBy)) {
    const result = failed('sandbox_allocation', `the run was not started: its start deadline (${request.startBy}) had passed when the request arrived`, 0);
    const inserted = await deps.sessions.insertFinished(runId, userId, result);
    if (inserted !== true) return alreadyThere(deps, inserted, request);
    log.warn({ start_by: request.startBy }, 'run request arrived after its start deadline: not started');
    deps.kickRelay();
    return;
  }

  const sandboxRecordId = newSandboxRecordId();
  const claim = await deps.sessions.claim(runId, userId, deps.instanceId, sandboxRecordId);
  if (!claim.claimed) return alreadyThere(deps, claim.existing, request);

  const { session: live, end } = deps.live.add(runId, userId, sandboxRecordId);
  const signal = live.controller.signal;
  let allocated: AllocatedSandbox | null = null;
  const stop = async (result: SessionResult): Promise<void> => {
    await endSession(deps, { runId, sandboxRecordId, sandbox: { sandboxId: allocated?.sandboxId ?? null, dir: allocated?.dir ?? null }, result });
    end();
  };
  const abortedResult = (): SessionResult => abortResult(live.reason, 0);

  try {
    await deps.sandboxes.create(sandboxRecordId, {
      userId,
      repoId: request.repoId,
      baseBranch: request.branch.base,
      workingBranch: request.branch.working,
      rootDirectory: request.rootDirectory ?? null,
      runId,
      provider: deps.provider.name,
    });

    let cloneUrl: string;
    try {
      cloneUrl = (await deps.catalog.repo(userId, request.repoId, signal)).clone_url;
      live.secrets.push(...urlPassword(cloneUrl));
    } catch (error) {
      if (signal.aborted) return await stop(abortedResult());
      const message =
        isAppError(error) && error.code === 'NOT_FOUND'
          ? 'the repository was not found for this user'
          : `the repository's clone URL could not be obtained from the catalog: ${error instanceof Error ? error.message : String(error)}`;
      return await stop(failed('sandbox_allocation', message, 0));
    }

    try {
      allocated = await deps.provider.allocate({
        sandboxRecordId,
        runId,
        cloneUrl,
        baseBranch: request.branch.base,
        workingBranch: request.branch.working,
        rootDirectory: request.rootDirectory ?? null,
        signal,
      });
    } catch (error) {
      if (signal.aborted) return await stop(abortedResult());
      if (error instanceof AllocationError) return await stop(failed('sandbox_allocation', error.message, 0));
      throw error;
    }
    await deps.sessions.markRunning(runId, deps.instanceId, { sandboxId: allocated.sandboxId, sandboxDir: allocated.dir });
    await deps.sandboxes.noteProvider(sandboxRecordId, allocated);
    await deps.sandboxes.transition(sandboxRecordId, { status: 'ready', sandboxId: allocated.sandboxId }, { eventType: 'ready', payload: { harness: request.harness } });
    if (signal.aborted) return await stop(abortedResult());

    try {
      await publishWithRetry(
        deps.bus,
        'runs.sandbox-allocated',
        {
          key: runId,
          type: 'run.sandbox-allocated',
          id: `${runId}:sandbox-allocated`,
          data: { runId, sandboxRecordId, sandboxId: allocated.sandboxId, runtime: { provider: runtimeProviderOf(deps, request.harness), runId: claim.session.sessionId } },
        },
        { deadlineMs: deps.settings.publishDeadlineMs, logger: log },
      );
    } catch (error) {
      if (error instanceof PublishError) return await stop(failed('sandbox_allocation', `the sandbox's allocation could not be reported: ${error.message}`, 0));
      throw error;
    }
    log.info({ sandbox_record_id: sandboxRecordId, sandbox_id: allocated.sandboxId, harness: request.harness }, 'sandbox allocated: session starting');
  } catch (error) {
    log.error({ err: error }, 'sandbox allocation failed');
    await stop(failed('sandbox_allocation', `the sandbox could not be allocated: ${error instanceof Error ? error.message : String(error)}`, 0)).catch((endError: unknown) => {
      log.error({ err: endError }, 'the failed allocation could not be recorded: the sweeper will end the session');
    });
    return;
  }

  const sandbox = allocated;
  // The session runs on its own: the consumer's handler returns and the next request is taken.
  void runSession(deps, { request, sandbox, sandboxRecordId, live })
    .catch((error: unknown) => log.error({ err: error }, 'session ended with an unexpected error'))
    .finally(end);
}

function abortResult(reason: AbortReason | null, eventCount: number): SessionResult {
  if (reason === 'shutdown') return failed('sandbox_lost', 'the sandbox was lost: the sandboxes service stopped during the run', eventCount);
  if (reason === 'timeout') return failed('harness_timeout', 'the run timed out before its harness started', eventCount);
  return cancelled(eventCount);
}

/** A request for a run that already has a session document. */
async function alreadyThere(deps: SessionDeps, existing: SessionDoc, request: RunRequestedData): Promise<void> {
  const log = deps.logger.child({ run_id: request.runId });
  if (existing.state === 'cancel_requested') {
    if (await deps.sessions.finishPlaceholder(request.runId, cancelled(0))) {
      log.info('run cancelled before its request arrived: not started');
      deps.kickRelay();
    }
    return;
  }
  log.info({ state: existing.state }, 'run request already handled: nothing started');
}

/** `runtime.provider` of a run of this harness here: the provider, and whether the stand-in runs it. */
function runtimeProviderOf(deps: SessionDeps, harness: RunRequestedData['harness']): string {
  const standIn = deps.settings.executables[harness] === standInExecutable(harness);
  return runtimeProvider(deps.provider.name, standIn ? 'stand-in' : 'agent');
}
